"""NFSP policy files (``save_nfsp_policy``, ``*.nfsp.pt``): ``load_agent`` plays the average network's greedy
legal action; foreign, damaged and hostile files are refused by name; project checkpoints are not confused."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from open_spiel.python.pytorch import nfsp

import rams_env
from rams_env.agents import RandomAgent, load_agent
from rams_env.agents.neural import PolicyAgent
from rams_env.integrations.openspiel.policy_file import load_nfsp_agent, save_nfsp_policy
from rams_env.obs.encoding import OBS_SIZE
from rams_env.policy import (
    CheckpointError,
    PolicyNet,
    RulesMismatchError,
    load_checkpoint,
    make_checkpoint,
    save_checkpoint,
)

CONFIG = rams_env.make_config("mattmar", 4)


def nfsp_agent(hidden: list[int]) -> nfsp.NFSP:
    return nfsp.NFSP(0, OBS_SIZE, 60, hidden, reservoir_buffer_capacity=100, anticipatory_param=0.1, seed=3)


def observations(count: int = 30) -> list[dict[str, np.ndarray]]:
    env = rams_env.env(variant="mattmar", num_players=4)
    env.reset(seed=2)
    agent, seen = RandomAgent(seed=4), []
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


@pytest.mark.parametrize("hidden", [[32], [24, 12]])
def test_the_file_plays_the_average_networks_greedy_legal_action(tmp_path, hidden):
    agent = nfsp_agent(hidden)
    path = save_nfsp_policy(tmp_path / "avg.nfsp.pt", agent, CONFIG, hidden)
    loaded = load_agent(path, expect_config=CONFIG)
    assert isinstance(loaded, PolicyAgent) and loaded.config == CONFIG
    actions = []
    for observation in observations():
        legal = np.flatnonzero(observation["action_mask"])
        with torch.no_grad():
            logits = agent._avg_network(torch.from_numpy(observation["observation"])).numpy()
        actions.append(loaded.act(observation))
        assert actions[-1] == int(legal[np.argmax(logits[legal])])
    assert len(set(actions)) > 1
    assert save_nfsp_policy(tmp_path / "net.nfsp.pt", agent._avg_network, CONFIG, hidden).is_file()


def test_bad_arguments_and_refused_files(tmp_path):
    agent = nfsp_agent([16])
    with pytest.raises(ValueError, match=r"\*\.nfsp\.pt"):
        save_nfsp_policy(tmp_path / "avg.pt", agent, CONFIG, [16])
    with pytest.raises(ValueError, match="hidden"):
        save_nfsp_policy(tmp_path / "avg.nfsp.pt", agent, CONFIG, [32])
    path = save_nfsp_policy(tmp_path / "avg.nfsp.pt", agent, CONFIG, [16])
    with pytest.raises(RulesMismatchError):
        load_agent(path, expect_config=rams_env.make_config("russian", 4))
    with pytest.raises(CheckpointError, match="not a rams_env checkpoint"):
        load_checkpoint(path)  # a project checkpoint reader does not take it for one of its own
    damaged = tmp_path / "damaged.nfsp.pt"
    damaged.write_bytes(path.read_bytes()[:200])
    with pytest.raises(CheckpointError, match=r"damaged\.nfsp\.pt.*damaged"):
        load_agent(damaged)
    project = tmp_path / "project.nfsp.pt"
    save_checkpoint(project, make_checkpoint(PolicyNet(OBS_SIZE, 60, [8]), CONFIG))
    with pytest.raises(CheckpointError, match=r"project\.nfsp\.pt.*not an NFSP policy file"):
        load_agent(project)
    forged = tmp_path / "forged.nfsp.pt"
    payload = torch.load(path, weights_only=True)
    torch.save({**payload, "weights": payload["weights"][:1]}, forged)
    with pytest.raises(CheckpointError, match=r"forged\.nfsp\.pt.*damaged"):
        load_nfsp_agent(forged)
    ran = tmp_path / "ran"
    hostile = tmp_path / "hostile.nfsp.pt"
    torch.save({**payload, "config": Exploit(str(ran))}, hostile)
    with pytest.raises(CheckpointError, match=r"hostile\.nfsp\.pt"):
        load_agent(hostile)
    assert not ran.exists()


class Exploit:
    """Unpickling this would create a file."""

    def __init__(self, path: str) -> None:
        self.path = path

    def __reduce__(self):
        return (Path.touch, (Path(self.path),))
