"""Batched environments for training: many games stepped together, stacked arrays out.

:class:`BatchedRamsEnv` runs the rules compiled with numba (:mod:`rams_env.compiled`): one
compiled call applies every game's action, encodes the next observation and writes the mask.
:class:`ReferenceBatchedRamsEnv` drives the pure-Python reference engine in a loop, encoding
every observation from scratch, about 30x slower. Both play exactly the games of
:func:`rams_env.env` (``tests/test_vector.py`` plays the same seeds with the same actions through
them and the AEC env and compares every observation, mask, reward and score).
:class:`SubprocBatchedRamsEnv` splits the games over worker processes for multi-core machines.

Each call returns a :class:`BatchStep` describing, for every game, the decision now due: the
acting seat, its observation and mask. ``rewards[i, s]`` is what seat ``s`` of game ``i`` earned
from the action just applied (score decreases, or the ``win`` rewards at the end), ``done[i]``
says that action ended the episode; the game has then been reset (seeded) and the observation
is the first decision of its next episode. Episodes that end before any decision (russian: a
player going out on jacks at the first deal) are skipped on reset.
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import multiprocessing as mp
import random
from dataclasses import dataclass
from multiprocessing import shared_memory
from typing import Any

import numpy as np

from . import compiled
from .compiled.versus import reset_versus, step_versus
from .encoding import OBS_SIZE, ObservationEncoder, action_mask
from .episode import check_episode, next_deal_or_end, win_rewards
from .heuristic_seats import Versus, checked_heuristic_seeds, seat_masks, unpack_seats
from .rules import Game, IllegalActionError, Phase, RulesConfig, make_config
from .rules.actions import NUM_ACTIONS
from .rules.phases import illegal_message


@dataclass
class BatchStep:
    """Stacked arrays for ``num_games`` games (see the module docstring)."""

    observations: np.ndarray  # float32 (N, OBS_SIZE): the acting seat's observation
    action_masks: np.ndarray  # int8 (N, 60)
    seats: np.ndarray  # int64 (N,): the seat to act
    rewards: np.ndarray  # float32 (N, num_players): each seat's reward from the last action
    done: np.ndarray  # bool (N,): the last action ended the episode (the game was reset)


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
    )


SEED_LIMIT = 2**64  # the compiled generator is seeded from at most two 32-bit words


def _checked_seeds(seeds: Any, num_games: int) -> list[int]:
    """One int seed per game, each below 2**64 in size (``ValueError`` naming the first that is
    not); negative seeds become their absolute value, as ``random.Random`` takes them."""
    try:
        count = len(seeds)
    except TypeError:
        raise ValueError(f"seeds must be a list of {num_games} ints, got {type(seeds).__name__}") from None
    if count != num_games:
        raise ValueError(f"need {num_games} seeds, got {count}")
    checked = []
    for i, seed in enumerate(seeds):
        if (
            isinstance(seed, bool | np.bool_)
            or not isinstance(seed, int | np.integer)
            or not -SEED_LIMIT < seed < SEED_LIMIT
        ):
            raise ValueError(f"seeds[{i}]={seed!r}: a seed must be an int from -(2**64 - 1) to 2**64 - 1")
        checked.append(abs(int(seed)))
    return checked


_INT64 = np.dtype(np.int64)


def _checked_actions(actions: Any, num_games: int) -> np.ndarray:
    if type(actions) is np.ndarray and actions.dtype is _INT64 and actions.shape == (num_games,):
        return actions  # the usual case, recognised cheaply
    actions = np.asarray(actions)
    if actions.shape != (num_games,):
        raise ValueError(f"need one action per game: shape ({num_games},), got {actions.shape}")
    if actions.dtype == bool or not np.issubdtype(actions.dtype, np.integer):
        raise IllegalActionError(f"actions must be int action ids, got dtype {actions.dtype}")
    return actions.astype(np.int64, copy=False)


class _Batch:
    """What both in-process batched envs check and hold: the games' configuration and seed."""

    def __init__(
        self,
        num_games: int,
        variant: str = "mattmar",
        num_players: int = 4,
        episode: str = "deal",
        reward: str = "points",
        seed: int | None = None,
        **rule_options: Any,
    ) -> None:
        if not isinstance(num_games, int) or num_games < 1:
            raise ValueError(f"num_games must be a positive int, got {num_games!r}")
        check_episode(episode, reward)
        self.config: RulesConfig = make_config(variant, num_players, **rule_options)
        self.num_games, self.num_players = num_games, num_players
        self.episode, self.reward_kind = episode, reward
        self._seed = seed
        self._first_game = 0  # index of game 0 in a larger batch (a worker's block), for error messages

    def reset(self, seed: int | None = None) -> BatchStep:
        """Start a fresh episode in every game (seeded per game from ``seed``)."""
        return self.reset_games(game_seeds(self._seed if seed is None else seed, self.num_games))

    def reset_games(self, seeds: list[int], out: BatchStep | None = None) -> BatchStep:
        """Start a fresh episode in every game, game ``i`` seeded like ``env.reset(seed=seeds[i])``."""
        raise NotImplementedError

    def close(self) -> None:
        """Nothing to release in-process (present for symmetry with the subprocess env)."""


