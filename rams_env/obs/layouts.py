"""The observation layouts of earlier encoder versions, and how a network's inputs move to this one.

Every checkpoint records the ``encoder_version`` it was trained on. A version's layout is its fields in
order, ``(name, size)``; an input of the current layout (:data:`~rams_env.obs.encoding.FIELDS`) is the
input of the same field and entry in an older one. :func:`input_sources` lists, for each current input,
the older input it was (-1: one that version did not have), and :func:`migrate_inputs` rearranges the
columns of a first layer by it, zero where -1. A migrated layer computes on a current observation
exactly what the old layer computed on the old observation of the same game, because every field holds
the same numbers in both, only elsewhere.

- Version 2 (``Rams-v1`` until encoder 3): the preset one-hot sat after ``seats``, four wide. Version 3
  moved it to the end and widened it to ``PRESET_SLOTS``, with nothing else changed: its networks migrate
  exactly, wherever a checkpoint is loaded (:func:`exact_migration`).
- Version 1 (``Rams-v0``): the fields up to ``totals``. Version 2 added fields that its networks never
  saw; migrated, they ignore them, so only a warm start of training takes them.

The old layouts are written out as data, not derived from today's constants: they are history.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .encoding import ENCODER_VERSION, FIELDS, OBS_SIZE, SLICES

# fmt: off
_V2: tuple[tuple[str, int], ...] = (
    ("hand", 52), ("trump", 4), ("turned_card", 52), ("turned_at", 2), ("phase", 6), ("to_act", 7), ("dealer", 7),
    ("seats", 7), ("variant", 4), ("deck32", 1), ("better_bid", 3), ("swing_bid", 3), ("better_answers", 14),
    ("swing_answers", 14), ("knocked", 7), ("passed", 7), ("discarded", 7), ("drawn", 7), ("pending_discards", 1),
    ("take_pending", 1), ("trick", 364), ("trick_leader", 7), ("played", 364), ("out_of_play", 52), ("shown", 52),
    ("shown_by", 7), ("tricks", 7), ("tricks_done", 1), ("scores", 7), ("at_one", 7), ("flights", 7),
    ("passed_last_deal", 7), ("must_knock", 1), ("queen_due", 1), ("talon", 1), ("own_jacks", 1), ("own_aces", 1),
    ("progress", 2), ("totals", 7), ("start_score", 1), ("score_left", 35), ("flight_cost", 7),
)
# fmt: on
_V1 = _V2[: [name for name, _ in _V2].index("totals") + 1]

# Every encoder version's layout, this one's from FIELDS.
LAYOUTS: dict[int, tuple[tuple[str, int], ...]] = {
    1: _V1,
    2: _V2,
    ENCODER_VERSION: tuple((f.name, f.size) for f in FIELDS),
}
LAYOUT_SIZES: dict[int, int] = {version: sum(size for _, size in fields) for version, fields in LAYOUTS.items()}


def version_of_size(size: int) -> int | None:
    """The encoder version whose observations are ``size`` floats (None: none): for model files that record
    only their input width (SB3, RLlib). The sizes differ between versions (a test holds them to it)."""
    found = [version for version, total in LAYOUT_SIZES.items() if total == size]
    return found[0] if len(found) == 1 else None


def input_sources(version: int) -> np.ndarray:
    """For each input of this layout, the input of ``version``'s layout that held it (-1: none)."""
    if version not in LAYOUTS:
        raise ValueError(f"unknown encoder version {version!r}; known: {sorted(LAYOUTS)}")
    sources = np.full(OBS_SIZE, -1, np.int64)
    at = 0
    for name, size in LAYOUTS[version]:
        new = SLICES.get(name)
        if new is None or new.stop - new.start < size:
            raise ValueError(f"encoder version {version}'s field {name!r} ({size} wide) has no place in this layout")
        sources[new.start : new.start + size] = np.arange(at, at + size)
        at += size
    return sources


def exact_migration(version: int) -> bool:
    """Whether ``version``'s networks see every field of this layout (moved, or the preset field widened):
    migrated, such a network is the old one input for input and loads as it is. False when this layout has
    fields that ``version`` lacks (a migrated network ignores them: a warm start only)."""
    return type(version) is int and version in LAYOUTS and {name for name, _ in LAYOUTS[version]} == set(SLICES)


def migrate_inputs(weight: Any, version: int) -> Any:
    """A first layer's weight ``(hidden, inputs of version)`` for this layout ``(hidden, OBS_SIZE)``: its
    columns moved by :func:`input_sources`, zero for inputs ``version`` did not have. ``weight`` is a numpy
    array or a torch tensor (the same kind, dtype and device comes back)."""
    size = LAYOUT_SIZES.get(version)
    if size is None:
        raise ValueError(f"unknown encoder version {version!r}; known: {sorted(LAYOUTS)}")
    if len(weight.shape) != 2 or weight.shape[1] != size:
        raise ValueError(
            f"a first layer of shape {tuple(weight.shape)} does not take encoder version {version}'s {size} inputs"
        )
    sources = input_sources(version)
    kept = np.flatnonzero(sources >= 0)
    if hasattr(weight, "new_zeros"):  # a torch tensor (this package does not import torch)
        out = weight.new_zeros((weight.shape[0], OBS_SIZE))
        out[:, kept.tolist()] = weight[:, sources[kept].tolist()]
        return out
    out = np.zeros((weight.shape[0], OBS_SIZE), weight.dtype)
    out[:, kept] = weight[:, sources[kept]]
    return out
