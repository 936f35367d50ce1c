"""Checkpoints of encoder version 2 (every model of the zoo, and a user's own) load under version 3 with
their first layer's inputs moved: the same logits and values on the new observations of a game as the
file's own network gives on the observations encoder version 2 wrote of it (``obs_v2.npz``)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

from rams_env import zoo
from rams_env.agents import load_agent
from rams_env.obs import OBS_SIZE
from rams_env.obs.encoding import ENCODER_VERSION
from rams_env.obs.layouts import LAYOUT_SIZES, input_sources
from rams_env.policy import (
    CheckpointError,
    PolicyNet,
    load_checkpoint,
    load_ensemble,
    make_checkpoint,
    model_digest,
    network_from_checkpoint,
    save_checkpoint,
    write_ensemble,
)
from rams_env.rules import make_config
from rams_env.rules.actions import NUM_ACTIONS
from tests.policy.layout_games import games, play

FIXTURE = Path(__file__).with_name("obs_v2.npz")
OLD = LAYOUT_SIZES[2]


def _observations(preset: str) -> tuple[torch.Tensor, torch.Tensor]:
    """(version 2 observations the old encoder wrote, this encoder's of the same decisions) of ``preset``."""
    old = np.load(FIXTURE)
    keys = [(v, n, s) for v, n, s in games() if v == preset]
    before = np.concatenate([old[f"{v}-{n}-{s}"] for v, n, s in keys])
    now = np.concatenate([play(v, n, s) for v, n, s in keys])
    return torch.from_numpy(before), torch.from_numpy(now)


def _file_network(path: Path) -> PolicyNet:
    """The network a version 2 file holds, as it is (no migration): what it played before version 3."""
    payload = torch.load(path, map_location="cpu", weights_only=True)
    assert payload["encoder_version"] == 2 and payload["obs_size"] == OLD
    net = PolicyNet(OLD, NUM_ACTIONS, payload["network"]["hidden"])
    net.load_state_dict(payload["model"])
    return net.eval()


def _same_outputs(old: torch.nn.Module, new: torch.nn.Module, before: torch.Tensor, now: torch.Tensor) -> None:
    with torch.no_grad():
        (old_logits, old_value), (new_logits, new_value) = old(before), new(now)
    assert torch.allclose(new_logits, old_logits, atol=1e-5, rtol=1e-5)
    assert torch.allclose(new_value, old_value, atol=1e-5, rtol=1e-5)


WEIGHTS = [m for m in zoo.models().values() if not m.ensemble]


def test_the_zoo_is_still_of_encoder_version_2():
    """The zoo's files are migrated when loaded, not rewritten (docs/environment.md says why); if they are ever
    rewritten, this test and the fixture-based ones below go with the version 2 fixture of a user's file."""
    assert WEIGHTS and all(torch.load(m.path, weights_only=True)["encoder_version"] == 2 for m in WEIGHTS)


@pytest.mark.parametrize("model", WEIGHTS, ids=[m.name for m in WEIGHTS])
def test_every_zoo_model_computes_what_it_computed_under_encoder_version_2(model):
    before, now = _observations(model.preset)
    payload = load_checkpoint(model.path)
    assert payload["encoder_version"] == ENCODER_VERSION and payload["obs_size"] == OBS_SIZE
    assert payload["migrated_from"]["encoder_version"] == 2
    agent = load_agent(model.name)
    assert agent.net.obs_size == OBS_SIZE
    _same_outputs(_file_network(model.path), agent.net, before, now)


ENSEMBLES = [m for m in zoo.models().values() if m.ensemble]


@pytest.mark.parametrize("model", ENSEMBLES, ids=[m.name for m in ENSEMBLES])
def test_every_zoo_ensemble_loads_its_migrated_members(model):
    """A manifest records the digests of its members' files; migrated members still match them."""
    manifest = json.loads(model.path.read_text())
    payloads = load_ensemble(model.path)
    assert [p["migrated_from"]["model_sha256"] for p in payloads] == [m["model_sha256"] for m in manifest["members"]]
    before, now = _observations(model.preset)
    for member, payload in zip(manifest["members"], payloads, strict=True):
        _same_outputs(_file_network(model.path.parent / member["path"]), network_from_checkpoint(payload), before, now)
    assert load_agent(model.name).nets[0].obs_size == OBS_SIZE


def _version_2_file(path: Path, seed: int = 0, **extra) -> PolicyNet:
    """A user's checkpoint written under encoder version 2 (hidden (16,)): its network, as the file has it."""
    torch.manual_seed(seed)
    net = PolicyNet(OLD, NUM_ACTIONS, (16,))
    payload = make_checkpoint(net, make_config("russian", 4), **extra)
    payload.update(encoder_version=2, obs_size=OLD)
    save_checkpoint(path, payload)
    return net.eval()


def test_a_users_version_2_checkpoint_loads_and_plays_as_before(tmp_path):
    old = _version_2_file(tmp_path / "mine.pt")
    migrated = load_checkpoint(tmp_path / "mine.pt")
    assert migrated["migrated_from"] == {"encoder_version": 2, "model_sha256": model_digest(old.state_dict())}
    assert migrated["model_sha256"] == model_digest(migrated["model"])
    before, now = _observations("russian")
    _same_outputs(old, load_agent(tmp_path / "mine.pt").net, before, now)
    save_checkpoint(tmp_path / "again.pt", migrated)  # written back, it is a version 3 file
    again = torch.load(tmp_path / "again.pt", weights_only=True)
    assert again["encoder_version"] == ENCODER_VERSION and again["obs_size"] == OBS_SIZE
    _same_outputs(old, load_agent(tmp_path / "again.pt").net, before, now)


def test_an_ensemble_written_of_version_2_members_records_their_files(tmp_path):
    a, b = _version_2_file(tmp_path / "a.pt", 1), _version_2_file(tmp_path / "b.pt", 2)
    write_ensemble(tmp_path / "both.json", [tmp_path / "a.pt", tmp_path / "b.pt"])
    recorded = [m["model_sha256"] for m in json.loads((tmp_path / "both.json").read_text())["members"]]
    assert recorded == [model_digest(a.state_dict()), model_digest(b.state_dict())]
    assert len(load_ensemble(tmp_path / "both.json")) == 2


def test_a_version_2_checkpoint_of_the_wrong_width_is_refused(tmp_path):
    _version_2_file(tmp_path / "odd.pt")
    payload = torch.load(tmp_path / "odd.pt", weights_only=True)
    payload["obs_size"] = OLD - 1  # a file that says version 2 but not its size: not migrated, refused
    save_checkpoint(tmp_path / "odd.pt", payload)
    with pytest.raises(CheckpointError, match="encoder_version=2"):
        load_checkpoint(tmp_path / "odd.pt")


def test_a_version_1_checkpoint_is_still_a_warm_start_only(tmp_path):
    old_size = LAYOUT_SIZES[1]
    net = PolicyNet(old_size, NUM_ACTIONS, hidden=(8,)).eval()
    payload = make_checkpoint(net, make_config("mattmar", 4))
    payload.update(encoder_version=1, obs_size=old_size)
    save_checkpoint(tmp_path / "v1.pt", payload)
    with pytest.raises(CheckpointError, match="encoder_version=1"):
        load_agent(tmp_path / "v1.pt")
    migrated = network_from_checkpoint(load_checkpoint(tmp_path / "v1.pt", migrate=True))
    now = torch.randn(3, OBS_SIZE)
    sources = input_sources(1)
    kept = np.flatnonzero(sources >= 0)
    before = torch.zeros(3, old_size)
    before[:, sources[kept]] = now[:, kept]
    _same_outputs(net, migrated, before, now)


def test_a_migrated_checkpoint_leaves_the_training_state_of_the_old_layout_behind(tmp_path):
    """The optimizer's moments and the privileged critic are shaped by the old layout: a run of encoder
    version 2 does not resume (training/run.py names the missing optimizer), a new one starts from it."""
    _version_2_file(tmp_path / "run.pt", optimizer={"state": {}}, critic={"torso.0.weight": torch.zeros(2, OLD + 3)})
    payload = load_checkpoint(tmp_path / "run.pt")
    assert "optimizer" not in payload and "critic" not in payload
    assert payload["migrated_from"]["dropped"] == ["optimizer", "critic"]
    assert load_checkpoint(tmp_path / "run.pt", migrate=True)["network"] == {"hidden": [16]}
