"""The public core: many games of one :class:`~rams_env.rules.spec.EnvSpec`, stepped in one compiled call.

:class:`Core` is what every batched face is built on (the batched env, the Gymnasium vector env, the evaluation
against heuristics) and what a new adapter builds on (docs/extending.md, ``examples/dm_env_face.py``). Each seat
of each game has a role (:data:`ROLES`): a ``"learner"`` or ``"agent"`` seat stops the call for its decision (the
caller decides, or an outside policy for it); a ``"heuristic"`` or ``"random"`` seat is played inside the call,
each game's compiled player drawing from its own generator. A call carries out one command a game (:data:`HOLD`,
:data:`ACT`, :data:`RESTART`) and writes the one output struct, :class:`Outputs`. With ``autoreset`` an episode
that ends starts the next in the same call (same-step); without it the game is held at its end until told to
restart. Everything in :mod:`rams_env.compiled` besides what this module offers is private to the engine.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from .compiled import layout as _layout
from .compiled.ahead import compile_ahead
from .compiled.compiler import entry_point, is_cached
from .compiled.core import (
    ACT,
    HEURISTIC,
    HOLD,
    LEARNER,
    OUTSIDE,
    RANDOM,
    RESTART,
    DealStarts,
    Outputs,
    Tables,
    make_outputs,
    make_tables,
    play,
    restart,
    seed_generators,
    start_games,
)
from .compiled.drivers import first_illegal_in as first_illegal
from .compiled.encode import legal_actions
from .compiled.heuristic import heuristic_action
from .compiled.heuristic_batch import heuristic_actions
from .compiled.layout import config_array
from .compiled.mt import mt_seed
from .compiled.workspace import make_workspace, mt_state
from .rules.config import RulesConfig
from .rules.phases import IllegalActionError, illegal_message
from .rules.spec import EnvSpec

MAX_SEATS = _layout.P
"""the seats of the tables' rows: every table size pads to it"""

ROLES = {"learner": LEARNER, "heuristic": HEURISTIC, "random": RANDOM, "agent": OUTSIDE}
"""The core's role of each kind of seat (:class:`~rams_env.envs.seats.Seat`'s kinds): the one place a seat
becomes a role."""

COLUMNS = {
    "current": _layout.CURRENT,  # the seat to act
    "phase": _layout.PHASE,  # the phase (rams_env.rules.Phase's value)
    "legal": _layout.LEGAL,  # the legal actions as a bit set
    "dealer": _layout.DEALER,
    "deal_number": _layout.DEAL_NUMBER,  # deals started since the episode began
    "game_winners": _layout.GAME_WINNERS,  # the game's winners as a seat bit set, -1 while it goes on
    "rams_winners": _layout.RAMS_WINNERS,  # the last rams' winners as a seat bit set, -1 before one ends
}
SEAT_COLUMNS = {
    "scores": _layout.SCORES,
    "tricks": _layout.TRICKS_WON,
    "flights": _layout.FLIGHTS,
    "hands": _layout.HAND,
}
"""The state's read-only views by name: one value a game (:data:`COLUMNS`) or one a seat (hands are hidden
information: for critics and tests, never for a player)."""


def is_compiled() -> bool:
    """Whether numba's cache holds the core's compiled step and deal starts (False when unsure), so that a first
    run can say it compiles."""
    return is_cached(play) and is_cached(start_games)


def role_of(seat: Any) -> int:
    """The role of a seat: a :class:`~rams_env.envs.seats.Seat` or its kind's name."""
    kind = getattr(seat, "kind", seat)
    if kind not in ROLES:
        raise ValueError(f"a seat is one of {list(ROLES)}, got {seat!r}")
    return ROLES[kind]


