"""benchmarks.bit_identity, the refactors' proof: the same tree prints the same hashes twice, one line a face."""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.slow
def test_the_same_tree_prints_the_same_hashes():
    command = [sys.executable, "-m", "benchmarks.bit_identity", "--part", "envs", "--steps", "4"]
    first, second = (subprocess.run(command, capture_output=True, text=True, check=True).stdout for _ in range(2))
    assert first == second
    lines = first.splitlines()
    assert len(lines) == 15 + 45 + 3  # batched (5 rules x 3 seatings), vector (5 x 3 modes x 3 opponents), evaluations
    assert all(len(line.rsplit(" ", 1)[1]) == 16 for line in lines)
