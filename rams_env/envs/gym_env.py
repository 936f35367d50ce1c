"""Single-agent Gymnasium view of Rams: one seat learns, the other seats are played by policies.

The action mask is offered the way sb3-contrib's ``MaskablePPO`` expects: the method
``action_masks()`` and ``info["action_mask"]``. ``gymnasium.make("rams_env/Rams-v1")`` puts
gymnasium's own wrappers (the env checker, order enforcing) around :class:`RamsGymEnv`, and
gymnasium wrappers forward no methods, so the registration adds :class:`ActionMasks` on top:
``gymnasium.make(...).action_masks()`` works as on the bare env.
Rewards are the learning seat's own (its rewards accumulated since its last action), never the
reward of whoever happens to act next.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import gymnasium
import numpy as np

from ..gym_id import ENTRY_POINT, ENV_ID, register
from ..rules import Game, IllegalActionError, RulesConfig
from ..rules.actions import NUM_ACTIONS
from ..rules.config import DEFAULT_NUM_PLAYERS, DEFAULT_VARIANT
from ..rules.seeding import check_seed
from ..rules.spec import EnvSpec, make_spec
from .aec import RamsEnv, seat_int
from .backends import action_id
from .seats import derive_seed, seats_in_place_of
from .spaces import action_space, observation_space

# reset() with options deals again from the same options while the episode ends before the
# learner's first decision; after this many deals it gives up (ValueError).
OPTION_DEALS = 100

Policy = Callable[[dict[str, np.ndarray]], int]


_OPPONENT_TAG = 0x6F70706F  # keeps the opponents' seeds apart from the games' and the heuristic seats'


def opponent_seed(seed: int, index: int) -> int:
    """The seed that ``reset(seed=seed)`` gives opponent ``index`` (the one opponent: 0; a list: its
    position, an agent listed twice keeping its first): 63 bits of ``SeedSequence([seed, index, tag])``."""
    return derive_seed(seed, index, _OPPONENT_TAG)


OPPONENT_NAMES = ("heuristic", "random")
"""The opponents a string names, in this env and the vector env: a fresh ``HeuristicAgent`` or ``RandomAgent``."""


def check_opponent_name(name: str) -> str:
    """``name`` if it names an opponent (:data:`OPPONENT_NAMES`), else ``ValueError`` saying what does."""
    if name not in OPPONENT_NAMES:
        raise ValueError(
            f"opponents: a string names a built-in opponent, one of {list(OPPONENT_NAMES)}; got {name!r} "
            "(load other agents first, e.g. rams_env.agents.load_agent)"
        )
    return name


def named_opponent(name: str) -> Any:
    """A fresh agent for an opponent's name (loaded on first use: ``import rams_env`` loads no agent)."""
    from ..agents import HeuristicAgent, RandomAgent

    return {"heuristic": HeuristicAgent, "random": RandomAgent}[check_opponent_name(name)]()


def _as_policy(opponent: Any, aec: RamsEnv) -> Policy:
    if callable(getattr(opponent, "act_game", None)) and getattr(opponent, "env", False) is None:
        # An agent that reads the game (SearchAgent built without env=): ask it as the evaluation
        # harness does, on the game behind the observation (a real Game, cloned from the compiled mirror).
        def act_on_game(observation: dict[str, np.ndarray]) -> int:
            game = aec.game
            if not isinstance(game, Game):
                game = game.clone()
            return opponent.act_game(game, game.current_player)

        return act_on_game
    if hasattr(opponent, "act"):
        return opponent.act
    if callable(opponent):
        return opponent
    raise TypeError(f"an opponent must be callable or have act(observation), got {type(opponent).__name__}")