class Core:
    """``num_games`` games of ``spec``, their seats' roles and the outputs of the last call.

    Every seat is a learner until :meth:`set_seats`; :meth:`restart` deals every game's first episode and
    :meth:`step` carries out a command a game. ``outputs`` is rewritten by each call: copy what you keep.
    """

    def __init__(self, spec: EnvSpec, num_games: int, *, autoreset: bool = False) -> None:
        if not isinstance(spec, EnvSpec):
            raise TypeError(f"spec must be an EnvSpec (rams_env.make_spec), got {type(spec).__name__}")
        if isinstance(num_games, bool) or not isinstance(num_games, (int, np.integer)) or num_games < 1:
            raise ValueError(f"num_games must be a positive int, got {num_games!r}")
        self.spec, self.num_games, self.autoreset = spec, int(num_games), bool(autoreset)
        self.num_players = spec.num_players
        self.cfg = config_array(spec.config, spec.episode, spec.reward)
        """the rule options as the compiled engine reads them"""
        self.tables: Tables = make_tables(self.num_games)
        self.outputs: Outputs = make_outputs(self.num_games, self.num_players)
        self.dropped_episodes = 0
        """episodes that ended before any learner decision: played out, not reported, dealt again"""
        self.act_all = np.full(self.num_games, ACT, np.int64)
        """the commands of a step in which every game acts"""
        self._bind()

    def _bind(self) -> None:
        """``play`` compiled for these exact arrays, called without numba's type dispatch (it costs more than a
        small batch's step). Built again after a copy or an unpickling: compiled functions do not pickle."""
        self._play = entry_point(play, self.tables, self.cfg, self.act_all, self.act_all, self.outputs, self.autoreset)

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "_play"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._bind()

    def set_seats(
        self,
        seats: Sequence[Any] | np.ndarray,
        games: np.ndarray | None = None,
        *,
        slots: np.ndarray | None = None,
        seeds: np.ndarray | None = None,
        learner: np.ndarray | None = None,
        now: bool = True,
        later: bool = True,
    ) -> None:
        """Who plays each seat of ``games`` (all by default): a row of seats for every game, or one row a game
        (seats, kinds' names or roles): ``now`` for the episodes under way, ``later`` for those an autoreset or
        a dealt-again episode starts. ``slots[g, seat]`` picks the generator a compiled seat draws from (its own
        by default), ``seeds[g, slot]`` seeds those generators, ``learner[g]`` is the seat whose final
        observation a held game shows (-1: none)."""
        rows = self._rows(games)
        roles = _role_rows(seats, len(rows), self.num_players)
        t = self.tables
        if later:
            t.next_roles[rows, : self.num_players] = roles
        if now:
            t.roles[rows, : self.num_players] = roles
            if slots is None:
                t.slots[rows] = np.arange(t.slots.shape[1])
            else:
                t.slots[rows, : self.num_players] = slots
        if seeds is not None:
            self.seed_players(seeds, rows)
        if learner is not None:
            t.learner[rows] = learner

    def seed_players(self, seeds: np.ndarray, games: np.ndarray | None = None) -> None:
        """Seed the compiled players' generators of ``games``: ``seeds[g, slot]`` (as ``HeuristicAgent(seed=...)``
        and ``RandomAgent(seed=...)`` seed theirs)."""
        rows = self._rows(games)
        full = np.zeros((len(rows), self.tables.orngs.shape[1]), np.int64)
        full[:, : np.shape(seeds)[1]] = seeds
        if games is None:
            seed_generators(self.tables.orngs, full)
            return
        orngs = self.tables.orngs[rows]
        seed_generators(orngs, full)
        self.tables.orngs[rows] = orngs

    def _rows(self, games: np.ndarray | None) -> np.ndarray:
        return np.arange(self.num_games) if games is None else np.asarray(games, np.int64)

    def restart(self, seeds: Sequence[int] | np.ndarray, out: Outputs | None = None) -> Outputs:
        """Seed every game's episode generator with ``seeds[i]`` (as ``rams_env.env().reset(seed=seeds[i])``) and
        start its first episode, played up to its first learner or agent decision (written into ``out``, other
        output arrays, if given)."""
        seeds = np.asarray(seeds, np.uint64).astype(np.int64)
        out = self.outputs if out is None else out
        self.dropped_episodes += restart(self.tables, self.cfg, seeds, out, self.autoreset)
        return out

    def step(self, actions: np.ndarray, commands: np.ndarray | None = None) -> Outputs:
        """Carry out ``commands[i]`` (:data:`ACT` for every game by default) with ``actions[i]``; an illegal action
        raises :class:`~rams_env.rules.IllegalActionError` naming the game, and then no game was stepped."""
        actions = np.ascontiguousarray(actions, np.int64)
        bad = self.run(self.act_all if commands is None else np.ascontiguousarray(commands, np.int64), actions)
        if bad >= 0:
            raise IllegalActionError(f"game {bad}: {self.why_illegal(bad, int(actions[bad]))}")
        return self.outputs

    def run(self, commands: np.ndarray, actions: np.ndarray, out: Outputs | None = None) -> int:
        """:meth:`step` without the error: returns the first game told to ``ACT`` an illegal action (then no game
        was stepped), or -1. ``out``: other output arrays to write (any contiguous or strided arrays of the
        outputs' dtypes; the core's own, and arrays of exactly their kind, take the fast path)."""
        if out is None or _same_kind(out, self.outputs):
            out = self.outputs if out is None else out
            bad, dropped = self._play(self.tables, self.cfg, commands, actions, out, self.autoreset)
        else:
            bad, dropped = play(self.tables, self.cfg, commands, actions, out, self.autoreset)
        self.dropped_episodes += dropped
        return bad

    def seed_episodes(self, seeds: Sequence[int] | np.ndarray) -> None:
        """Seed every game's episode generator (as :meth:`restart` does) for the next :data:`RESTART`."""
        rngs = self.tables.rngs
        for i, seed in enumerate(np.asarray(seeds, np.uint64).astype(np.int64)):
            mt_seed(rngs[i, 0], seed)

    def start(self, games: np.ndarray, starts: DealStarts) -> Outputs:
        """Start ``games[k]`` from the ``k``-th fixed deal start (an evaluation's deals), held at its end."""
        start_games(self.tables, self.cfg, np.asarray(games, np.int64), starts, self.outputs)
        return self.outputs

    def view(self, name: str) -> np.ndarray:
        """A read-only copy of one state column of every game (:data:`COLUMNS`, :data:`SEAT_COLUMNS`)."""
        states = self.tables.states
        if name in COLUMNS:
            return states[:, COLUMNS[name]].copy()
        if name in SEAT_COLUMNS:
            start = SEAT_COLUMNS[name]
            return states[:, start : start + self.num_players].copy()
        raise ValueError(f"unknown view {name!r}; choose one of {sorted({*COLUMNS, *SEAT_COLUMNS})}")

    def seat_view(self, name: str, seats: np.ndarray) -> np.ndarray:
        """One value a game of a :data:`SEAT_COLUMNS` view: game ``i``'s at seat ``seats[i]``."""
        if name not in SEAT_COLUMNS:
            raise ValueError(f"unknown seat view {name!r}; choose one of {sorted(SEAT_COLUMNS)}")
        return self.tables.states[np.arange(self.num_games), SEAT_COLUMNS[name] + seats]

    def roles(self) -> np.ndarray:
        """Every game's seats' roles now (a copy; compare with :data:`ROLES`)."""
        return self.tables.roles[:, : self.num_players].copy()

    def why_illegal(self, game: int, action: int) -> str:
        """Why ``action`` is illegal in ``game`` (the words of ``IllegalActionError``)."""
        state = self.tables.states[game]
        player, phase = int(state[_layout.CURRENT]), int(state[_layout.PHASE])
        return illegal_message(action, player, phase, legal_actions(state))


