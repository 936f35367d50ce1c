"""A ``MaskablePPO`` saved with ``model.save`` loads through ``load_agent`` without SB3's unpickling ``load``:
the same greedy actions as the live model, any widths, ReLU or Tanh; damaged or foreign files refused by name."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import gymnasium
import numpy as np
import pytest
import torch
from sb3_contrib import MaskablePPO

import rams_env
from rams_env.agents import RandomAgent, load_agent
from rams_env.integrations.sb3 import MaskablePPOAgent, SB3PolicyAgent
from rams_env.policy import CheckpointError

# Training runs of a library: CI runs them, -m 'not slow' skips them.
pytestmark = pytest.mark.slow


def trained(policy_kwargs: dict, steps: int = 256) -> MaskablePPO:
    env = gymnasium.make("rams_env/Rams-v1", variant="mattmar", num_players=4, opponents=RandomAgent(seed=0))
    model = MaskablePPO("MlpPolicy", env, n_steps=128, batch_size=64, n_epochs=1, policy_kwargs=policy_kwargs, seed=0)
    return model.learn(total_timesteps=steps)


def observations(count: int = 40) -> list[dict[str, np.ndarray]]:
    env = rams_env.env(variant="mattmar", num_players=4)
    env.reset(seed=5)
    agent, seen = RandomAgent(seed=1), []
    for _ in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        seen.append(observation)
        if len(seen) == count:
            break
        env.step(agent.act(observation))
    return seen


@pytest.mark.parametrize(
    "policy_kwargs",
    [
        {"net_arch": {"pi": [256, 256], "vf": [256, 256]}, "activation_fn": torch.nn.ReLU},  # the pipeline's
        {"net_arch": {"pi": [48], "vf": [16, 16]}},  # SB3's default activation, Tanh
    ],
)
def test_a_saved_model_loads_and_plays_as_the_live_one(tmp_path, policy_kwargs):
    torch.set_num_threads(1)
    model = trained(policy_kwargs)
    path = tmp_path / "ppo.zip"
    model.save(path)
    loaded = load_agent(path, expect_config=rams_env.make_config("mattmar", 4))
    assert isinstance(loaded, SB3PolicyAgent) and loaded.num_players == 4
    live = MaskablePPOAgent(model)
    seen = observations()
    actions = [loaded.act(o) for o in seen]
    assert actions == [live.act(o) for o in seen]
    assert len(set(actions)) > 1  # not one constant action that would agree by chance
    activation = policy_kwargs.get("activation_fn", torch.nn.Tanh)
    assert any(isinstance(m, activation) for m in loaded.net.modules())


def rewrite(source: Path, target: Path, change: dict[str, bytes | None]) -> Path:
    """A copy of the zip ``source`` with entries replaced (bytes) or left out (None)."""
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w") as new:
        for name in old.namelist():
            if name not in change:
                new.writestr(name, old.read(name))
        for name, content in change.items():
            if content is not None:
                new.writestr(name, content)
    return target


def test_damaged_and_foreign_zips_are_refused_naming_the_file(tmp_path):
    model = trained({"net_arch": [16]}, steps=128)
    good = tmp_path / "good.zip"
    model.save(good)
    broken = tmp_path / "broken.zip"
    broken.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    with pytest.raises(CheckpointError, match=r"broken\.zip.*damaged"):
        load_agent(broken)
    no_policy = rewrite(good, tmp_path / "no_policy.zip", {"policy.pth": None})
    with pytest.raises(CheckpointError, match=r"no_policy\.zip.*'policy\.pth'"):
        load_agent(no_policy)
    garbage = rewrite(good, tmp_path / "garbage.zip", {"policy.pth": b"not a torch file"})
    with pytest.raises(CheckpointError, match=r"garbage\.zip.*policy\.pth is damaged"):
        load_agent(garbage)
    data = json.loads(zipfile.ZipFile(good).read("data"))
    data["policy_kwargs"]["activation_fn"] = "<class 'torch.nn.modules.activation.GELU'>"
    gelu = rewrite(good, tmp_path / "gelu.zip", {"data": json.dumps(data).encode()})
    with pytest.raises(CheckpointError, match=r"gelu\.zip.*GELU.*ReLU, Tanh"):
        load_agent(gelu)
    (tmp_path / "text.zip").write_text("hello")
    with pytest.raises(CheckpointError, match=r"text\.zip.*not a zip"):
        load_agent(tmp_path / "text.zip")


def test_a_pickled_object_in_policy_pth_is_refused_without_running_it(tmp_path):
    model = trained({"net_arch": [16]}, steps=128)
    good = tmp_path / "good.zip"
    model.save(good)
    ran = tmp_path / "ran"
    hostile = tmp_path / "hostile.bin"
    torch.save({"x": Exploit(str(ran))}, hostile)
    bad = rewrite(good, tmp_path / "hostile.zip", {"policy.pth": hostile.read_bytes()})
    with pytest.raises(CheckpointError, match=r"hostile\.zip"):
        load_agent(bad)
    assert not ran.exists()


class Exploit:
    """Unpickling this would create a file."""

    def __init__(self, path: str) -> None:
        self.path = path

    def __reduce__(self):
        return (Path.touch, (Path(self.path),))
