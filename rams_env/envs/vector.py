"""Batched environments for training: many games stepped together, stacked arrays out.

:class:`BatchedRamsEnv` runs the rules compiled with numba (:mod:`rams_env.compiled`): one
compiled call applies every game's action, encodes the next observation and writes the mask.
:class:`ReferenceBatchedRamsEnv` drives the pure-Python reference engine in a loop, encoding
every observation from scratch, far slower (docs/performance.md). Both play exactly the games of
:func:`rams_env.env` (``tests/envs/test_vector.py`` plays the same seeds with the same actions through
them and the AEC env and compares every observation, mask, reward and score).
:class:`~rams_env.envs.subproc.SubprocBatchedRamsEnv` splits the games over worker processes for
multi-core machines.

Each call returns a :class:`BatchStep` describing, for every game, the decision now due: the
acting seat, its observation and mask. ``rewards[i, s]`` is what seat ``s`` of game ``i`` earned
from the action just applied (score decreases, or the ``win`` rewards at the end), ``terminated[i]``
says that action ended the episode; the game has then been reset (seeded) and the observation
is the first decision of its next episode (same-step autoreset, declared by ``autoreset_mode``;
``terminated`` and ``truncated`` are apart, and ``truncated`` is always False). Episodes that end
before any decision (russian: a player going out on jacks at the first deal) are skipped on reset.
"""

from __future__ import annotations

import random
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core import ROLES, Core, Outputs
from ..obs.encoding import OBS_SIZE, ObservationEncoder, action_mask
from ..rules import Game, IllegalActionError, Phase, RulesConfig
from ..rules.actions import NUM_ACTIONS
from ..rules.config import DEFAULT_NUM_PLAYERS, DEFAULT_VARIANT
from ..rules.episode import next_deal_or_end, win_rewards
from ..rules.phases import illegal_message
from ..rules.seeding import check_seed, require_seed
from ..rules.spec import EnvSpec, make_spec
from .contracts import AutoresetMode
from .heuristic_seats import checked_heuristic_seeds, seat_masks
from .seats import heuristic_seat_mask


@dataclass
class BatchStep:
    """Stacked arrays for ``num_games`` games (see the module docstring)."""

    observations: np.ndarray  # float32 (N, OBS_SIZE): the acting seat's observation
    action_masks: np.ndarray  # int8 (N, 60)
    seats: np.ndarray  # int64 (N,): the seat to act
    rewards: np.ndarray  # float32 (N, num_players): each seat's reward from the last action
    terminated: np.ndarray  # bool (N,): the last action ended the episode (the game was reset: same-step autoreset)
    truncated: np.ndarray  # bool (N,): always False (Rams episodes are bounded); kept apart from ``terminated``

    @property
    def done(self) -> np.ndarray:
        """``terminated | truncated``: the episode of game ``i`` ended at the last action."""
        return self.terminated | self.truncated if self.truncated.any() else self.terminated


def game_seeds(seed: int | None, num_games: int) -> list[int]:
    """Per-game seeds derived from one seed: game ``i`` of a batched env seeded ``seed`` plays
    what ``rams_env.env()`` plays after ``reset(seed=game_seeds(seed, N)[i])``."""
    sequence = np.random.SeedSequence(seed)
    return [int(s) for s in sequence.generate_state(num_games, np.uint64) >> np.uint64(1)]


def _batch(num_games: int, num_players: int) -> BatchStep:
    return BatchStep(
        np.empty((num_games, OBS_SIZE), np.float32),
        np.empty((num_games, NUM_ACTIONS), np.int8),
        np.empty(num_games, np.int64),
        np.zeros((num_games, num_players), np.float32),
        np.zeros(num_games, bool),
        np.zeros(num_games, bool),
    )


def checked_seeds(seeds: Any, num_games: int) -> list[int]:
    """One seed per game, each as :func:`~rams_env.rules.seeding.require_seed` takes it (the error names the first
    that is not)."""
    try:
        count = len(seeds)
    except TypeError:
        raise ValueError(f"seeds must be a list of {num_games} ints, got {type(seeds).__name__}") from None
    if count != num_games:
        raise ValueError(f"need {num_games} seeds, got {count}")
    return [require_seed(seed, f"seeds[{i}]") for i, seed in enumerate(seeds)]


