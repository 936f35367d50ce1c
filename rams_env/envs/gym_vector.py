"""Rams as a Gymnasium vector env: ``num_envs`` games of one learning seat, stepped by the compiled engine.

``gymnasium.make_vec("rams_env/RamsVec-v1", num_envs=N, ...)`` gives a :class:`RamsVectorEnv`: game
``i`` is a :class:`~rams_env.envs.gym_env.RamsGymEnv` (``gymnasium.make("rams_env/Rams-v1")``), and all
of them step in one compiled call, the opponents' turns included. ``tests/envs/test_gym_vector.py``
plays each game against its single env with the derived seeds and compares every observation, mask,
reward, end and info.

Opponents (``opponents=``, one for every other seat or a list of one per other seat, as for
``RamsGymEnv``): ``"heuristic"`` (the compiled ``HeuristicAgent``) and ``"random"`` (``RandomAgent``)
play inside the compiled step; any other agent plays from Python, all its decisions of a step in one
call: ``act_batch(observations, masks)`` when it has one (trained policies and ensembles: one forward
pass), else ``act(observation)`` per game. A string names a fresh opponent; the same object listed twice
is one opponent.

The autoreset mode is the constructor's ``autoreset_mode`` (declared in ``metadata["autoreset_mode"]``):

- ``NEXT_STEP`` (Gymnasium's default, which RLlib and CleanRL-style loops expect): the step that ends an
  episode returns its final observation (all-zero mask); the next step ignores that game's action and
  returns the first observation of its next episode, with reward 0 and ``terminated`` False.
- ``SAME_STEP`` (what SB3 expects): the step that ends an episode already returns the next episode's first
  observation; game ``i``'s final one is ``infos["final_obs"][i]`` (games flagged by ``infos["_final_obs"]``;
  with dict observations an object array of one dict per ended game, as Gymnasium's own vector envs give),
  with ``infos["final_info"]``.
- ``DISABLED``: a finished game stays at its end until ``reset(options={"reset_mask": mask})`` restarts
  the games of ``mask`` (TorchRL's partial resets).

``terminated`` and ``truncated`` are apart; Rams episodes are bounded, so ``truncated`` is always False.
The infos hold, per game, ``action_mask`` (int8, what MaskablePPO and masked policies read), ``seat``,
``score`` and ``tricks`` (as ``RamsGymEnv``'s info), each with Gymnasium's ``_key`` row flags.
``observation_mode="dict"`` gives the AEC env's dict observations (``{"observation", "action_mask"}``),
which RLlib's masked module reads.

Seeds: ``reset(seed=s)`` seeds game ``i`` with ``game_seeds(s, num_envs)[i]``, which is exactly what
``RamsGymEnv.reset(seed=...)`` does with that seed (the deal, the learner's seat when it is
``"random"``, every opponent's generator); ``reset()`` after it draws new seeds for every game from the
env's generator, so a second full reset deals new games. ``reset(seed=[s0, s1, ...])`` gives one seed a
game (``list[int | None]``, as Gymnasium's vector envs take): game ``i`` plays as ``RamsGymEnv`` reset with
``seed=si``; a ``None`` draws that game's seed from the env's generator (reseeded from ``s0`` when it is
given). An outside agent with ``seed(seed)`` plays every
game, so it is reseeded once, as game 0's ``RamsGymEnv`` would reseed it: with
:func:`~rams_env.envs.gym_env.opponent_seed` of game 0's seed (``game_seeds(s, num_envs)[0]``, or ``s[0]``
for a list of seeds) and its position (0 for the one opponent of every seat; an agent listed twice keeps
its first); ``reset()`` without a seed does not reseed it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode

from ..core import ACT, HOLD, RESTART, ROLES, Core
from ..rules import IllegalActionError, RulesConfig
from ..rules.actions import NUM_ACTIONS
from ..rules.config import DEFAULT_NUM_PLAYERS, DEFAULT_VARIANT
from ..rules.seeding import check_seed
from ..rules.spec import EnvSpec, make_spec
from .aec import seat_int
from .gym_env import check_opponent_name, opponent_seed
from .seats import Seat, core_role, seats_in_place_of
from .spaces import action_space, batched, dict_observation_space, observation_space
from .vector import checked_actions, game_seeds

OBSERVATION_MODES = ("array", "dict")
_MODES = {mode.value: mode for mode in AutoresetMode}


class BatchActor:
    """How an outside opponent acts on a batch: its ``act_batch``, or its ``act`` once per row. A class, not a
    closure, so that a copy or a pickle of the env takes the opponent along (and a copy gets its own copy)."""

    def __init__(self, opponent: Any) -> None:
        acts = callable(getattr(opponent, "act_batch", None)) or callable(getattr(opponent, "act", None))
        if not acts and not callable(opponent):
            raise TypeError(
                f"an opponent must be 'heuristic', 'random', or an agent with act_batch(observations, masks) or "
                f"act(observation), got {opponent!r}"
            )
        self.opponent = opponent

    def __call__(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        opponent = self.opponent
        act_batch = getattr(opponent, "act_batch", None)
        if callable(act_batch):
            return np.asarray(act_batch(observations, masks), np.int64)
        act = getattr(opponent, "act", opponent)
        return np.array(
            [act({"observation": o, "action_mask": m}) for o, m in zip(observations, masks, strict=True)], np.int64
        )


def autoreset_mode_of(mode: Any) -> AutoresetMode:
    """``mode`` as an ``AutoresetMode`` (the enum or its value, ``"NextStep"``...), else ``ValueError``."""
    if isinstance(mode, AutoresetMode):
        return mode
    if isinstance(mode, str) and mode in _MODES:
        return _MODES[mode]
    raise ValueError(f"autoreset_mode must be one of {sorted(_MODES)} (gymnasium.vector.AutoresetMode), got {mode!r}")


class RamsVectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` games, each one learning seat against opponents (see the module docstring).

    ``learner_seat``: a seat, or ``"random"`` (drawn at each episode, as ``RamsGymEnv`` draws it).
    ``illegal_action``: ``"terminate"`` (default, as ``RamsGymEnv``) ends that game's episode with
    ``illegal_reward`` and ``infos["illegal"]`` set; ``"raise"`` raises ``IllegalActionError`` naming the
    game, and no game is stepped. Other keywords (``episode``, ``reward``, rule options, or ``config=``, a
    ready ``RulesConfig``, with its rules) as for :func:`rams_env.env`.
    """

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}  # noqa: RUF012

    def __init__(
        self,
        num_envs: int = 8,
        variant: str = DEFAULT_VARIANT,  # "mattmar"
        num_players: int = DEFAULT_NUM_PLAYERS,  # 4
        learner_seat: int | str = 0,
        opponents: Any = "random",
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        observation_mode: str = "array",
        illegal_action: str | None = None,  # None: "terminate"
        illegal_reward: float = -1.0,
        episode: str = "deal",
        reward: str = "points",
        render_mode: str | None = None,
        *,
        config: RulesConfig | None = None,
        spec: EnvSpec | None = None,
        seats: Sequence[Any] | None = None,
        **rule_options: Any,
    ) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive int, got {num_envs!r}")
        if render_mode is not None:
            raise ValueError(f"RamsVectorEnv does not render (render_mode must be None, got {render_mode!r})")
        if observation_mode not in OBSERVATION_MODES:
            raise ValueError(f"observation_mode must be one of {OBSERVATION_MODES}, got {observation_mode!r}")
        fields = (variant, num_players, episode, reward, illegal_action, illegal_reward)
        self.rams_spec = make_spec(*fields, config=config, spec=spec, face_default="terminate", **rule_options)
        """what this env plays (:class:`~rams_env.rules.spec.EnvSpec`), its illegal-action policy resolved"""
        self.config, episode, reward = self.rams_spec.config, self.rams_spec.episode, self.rams_spec.reward
        illegal_action, illegal_reward = self.rams_spec.illegal_action, self.rams_spec.illegal_reward
        if seats is not None:
            learner_seat, opponents = seats_in_place_of(learner_seat, opponents, seats, self.config.num_players)
        n = self.num_players = self.config.num_players
        self.num_envs = int(num_envs)
        self.autoreset_mode = autoreset_mode_of(autoreset_mode)
        self.metadata = {**type(self).metadata, "autoreset_mode": self.autoreset_mode}
        self.render_mode = None
        self.illegal_action, self.illegal_reward = illegal_action, float(illegal_reward)
        self.observation_mode = observation_mode
        if isinstance(learner_seat, str) and learner_seat == "random":
            self.learner_seat: int | str = "random"
        else:
            try:
                self.learner_seat = seat_int(learner_seat, n, "learner_seat")
            except ValueError:
                raise ValueError(f"learner_seat must be a seat 0..{n - 1} or 'random', got {learner_seat!r}") from None
        self._set_opponents(opponents)
        self._core = Core(self.rams_spec, self.num_envs)
        self._out = self._core.outputs
        self._rows = np.arange(self.num_envs)
        self._over = np.zeros(self.num_envs, bool)  # held at the end of an episode
        self._carry = np.zeros(self.num_envs, np.float64)  # the learner's rewards still to be paid
        self._seat_rngs: list[np.random.Generator] = []
        self._started = False

        self.single_action_space = action_space()
        self.action_space = batched(self.single_action_space, self.num_envs)
        self.single_observation_space = dict_observation_space() if observation_mode == "dict" else observation_space()
        self.observation_space = batched(self.single_observation_space, self.num_envs)

    # ------------------------------------------------------------------ opponents

    def _set_opponents(self, opponents: Any) -> None:
        """The opponents by slot (a slot is one opponent and its generator), and each other seat's slot."""
        n = self.num_players
        listed = not isinstance(opponents, (str, bytes)) and isinstance(opponents, Sequence)
        given = list(opponents) if listed else [opponents]
        if listed and len(given) != n - 1:
            raise ValueError(f"opponents: give one or {n - 1} (one per other seat), got {len(given)}")
        self._slot_roles: list[int] = []
        self._outside: dict[int, tuple[Any, BatchActor]] = {}
        self._position_slot: list[int] = []  # the k-th other seat's slot
        firsts: dict[int, int] = {}
        for k, opponent in enumerate(given):
            seat = Seat.of(check_opponent_name(opponent) if isinstance(opponent, str) else opponent)
            if seat.kind == "learner":
                raise ValueError("opponents: a learner seat is not an opponent (give seats= for the whole table)")
            self._slot_roles.append(core_role(seat))
            if seat.kind != "agent":
                self._position_slot.append(k)
                continue
            opponent = seat.agent
            first = firsts.setdefault(id(opponent), k)
            self._position_slot.append(first)
            if first == k:
                self._outside[k] = (opponent, BatchActor(opponent))
        self._shared_slot = not listed  # one opponent plays every other seat

    def _assign_seats(self, games: np.ndarray, learners: np.ndarray) -> None:
        """Learner seats ``learners`` for ``games``, and the other seats' roles and slots around them."""
        n = self.num_players
        roles, slots = np.zeros((len(games), n), np.int64), np.zeros((len(games), n), np.int64)
        for row, learner in enumerate(learners.tolist()):
            others = [seat for seat in range(n) if seat != learner]
            for position, seat in enumerate(others):
                slot = self._position_slot[0 if self._shared_slot else position]
                roles[row, seat], slots[row, seat] = self._slot_roles[slot], slot
            roles[row, learner] = ROLES["learner"]
        # an episode dealt again keeps its seats
        self._core.set_seats(roles, games, slots=slots, learner=learners)

    @property
    def dropped_episodes(self) -> int:
        """Episodes that ended before the learner's first decision (dealt again, not reported)."""
        return self._core.dropped_episodes

    def _draw_learners(self, games: np.ndarray) -> np.ndarray:
        if self.learner_seat != "random":
            return np.full(len(games), self.learner_seat, np.int64)
        return np.array([int(self._seat_rngs[g].integers(self.num_players)) for g in games.tolist()], np.int64)

    # ------------------------------------------------------------------ reset and step

    def reset(self, *, seed: int | Sequence[int] | None = None, options: dict[str, Any] | None = None):
        """Start every game (or, with ``options={"reset_mask": mask}``, the games of ``mask``)."""
        options = dict(options or {})
        unknown = sorted(set(options) - {"reset_mask"})
        if unknown:
            raise ValueError(f"unknown reset option(s) {unknown}: RamsVectorEnv.reset takes only 'reset_mask'")
        if "reset_mask" in options:
            return self._reset_some(options["reset_mask"], seed)
        seeds = self._game_seeds(seed)
        n = self.num_players
        first_seats, aec_seeds, self._seat_rngs = [], [], []
        for g in seeds:
            generator = seeding.np_random(g)[0]  # what RamsGymEnv.reset(seed=g) draws from, in its order
            aec_seeds.append(int(generator.integers(2**63)))
            first_seats.append(int(generator.integers(n)) if self.learner_seat == "random" else self.learner_seat)
            self._seat_rngs.append(generator)
        oseeds = np.zeros((self.num_envs, len(self._slot_roles)), np.int64)
        for slot in range(len(self._slot_roles)):
            oseeds[:, slot] = [opponent_seed(g, slot) for g in seeds]
        self._core.seed_players(oseeds)
        self._core.seed_episodes(aec_seeds)
        if seed is not None:  # an outside opponent plays every game: reseeded once, from the first game's seed
            for slot, (opponent, _) in self._outside.items():
                if callable(getattr(opponent, "seed", None)):
                    opponent.seed(opponent_seed(seeds[0], slot))
        self._assign_seats(self._rows, np.asarray(first_seats, np.int64))
        self._carry[:] = 0.0
        self._over[:] = False
        commands = np.full(self.num_envs, RESTART, np.int64)
        acc = self._run(commands, np.zeros(self.num_envs, np.int64), np.zeros(self.num_envs))
        self._carry[:] = acc
        self._started = True
        return self._observations(), self._infos()

    def _game_seeds(self, seed: Any) -> list[int]:
        """Every game's seed: derived from ``seed`` (an int, or one int a game), or drawn from the env's generator."""
        if seed is not None and not np.isscalar(seed):
            seeds = list(seed)
            if len(seeds) != self.num_envs:
                raise ValueError(f"seed: give one int or {self.num_envs} (one per game), got {len(seeds)}")
            checked = [check_seed(s, f"seed[{i}]") for i, s in enumerate(seeds)]
            if checked[0] is not None:
                self._np_random, self._np_random_seed = seeding.np_random(checked[0])
            # a None in the list (as Gymnasium's vector envs take it): that game's seed is drawn from the generator
            return [int(self.np_random.integers(2**63)) if s is None else s for s in checked]
        if seed is not None:
            seed = check_seed(seed)
            self._np_random, self._np_random_seed = seeding.np_random(seed)
            return game_seeds(seed, self.num_envs)
        return [int(s) for s in self.np_random.integers(2**63, size=self.num_envs)]

    def _reset_some(self, mask: Any, seed: Any) -> tuple[Any, dict[str, Any]]:
        if seed is not None:
            raise ValueError("reset(options={'reset_mask': ...}) continues every game's generator: pass no seed")
        if not self._started:
            raise RuntimeError("call reset() before reset(options={'reset_mask': ...})")
        mask = np.asarray(mask)
        if mask.dtype != bool or mask.shape != (self.num_envs,):
            raise ValueError(
                f"reset_mask must be a bool array of shape ({self.num_envs},), got {mask.dtype} {mask.shape}"
            )
        games = np.flatnonzero(mask)
        self._restart(games)
        commands = np.where(mask, RESTART, HOLD).astype(np.int64)
        acc = self._run(commands, np.zeros(self.num_envs, np.int64), np.zeros(self.num_envs))
        self._carry[games] = acc[games]
        self._over[games] = False
        return self._observations(), self._infos()

    def _restart(self, games: np.ndarray) -> None:
        """Before ``RESTART``: the learner seats of the next episodes, when they are drawn."""
        if self.learner_seat == "random" and len(games):
            self._assign_seats(games, self._draw_learners(games))

    def step(self, actions: Any):
        if not self._started:
            raise RuntimeError("call reset() before step()")
        actions = checked_actions(actions, self.num_envs)
        mode = self.autoreset_mode
        over_before = self._over.copy()
        if mode == AutoresetMode.DISABLED and over_before.any():
            game = int(np.flatnonzero(over_before)[0])
            raise RuntimeError(
                f"game {game}'s episode is over: restart it with reset(options={{'reset_mask': mask}}) "
                "(autoreset_mode DISABLED)"
            )
        restarting = over_before if mode == AutoresetMode.NEXT_STEP else np.zeros(self.num_envs, bool)
        playing = ~restarting
        legal = (self._core.view("legal") >> np.clip(actions, 0, 63)) & 1 == 1
        illegal = playing & ~(legal & (actions >= 0) & (actions < NUM_ACTIONS))
        if illegal.any() and self.illegal_action == "raise":
            game = int(np.flatnonzero(illegal)[0])
            raise IllegalActionError(f"game {game}: {self._illegal(game, actions[game])}")
        self._restart(np.flatnonzero(restarting))
        commands = np.where(restarting, RESTART, np.where(illegal, HOLD, ACT)).astype(np.int64)
        start = np.where(restarting, 0.0, self._carry)
        acc = self._run(commands, actions, start)
        rewards = np.where(restarting, 0.0, acc)
        self._carry = np.where(restarting, acc, 0.0)
        if illegal.any():
            rewards[illegal] = self.illegal_reward + start[illegal]
            self._out.masks[illegal] = 0
        terminated = playing & (self._ended | illegal)
        self._over = terminated.copy()
        infos = self._infos()
        if illegal.any():
            infos["illegal"], infos["_illegal"] = illegal, illegal.copy()
        observations = self._observations()
        if mode == AutoresetMode.SAME_STEP and terminated.any():
            infos["final_info"], infos["_final_info"] = dict(infos), terminated.copy()
            infos["final_obs"], infos["_final_obs"] = self._final_observations(observations, terminated)
            games = np.flatnonzero(terminated)
            self._restart(games)
            commands = np.where(terminated, RESTART, HOLD).astype(np.int64)
            after = self._run(commands, actions, np.zeros(self.num_envs))
            self._carry[games] = after[games]
            self._over[games] = False
            infos = {**self._infos(), **{k: v for k, v in infos.items() if "final_" in k or "illegal" in k}}
            observations = self._observations()
        truncated = np.zeros(self.num_envs, bool)
        return observations, rewards.astype(np.float32), terminated, truncated, infos

    def _run(self, commands: np.ndarray, actions: np.ndarray, acc: np.ndarray) -> np.ndarray:
        """One compiled call, then the outside opponents' turns until every game waits for its learner
        (or is over); returns the learner's rewards accumulated onto ``acc`` (restarted where an episode
        started). Sets ``_ended``: the games whose episode ended."""
        t, out, rows = self._core.tables, self._out, self._rows
        bad = self._core.run(commands, actions)
        if bad >= 0:  # the learner's actions were checked: an outside opponent's cannot be here
            raise RuntimeError(f"internal error: game {bad}'s action {int(actions[bad])} is illegal")
        ended = out.over.copy()
        acc = np.where(out.started, 0.0, acc) + out.rewards[rows, t.learner]
        while self._outside:
            seats = out.seats
            waiting = (t.roles[rows, seats] == ROLES["agent"]) & ~ended & (commands != HOLD)
            if not waiting.any():
                break
            commands = np.where(waiting, ACT, HOLD).astype(np.int64)
            moves = np.zeros(self.num_envs, np.int64)
            slots = t.slots[rows, seats]
            for slot, (_, act) in self._outside.items():
                games = np.flatnonzero(waiting & (slots == slot))
                if len(games):
                    moves[games] = act(out.observations[games], out.masks[games])
            bad = self._core.run(commands, moves)
            if bad >= 0:
                opponent = self._outside[int(slots[bad])][0]
                raise IllegalActionError(f"opponent {opponent!r} in game {bad}: {self._illegal(bad, moves[bad])}")
            ended |= out.over
            acc = np.where(out.started, 0.0, acc) + out.rewards[rows, t.learner]
        self._ended = ended
        return acc

    # ------------------------------------------------------------------ what a step returns

    def _observations(self) -> Any:
        out = self._out
        if self.observation_mode == "dict":
            return {"observation": out.observations.copy(), "action_mask": out.masks.copy()}
        return out.observations.copy()

    def _final_observations(self, observations: Any, ended: np.ndarray) -> tuple[Any, np.ndarray]:
        """``infos["final_obs"]`` and its flags: one final observation per game, read as
        ``infos["final_obs"][i]``; in dict mode an object array as Gymnasium's own vector envs give
        (each ended game's dict, None for the others)."""
        if self.observation_mode == "dict":
            final = np.full(self.num_envs, None, dtype=object)
            for i in np.flatnonzero(ended).tolist():
                final[i] = {key: value[i] for key, value in observations.items()}
            observations = final
        return observations, ended.copy()

    def _infos(self) -> dict[str, Any]:
        learner = self._core.tables.learner
        values = {
            "action_mask": self._out.masks.copy(),
            "seat": learner.copy(),
            "score": self._core.seat_view("scores", learner),
            "tricks": self._core.seat_view("tricks", learner),
        }
        every = np.ones(self.num_envs, bool)
        return {**values, **{f"_{key}": every for key in values}}

    def _illegal(self, game: int, action: Any) -> str:
        return self._core.why_illegal(game, int(action))

    def action_masks(self) -> np.ndarray:
        """Boolean masks of every game's legal learner actions, shape (num_envs, 60)."""
        return self._out.masks.astype(bool)

    def close_extras(self, **kwargs: Any) -> None:
        """Nothing to release (the games live in this process)."""
