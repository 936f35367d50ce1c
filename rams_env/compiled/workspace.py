"""The typed arguments of the compiled kernels that play games with heuristics, and their factories.

A kernel of :mod:`.simulate` or :mod:`.counterfactual` takes one :class:`Workspace` (a named tuple
of arrays, which numba passes as one typed value) instead of a dozen scratch arrays, built by
:func:`make_workspace`; the ramsar it plays come from one :class:`RamsarPlan` of seeds, drawn by
:func:`ramsar_plan`. Nothing here is compiled: the kernels allocate nothing, the caller builds these.
"""

from __future__ import annotations

import random
from typing import NamedTuple

import numpy as np

from ..obs.encoding import OBS_SIZE
from ..rules import RulesConfig
from ..rules.generator import MT_STATE_SIZE
from ..rules.seeding import check_seed
from .heuristic import WORK_SIZE
from .layout import STATE_WIDTH, P
from .mt import mt_seed

PLAN_SEEDS = 2**62  # the plan's seeds are drawn below this


class Workspace(NamedTuple):
    """One game's state, its generators and the heuristic's scratch arrays."""

    state: np.ndarray  # (STATE_WIDTH,) int64: the game
    rng: np.ndarray  # (MT_STATE_SIZE,) int64: the game's generator (its shuffles)
    hrngs: np.ndarray  # (P, MT_STATE_SIZE) int64: each seat's heuristic's generator
    deck: np.ndarray  # (0,) int64: no fixed deck (a shuffled one)
    obs: np.ndarray  # (OBS_SIZE,) float32: the observation the heuristic reads
    work: np.ndarray  # (WORK_SIZE,) float64: the heuristic's scratch
    iwork: np.ndarray  # (WORK_SIZE,) int64: the heuristic's scratch


def mt_states(*shape: int) -> np.ndarray:
    """Zeroed compiled generators of the given leading shape (seed each with :func:`.mt.mt_seed`)."""
    return np.zeros((*shape, MT_STATE_SIZE), np.int64)


def make_workspace() -> Workspace:
    """A fresh :class:`Workspace` (all zeros)."""
    return Workspace(
        np.zeros(STATE_WIDTH, np.int64),
        mt_states(),
        mt_states(P),
        np.zeros(0, np.int64),
        np.zeros(OBS_SIZE, np.float32),
        np.zeros(WORK_SIZE, np.float64),
        np.zeros(WORK_SIZE, np.int64),
    )


def mt_state(seed: int | np.integer | None) -> np.ndarray:
    """The compiled generator's state for ``random.Random(seed)`` (``seed`` as
    :func:`~rams_env.rules.seeding.check_seed` takes it; None: a fresh seed from the operating system)."""
    value = check_seed(seed)
    state = mt_states()
    mt_seed(state, np.uint64(random.SystemRandom().getrandbits(64) if value is None else value).astype(np.int64))
    return state


class RamsarPlan(NamedTuple):
    """What ramsar are played from: ``Game(config, seeds[k], scores=start[k])``, seat ``j``'s
    heuristic seeded ``hseeds[k, j]``, the learner ``learner[k]`` (an empty array where the plan
    has no learners); ``behaviour`` seeds what the learner's seat draws (its exploration)."""

    seeds: np.ndarray
    hseeds: np.ndarray
    learner: np.ndarray
    start: np.ndarray
    behaviour: int


def ramsar_plan(config: RulesConfig, ramsar: int, seed: int, random_start: float, learners: bool = False) -> RamsarPlan:
    """The seeds (and with ``learners`` the learners' seats) and start scores of ``ramsar`` ramsar, all
    drawn from ``seed`` in this order; a share ``random_start`` start from scores drawn from 1 to the
    start score, the others from the start score."""
    n = config.num_players
    rng = np.random.default_rng(seed)
    seeds = rng.integers(0, PLAN_SEEDS, ramsar, dtype=np.int64)
    hseeds = rng.integers(0, PLAN_SEEDS, (ramsar, n), dtype=np.int64)
    learner = rng.integers(0, n, ramsar, dtype=np.int64) if learners else np.zeros(0, np.int64)
    start = np.full((ramsar, n), config.start_score, np.int64)
    randomised = rng.random(ramsar) < random_start
    start[randomised] = rng.integers(1, config.start_score + 1, (int(randomised.sum()), n))
    return RamsarPlan(seeds, hseeds, learner, start, int(rng.integers(0, PLAN_SEEDS)))
