"""Batched environments for training: many games stepped together, stacked arrays out.

:class:`BatchedRamsEnv` drives the reference engine in a tight loop with the incremental
observation cache (one :class:`~rams_env.encoding.ObservationCache` per game), so its games are
exactly the games of :func:`rams_env.env` (``tests/test_vector.py`` plays the same seeds with the
same actions through both and compares every observation, mask, reward and score). Chosen by
measurement over a numpy structure-of-arrays rewrite: the engine step is a few microseconds of
branchy rule code that does not vectorise, and a second engine would be a second source of truth.
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
import itertools
import multiprocessing as mp
import random
from dataclasses import dataclass
from multiprocessing import shared_memory
from typing import Any

import numpy as np

from .encoding import OBS_SIZE, ObservationCache, ObservationEncoder
from .episode import check_episode, end_of_deal, win_rewards
from .rules import Game, IllegalActionError, Phase, make_config
from .rules.actions import NUM_ACTIONS


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


class BatchedRamsEnv:
    """``num_games`` Rams games of one configuration, stepped together in this process."""

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
        self.config = make_config(variant, num_players, **rule_options)
        self.num_games, self.num_players = num_games, num_players
        self.episode, self.reward_kind = episode, reward
        self.encoder = ObservationEncoder(self.config)
        self.caches = [ObservationCache(self.encoder) for _ in range(num_games)]
        self.games: list[Game] = []
        self._seeders: list[random.Random] = []
        self.episodes_done = 0
        self._seed = seed

    def reset(self, seed: int | None = None) -> BatchStep:
        """Start a fresh episode in every game (seeded per game from ``seed``)."""
        return self.reset_games(game_seeds(self._seed if seed is None else seed, self.num_games))

    def reset_games(self, seeds: list[int]) -> BatchStep:
        """Start a fresh episode in every game, game ``i`` seeded like ``env.reset(seed=seeds[i])``."""
        if len(seeds) != self.num_games:
            raise ValueError(f"need {self.num_games} seeds, got {len(seeds)}")
        self._seeders = [random.Random(s) for s in seeds]
        self.games = [self._new_game(i) for i in range(self.num_games)]
        n = self.num_games
        out = BatchStep(
            np.empty((n, OBS_SIZE), np.float32),
            np.empty((n, NUM_ACTIONS), np.int8),
            np.empty(n, np.int64),
            np.zeros((n, self.num_players), np.float32),
            np.zeros(n, bool),
        )
        for i in range(n):
            self._observe(i, out)
        return out

    def _new_game(self, i: int) -> Game:
        """The next episode of game ``i``, as ``RamsEnv.reset()`` would start it."""
        while True:
            game = Game(self.config, seed=self._seeders[i].getrandbits(63))
            if game.phase != Phase.GAME_OVER:
                self.caches[i].invalidate()
                return game

    def _observe(self, i: int, out: BatchStep) -> None:
        game, cache = self.games[i], self.caches[i]
        seat = game.current
        out.seats[i] = seat
        out.observations[i] = cache.get(game, seat)
        out.action_masks[i] = cache.mask(game, seat)

    def step(self, actions: Any) -> BatchStep:
        """Apply one action per game (to its acting seat) and return the next decisions."""
        actions = np.asarray(actions)
        if actions.shape != (self.num_games,):
            raise ValueError(f"need one action per game: shape ({self.num_games},), got {actions.shape}")
        if not self.games:
            raise RuntimeError("call reset() before step()")
        n, players = self.num_games, self.num_players
        out = BatchStep(
            np.empty((n, OBS_SIZE), np.float32),
            np.empty((n, NUM_ACTIONS), np.int8),
            np.empty(n, np.int64),
            np.zeros((n, players), np.float32),
            np.zeros(n, bool),
        )
        points = self.reward_kind == "points"
        for i, action in enumerate(actions.tolist()):
            game, cache = self.games[i], self.caches[i]
            before_scores = game.scores[:]
            before = cache.before(game)
            try:
                game.apply(action)
            except IllegalActionError as err:
                raise IllegalActionError(f"game {i}: {err}") from None
            cache.after(game, action, before)
            if points and before_scores != game.scores:
                scores = game.scores
                out.rewards[i] = [b - a for b, a in zip(before_scores, scores, strict=True)]
            if game.phase >= Phase.DEAL_OVER:
                cache.invalidate()
                if end_of_deal(game, self.episode):
                    if not points:
                        out.rewards[i] += win_rewards(game)
                    out.done[i] = True
                    self.episodes_done += 1
                    self.games[i] = self._new_game(i)
            self._observe(i, out)
        return out

    def close(self) -> None:
        """Nothing to release in-process (present for symmetry with the subprocess env)."""


def _worker(pipe: Any, shm_names: tuple[str, str], rows: slice, kwargs: dict[str, Any]) -> None:
    """Worker process: owns the games ``rows`` of the batch, writes observations and masks into
    shared memory, sends the small arrays back through the pipe."""
    env = BatchedRamsEnv(**kwargs)
    obs_shm, mask_shm = (shared_memory.SharedMemory(name=name) for name in shm_names)
    try:
        total = rows.stop
        observations = np.ndarray((total, OBS_SIZE), np.float32, buffer=obs_shm.buf)[rows]
        masks = np.ndarray((total, NUM_ACTIONS), np.int8, buffer=mask_shm.buf)[rows]
        while True:
            command, payload = pipe.recv()
            try:
                if command == "reset":
                    result = env.reset_games(payload)
                elif command == "step":
                    result = env.step(payload)
                else:
                    break
            except Exception as err:  # sent back and re-raised in the parent, with its message
                pipe.send(("error", f"{type(err).__name__}: {err}"))
                continue
            observations[:] = result.observations
            masks[:] = result.action_masks
            pipe.send(("ok", (result.seats, result.rewards, result.done)))
    finally:
        del observations, masks
        obs_shm.close()
        mask_shm.close()
        pipe.close()


class SubprocBatchedRamsEnv:
    """A :class:`BatchedRamsEnv` split over ``workers`` processes (one per core, say).

    Game ``i`` plays exactly what game ``i`` of ``BatchedRamsEnv(num_games, seed=...)`` plays:
    worker ``w`` owns a contiguous block of games and derives their seeds the same way.
    """

    def __init__(self, num_games: int, workers: int = 2, seed: int | None = None, **env_kwargs: Any) -> None:
        self._closed, self._shm, self._pipes, self._processes = True, [], [], []  # what close() may meet
        if not isinstance(workers, int) or not 1 <= workers <= num_games:
            raise ValueError(f"workers must be an int from 1 to num_games ({num_games}), got {workers!r}")
        probe = BatchedRamsEnv(1, seed=0, **env_kwargs)  # validates the arguments here, not in a worker
        self.config, self.num_games, self.num_players = probe.config, num_games, probe.num_players
        self._seed = seed
        self._shm = [
            shared_memory.SharedMemory(create=True, size=num_games * OBS_SIZE * 4),
            shared_memory.SharedMemory(create=True, size=num_games * NUM_ACTIONS),
        ]
        self._observations = np.ndarray((num_games, OBS_SIZE), np.float32, buffer=self._shm[0].buf)
        self._masks = np.ndarray((num_games, NUM_ACTIONS), np.int8, buffer=self._shm[1].buf)
        bounds = np.linspace(0, num_games, workers + 1).astype(int)
        self._rows = [slice(int(a), int(b)) for a, b in itertools.pairwise(bounds)]
        context = mp.get_context("spawn")
        for rows in self._rows:
            parent, child = context.Pipe()
            kwargs = dict(env_kwargs, num_games=rows.stop - rows.start)
            process = context.Process(
                target=_worker, args=(child, (self._shm[0].name, self._shm[1].name), rows, kwargs), daemon=True
            )
            process.start()
            child.close()
            self._pipes.append(parent)
            self._processes.append(process)
            self._closed = False

    def _gather(self) -> BatchStep:
        seats, rewards, done = [], [], []
        for index, pipe in enumerate(self._pipes):
            status, payload = pipe.recv()
            if status == "error":
                rows = self._rows[index]
                raise IllegalActionError(f"worker for games {rows.start}-{rows.stop - 1}: {payload}")
            seats.append(payload[0])
            rewards.append(payload[1])
            done.append(payload[2])
        return BatchStep(
            self._observations.copy(),
            self._masks.copy(),
            np.concatenate(seats),
            np.concatenate(rewards),
            np.concatenate(done),
        )

    def reset(self, seed: int | None = None) -> BatchStep:
        """Reset every game; the per-game seeds match ``BatchedRamsEnv``'s for the same seed."""
        seeds = game_seeds(self._seed if seed is None else seed, self.num_games)
        for pipe, rows in zip(self._pipes, self._rows, strict=True):
            pipe.send(("reset", seeds[rows]))
        return self._gather()

    def step(self, actions: Any) -> BatchStep:
        """Apply one action per game; the workers step their blocks in parallel."""
        actions = np.asarray(actions)
        if actions.shape != (self.num_games,):
            raise ValueError(f"need one action per game: shape ({self.num_games},), got {actions.shape}")
        for pipe, rows in zip(self._pipes, self._rows, strict=True):
            pipe.send(("step", actions[rows]))
        return self._gather()

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
        self._observations = self._masks = None
        for shm in self._shm:
            shm.close()
            shm.unlink()

    def __del__(self) -> None:
        self.close()
