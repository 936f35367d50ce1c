"""benchmarks.aec_core runs and prints the figures docs/performance.md shows (a tiny run: the figures are the docs')."""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.slow
def test_the_aec_core_benchmark_runs():
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.aec_core", "--steps", "3000", "--repeats", "1"],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    assert "the AEC env on the core:" in done.stdout