class RamsGymEnv(gymnasium.Env):
    """One learning seat against given opponents (default: uniformly random legal play).

    ``learner_seat`` is a seat or ``"random"`` (drawn at each reset); ``opponents`` is one policy
    for every other seat or a list with one per other seat, in seat order. A policy is a callable
    ``observation -> action``, an object with ``act(observation)``, or a name of
    :data:`OPPONENT_NAMES` (``"heuristic"``, ``"random"``: a fresh agent, as in the vector env); the observation is
    ``env.observe(agent)`` of the PettingZoo env. ``reset()`` skips episodes that end before
    the learner's first decision (say the learner deals and everyone before him passes); rewards
    the learner receives before that decision come with its first ``step()``. With ``options``
    (``deck``, ``dealer``, ``scores``) the next deal is dealt from the same options (the seed
    sequence only decides the opponents' play and later deals), never replaced by another; if
    ``OPTION_DEALS`` such deals all end before the learner's decision (a russian go-out on
    jacks dealt by the deck, or opponents who always pass to a dealing learner), ``reset()``
    raises ``ValueError``. A failed ``reset()`` draws nothing from the seed sequence.

    ``reset(seed=s)`` fixes the whole episode, the opponents' choices included: it reseeds every
    opponent that has a ``seed(seed)`` method (the agents of :mod:`rams_env.agents` do) with
    :func:`opponent_seed` ``(s, k)``, ``k`` its position (0 for the one opponent of every seat), and
    ``reset()`` after it goes on from those generators, so it too is the same every time. A plain
    callable is not reseeded: it must be deterministic itself. An agent that reads the game
    (``SearchAgent`` built without ``env=``) is asked ``act_game(game, seat)``.

    ``step(action)`` takes an integer action id (a Python or numpy integer; a bool, float or
    string is a ``TypeError``). An illegal action of the learner ends the episode with
    ``illegal_reward`` (default -1) unless ``illegal_action="raise"``, so that unmasked learners
    (and ``check_env``) can explore. An opponent's illegal action is a bug in that policy: it
    raises :class:`~rams_env.IllegalActionError` naming the opponent, whatever
    ``illegal_action`` says. ``render_mode="human"`` prints the table from the learner's seat
    after ``reset()`` and every ``step()``, never from another seat. Other keywords go to
    :class:`RamsEnv`, ``config=`` (a ready ``RulesConfig`` instead of ``variant``, ``num_players`` and
    rule options) among them, with its rules.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 2}

    def __init__(
        self,
        variant: str = DEFAULT_VARIANT,  # "mattmar"
        num_players: int = DEFAULT_NUM_PLAYERS,  # 4
        learner_seat: int | str = 0,
        opponents: Any = None,
        render_mode: str | None = None,
        illegal_action: str | None = None,  # None: "terminate"
        *,
        config: RulesConfig | None = None,
        spec: EnvSpec | None = None,
        seats: Sequence[Any] | None = None,
        engine: str = "compiled",
        **spec_fields: Any,
    ) -> None:
        self.rams_spec = make_spec(
            variant, num_players, illegal_action=illegal_action, config=config, spec=spec, face_default="terminate",
            **spec_fields,
        )  # fmt: skip
        """what this env plays (:class:`~rams_env.rules.spec.EnvSpec`), its illegal-action policy resolved"""
        # The AEC env prints the table from the seat to act at every step in "human" mode, each
        # opponent's hand included: the wrapper renders (as text) and prints the learner's only.
        aec_render = "ansi" if render_mode == "human" else render_mode
        self.aec = RamsEnv(render_mode=aec_render, engine=engine, spec=self.rams_spec)
        if seats is not None:
            learner_seat, opponents = seats_in_place_of(learner_seat, opponents, seats, self.aec.config.num_players)
        n = self.aec.config.num_players
        if not (isinstance(learner_seat, str) and learner_seat == "random"):
            try:
                learner_seat = seat_int(learner_seat, n, "learner_seat")
            except ValueError:
                raise ValueError(f"learner_seat must be a seat 0..{n - 1} or 'random', got {learner_seat!r}") from None
        self.learner_seat = learner_seat
        if isinstance(opponents, str):
            opponents = named_opponent(opponents)
        elif isinstance(opponents, Sequence):
            opponents = [named_opponent(o) if isinstance(o, str) else o for o in opponents]
        if opponents is None or not isinstance(opponents, Sequence):
            given = [] if opponents is None else [opponents]
            self._opponents: list[Policy | None] = [None if opponents is None else _as_policy(opponents, self.aec)] * n
        else:
            if len(opponents) != n - 1:
                raise ValueError(f"opponents: give one policy or {n - 1} (one per other seat), got {len(opponents)}")
            given = list(opponents)
            self._opponent_list = [_as_policy(o, self.aec) for o in opponents]
            self._opponents = []
        # What reset(seed=...) reseeds: each opponent with a seed(seed) method, once, by its first position.
        firsts = {id(o): k for k, o in reversed(list(enumerate(given)))}
        self._seeded = [
            (k, o) for k, o in enumerate(given) if firsts[id(o)] == k and callable(getattr(o, "seed", None))
        ]
        self.render_mode = render_mode
        self.observation_space = observation_space()
        self.action_space = action_space()
        self._learner = "player_0"
        self._last_mask = np.zeros(NUM_ACTIONS, np.int8)
        self._carry = 0.0

    def _policies_for(self, seat: int) -> list[Policy | None]:
        if self._opponents:
            return self._opponents
        others = iter(self._opponent_list)
        return [None if s == seat else next(others) for s in range(self.aec.config.num_players)]

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        if seed is not None:
            seed = check_seed(seed)
        if not options:
            self._reset(seed, None)
            return self._observe()
        # Options can fail (ValueError naming the option): leave the seed sequence as it was.
        aec = self.aec
        generator, generator_seed = self._np_random, self._np_random_seed
        generator_state = None if generator is None else generator.bit_generator.state
        seeder_state = aec.seeder_state
        try:
            self._reset(seed, options)
        except BaseException:
            self._np_random, self._np_random_seed = generator, generator_seed
            if generator is not None:
                generator.bit_generator.state = generator_state
            aec.seeder_state = seeder_state
            raise
        return self._observe()

    def _reset(self, seed: int | None, options: dict[str, Any] | None) -> None:
        super().reset(seed=seed)
        aec = self.aec
        aec_seed = None if seed is None else int(self.np_random.integers(2**63))
        if seed is None and aec.game is None:
            aec_seed = int(self.np_random.integers(2**63))
        n = aec.config.num_players
        seat = int(self.np_random.integers(n)) if self.learner_seat == "random" else self.learner_seat
        learner, policies = aec.possible_agents[seat], self._policies_for(seat)
        aec.reset(seed=aec_seed, options=options)  # raises for bad options, before anything changed here
        if seed is not None:  # the opponents' own generators: the whole episode follows from the seed
            for k, opponent in self._seeded:
                opponent.seed(opponent_seed(seed, k))
        self._learner, self._policies = learner, policies
        self._advance()
        deals = 1
        while aec.terminations[learner]:
            # The episode ended before the learner had a decision (say everyone before the dealer
            # passed): it teaches nothing, so deal the next one from the same generator, and from
            # the same requested options.
            if options and deals >= OPTION_DEALS:
                raise ValueError(
                    f"reset options {sorted(options)}: {deals} deals from them all ended before "
                    f"{learner}'s first decision; choose other options or another learner_seat"
                )
            aec.reset(options=options)
            self._advance()
            deals += 1
        # Rewards the learner got before its first decision are paid with its first step.
        self._carry = float(aec.cumulative_reward(learner))
        if self.render_mode == "human":
            self.render()

    def step(self, action: int):
        aec, learner = self.aec, self._learner
        if aec.terminations[learner]:
            raise RuntimeError("the episode is over: call reset()")
        if aec.agent_selection != learner:
            raise RuntimeError("internal error: the learner is not to act")
        index = action_id(action)
        if index is None:
            raise TypeError(
                f"action must be an integer action id 0..{NUM_ACTIONS - 1} (a Python or numpy integer), got {action!r}"
            )
        aec.step(index)
        self._advance()
        reward = float(aec.cumulative_reward(learner)) + self._carry
        self._carry = 0.0
        obs, info = self._observe()
        if self.render_mode == "human":
            self.render()
        return obs, reward, bool(aec.terminations[learner]), False, info

    def _advance(self) -> None:
        """Let the other seats play until the learner is to act or the episode ends.

        An opponent's illegal action raises (the AEC env's "raise" mode, whatever the learner's
        ``illegal_action``): ending the episode would hide a broken opponent behind a 0 reward."""
        aec, learner = self.aec, self._learner
        mode, aec.illegal_action = aec.illegal_action, "raise"
        try:
            while not aec.terminations[learner] and aec.agent_selection != learner:
                agent = aec.agent_selection
                policy = self._policies[aec.seat_of(agent)]
                if policy is None:
                    legal = aec.legal_actions()
                    aec.step(legal[int(self.np_random.integers(len(legal)))])
                    continue
                try:
                    aec.step(policy(aec.observe(agent)))
                except IllegalActionError as err:
                    raise IllegalActionError(f"opponent {err} (policy {policy!r})") from None
        finally:
            aec.illegal_action = mode

    def _observe(self) -> tuple[np.ndarray, dict[str, Any]]:
        obs = self.aec.observe(self._learner)
        self._last_mask = obs["action_mask"]
        info = dict(self.aec.infos[self._learner])
        info["action_mask"] = obs["action_mask"]
        info["seat"] = self.aec.seat_of(self._learner)
        return obs["observation"], info

    def action_masks(self) -> np.ndarray:
        """Boolean mask of the learner's legal actions (sb3-contrib MaskablePPO)."""
        return self._last_mask.astype(bool)

    def render(self) -> str | np.ndarray | None:
        """The table from the learner's seat, in every render mode and also once the episode is over
        (``"rgb_array"``: an ``(720, 960, 3)`` uint8 picture drawn from the learner's ``view()``;
        ``"human"``: printed, and also after every ``reset()`` and ``step()``)."""
        if self.render_mode is None:
            return self.aec.render()  # warns
        if self.aec.game is None:
            return None
        picture = self.aec.render_from(self.aec.seat_of(self._learner))
        if self.render_mode == "human":
            print(picture)
            return None
        return picture


