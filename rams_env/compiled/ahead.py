"""The compiled heuristic compiled ahead, in a second process, while the first compiles the core.

On a cold numba cache the core's step (``core.play``) compiles for about 27 s on one core of a small machine,
and a third of that is the heuristic it calls, reached about halfway. ``python -m rams_env.compiled.ahead``
compiles the heuristic for exactly the types the core calls it with and writes it to numba's cache, so that the
first process, when its compilation reaches the heuristic, loads it instead (numba looks in its cache at that
moment). :func:`compile_ahead` starts it; a process that reaches the heuristic first compiles it itself, as
without it. ``python -m benchmarks.compile_time`` measures both ways.
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np

from .compiler import entry_point, is_cached
from .heuristic import WORK_SIZE, heuristic_action
from .workspace import mt_states


def heuristic_as_the_core_calls_it() -> None:
    """Compile :func:`~.heuristic.heuristic_action` for the core's types (``core._compiled_action``: its scratch
    observation, the config, the legal set, a row of its generators, its two work arrays)."""
    from ..obs.encoding import OBS_SIZE
    from ..rules.config import make_config
    from .layout import config_array

    entry_point(
        heuristic_action,
        np.zeros(OBS_SIZE, np.float32),
        config_array(make_config("mattmar", 4), "deal", "points"),
        0,
        mt_states(1, 1)[0, 0],
        np.zeros(WORK_SIZE, np.float64),
        np.zeros(WORK_SIZE, np.int64),
    )


def compile_ahead() -> subprocess.Popen[bytes] | None:
    """Start ``python -m rams_env.compiled.ahead`` where it can help: the heuristic not in numba's cache and a
    second core for it. Returns the process (nobody needs to wait for it), or None."""
    if (os.cpu_count() or 1) < 2 or is_cached(heuristic_action):
        return None
    return subprocess.Popen(
        [sys.executable, "-m", "rams_env.compiled.ahead"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )


if __name__ == "__main__":
    heuristic_as_the_core_calls_it()