class BatchedRamsEnv(_Batch):
    """``num_games`` Rams games of one configuration, stepped together by the compiled engine.

    ``heuristic_seats`` (optional): seats played by the compiled ``HeuristicAgent`` inside the step,
    a bool array of shape ``(num_players,)`` (every game) or ``(num_games, num_players)``. Each step
    then returns only decisions of the other (controlled) seats; see :mod:`rams_env.compiled.versus`
    for how rewards, ``done`` and episodes without a controlled decision (``skipped_episodes``) are
    counted. Every game needs a controlled seat. Heuristic seat ``s`` of game ``i`` is seeded like
    ``HeuristicAgent(seed=heuristic_seed(seeds[i], s))`` (:mod:`rams_env.heuristic_seats`), or by
    ``reset_games(heuristic_seeds=...)``.
    """

    def __init__(self, num_games: int, *args: Any, heuristic_seats: Any = None, **kwargs: Any) -> None:
        super().__init__(num_games, *args, **kwargs)
        num_games, episode, reward = self.num_games, self.episode, self.reward_kind
        self._cfg = compiled.config_array(self.config, episode, reward)
        self._states = np.zeros((num_games, compiled.STATE_WIDTH), np.int64)
        self._rngs = np.zeros((num_games, 2, 625), np.int64)  # per game: episode seeder, game's rng
        self._started = False
        self._versus: Versus | None = None
        if heuristic_seats is not None:
            self._versus = Versus(num_games, self.num_players)
            self.set_heuristic_seats(heuristic_seats)

    @property
    def heuristic_seats(self) -> np.ndarray | None:
        """Per game and seat: played by the heuristic in the current episode (None without them)."""
        return None if self._versus is None else unpack_seats(self._versus.masks, self.num_players)

    @property
    def skipped_episodes(self) -> int:
        """Episodes that ended before any controlled decision, played out and not reported."""
        return 0 if self._versus is None else self._versus.skipped

    def set_heuristic_seats(self, seats: Any) -> None:
        """The heuristic seats (shape as in the constructor) of the episodes the next ``reset`` starts
        and of every later one."""
        masks = self._masks(seats)
        self._versus.pending[:] = masks
        self._versus.next[:] = masks

    def set_next_heuristic_seats(self, seats: Any) -> None:
        """The heuristic seats of each game from its next episode on (the current ones keep theirs)."""
        self._versus.next[:] = self._masks(seats)

    def _masks(self, seats: Any) -> np.ndarray:
        if self._versus is None:
            raise ValueError("this env was made without heuristic_seats; pass heuristic_seats= to the constructor")
        return seat_masks(seats, self.num_games, self.num_players)

    @property
    def scores(self) -> np.ndarray:
        """Every game's current scores, shape (num_games, num_players)."""
        return self._states[:, compiled.SCORES : compiled.SCORES + self.num_players].copy()

    @property
    def dealers(self) -> np.ndarray:
        """Every game's dealer of the current deal, shape (num_games,)."""
        return self._states[:, compiled.DEALER].copy()

    @property
    def deal_numbers(self) -> np.ndarray:
        """Every game's count of deals started since its episode began (0 for the first), shape (num_games,)."""
        return self._states[:, compiled.DEAL_NUMBER].copy()

    @property
    def hands(self) -> np.ndarray:
        """Every game's hands, shape (num_games, num_players): bit ``c`` of a seat's entry is set when
        it holds card ``c``. Hidden information: for training-time critics, never for a player."""
        return self._states[:, compiled.HAND : compiled.HAND + self.num_players].copy()

    def reset_games(
        self, seeds: list[int], out: BatchStep | None = None, heuristic_seeds: Any = None
    ) -> BatchStep:
        """Start a fresh episode in every game, game ``i`` seeded like ``env.reset(seed=seeds[i])``
        (written into ``out`` if given); ``heuristic_seeds[i][s]`` seeds heuristic seat ``s``."""
        seeds = _checked_seeds(seeds, self.num_games)
        out = out if out is not None else _batch(self.num_games, self.num_players)
        out.rewards.fill(0.0)
        out.done.fill(False)
        seed_array = np.asarray(seeds, np.uint64).astype(np.int64)
        versus = self._versus
        if versus is None:
            if heuristic_seeds is not None:
                raise ValueError("heuristic_seeds needs an env made with heuristic_seats")
            compiled.reset_batch(
                self._states, self._rngs, self._cfg, seed_array, out.observations, out.action_masks, out.seats
            )
        else:
            hseeds = checked_heuristic_seeds(seeds, heuristic_seeds, self.num_games, self.num_players)
            versus.masks[:] = versus.pending
            versus.skipped += reset_versus(
                self._states,
                self._rngs,
                self._cfg,
                seed_array,
                versus.masks,
                versus.rngs,
                hseeds,
                out.observations,
                out.action_masks,
                out.seats,
                versus.carry,
                versus.work,
                versus.iwork,
            )
        self._started = True
        return out

    def step(self, actions: Any, out: BatchStep | None = None) -> BatchStep:
        """Apply one action per game (to its acting seat) and return the next decisions (written
        into ``out`` if given). An illegal action raises ``IllegalActionError`` naming the game,
        and no game is stepped.
        """
        actions = _checked_actions(actions, self.num_games)
        if not self._started:
            raise RuntimeError("call reset() before step()")
        out = out if out is not None else _batch(self.num_games, self.num_players)
        versus = self._versus
        if versus is None:
            bad = compiled.step_batch(
                self._states,
                self._rngs,
                self._cfg,
                actions,
                out.observations,
                out.action_masks,
                out.seats,
                out.rewards,
                out.done,
            )
        else:
            bad, skipped = step_versus(
                self._states,
                self._rngs,
                self._cfg,
                actions,
                versus.masks,
                versus.next,
                versus.rngs,
                out.observations,
                out.action_masks,
                out.seats,
                out.rewards,
                out.done,
                versus.carry,
                versus.work,
                versus.iwork,
            )
            versus.skipped += skipped
        if bad >= 0:
            raise IllegalActionError(f"game {self._first_game + bad}: {self._illegal(bad, int(actions[bad]))}")
        return out

    def _legal_sets(self) -> np.ndarray:
        """Every game's legal actions as a bit set (bit ``a``: action ``a`` is legal)."""
        return self._states[:, compiled.LEGAL]

    def _illegal(self, game: int, action: int) -> str:
        state = self._states[game]
        player, phase = int(state[compiled.CURRENT]), int(state[compiled.PHASE])
        return illegal_message(action, player, phase, compiled.legal_actions(state))


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
        seeds = _checked_seeds(seeds, self.num_games)
        self._seeders = [random.Random(s) for s in seeds]
        self.games = [self._new_game(i) for i in range(self.num_games)]
        out = out if out is not None else _batch(self.num_games, self.num_players)
        out.rewards.fill(0.0)
        out.done.fill(False)
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
        actions = _checked_actions(actions, self.num_games)
        if not self.games:
            raise RuntimeError("call reset() before step()")
        action_list = actions.tolist()
        for i, action in enumerate(action_list):  # every action is checked before any game steps
            if action not in self.games[i].legal_actions():
                raise IllegalActionError(f"game {self._first_game + i}: {self._illegal(i, action)}")
        out = out if out is not None else _batch(self.num_games, self.num_players)
        out.rewards.fill(0.0)
        out.done.fill(False)
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
                out.done[i] = True
                self.games[i] = self._new_game(i)
            self._observe(i, out)
        return out

    def _illegal(self, game: int, action: int) -> str:
        state = self.games[game]
        return illegal_message(action, state.current, state.phase, state.legal_actions())


