"""The two engines behind the AEC env, with one interface: the compiled one (default, fast) and
the pure-Python reference (``engine="reference"``).

Both start a game as ``Game(config, seed, deck=..., dealer=..., scores=...)`` would, apply
actions, and answer what the env needs after each one. ``CompiledBackend`` keeps a ``Game``
mirror for what only the reference can answer (``view()``, rendering, ``env.game``): it replays
the actions onto the mirror when it is asked for, so the mirror costs nothing in training.
``tests/envs/test_backends.py`` plays both engines side by side.
"""

from __future__ import annotations

import operator
from typing import Any, NamedTuple

import numpy as np

from .. import compiled
from ..obs.encoding import OBS_SIZE, ObservationEncoder, action_mask
from ..rules import Game, IllegalActionError, Phase, RulesConfig
from ..rules.actions import NUM_ACTIONS
from ..rules.episode import next_deal_or_end, shared_win, win_rewards
from ..rules.phases import illegal_message

P = compiled.P  # the compiled engine pads its per-seat numbers to this many seats
_SCORED, _INFO, _OVER = compiled.STEP_SCORED, compiled.STEP_INFO, compiled.STEP_OVER  # game_step's flags
_STEP_FLAGS = _SCORED | _INFO | _OVER  # its low bits; the bits above: the seat to act + 1
ILLEGAL = -1  # game_step's answer to an illegal action
ENGINES = ("compiled", "reference")
_NOTHING = np.zeros(0, np.int64)
_FLOAT32, _INT8 = np.dtype(np.float32), np.dtype(np.int8)


class StepResult(NamedTuple):
    """What the env needs after ``start`` or an action; the per-seat lists hold one entry a seat.

    Read the lists before the next action, and do not change them: the compiled backend builds
    its results once and updates their lists in place (copy them to keep them)."""

    scored: bool  # some seat's score changed
    infos_changed: bool  # a trick or the deal ended, or the game started: the infos' scores and tricks
    over: bool  # the episode is over
    next_seat: int  # the seat to act, -1 once the episode is over
    score_changes: list[int]  # before - after (scores count down: a positive change is a reward)
    scores: list[int]
    tricks: list[int]  # tricks won this deal


def action_id(action: Any) -> int | None:
    """The integer id of ``action`` (a Python or numpy integer), or ``None`` for anything else: a
    bool is not an action id (``True`` is not action 1), nor is a float or a string."""
    if type(action) is int:
        return action
    if isinstance(action, (bool, np.bool_)):
        return None
    try:
        return operator.index(action)
    except TypeError:
        return None


def illegal_action_message(action: Any, player: int, phase: int, legal: list[int]) -> str:
    """:func:`~rams_env.rules.phases.illegal_message`, with a bool named as what it is: not an action id."""
    if isinstance(action, (bool, np.bool_)):
        return f"action must be an int action id, got {action!r}"
    return illegal_message(action, player, phase, legal)


class ReferenceBackend:
    """The pure-Python ``Game``, encoded from scratch at every observation."""

    def __init__(self, config: RulesConfig, episode: str) -> None:
        self.config, self.episode = config, episode
        self.encoder = ObservationEncoder(config)
        self.game: Game | None = None
        self._error = ""

    def start(self, seed: int, deck: Any = None, dealer: Any = None, scores: Any = None) -> StepResult:
        """A new game (``ValueError`` for bad options): its scores and tricks, and the seat to act."""
        game = self.game = Game(self.config, seed=seed, deck=deck, dealer=dealer, scores=scores)
        zeros = [0] * self.config.num_players
        return StepResult(False, True, game.current < 0, game.current, zeros, game.scores[:], game.tricks_won[:])

    @property
    def current(self) -> int:
        return self.game.current  # type: ignore[union-attr]

    @property
    def phase(self) -> int:
        return int(self.game.phase)  # type: ignore[union-attr]

    def apply(self, action: Any) -> StepResult | None:
        """Apply an action: ``None`` if it is illegal (see :meth:`illegal`), else what it changed."""
        game = self.game
        assert game is not None
        if type(action) is not int:
            action_id_ = action_id(action)
            if action_id_ is None:  # Game.apply would take True for action 1
                self._error = illegal_action_message(action, game.current, game.phase, game.legal_actions())
                return None
            action = action_id_
        scores_before = game.scores[:]
        tricks_before = len(game.completed)
        try:
            game.apply(action)
        except IllegalActionError as err:
            self._error = str(err)
            return None
        changes = [b - a for b, a in zip(scores_before, game.scores, strict=True)]
        infos_changed = len(game.completed) != tricks_before
        over = False
        if game.phase >= Phase.DEAL_OVER:
            infos_changed = True
            over = next_deal_or_end(game, self.episode)
        return StepResult(any(changes), infos_changed, over, game.current, changes, game.scores[:], game.tricks_won[:])

    def illegal(self, action: Any) -> str:
        """Why the last ``apply`` returned ``None``."""
        return self._error

    def win_rewards(self) -> list[float]:
        return win_rewards(self.game)  # type: ignore[arg-type]

    def observe(self, seat: int) -> tuple[np.ndarray, np.ndarray]:
        """The observation and mask of ``seat`` (fresh arrays)."""
        return self.encoder.encode(self.game, seat), action_mask(self.game, seat)  # type: ignore[arg-type]

    def legal(self) -> list[int]:
        return self.game.legal_actions()  # type: ignore[union-attr]