_INT64 = np.dtype(np.int64)


def checked_actions(actions: Any, num_games: int) -> np.ndarray:
    """``actions`` as an int64 array of one action per game (``ValueError``, ``IllegalActionError`` if it is not)."""
    if type(actions) is np.ndarray and actions.dtype is _INT64 and actions.shape == (num_games,):
        return actions  # the usual case, recognised cheaply
    actions = np.asarray(actions)
    if actions.shape != (num_games,):
        raise ValueError(f"need one action per game: shape ({num_games},), got {actions.shape}")
    if actions.dtype == bool or not np.issubdtype(actions.dtype, np.integer):
        raise IllegalActionError(f"actions must be int action ids, got dtype {actions.dtype}")
    return actions.astype(np.int64, copy=False)


class _Batch:
    """What both in-process batched envs check and hold: the games' configuration and seed
    (both fit :class:`~rams_env.envs.contracts.BatchedEnv`). The rules are ``variant``, ``num_players``
    and rule options, or ``config=`` (a ready ``RulesConfig``), as for :func:`rams_env.env`."""

    autoreset_mode: AutoresetMode = AutoresetMode.SAME_STEP

    def __init__(
        self,
        num_games: int,
        variant: str = DEFAULT_VARIANT,  # "mattmar"
        num_players: int = DEFAULT_NUM_PLAYERS,  # 4
        episode: str = "deal",
        reward: str = "points",
        seed: int | None = None,
        *,
        config: RulesConfig | None = None,
        spec: EnvSpec | None = None,
        **rule_options: Any,
    ) -> None:
        if not isinstance(num_games, int) or num_games < 1:
            raise ValueError(f"num_games must be a positive int, got {num_games!r}")
        self.rams_spec = make_spec(variant, num_players, episode, reward, config=config, spec=spec, **rule_options)
        """what this env plays (:class:`~rams_env.rules.spec.EnvSpec`): every action is a learner's, and an
        illegal one raises"""
        self.config: RulesConfig = self.rams_spec.config
        self.num_games, self.num_players = num_games, self.config.num_players
        self.episode, self.reward_kind = self.rams_spec.episode, self.rams_spec.reward
        self._seed = check_seed(seed, "seed")
        self.first_game = 0
        """the index of game 0 in a larger batch (a subprocess worker's block): errors name games by it"""

    def reset(self, seed: int | None = None) -> BatchStep:
        """Start a fresh episode in every game (seeded per game from ``seed``)."""
        return self.reset_games(game_seeds(self._seed if seed is None else check_seed(seed, "seed"), self.num_games))

    def reset_games(self, seeds: list[int], out: BatchStep | None = None) -> BatchStep:
        """Start a fresh episode in every game, game ``i`` seeded like ``env.reset(seed=seeds[i])``."""
        raise NotImplementedError

    def close(self) -> None:
        """Nothing to release in-process (present for symmetry with the subprocess env)."""