def _shared_fields(num_games: int, num_players: int) -> list[tuple[tuple[int, ...], Any]]:
    """Shape and dtype of each ``BatchStep`` array, in field order."""
    return [
        ((num_games, OBS_SIZE), np.float32),
        ((num_games, NUM_ACTIONS), np.int8),
        ((num_games,), np.int64),
        ((num_games, num_players), np.float32),
        ((num_games,), np.bool_),
    ]


def _shared_batch(blocks: list[shared_memory.SharedMemory], num_games: int, num_players: int) -> BatchStep:
    """A ``BatchStep`` whose arrays live in the shared memory ``blocks``."""
    fields = _shared_fields(num_games, num_players)
    return BatchStep(
        *(np.ndarray(shape, dtype, buffer=block.buf) for (shape, dtype), block in zip(fields, blocks, strict=True))
    )


# What a worker's error is raised as in the parent (other kinds: RuntimeError).
_ERRORS: dict[str, type[Exception]] = {
    "IllegalActionError": IllegalActionError,
    "ValueError": ValueError,
    "RuntimeError": RuntimeError,
}


_BITS = np.left_shift(1, np.arange(NUM_ACTIONS, dtype=np.int64))  # mask row @ _BITS: the legal set


def _legal_sets(env: BatchedRamsEnv | ReferenceBatchedRamsEnv, out: BatchStep) -> np.ndarray:
    """The worker's games' legal sets: the compiled engine's own, or packed from the masks the
    reference env just wrote (before the parent, or a caller holding them, can touch them)."""
    return env._legal_sets() if isinstance(env, BatchedRamsEnv) else out.action_masks @ _BITS


