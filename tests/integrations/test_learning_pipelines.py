"""The RLlib and OpenSpiel benchmark pipelines (benchmarks/learning/) at tiny size: they train for a few
seconds, count decisions, play legal actions greedily and save what ``load_agent`` (and ``rams eval``) reads."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import rams_env
from benchmarks.learning.harness import Settings
from benchmarks.learning.openspiel_nfsp import OpenSpielPipeline
from benchmarks.learning.rllib_ppo import RLlibHeuristicPipeline, RLlibPipeline
from rams_env.agents import RandomAgent, load_agent

# Training runs of libraries: CI runs them, -m 'not slow' skips them.
pytestmark = pytest.mark.slow

TINY = {
    RLlibPipeline: {"hidden": [32], "batch": 400, "minibatch": 200, "epochs": 1, "num_envs": 8},
    RLlibHeuristicPipeline: {
        "hidden": [32],
        "batch": 400,
        "minibatch": 200,
        "epochs": 1,
        "num_envs": 8,
        "lmbda": 0.95,
        "clip": 0.2,
        "grad_clip": 0.5,
    },
    OpenSpielPipeline: {"hidden": [32], "min_buffer": 32, "batch_size": 32, "learn_every": 8, "anticipatory": 0.5},
}


def observations(variant: str, count: int = 40) -> list[dict[str, np.ndarray]]:
    env = rams_env.env(variant=variant, num_players=4, episode="rams")
    env.reset(seed=9)
    agent, seen = RandomAgent(seed=2), []
    for _ in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            break
        seen.append(observation)
        if len(seen) == count:
            break
        env.step(agent.act(observation))
    return seen


def weights(agent) -> list[torch.Tensor]:
    net = getattr(agent, "net", None) or agent.module
    return [p.detach().clone() for p in net.parameters()]


# RLlib registers its env wrapper with gymnasium again for every algorithm built in a process.
@pytest.mark.filterwarnings("ignore:.*Overriding environment rllib-multi-agent-env-v0:UserWarning")
@pytest.mark.parametrize("cls", list(TINY), ids=lambda cls: cls.name)
def test_a_pipeline_trains_plays_legal_actions_and_saves_a_loadable_agent(cls, tmp_path, capsys):
    torch.set_num_threads(1)
    pipeline = cls(Settings(variant="mattmar", num_players=4, out=tmp_path), **TINY[cls])
    try:
        before = weights(pipeline.agent())
        decisions = pipeline.train_for(3)
        assert decisions > 0 and f"{cls.name}: " in capsys.readouterr().out
        agent = pipeline.agent()
        assert any(not torch.equal(a, b) for a, b in zip(before, weights(agent), strict=True))  # it learned
        seen = observations("mattmar")
        actions = [agent.act(o) for o in seen]
        assert all(o["action_mask"][a] for o, a in zip(seen, actions, strict=True))
        path = pipeline.save()
        assert path.is_relative_to(tmp_path / cls.name)
        loaded = load_agent(path, expect_config=rams_env.make_config("mattmar", 4))
        assert [loaded.act(o) for o in seen] == actions
        assert pipeline.train_for(0) >= decisions  # training goes on from where it was
    finally:
        pipeline.close()
