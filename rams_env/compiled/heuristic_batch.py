"""The compiled heuristic's actions for a batch of observations, in one call.

Imitation data (training/imitation.py) labels every decision of many games with the action
``HeuristicAgent`` would take there; calling :func:`~.heuristic.heuristic_action` once a row from
Python would cost more than the heuristic itself.
"""

from __future__ import annotations

import numpy as np

from .compiler import jit
from .heuristic import heuristic_action
from .workspace import Workspace


@jit
def heuristic_actions(
    observations: np.ndarray,
    masks: np.ndarray,
    c: np.ndarray,
    mts: np.ndarray,
    seats: np.ndarray,
    ws: Workspace,
    out: np.ndarray,
) -> None:
    """``out[i]``: the heuristic's action for ``observations[i]`` (float32 rows) with legal actions
    ``masks[i]`` (int8 rows), drawing from the generator ``mts[i, seats[i]]`` of the row's seat; ``ws`` gives
    the scratch arrays (:func:`.workspace.make_workspace`)."""
    for i in range(observations.shape[0]):
        legal = 0
        for a in range(masks.shape[1]):
            if masks[i, a]:
                legal |= 1 << a
        out[i] = heuristic_action(observations[i], c, legal, mts[i, seats[i]], ws.work, ws.iwork)