def _worker(pipe: Any, names: list[str], rows: slice, total: int, kwargs: dict[str, Any]) -> None:
    """Worker process: owns the games ``rows`` of the batch and steps them straight into the
    shared-memory arrays (the ``BatchStep`` fields, then every game's legal set, which the parent
    checks actions against); the pipe carries the commands and one reply to each."""
    reference = kwargs.pop("reference", False)
    env = (ReferenceBatchedRamsEnv if reference else BatchedRamsEnv)(**kwargs)
    env._first_game = rows.start  # errors name the game by its index in the whole batch
    blocks = [shared_memory.SharedMemory(name=name) for name in names]
    shared = _shared_batch(blocks[:-1], total, env.num_players)
    out = BatchStep(*(getattr(shared, f.name)[rows] for f in dataclasses.fields(BatchStep)))
    legal = np.ndarray((total,), np.int64, buffer=blocks[-1].buf)[rows]
    try:
        while True:
            command, payload = pipe.recv()
            reply = None
            try:
                if command == "reset":
                    env.reset_games(payload, out=out)
                    legal[:] = _legal_sets(env, out)
                elif command == "step":
                    env.step(payload, out=out)
                    legal[:] = _legal_sets(env, out)
                elif command == "why":
                    reply = env._illegal(*payload)
                elif command == "heuristic_seats":
                    env.set_heuristic_seats(payload)
                elif command == "next_heuristic_seats":
                    env.set_next_heuristic_seats(payload)
                else:
                    break
            except Exception as err:  # sent back and re-raised in the parent, with its message
                pipe.send(("error", (type(err).__name__, str(err))))
                continue
            pipe.send(("ok", reply))
    finally:
        del shared, out, legal
        for block in blocks:
            block.close()
        pipe.close()