class GameMirror:
    """What the compiled env hands out as ``env.game``: every attribute read is answered by a
    reference ``Game`` replayed up to the env's current state, so a reference kept across steps
    stays current. It is for reading; ``clone()`` gives an independent ``Game`` to play on."""

    __slots__ = ("_backend",)

    def __init__(self, backend: CompiledBackend) -> None:
        self._backend = backend

    def __getattr__(self, name: str) -> Any:
        return getattr(self._backend.synced_game(), name)

    def __repr__(self) -> str:
        return f"GameMirror({self._backend.synced_game()!r})"


class CompiledBackend:
    """The compiled engine (:mod:`rams_env.compiled`) on one game, with a lazy ``Game`` mirror."""

    def __init__(self, config: RulesConfig, episode: str, reward: str = "points") -> None:
        self.config, self.episode = config, episode
        self.encoder = ObservationEncoder(config)
        self._buffer = compiled.aec_buffer(config, episode, reward)
        # The seat to act's observation and mask, written by each compiled step: an AEC loop
        # reads exactly that observation next, and a copy is cheaper than a fresh encoding.
        self._next_observation = np.zeros(OBS_SIZE, np.float32)
        self._next_mask = np.zeros(NUM_ACTIONS, np.int8)
        self._next_seat = -1
        self._n = config.num_players
        self._mirror: Game | None = None
        self._mirror_args: dict[str, Any] | None = None
        self._actions: list[int] = []
        self._synced = 0
        self.current = -1  # the seat to act
        self._bind()
        # Every result game_step can give, by its answer (flags | (seat to act + 1) << 4), built once:
        # their lists are updated in place after each action that changes them (most change nothing).
        n = self._n
        self._changes, self._scores, self._tricks = [0] * n, [0] * n, [0] * n
        zeros = [0] * n
        self._results = [
            StepResult(
                bool(f & _SCORED),
                bool(f & _INFO),
                bool(f & _OVER),
                (f >> 4) - 1,
                self._changes if f & _SCORED else zeros,
                self._scores,
                self._tricks,
            )
            for f in range((n + 1) << 4)
        ]

    def _bind(self) -> None:
        """The views of the buffer and the compiled entry points, built from ``_buffer`` (again after a
        copy or an unpickling: a copied view would no longer see the buffer, and compiled functions
        do not pickle)."""
        buffer = self._buffer
        self._state = buffer[: compiled.STATE_WIDTH]
        self._cfg = buffer[compiled.B_CONFIG : compiled.B_RNG]
        self._rng = buffer[compiled.B_RNG : compiled.B_NUMBERS]
        self._numbers = buffer[compiled.B_NUMBERS :]
        # score changes, scores and tricks (a view of the buffer's numbers, each padded to P seats)
        self._per_seat = self._numbers[: 3 * P].reshape(3, P)[:, : self._n]
        self._game_step = compiled.entry_point(compiled.game_step, buffer, 0, self._next_observation, self._next_mask)
        self._observe = compiled.entry_point(
            compiled.observe, self._state, self._cfg, 0, self._next_observation, self._next_mask
        )

    _BOUND = ("_state", "_cfg", "_rng", "_numbers", "_per_seat", "_game_step", "_observe")

    def __getstate__(self) -> dict[str, Any]:
        """What a copy or a pickle holds: everything but what :meth:`_bind` rebuilds."""
        return {key: value for key, value in self.__dict__.items() if key not in self._BOUND}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._bind()

    def start(self, seed: int, deck: Any = None, dealer: Any = None, scores: Any = None) -> StepResult:
        """A new game (``ValueError`` for bad options, checked by building the ``Game`` mirror): its
        scores and tricks, and the seat to act."""
        args = {"seed": seed, "deck": deck, "dealer": dealer, "scores": scores}
        cards, start_scores = _NOTHING, _NOTHING
        mirror = None
        if deck is not None or dealer is not None or scores is not None:
            mirror = Game(self.config, **args)  # raises ValueError naming a bad option
            if deck is not None:
                cards = np.array(mirror._check_deck(deck), np.int64)
            if scores is not None:
                start_scores = np.array(scores, np.int64)
        self.current = self._next_seat = compiled.aec_start(
            self._buffer,
            seed,
            -1 if dealer is None else dealer,
            start_scores,
            cards,
            self._next_observation,
            self._next_mask,
        )
        self._mirror, self._mirror_args = mirror, args
        self._actions, self._synced = [], 0
        if self.current < 0:  # over at once (russian: going out on jacks): the winners, as game_step gives them
            state = self._state
            winners = state[compiled.GAME_WINNERS]
            if winners < 0:
                winners = state[compiled.RAMS_WINNERS]
            if winners < 0:  # not expected: ask the reference
                winners = sum(1 << seat for seat in self.synced_game().winners or ())
            self._numbers[3 * P] = winners
        self._changes[:], self._scores[:], self._tricks[:] = self._per_seat.tolist()
        return self._results[_INFO | (_OVER if self.current < 0 else 0) | (self.current + 1) << 4]

    @property
    def game(self) -> GameMirror | None:
        """A live, read-only view of the game as a reference ``Game`` (see :class:`GameMirror`)."""
        return None if self._mirror_args is None else GameMirror(self)

    def synced_game(self) -> Game:
        """The reference ``Game`` mirror brought up to the compiled engine's state."""
        assert self._mirror_args is not None, "no game before start()"
        if self._mirror is None:
            self._mirror = Game(self.config, **self._mirror_args)
        game = self._mirror
        for action in self._actions[self._synced :]:
            game.apply(action)
            if game.phase >= Phase.DEAL_OVER:
                next_deal_or_end(game, self.episode)
        self._synced = len(self._actions)
        return game

    @property
    def phase(self) -> int:
        return int(self._state[compiled.PHASE])

    def apply(self, action: Any) -> StepResult | None:
        """Apply an action: ``None`` if it is illegal (see :meth:`illegal`), else what it changed."""
        action_id_ = action if type(action) is int else action_id(action)
        if action_id_ is None or not 0 <= action_id_ < NUM_ACTIONS:
            return None
        flags = self._game_step(self._buffer, action_id_, self._next_observation, self._next_mask)  # type: ignore[operator]
        if flags == ILLEGAL:
            return None
        self._actions.append(action_id_)
        self.current = self._next_seat = (flags >> 4) - 1
        if flags & _STEP_FLAGS:  # scores, tricks or the deal changed
            self._changes[:], self._scores[:], self._tricks[:] = self._per_seat.tolist()
        return self._results[flags]

    def illegal(self, action: Any) -> str:
        """Why the last ``apply`` returned ``None``."""
        return illegal_action_message(action, self.current, self.phase, self.legal())

    def win_rewards(self) -> list[float]:
        winners = int(self._numbers[3 * P])
        return shared_win([s for s in range(self._n) if (winners >> s) & 1], self._n)

    def observe(self, seat: int) -> tuple[np.ndarray, np.ndarray]:
        """The observation and mask of ``seat`` (fresh arrays)."""
        if seat == self._next_seat:  # hand out the step's arrays; the next step writes into new ones
            observation, mask = self._next_observation, self._next_mask
            self._next_observation, self._next_mask = np.empty(OBS_SIZE, _FLOAT32), np.empty(NUM_ACTIONS, _INT8)
            self._next_seat = -1
            return observation, mask
        observation, mask = np.empty(OBS_SIZE, _FLOAT32), np.empty(NUM_ACTIONS, _INT8)
        self._observe(self._state, self._cfg, seat, observation, mask)  # type: ignore[operator]
        return observation, mask

    def legal(self) -> list[int]:
        return compiled.legal_actions(self._state)
