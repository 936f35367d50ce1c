"""The batched env split over worker processes: :class:`SubprocBatchedRamsEnv`.

Each worker owns a contiguous block of the games, runs a :class:`~rams_env.envs.vector.BatchedRamsEnv`
(or the reference one) for them and writes every array straight into shared memory; a pipe per worker
carries the commands and one reply to each.
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import multiprocessing as mp
import pickle
from multiprocessing import shared_memory
from typing import Any

import numpy as np

from ..core import first_illegal
from ..obs.encoding import OBS_SIZE
from ..rules import IllegalActionError
from ..rules.actions import NUM_ACTIONS
from ..rules.seeding import SeedError, check_seed
from .contracts import AutoresetMode
from .heuristic_seats import seat_masks
from .seats import heuristic_seat_mask
from .vector import BatchedRamsEnv, BatchStep, ReferenceBatchedRamsEnv, checked_actions, checked_seeds, game_seeds


def _shared_fields(num_games: int, num_players: int) -> list[tuple[tuple[int, ...], Any]]:
    """Shape and dtype of each ``BatchStep`` array, in field order."""
    return [
        ((num_games, OBS_SIZE), np.float32),
        ((num_games, NUM_ACTIONS), np.int8),
        ((num_games,), np.int64),
        ((num_games, num_players), np.float32),
        ((num_games,), np.bool_),
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
    "SeedError": SeedError,
    "ValueError": ValueError,
    "RuntimeError": RuntimeError,
}


_BITS = np.left_shift(1, np.arange(NUM_ACTIONS, dtype=np.int64))  # mask row @ _BITS: the legal set


def _legal_sets(env: BatchedRamsEnv | ReferenceBatchedRamsEnv, out: BatchStep) -> np.ndarray:
    """The worker's games' legal sets: the compiled engine's own, or packed from the masks the
    reference env just wrote (before the parent, or a caller holding them, can touch them)."""
    return env.legal_sets() if isinstance(env, BatchedRamsEnv) else out.action_masks @ _BITS


# What a worker answers to "read": the per-game arrays of its env (BatchedRamsEnv's properties).
READS = ("scores", "dealers", "deal_numbers", "hands", "heuristic_seats", "dropped_episodes")
# The parent's own settings, which a copy takes over.
_SETTINGS = ("config", "num_games", "num_players", "_seed", "_copy", "_versus", "_rows", "_started")


def _worker(pipe: Any, names: list[str], rows: slice, total: int, kwargs: dict[str, Any]) -> None:
    """Worker process: owns the games ``rows`` of the batch and steps them straight into the
    shared-memory arrays (the ``BatchStep`` fields, then every game's legal set, which the parent
    checks actions against); the pipe carries the commands and one reply to each. ``kwargs`` builds
    its env, or holds under ``"pickled"`` an env to go on from (a copy's)."""
    pickled = kwargs.pop("pickled", None)
    reference = kwargs.pop("reference", False)
    if pickled is not None:
        env = pickle.loads(pickled)
    else:
        env = (ReferenceBatchedRamsEnv if reference else BatchedRamsEnv)(**kwargs)
    env.first_game = rows.start  # errors name the game by its index in the whole batch
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
                    reply = env.why_illegal(*payload)
                elif command == "read":
                    reply = getattr(env, payload)
                elif command == "pickle":
                    reply = pickle.dumps(env)
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
    :class:`ReferenceBatchedRamsEnv` in the workers instead. The other keywords are those of
    ``BatchedRamsEnv`` (``variant``, ``num_players``, rule options, or ``config=``, a ready ``RulesConfig``).

    Errors behave as in-process: every action is checked before any worker steps, so an illegal
    action steps no game and is reported with the game's index in the whole batch. A worker that
    dies closes the env; later calls raise ``RuntimeError`` saying which worker it was.
    Fits :class:`~rams_env.envs.contracts.BatchedEnv` (same-step autoreset).
    """

    autoreset_mode: AutoresetMode = AutoresetMode.SAME_STEP

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
        heuristic_seats, seats = env_kwargs.pop("heuristic_seats", None), env_kwargs.pop("seats", None)
        probe = ReferenceBatchedRamsEnv(1, seed=0, **env_kwargs)  # validates the arguments here, not in a worker
        if seats is not None:
            if heuristic_seats is not None:
                raise ValueError("seats= replaces heuristic_seats=: give seats alone")
            heuristic_seats = heuristic_seat_mask(seats, probe.num_players)
        self._versus = heuristic_seats is not None
        if self._versus:
            if reference:
                raise ValueError("heuristic_seats needs the compiled engine: reference=True has none")
            seat_masks(heuristic_seats, num_games, probe.num_players)  # validated here, not in a worker
            heuristic_seats = np.broadcast_to(np.asarray(heuristic_seats), (num_games, probe.num_players))
        env_kwargs["reference"] = reference
        self.config, self.num_games, self.num_players = probe.config, num_games, probe.num_players
        self._seed, self._copy = check_seed(seed, "seed"), copy
        bounds = np.linspace(0, num_games, workers + 1).astype(int)
        self._rows = [slice(int(a), int(b)) for a, b in itertools.pairwise(bounds)]
        worker_kwargs = []
        for rows in self._rows:
            kwargs = dict(env_kwargs, num_games=rows.stop - rows.start)
            if self._versus:
                kwargs["heuristic_seats"] = np.array(heuristic_seats[rows])
            worker_kwargs.append(kwargs)
        self._start(worker_kwargs)

    def _start(self, worker_kwargs: list[dict[str, Any]]) -> None:
        """Make the shared memory and start one worker per block of ``_rows`` with its ``worker_kwargs``."""
        num_games = self.num_games
        fields = [*_shared_fields(num_games, self.num_players), ((num_games,), np.int64)]  # + the legal sets
        self._shm = [
            shared_memory.SharedMemory(create=True, size=max(1, int(np.prod(shape)) * np.dtype(dtype).itemsize))
            for shape, dtype in fields
        ]
        self._shared: BatchStep | None = _shared_batch(self._shm[:-1], num_games, self.num_players)
        self._legal = np.ndarray((num_games,), np.int64, buffer=self._shm[-1].buf)
        context = mp.get_context("spawn")
        names = [block.name for block in self._shm]
        for rows, kwargs in zip(self._rows, worker_kwargs, strict=True):
            parent, child = context.Pipe()
            process = context.Process(target=_worker, args=(child, names, rows, num_games, kwargs), daemon=True)
            process.start()
            child.close()
            self._pipes.append(parent)
            self._processes.append(process)
            self._closed = False

    def __getstate__(self) -> dict[str, Any]:
        """A copy or a pickle: every worker's env as it is now, the shared arrays' contents and the
        parent's settings; the copy starts workers of its own that go on from there."""
        self._check_open()
        self._send("pickle", [None] * len(self._pipes))
        state = {key: getattr(self, key) for key in _SETTINGS}
        state["pickled"] = self._replies()
        state["arrays"] = [np.array(getattr(self._shared, f.name)) for f in dataclasses.fields(BatchStep)]
        state["legal"] = np.array(self._legal)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._closed, self._shm, self._pipes, self._processes = True, [], [], []
        self._closed_why = ""
        for key in _SETTINGS:
            setattr(self, key, state[key])
        self._start([{"pickled": pickled} for pickled in state["pickled"]])
        for field, array in zip(dataclasses.fields(BatchStep), state["arrays"], strict=True):
            getattr(self._shared, field.name)[...] = array
        self._legal[:] = state["legal"]

    def _read(self, name: str) -> np.ndarray:
        """The per-game array ``name`` (one of :data:`READS`) of every worker's games, in game order."""
        self._check_open()
        self._send("read", [name] * len(self._pipes))
        return np.concatenate(self._replies())

    @property
    def scores(self) -> np.ndarray:
        """Every game's current scores, shape (num_games, num_players)."""
        return self._read("scores")

    @property
    def dealers(self) -> np.ndarray:
        """Every game's dealer of the current deal, shape (num_games,)."""
        return self._read("dealers")

    @property
    def deal_numbers(self) -> np.ndarray:
        """Every game's count of deals started since its episode began, shape (num_games,)."""
        return self._read("deal_numbers")

    @property
    def hands(self) -> np.ndarray:
        """Every game's hands as card bit sets, shape (num_games, num_players) (hidden information)."""
        return self._read("hands")

    @property
    def heuristic_seats(self) -> np.ndarray | None:
        """Per game and seat: played by the heuristic in the current episode (None without them)."""
        return self._read("heuristic_seats") if self._versus else None

    @property
    def dropped_episodes(self) -> int:
        """Episodes that ended before any controlled decision, over every worker."""
        self._check_open()
        self._send("read", ["dropped_episodes"] * len(self._pipes))
        return sum(self._replies())

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

    def _output(self, out: BatchStep | None) -> BatchStep:
        """The shared arrays: copied into ``out``, or as copies (``copy=True``), or themselves."""
        shared = self._shared
        assert shared is not None
        if out is not None:
            for field in dataclasses.fields(BatchStep):
                getattr(out, field.name)[...] = getattr(shared, field.name)
            return out
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
        return self.reset_games(game_seeds(self._seed if seed is None else check_seed(seed, "seed"), self.num_games))

    def reset_games(self, seeds: list[int], out: BatchStep | None = None) -> BatchStep:
        """Start a fresh episode in every game, game ``i`` seeded like ``env.reset(seed=seeds[i])``
        (copied into ``out`` if given)."""
        self._check_open()
        seeds = checked_seeds(seeds, self.num_games)
        self._started = False
        self._send("reset", [seeds[rows] for rows in self._rows])
        self._replies()
        self._started = True
        return self._output(out)

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

    def step(self, actions: Any, out: BatchStep | None = None) -> BatchStep:
        """Apply one action per game; the workers step their blocks in parallel (the result copied
        into ``out`` if given). An illegal action raises ``IllegalActionError`` naming the game, and
        no game is stepped."""
        self._check_open()
        actions = checked_actions(actions, self.num_games)
        if not self._started:
            raise RuntimeError("call reset() before step()")
        bad = first_illegal(self._legal, actions)
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
        return self._output(out)

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
