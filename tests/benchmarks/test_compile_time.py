"""benchmarks.compile_time: a fresh cache compiles each engine function once, and a second run compiles nothing."""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.slow  # compiles the whole engine on a fresh cache (about a minute on two cores)
def test_a_fresh_cache_compiles_each_function_once_and_a_later_run_nothing():
    command = [sys.executable, "-m", "benchmarks.compile_time", "--games", "2", "--runs", "2"]
    done = subprocess.run(command, capture_output=True, text=True, check=True, timeout=900)
    first, second = done.stdout.split("run 2 of 2")
    assert "before the first step" in first and "evaluation (after training)" in first
    again = next(line for line in first.splitlines() if line.startswith("compiled more than once:"))
    assert "rams_env" not in again  # no engine function compiled for two signatures (numba's own helpers may be)
    core = next(line.split() for line in first.splitlines() if line.startswith("core "))
    assert core[1] == "2" and core[3] == "1"  # play and seed_generators before the first step, start_games after
    assert "functions compiled: 0, specialisations: 0" in second  # numba's cache serves the later run
