"""What a seat observes: the encoded observation vector and the action mask, and decoding it back.

- :mod:`~rams_env.obs.encoding`: :class:`ObservationEncoder`, one flat float32 vector of
  ``OBS_SIZE`` with named slices (``FIELDS``, ``SLICES``), relative to the observer, and
  :func:`action_mask`; ``ENCODER_VERSION`` names the layout, which checkpoints record;
- :mod:`~rams_env.obs.decoding`: :func:`decode`, the inverse, into typed fields (the heuristic
  agent reads its observation through it);
- :mod:`~rams_env.obs.layouts`: the layouts of earlier encoder versions, and how a trained network's
  first-layer inputs move to this one (checkpoints of version 2 load through it).

This package reads the engine (:mod:`rams_env.rules`) and numpy, nothing else of ``rams_env``: the
envs, the compiled engine's encoder twin, the agents and the policies import it, never the reverse.
"""

from __future__ import annotations

from .decoding import DecodedObservation, decode
from .encoding import (
    ENCODER_VERSION,
    FIELD,
    FIELDS,
    MAX_PLAYERS,
    OBS_SIZE,
    SLICES,
    Field,
    ObservationEncoder,
    action_mask,
    config_scale,
    layout_table,
)

__all__ = [
    "ENCODER_VERSION",
    "FIELDS",
    "OBS_SIZE",
    "SLICES",
    "DecodedObservation",
    "ObservationEncoder",
    "action_mask",
    "decode",
    "layout_table",
]