class BatchedRamsEnv(_Batch):
    """``num_games`` Rams games of one configuration, stepped together by the compiled core
    (:mod:`rams_env.compiled.core`, same-step autoreset).

    ``heuristic_seats`` (optional): seats played by the compiled ``HeuristicAgent`` inside the step,
    a bool array of shape ``(num_players,)`` (every game) or ``(num_games, num_players)``. Each step
    then returns only decisions of the other (controlled) seats; see :mod:`rams_env.compiled.core`
    for how rewards, ``done`` and episodes without a controlled decision (``dropped_episodes``) are
    counted. Every game needs a controlled seat. Heuristic seat ``s`` of game ``i`` is seeded like
    ``HeuristicAgent(seed=heuristic_seed(seeds[i], s))`` (:mod:`rams_env.envs.heuristic_seats`), or by
    ``reset_games(heuristic_seeds=...)``.
    """

    def __init__(
        self, num_games: int, *args: Any, heuristic_seats: Any = None, seats: Any = None, **kwargs: Any
    ) -> None:
        super().__init__(num_games, *args, **kwargs)
        if seats is not None:
            if heuristic_seats is not None:
                raise ValueError("seats= replaces heuristic_seats=: give seats alone")
            heuristic_seats = heuristic_seat_mask(seats, self.num_players)
        self._core = Core(self.rams_spec, num_games, autoreset=True)
        self._started = False
        self._with_heuristics = heuristic_seats is not None
        self._pending = np.zeros(self.num_games, np.int64)  # the heuristic seat masks of the next reset
        if self._with_heuristics:
            self.set_heuristic_seats(heuristic_seats)

    @property
    def heuristic_seats(self) -> np.ndarray | None:
        """Per game and seat: played by the heuristic in the current episode (None without them)."""
        if not self._with_heuristics:
            return None
        return self._core.roles() == ROLES["heuristic"]

    @property
    def dropped_episodes(self) -> int:
        """Episodes that ended before any controlled decision, played out and not reported."""
        return self._core.dropped_episodes

    @property
    def skipped_episodes(self) -> int:
        """Deprecated: :attr:`dropped_episodes`, the name the vector env uses too."""
        warnings.warn("skipped_episodes is now dropped_episodes", DeprecationWarning, stacklevel=2)
        return self.dropped_episodes

    def set_heuristic_seats(self, seats: Any) -> None:
        """The heuristic seats (shape as in the constructor) of the episodes the next ``reset`` starts
        and of every later one."""
        masks = self._masks(seats)
        self._pending[:] = masks
        self._core.set_seats(_roles(masks, self.num_players), now=False)

    def set_next_heuristic_seats(self, seats: Any) -> None:
        """The heuristic seats of each game from its next episode on (the current ones keep theirs)."""
        self._core.set_seats(_roles(self._masks(seats), self.num_players), now=False)

    def _masks(self, seats: Any) -> np.ndarray:
        if not self._with_heuristics:
            raise ValueError("this env was made without heuristic_seats; pass heuristic_seats= to the constructor")
        return seat_masks(seats, self.num_games, self.num_players)

    def _outputs(self, out: BatchStep) -> Outputs:
        """The core's output struct over ``out``'s arrays (the core writes straight into them)."""
        started = self._core.outputs.started
        return Outputs(out.observations, out.action_masks, out.seats, out.rewards, out.terminated, started)

    @property
    def scores(self) -> np.ndarray:
        """Every game's current scores, shape (num_games, num_players)."""
        return self._core.view("scores")

    @property
    def dealers(self) -> np.ndarray:
        """Every game's dealer of the current deal, shape (num_games,)."""
        return self._core.view("dealer")

    @property
    def deal_numbers(self) -> np.ndarray:
        """Every game's count of deals started since its episode began (0 for the first), shape (num_games,)."""
        return self._core.view("deal_number")

    @property
    def hands(self) -> np.ndarray:
        """Every game's hands, shape (num_games, num_players): bit ``c`` of a seat's entry is set when
        it holds card ``c``. Hidden information: for training-time critics, never for a player."""
        return self._core.view("hands")

    def reset_games(self, seeds: list[int], out: BatchStep | None = None, heuristic_seeds: Any = None) -> BatchStep:
        """Start a fresh episode in every game, game ``i`` seeded like ``env.reset(seed=seeds[i])``
        (written into ``out`` if given); ``heuristic_seeds[i][s]`` seeds heuristic seat ``s``."""
        seeds = checked_seeds(seeds, self.num_games)
        out = out if out is not None else _batch(self.num_games, self.num_players)
        out.truncated.fill(False)
        if self._with_heuristics:
            hseeds = checked_heuristic_seeds(seeds, heuristic_seeds, self.num_games, self.num_players)
            self._core.set_seats(_roles(self._pending, self.num_players), seeds=hseeds, later=False)
        elif heuristic_seeds is not None:
            raise ValueError("heuristic_seeds needs an env made with heuristic_seats")
        self._core.restart(seeds, out=self._outputs(out))
        self._started = True
        return out

    def step(self, actions: Any, out: BatchStep | None = None) -> BatchStep:
        """Apply one action per game (to its acting seat) and return the next decisions (written
        into ``out`` if given). An illegal action raises ``IllegalActionError`` naming the game,
        and no game is stepped.
        """
        actions = checked_actions(actions, self.num_games)
        if not self._started:
            raise RuntimeError("call reset() before step()")
        out = out if out is not None else _batch(self.num_games, self.num_players)
        bad = self._core.run(self._core.act_all, actions, self._outputs(out))
        if bad >= 0:
            raise IllegalActionError(f"game {self.first_game + bad}: {self.why_illegal(bad, int(actions[bad]))}")
        return out

    def legal_sets(self) -> np.ndarray:
        """Every game's legal actions as a bit set (bit ``a``: action ``a`` is legal)."""
        return self._core.view("legal")

    def why_illegal(self, game: int, action: int) -> str:
        """Why ``action`` is illegal in ``game`` (the words of ``IllegalActionError``)."""
        return self._core.why_illegal(game, action)


