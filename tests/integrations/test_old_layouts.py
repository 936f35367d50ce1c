"""Models of other formats trained on an older observation layout: an SB3 zip and an RLlib checkpoint (which
record only their input width) and an OpenSpiel NFSP policy file (which records its encoder version). Of
encoder version 2 each is migrated and gives the logits it gave on version 2's observations of the same
decisions; of version 1 each is refused in one line naming the version."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import numpy as np
import pytest
import torch

from rams_env.agents import load_agent
from rams_env.obs import OBS_SIZE
from rams_env.obs.encoding import ENCODER_VERSION
from rams_env.obs.layouts import LAYOUT_SIZES
from rams_env.policy import CheckpointError
from rams_env.rules import make_config
from rams_env.rules.actions import NUM_ACTIONS
from tests.integrations.test_crafted_models import RELU, rllib_checkpoint, sb3_zip
from tests.policy.layout_games import games, play

FIXTURE = Path(__file__).parents[1] / "policy" / "obs_v2.npz"
HIDDEN = 8


def _observations() -> tuple[torch.Tensor, torch.Tensor]:
    """(mattmar observations encoder version 2 wrote, this encoder's of the same decisions)."""
    old = np.load(FIXTURE)
    keys = [(v, n, s) for v, n, s in games() if v == "mattmar"]
    before = np.concatenate([old[f"{v}-{n}-{s}"] for v, n, s in keys])
    now = np.concatenate([play(v, n, s) for v, n, s in keys])
    return torch.from_numpy(before), torch.from_numpy(now)


def _layers(width: int, seed: int = 0) -> list[torch.Tensor]:
    """Weight, bias, weight, bias of a one-hidden-layer ReLU policy of ``width`` inputs."""
    g = torch.Generator().manual_seed(seed)
    return [
        torch.randn(HIDDEN, width, generator=g) * 0.1,
        torch.randn(HIDDEN, generator=g),
        torch.randn(NUM_ACTIONS, HIDDEN, generator=g),
        torch.randn(NUM_ACTIONS, generator=g),
    ]


def _logits(layers: list[torch.Tensor], obs: torch.Tensor) -> torch.Tensor:
    w0, b0, w1, b1 = layers
    return torch.relu(obs @ w0.T + b0) @ w1.T + b1


def test_an_sb3_zip_of_version_2_is_migrated(tmp_path):
    layers = _layers(LAYOUT_SIZES[2])
    names = ["mlp_extractor.policy_net.0.weight", "mlp_extractor.policy_net.0.bias", "action_net.weight"]
    state = dict(zip([*names, "action_net.bias"], layers, strict=True))
    agent = load_agent(sb3_zip(tmp_path / "v2.zip", json.dumps({"policy_kwargs": {"activation_fn": RELU}}), state))
    before, now = _observations()
    assert agent.net[0].in_features == OBS_SIZE
    with torch.no_grad():
        assert torch.allclose(agent.net(now), _logits(layers, before), atol=1e-5)


def test_an_sb3_zip_of_version_1_is_refused_naming_it(tmp_path):
    layers = _layers(LAYOUT_SIZES[1])
    names = ["mlp_extractor.policy_net.0.weight", "mlp_extractor.policy_net.0.bias", "action_net.weight"]
    state = dict(zip([*names, "action_net.bias"], layers, strict=True))
    path = sb3_zip(tmp_path / "v1.zip", json.dumps({"policy_kwargs": {"activation_fn": RELU}}), state)
    with pytest.raises(
        CheckpointError, match=f"encoder version 1 .*this rams_env observes encoder version {ENCODER_VERSION}"
    ):
        load_agent(path)


def _rllib(root: Path, width: int) -> tuple[Path, list[torch.Tensor]]:
    layers = _layers(width)
    path = rllib_checkpoint(root, {"activation": "relu"}, {"variant": "mattmar"})
    state = dict(
        zip(["torso.0.weight", "torso.0.bias", "pi.weight", "pi.bias"], (t.numpy() for t in layers), strict=True)
    )
    state |= {"vf.weight": np.zeros((1, HIDDEN), np.float32), "vf.bias": np.zeros(1, np.float32)}
    module = path / "learner_group" / "learner" / "rl_module" / "shared" / "module_state.pkl"
    assert module.is_file()
    module.write_bytes(pickle.dumps(state))
    return path, layers


def test_an_rllib_checkpoint_of_version_2_is_migrated(tmp_path):
    path, layers = _rllib(tmp_path / "v2", LAYOUT_SIZES[2])
    agent = load_agent(path)
    before, now = _observations()
    with torch.no_grad():
        assert torch.allclose(agent.module.pi(agent.module.torso(now)), _logits(layers, before), atol=1e-5)


def test_an_rllib_checkpoint_of_version_1_is_refused_naming_it(tmp_path):
    path, _ = _rllib(tmp_path / "v1", LAYOUT_SIZES[1])
    with pytest.raises(CheckpointError, match="encoder version 1"):
        load_agent(path)


def _nfsp_file(path: Path, version: int) -> list[torch.Tensor]:
    from rams_env.integrations.openspiel.policy_file import KIND, VERSION

    layers = _layers(LAYOUT_SIZES[version])
    torch.save(
        {
            "kind": KIND,
            "version": VERSION,
            "encoder_version": version,
            "obs_size": LAYOUT_SIZES[version],
            "num_actions": NUM_ACTIONS,
            "config": make_config("mattmar", 4).to_dict(),
            "hidden": [HIDDEN],
            "weights": [layers[0], layers[2]],
            "biases": [layers[1], layers[3]],
        },
        path,
    )
    return layers


def test_an_nfsp_policy_file_of_version_2_is_migrated(tmp_path):
    layers = _nfsp_file(tmp_path / "v2.nfsp.pt", 2)
    agent = load_agent(tmp_path / "v2.nfsp.pt")
    before, now = _observations()
    with torch.no_grad():
        assert torch.allclose(agent.net(now)[0], _logits(layers, before), atol=1e-5)


def test_an_nfsp_policy_file_of_version_1_is_refused_naming_it(tmp_path):
    _nfsp_file(tmp_path / "v1.nfsp.pt", 1)
    with pytest.raises(CheckpointError, match="encoder_version=1"):
        load_agent(tmp_path / "v1.nfsp.pt")