class ActionMasks(gymnasium.Wrapper, gymnasium.utils.RecordConstructorArgs):
    """``action_masks()`` on the outside of ``gymnasium.make``'s wrappers, which forward no methods
    (sb3-contrib users call ``env.action_masks()`` on what ``gymnasium.make`` returned)."""

    def __init__(self, env: gymnasium.Env) -> None:
        gymnasium.utils.RecordConstructorArgs.__init__(self)
        gymnasium.Wrapper.__init__(self, env)

    def action_masks(self) -> np.ndarray:
        """The wrapped env's ``action_masks()`` (boolean mask of the learner's legal actions)."""
        return self.env.get_wrapper_attr("action_masks")()


def _wrap_made_envs() -> None:
    """List :class:`ActionMasks` among the registered spec's additional wrappers.

    This module registers the id and then adds the wrapper, so even the first ``make`` gets it;
    ``gymnasium.make(env.spec)`` recreates it.
    """
    spec = gymnasium.registry.get(ENV_ID)
    if spec is None or spec.entry_point != ENTRY_POINT:
        return
    wrapper = ActionMasks.wrapper_spec()
    if all(w.entry_point != wrapper.entry_point for w in spec.additional_wrappers):
        spec.additional_wrappers = (*spec.additional_wrappers, wrapper)


register()  # the ids (rams_env.gym_id), when this module is imported without rams_env/__init__'s registration
_wrap_made_envs()