def _roles(masks: np.ndarray, num_players: int) -> np.ndarray:
    """The seats' roles of games whose heuristic seats are the bit masks ``masks`` (the others learners)."""
    bits = (masks[:, None] >> np.arange(num_players, dtype=np.int64)) & 1
    return np.where(bits == 1, ROLES["heuristic"], ROLES["learner"]).astype(np.int64)


class ReferenceBatchedRamsEnv(_Batch):
    """The same batched env over the pure-Python reference engine (``Game`` objects in ``games``)."""

    def __init__(self, num_games: int, *args: Any, **kwargs: Any) -> None:
        super().__init__(num_games, *args, **kwargs)
        self.encoder = ObservationEncoder(self.config)
        self.games: list[Game] = []
        self._seeders: list[random.Random] = []

    @property
    def scores(self) -> np.ndarray:
        """Every game's current scores, shape (num_games, num_players)."""
        return np.array([game.scores for game in self.games], np.int64)

    def reset_games(self, seeds: list[int], out: BatchStep | None = None) -> BatchStep:
        """Start a fresh episode in every game, game ``i`` seeded like ``env.reset(seed=seeds[i])``
        (written into ``out`` if given)."""
        seeds = checked_seeds(seeds, self.num_games)
        self._seeders = [random.Random(s) for s in seeds]
        self.games = [self._new_game(i) for i in range(self.num_games)]
        out = out if out is not None else _batch(self.num_games, self.num_players)
        out.rewards.fill(0.0)
        out.terminated.fill(False)
        for i in range(self.num_games):
            self._observe(i, out)
        return out

    def _new_game(self, i: int) -> Game:
        """The next episode of game ``i``, as ``RamsEnv.reset()`` would start it."""
        while True:
            game = Game(self.config, seed=self._seeders[i].getrandbits(63))
            if game.phase != Phase.GAME_OVER:
                return game

    def _observe(self, i: int, out: BatchStep) -> None:
        game = self.games[i]
        seat = game.current
        out.seats[i] = seat
        self.encoder.encode(game, seat, out=out.observations[i])
        action_mask(game, seat, out=out.action_masks[i])

    def step(self, actions: Any, out: BatchStep | None = None) -> BatchStep:
        """Apply one action per game (to its acting seat) and return the next decisions (written
        into ``out`` if given). An illegal action raises ``IllegalActionError`` naming the game,
        and no game is stepped."""
        actions = checked_actions(actions, self.num_games)
        if not self.games:
            raise RuntimeError("call reset() before step()")
        action_list = actions.tolist()
        for i, action in enumerate(action_list):  # every action is checked before any game steps
            if action not in self.games[i].legal_actions():
                raise IllegalActionError(f"game {self.first_game + i}: {self.why_illegal(i, action)}")
        out = out if out is not None else _batch(self.num_games, self.num_players)
        out.rewards.fill(0.0)
        out.terminated.fill(False)
        points = self.reward_kind == "points"
        for i, action in enumerate(action_list):
            game = self.games[i]
            before_scores = game.scores[:]
            game.apply(action)
            if points and before_scores != game.scores:
                scores = game.scores
                out.rewards[i] = [b - a for b, a in zip(before_scores, scores, strict=True)]
            if game.phase >= Phase.DEAL_OVER and next_deal_or_end(game, self.episode):
                if not points:
                    out.rewards[i] += win_rewards(game)
                out.terminated[i] = True
                self.games[i] = self._new_game(i)
            self._observe(i, out)
        return out

    def why_illegal(self, game: int, action: int) -> str:
        """Why ``action`` is illegal in ``game`` (the words of ``IllegalActionError``)."""
        state = self.games[game]
        return illegal_message(action, state.current, state.phase, state.legal_actions())
