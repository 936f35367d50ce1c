"""A uniformly random policy for the compiled engine, compiled: the benchmarks' policy and the tests'."""

from __future__ import annotations

import numpy as np

from ..rules.actions import NUM_ACTIONS
from .compiler import jit
from .mt import mt_randbelow


@jit
def random_legal_actions(masks: np.ndarray, rng: np.ndarray, out: np.ndarray) -> None:
    """A uniformly random legal action per row of ``masks`` (drawn with the MT state ``rng``);
    the benchmark's policy, compiled so that choosing costs less than stepping."""
    for i in range(masks.shape[0]):
        count = 0
        for a in range(NUM_ACTIONS):
            count += masks[i, a]
        pick = mt_randbelow(rng, count)
        for a in range(NUM_ACTIONS):
            if masks[i, a]:
                if pick == 0:
                    out[i] = a
                    break
                pick -= 1
