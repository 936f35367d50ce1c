"""Regression tests for issue 13's engine items: bad input the engines must refuse with a clear
``ValueError`` (item 11), batched envs that stay atomic and in step after an error (items 1, 2),
and an import under ``python -OO`` (item 14). Option names in ``make_config`` errors (item 13)
are in ``tests/rules/test_config.py``."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import rams_env
from rams_env.envs import BatchedRamsEnv, ReferenceBatchedRamsEnv
from rams_env.rules import make_config


def test_import_works_without_docstrings():
    """Issue 13 item 14: ``python -OO`` strips docstrings; importing must not format a None."""
    done = subprocess.run(
        [sys.executable, "-OO", "-c", "import rams_env, rams_env.obs.encoding"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]


# --------------------------------------------------------------------------- item 11: huge ints
@pytest.mark.parametrize(
    ("option", "value"),
    [("flight_cap", 2**70), ("flight_cap", 2**31), ("flight_fine", 2**63), ("ramsar_per_match", 2**64)],
)
def test_huge_int_options_are_refused_by_name(option, value):
    """The compiled engine keeps options in int64: too large a value is a ValueError naming the
    option, from every entry point and for both engines (not an OverflowError from numpy)."""
    pattern = f"invalid rule option {option}={value}:"
    with pytest.raises(ValueError, match=pattern):
        make_config("mattmar", **{option: value})
    for engine in ("compiled", "reference"):
        with pytest.raises(ValueError, match=pattern):
            rams_env.env(engine=engine, **{option: value})
    for cls in (BatchedRamsEnv, ReferenceBatchedRamsEnv):
        with pytest.raises(ValueError, match=pattern):
            cls(2, **{option: value})


def test_large_but_sane_int_options_still_play_alike():
    options = dict(flight_cap=2**31 - 1, flight_fine=2**31 - 1, start_score=2**31 - 1)
    assert make_config("mattmar", **options).flight_cap == 2**31 - 1
    a, b = BatchedRamsEnv(4, seed=2, **options), ReferenceBatchedRamsEnv(4, seed=2, **options)
    np.testing.assert_array_equal(a.reset().observations, b.reset().observations)


@pytest.mark.parametrize("cls", [BatchedRamsEnv, ReferenceBatchedRamsEnv])
@pytest.mark.parametrize(
    ("seeds", "named"),
    [
        ([2**64, 1], r"seeds\[0\]=18446744073709551616"),
        ([1, -(2**64)], r"seeds\[1\]"),
        ([1, "7"], r"seeds\[1\]='7'"),
        ([True, 1], r"seeds\[0\]=True"),
        ([1, 2.0], r"seeds\[1\]"),
    ],
)
def test_bad_seeds_are_a_value_error_naming_the_game(cls, seeds, named):
    env = cls(2)
    with pytest.raises(ValueError, match=named):
        env.reset_games(seeds)
    with pytest.raises(RuntimeError, match="reset"):  # nothing was started
        env.step([0, 0])


def test_any_seed_below_2_64_plays_as_random_random_takes_it():
    """Negative seeds play as their absolute value (``random.Random``); numpy ints are seeds."""
    seeds = [2**64 - 1, -5, np.uint64(2**64 - 1), np.int64(-5)]
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


def test_russian_scores_too_large_for_the_compiled_engine_are_a_value_error():
    env = rams_env.env(variant="russian")  # the default engine is the compiled one
    with pytest.raises(ValueError, match="scores"):
        env.reset(seed=1, options={"scores": [2**63, 100, 100, 100]})
