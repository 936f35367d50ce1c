"""Uniformly random play for the compiled engine: ``RandomAgent``'s draw from a legal set (the vector env's random
opponents, the counterfactual rollouts), and the benchmarks' and the tests' policy over masks."""

from __future__ import annotations

import numpy as np

from ..rules.actions import NUM_ACTIONS
from .compiler import jit
from .mt import mt_randbelow


@jit
def random_legal(legal: int, mt: np.ndarray) -> int:
    """``RandomAgent.act``: a uniformly drawn action of the legal set ``legal`` (bit ``a`` for action ``a``),
    ``legal[rng.randrange(len(legal))]`` of the legal actions in ascending order."""
    count = 0
    for a in range(NUM_ACTIONS):
        count += (legal >> a) & 1
    pick = mt_randbelow(mt, count)
    for a in range(NUM_ACTIONS):
        if (legal >> a) & 1:
            if pick == 0:
                return a
            pick -= 1
    return -1


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
