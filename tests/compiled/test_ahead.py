"""rams_env.compiled.ahead: the heuristic compiled ahead is the one the core's step then loads, not compiles."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

CORE_STEP = """
from numba.core import event

compiled = []


class Log(event.Listener):
    def on_start(self, e):
        compiled.append(e.data["dispatcher"].py_func.__qualname__)

    def on_end(self, e):
        pass


event.register("numba:compile", Log())
from rams_env.envs import BatchedRamsEnv

BatchedRamsEnv(2)
print(" ".join(compiled))
"""


@pytest.mark.slow  # compiles the core's step on a fresh cache (about half a minute)
def test_the_core_loads_the_heuristic_compiled_ahead(tmp_path):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    subprocess.run([sys.executable, "-m", "rams_env.compiled.ahead"], env=env, check=True, timeout=600)
    done = subprocess.run(
        [sys.executable, "-c", CORE_STEP], env=env, capture_output=True, text=True, check=True, timeout=600
    )
    compiled = done.stdout.split()
    assert "play" in compiled  # the core's step was compiled here
    assert "heuristic_action" not in compiled and "_bid" not in compiled  # the heuristic was loaded from the cache


def test_nothing_is_started_where_the_heuristic_is_cached(monkeypatch):
    from rams_env.compiled import ahead

    monkeypatch.setattr(ahead, "is_cached", lambda function: True)
    assert ahead.compile_ahead() is None