class Heuristic:
    """The compiled heuristic (``HeuristicAgent``'s twin: the same action for every observation, seed for seed)
    deciding observations outside a :class:`Core`, one generator for each of ``seeds`` (any shape: one a game and
    seat, say); ``None`` seeds from the operating system."""

    def __init__(self, seeds: Any) -> None:
        seeds = np.asarray(seeds, dtype=object)
        self.generators = np.stack([mt_state(s) for s in seeds.reshape(-1)]).reshape(*seeds.shape, -1)
        """each seed's generator (shape ``seeds``' and the generator's state)"""
        self._workspace = make_workspace()

    def reseed(self, seed: int | None, index: Any = 0) -> None:
        """Reseed the generator at ``index``, as ``HeuristicAgent.rng.seed(seed)`` does."""
        self.generators[index] = mt_state(seed)

    def act(self, observation: np.ndarray, config: RulesConfig, legal: int, index: Any = 0) -> int:
        """The action for one float32 observation vector with the legal actions' bit set ``legal``, drawing from
        the generator at ``index``."""
        ws = self._workspace
        return int(heuristic_action(observation, _rules(config), legal, self.generators[index], ws.work, ws.iwork))

    def act_rows(
        self, observations: np.ndarray, masks: np.ndarray, config: RulesConfig, seats: np.ndarray
    ) -> np.ndarray:
        """The actions for observation rows (float32) with their masks (int8 or bool rows), row ``i`` drawing from
        the generator of game ``i`` and seat ``seats[i]`` (the generators' shape: games by seats)."""
        out = np.empty(len(observations), np.int64)
        heuristic_actions(observations, masks, _rules(config), self.generators, seats, self._workspace, out)
        return out


@lru_cache(maxsize=64)
def _rules(config: RulesConfig) -> np.ndarray:
    """The compiled form of ``config``, as the heuristic reads it (built once a config)."""
    return config_array(config, "deal", "points")


def _same_kind(out: Outputs, like: Outputs) -> bool:
    """Whether every array of ``out`` has the dtype, rank and C layout of ``like``'s (the compiled entry's types)."""
    return all(
        type(a) is np.ndarray and a.flags.c_contiguous and a.flags.writeable and a.dtype == b.dtype and a.ndim == b.ndim
        for a, b in zip(out, like, strict=True)
    )


def _role_rows(seats: Any, num_rows: int, num_players: int) -> np.ndarray:
    """Seats (one row, or one row a game) as an int64 role array of shape (num_rows, num_players)."""
    array = np.asarray(seats, dtype=object if not isinstance(seats, np.ndarray) else None)
    if array.ndim == 1:
        array = np.broadcast_to(array, (num_rows, len(array)))
    if array.shape != (num_rows, num_players):
        raise ValueError(f"seats: give {num_players} a game (or one row a game), got shape {array.shape}")
    if np.issubdtype(array.dtype, np.integer):
        return array.astype(np.int64)
    return np.vectorize(role_of, otypes=[np.int64])(array)


__all__ = [
    "ACT",
    "COLUMNS",
    "HOLD",
    "MAX_SEATS",
    "RESTART",
    "ROLES",
    "SEAT_COLUMNS",
    "Core",
    "DealStarts",
    "Heuristic",
    "Outputs",
    "compile_ahead",
    "first_illegal",
    "is_compiled",
    "role_of",
]
