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
from .workspace import make_workspace, mt_states


def heuristic_as_the_core_calls_it() -> None:
    """Compile :func:`~.heuristic.heuristic_action` for the core's types (``core._compiled_action``: its scratch
    observation, the config, the legal set, a row of its generators, its two work arrays), then the labeller of
    imitation (:func:`~.heuristic_batch.heuristic_actions`, the batched env's observation and mask rows)."""
    from ..obs.encoding import OBS_SIZE
    from ..rules.actions import NUM_ACTIONS
    from ..rules.config import make_config
    from .heuristic_batch import heuristic_actions
    from .layout import config_array

    c = config_array(make_config("mattmar", 4), "deal", "points")
    work, iwork = np.zeros(WORK_SIZE, np.float64), np.zeros(WORK_SIZE, np.int64)
    entry_point(heuristic_action, np.zeros(OBS_SIZE, np.float32), c, 0, mt_states(1, 1)[0, 0], work, iwork)
    observations, masks = np.zeros((1, OBS_SIZE), np.float32), np.zeros((1, NUM_ACTIONS), np.int8)
    seats, out = np.zeros(1, np.int64), np.zeros(1, np.int64)
    entry_point(heuristic_actions, observations, masks, c, mt_states(1, 4), seats, make_workspace(), out)


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
