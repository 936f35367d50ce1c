"""Encoder version 3: the preset field last, with room for new presets; the layouts of older versions,
checked against observations that encoder version 2 itself wrote (``tests/policy/obs_v2.npz``)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from rams_env.obs import OBS_SIZE, SLICES, ObservationEncoder
from rams_env.obs.encoding import ENCODER_VERSION, FIELDS, PRESET_SLOTS, preset_slot
from rams_env.obs.layouts import (
    LAYOUT_SIZES,
    LAYOUTS,
    exact_migration,
    input_sources,
    migrate_inputs,
    version_of_size,
)
from rams_env.rules import make_config
from rams_env.rules.config import PRESETS
from tests.policy.layout_games import V2_PRESETS, games, play

FIXTURE = Path(__file__).parents[1] / "policy" / "obs_v2.npz"


def test_the_preset_field_is_last_and_has_room_for_every_preset():
    assert FIELDS[-1].name == "variant" and SLICES["variant"] == slice(OBS_SIZE - PRESET_SLOTS, OBS_SIZE)
    assert len(PRESETS) <= PRESET_SLOTS, (
        f"{len(PRESETS)} presets, {PRESET_SLOTS} preset slots in the observation: widen PRESET_SLOTS in "
        "rams_env/obs/encoding.py, bump ENCODER_VERSION and add the old layout to rams_env/obs/layouts.py"
    )


def test_the_presets_keep_their_slots():
    assert tuple(PRESETS)[: len(V2_PRESETS)] == V2_PRESETS, (
        "a preset's slot is its place in PRESETS, which trained networks read: append new presets at the end"
    )
    assert [preset_slot(name) for name in V2_PRESETS] == list(range(len(V2_PRESETS)))


def test_a_preset_beyond_the_slots_is_refused_by_both_encoders(monkeypatch):
    from rams_env import compiled

    many = {**PRESETS, **{f"extra{k}": dict(PRESETS["mattmar"]) for k in range(PRESET_SLOTS)}}
    monkeypatch.setattr("rams_env.rules.config.PRESETS", many)
    monkeypatch.setattr("rams_env.obs.encoding.PRESETS", many)
    config = make_config(f"extra{PRESET_SLOTS - len(PRESETS)}")  # preset number PRESET_SLOTS + 1
    for build in (ObservationEncoder, lambda c: compiled.config_array(c, "deal", "points")):
        with pytest.raises(ValueError, match=r"widen PRESET_SLOTS .* bump ENCODER_VERSION"):
            build(config)


_FIFTH = """
import json, sys
import numpy as np
from rams_env.rules import config
config.PRESETS["fifth"] = dict(config.PRESETS["mattmar"], ramsar_per_match=3)
from rams_env.obs.encoding import OBS_SIZE, SLICES, ObservationEncoder
from rams_env.rules import Game, make_config
slices = {name: [s.start, s.stop] for name, s in SLICES.items()}
ones = {}
for variant in ("mattmar", "fifth"):
    game = Game(make_config(variant, 4), seed=5)
    ones[variant] = np.flatnonzero(ObservationEncoder(game.config).encode(game, game.current)).tolist()
print(json.dumps({"size": OBS_SIZE, "slices": slices, "ones": ones}))
"""


def test_a_fifth_preset_moves_no_field_and_keeps_the_size():
    out = subprocess.run([sys.executable, "-c", _FIFTH], capture_output=True, text=True, check=True)
    seen = json.loads(out.stdout)
    assert seen["size"] == OBS_SIZE
    assert seen["slices"] == {name: [s.start, s.stop] for name, s in SLICES.items()}
    variant = SLICES["variant"].start
    mattmar, fifth = set(seen["ones"]["mattmar"]), set(seen["ones"]["fifth"])
    assert mattmar - fifth == {variant} and fifth - mattmar == {variant + len(PRESETS)}


def test_the_sizes_of_the_versions_tell_them_apart():
    assert LAYOUTS[ENCODER_VERSION] == tuple((f.name, f.size) for f in FIELDS)
    assert LAYOUT_SIZES[ENCODER_VERSION] == OBS_SIZE
    assert LAYOUT_SIZES[1] == 1102 and LAYOUT_SIZES[2] == 1145  # as the checkpoints of those versions record
    assert len(set(LAYOUT_SIZES.values())) == len(LAYOUT_SIZES)
    assert {version_of_size(size) for size in LAYOUT_SIZES.values()} == set(LAYOUTS)
    assert version_of_size(7) is None


def test_version_2_migrates_exactly_and_version_1_only_pads():
    assert exact_migration(2) and not exact_migration(1)
    assert not exact_migration(True) and not exact_migration("2") and not exact_migration(99)
    for version in (1, 2):
        sources = input_sources(version)
        kept = sources[sources >= 0]
        assert sorted(kept.tolist()) == list(range(LAYOUT_SIZES[version]))  # every old input lands once
    missing = {name for name, s in SLICES.items() if (input_sources(2)[s] < 0).any()}
    assert missing == {"variant"}  # only the preset slots version 2 lacked


def test_migrate_inputs_takes_numpy_and_torch_alike():
    torch = pytest.importorskip("torch")  # deliberate: the core installs without torch; CI (and the dev extra) has it
    weight = np.random.default_rng(0).standard_normal((3, LAYOUT_SIZES[2])).astype(np.float32)
    as_numpy, as_torch = migrate_inputs(weight, 2), migrate_inputs(torch.from_numpy(weight), 2)
    assert as_numpy.shape == (3, OBS_SIZE) and as_numpy.dtype == np.float32
    assert np.array_equal(as_numpy, as_torch.numpy())
    with pytest.raises(ValueError, match="does not take encoder version 2's 1145 inputs"):
        migrate_inputs(weight[:, :-1], 2)


def test_the_version_2_layout_is_what_encoder_version_2_wrote():
    """Each field of version 2's layout holds, in observations the old encoder wrote, what the same
    field holds now; the preset slots version 2 lacked are zero."""
    old = np.load(FIXTURE)
    assert sorted(old) == sorted(f"{v}-{n}-{s}" for v, n, s in games())
    at = 0
    spans = []
    for name, size in LAYOUTS[2]:
        spans.append((name, slice(at, at + size)))
        at += size
    for variant, players, seed in games():
        before, now = old[f"{variant}-{players}-{seed}"], play(variant, players, seed)
        assert before.shape == (len(now), LAYOUT_SIZES[2])
        for name, span in spans:
            new = SLICES[name]
            assert np.array_equal(before[:, span], now[:, new.start : new.start + span.stop - span.start]), name
        assert not now[:, SLICES["variant"].start + len(V2_PRESETS) :].any()
        sources = input_sources(2)
        kept = sources >= 0
        assert np.array_equal(now[:, kept], before[:, sources[kept]])
