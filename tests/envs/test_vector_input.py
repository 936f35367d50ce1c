"""The batched envs' seeds follow the one seed rule (``rams_env.rules.seeding.check_seed``): a bad one is a
``SeedError`` (a ValueError) naming the game, and nothing starts; any seed from 0 to below 2**64 (numpy
ints too) plays as ``random.Random`` takes it, on both batched engines and the AEC env.
(Huge rule options are refused in tests/rules/test_config.py.)"""

from __future__ import annotations

import numpy as np
import pytest

import rams_env
from rams_env.envs import BatchedRamsEnv, ReferenceBatchedRamsEnv, SubprocBatchedRamsEnv
from rams_env.rules.seeding import SeedError


@pytest.mark.parametrize("cls", [BatchedRamsEnv, ReferenceBatchedRamsEnv])
@pytest.mark.parametrize(
    ("seeds", "named"),
    [
        ([2**64, 1], r"seeds\[0\] must be a non-negative int below 2\*\*64, got 18446744073709551616"),
        ([1, -(2**64)], r"seeds\[1\] must be"),
        ([1, -5], r"seeds\[1\] must be a non-negative int below 2\*\*64, got -5"),
        ([None, 1], r"seeds\[0\] must be .* got None"),
        ([1, "7"], r"seeds\[1\] must be .* got '7'"),
        ([True, 1], r"seeds\[0\] must be .* got True"),
        ([1, 2.0], r"seeds\[1\] must be"),
    ],
)
def test_bad_seeds_are_a_value_error_naming_the_game(cls, seeds, named):
    env = cls(2)
    with pytest.raises(ValueError, match=named):
        env.reset_games(seeds)
    with pytest.raises(RuntimeError, match="reset"):  # nothing was started
        env.step([0, 0])


def test_any_seed_below_2_64_plays_as_random_random_takes_it():
    """Seeds up to 2**64 - 1 play as ``random.Random`` takes them; numpy ints are seeds."""
    seeds = [2**64 - 1, 5, np.uint64(2**64 - 1), np.int64(5)]
    fast, slow = BatchedRamsEnv(4, variant="russian"), ReferenceBatchedRamsEnv(4, variant="russian")
    a, b = fast.reset_games(seeds), slow.reset_games(seeds)
    np.testing.assert_array_equal(a.observations, b.observations)
    np.testing.assert_array_equal(a.observations[0], a.observations[2])
    np.testing.assert_array_equal(a.observations[1], a.observations[3])
    np.testing.assert_array_equal(a.observations, fast.reset_games([2**64 - 1, 5, 2**64 - 1, 5]).observations)
    aec = rams_env.raw_env(variant="russian", engine="reference")
    aec.reset(seed=2**64 - 1)
    while all(aec.terminations.values()):
        aec.reset()
    np.testing.assert_array_equal(aec.observe(aec.agent_selection)["observation"], a.observations[0])


@pytest.mark.parametrize(
    "cls", [BatchedRamsEnv, ReferenceBatchedRamsEnv, lambda n, **kw: SubprocBatchedRamsEnv(n, 1, **kw)]
)
@pytest.mark.parametrize("seed", [-1, 2**64, "3", True, 1.5])
def test_a_bad_constructor_or_reset_seed_is_a_seed_error_naming_it(cls, seed):
    """The env's own seed is checked where it enters, the constructor, not at the first reset."""
    with pytest.raises(SeedError, match=r"seed must be a non-negative int below 2\*\*64"):
        cls(2, seed=seed)
    env = cls(2)
    try:
        with pytest.raises(SeedError, match=r"seed must be a non-negative int below 2\*\*64"):
            env.reset(seed=seed)
    finally:
        env.close()