class SubprocBatchedRamsEnv:
    """A :class:`BatchedRamsEnv` split over ``workers`` processes (one per core, say).

    Game ``i`` plays exactly what game ``i`` of ``BatchedRamsEnv(num_games, seed=...)`` plays:
    worker ``w`` owns a contiguous block of games and derives their seeds the same way. The
    workers write every array into shared memory. ``copy=True`` (default) returns copies;
    ``copy=False`` returns the shared arrays themselves, valid until the next ``step``/``reset``
    (faster, for loops that copy what they keep). ``reference=True`` runs
    :class:`ReferenceBatchedRamsEnv` in the workers instead.

    Errors behave as in-process: every action is checked before any worker steps, so an illegal
    action steps no game and is reported with the game's index in the whole batch. A worker that
    dies closes the env; later calls raise ``RuntimeError`` saying which worker it was.
    """

    def __init__(
        self,
        num_games: int,
        workers: int = 2,
        seed: int | None = None,
        reference: bool = False,
        copy: bool = True,
        **env_kwargs: Any,
    ) -> None:
        self._closed, self._shm, self._pipes, self._processes = True, [], [], []  # what close() may meet
        self._closed_why, self._started = "", False
        if not isinstance(workers, int) or not 1 <= workers <= num_games:
            raise ValueError(f"workers must be an int from 1 to num_games ({num_games}), got {workers!r}")
        heuristic_seats = env_kwargs.pop("heuristic_seats", None)
        probe = ReferenceBatchedRamsEnv(1, seed=0, **env_kwargs)  # validates the arguments here, not in a worker
        self._versus = heuristic_seats is not None
        if self._versus:
            if reference:
                raise ValueError("heuristic_seats needs the compiled engine: reference=True has none")
            seat_masks(heuristic_seats, num_games, probe.num_players)  # validated here, not in a worker
            heuristic_seats = np.broadcast_to(np.asarray(heuristic_seats), (num_games, probe.num_players))
        env_kwargs["reference"] = reference
        self.config, self.num_games, self.num_players = probe.config, num_games, probe.num_players
        self._seed, self._copy = seed, copy
        fields = [*_shared_fields(num_games, self.num_players), ((num_games,), np.int64)]  # + the legal sets
        self._shm = [
            shared_memory.SharedMemory(create=True, size=max(1, int(np.prod(shape)) * np.dtype(dtype).itemsize))
            for shape, dtype in fields
        ]
        self._shared: BatchStep | None = _shared_batch(self._shm[:-1], num_games, self.num_players)
        self._legal = np.ndarray((num_games,), np.int64, buffer=self._shm[-1].buf)
        bounds = np.linspace(0, num_games, workers + 1).astype(int)
        self._rows = [slice(int(a), int(b)) for a, b in itertools.pairwise(bounds)]
        context = mp.get_context("spawn")
        names = [block.name for block in self._shm]
        for rows in self._rows:
            parent, child = context.Pipe()
            kwargs = dict(env_kwargs, num_games=rows.stop - rows.start)
            if self._versus:
                kwargs["heuristic_seats"] = np.array(heuristic_seats[rows])
            process = context.Process(target=_worker, args=(child, names, rows, num_games, kwargs), daemon=True)
            process.start()
            child.close()
            self._pipes.append(parent)
            self._processes.append(process)
            self._closed = False

    def _replies(self, indices: list[int] | None = None) -> list[Any]:
        """Read one reply from each worker in ``indices`` (all by default), every one of them even
        when some report an error; then raise the first error (or, if a worker died, that)."""
        indices = list(range(len(self._pipes))) if indices is None else indices
        replies, errors, dead = [], [], None
        for index in indices:
            try:
                status, payload = self._pipes[index].recv()
            except (EOFError, OSError):
                dead = index if dead is None else dead
                continue
            if status == "error":
                errors.append(payload)
            replies.append(payload)
        if dead is not None:
            raise self._dead(dead)
        if errors:
            kind, message = errors[0]
            raise _ERRORS.get(kind, RuntimeError)(message)
        return replies

    def _batch(self) -> BatchStep:
        shared = self._shared
        assert shared is not None
        if not self._copy:
            return shared
        return BatchStep(*(getattr(shared, f.name).copy() for f in dataclasses.fields(BatchStep)))

    def _dead(self, index: int) -> RuntimeError:
        """The error for a worker that is gone (the env is closed)."""
        rows, process = self._rows[index], self._processes[index]
        process.join(timeout=1)
        why = f"the worker process for games {rows.start}-{rows.stop - 1} died (exit code {process.exitcode})"
        self._closed_why = f": {why}"
        self.close()
        return RuntimeError(why)

    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError(f"this SubprocBatchedRamsEnv is closed{self._closed_why}")

    def _send(self, command: str, payloads: list[Any], indices: list[int] | None = None) -> None:
        indices = list(range(len(self._pipes))) if indices is None else indices
        for index, payload in zip(indices, payloads, strict=True):
            try:
                self._pipes[index].send((command, payload))
            except (BrokenPipeError, ConnectionError):
                raise self._dead(index) from None

    def reset(self, seed: int | None = None) -> BatchStep:
        """Reset every game; the per-game seeds match ``BatchedRamsEnv``'s for the same seed."""
        self._check_open()
        seeds = game_seeds(self._seed if seed is None else seed, self.num_games)
        self._started = False
        self._send("reset", [seeds[rows] for rows in self._rows])
        self._replies()
        self._started = True
        return self._batch()

    def set_heuristic_seats(self, seats: Any) -> None:
        """``BatchedRamsEnv.set_heuristic_seats``, for every worker's games."""
        self._send_seats("heuristic_seats", seats)

    def set_next_heuristic_seats(self, seats: Any) -> None:
        """``BatchedRamsEnv.set_next_heuristic_seats``, for every worker's games."""
        self._send_seats("next_heuristic_seats", seats)

    def _send_seats(self, command: str, seats: Any) -> None:
        self._check_open()
        if not self._versus:
            raise ValueError("this env was made without heuristic_seats; pass heuristic_seats= to the constructor")
        seat_masks(seats, self.num_games, self.num_players)
        array = np.broadcast_to(np.asarray(seats), (self.num_games, self.num_players))
        self._send(command, [np.array(array[rows]) for rows in self._rows])
        self._replies()

    def step(self, actions: Any) -> BatchStep:
        """Apply one action per game; the workers step their blocks in parallel. An illegal
        action raises ``IllegalActionError`` naming the game, and no game is stepped."""
        self._check_open()
        actions = _checked_actions(actions, self.num_games)
        if not self._started:
            raise RuntimeError("call reset() before step()")
        bad = compiled.first_illegal_in(self._legal, actions)
        if bad >= 0:
            raise IllegalActionError(f"game {bad}: {self._illegal(bad, int(actions[bad]))}")
        self._send("step", [actions[rows] for rows in self._rows])
        try:
            self._replies()
        except Exception as err:
            if not self._closed:  # not checked here, so other workers may have stepped: out of step
                self._closed_why = f": a worker failed in step(), after other workers may have stepped ({err})"
                self.close()
            raise
        return self._batch()

    def _illegal(self, game: int, action: int) -> str:
        """Why ``action`` is illegal in ``game``, worded by the worker that owns the game."""
        index = next(i for i, rows in enumerate(self._rows) if rows.start <= game < rows.stop)
        self._send("why", [(game - self._rows[index].start, action)], [index])
        return self._replies([index])[0]

    def close(self) -> None:
        """Stop the workers and free the shared memory."""
        if self._closed:
            return
        self._closed = True
        for pipe in self._pipes:
            with contextlib.suppress(BrokenPipeError, OSError):
                pipe.send(("close", None))
        for process in self._processes:
            process.join(timeout=5)
            if process.is_alive():
                process.terminate()
        for pipe in self._pipes:
            pipe.close()
        self._shared = self._legal = None
        for shm in self._shm:
            shm.close()
            shm.unlink()

    def __del__(self) -> None:
        self.close()
