"""Stable-Baselines3: sb3-contrib's MaskablePPO sees the env's action mask through ``gymnasium.make``, trains
briefly and then beats RandomAgent in a duplicate evaluation; the adapter agent and the example script."""

from __future__ import annotations

import runpy
from collections.abc import Iterator
from pathlib import Path

import gymnasium
import numpy as np
import pytest
import torch
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

import rams_env
from rams_env.agents import RandomAgent
from rams_env.eval import evaluate
from rams_env.integrations.sb3 import MaskablePPOAgent

# Training runs and example scripts of a library: CI runs them, -m 'not slow' skips them.
pytestmark = pytest.mark.slow

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "sb3_maskable_ppo.py"


@pytest.fixture(autouse=True)
def one_torch_thread() -> Iterator[None]:
    """Small MLPs run fastest on one thread; several threads crawl on a busy 2-core machine."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def make_model(seed: int = 0, **env_kwargs) -> MaskablePPO:
    env = gymnasium.make("rams_env/Rams-v1", learner_seat="random", **env_kwargs)
    return MaskablePPO("MlpPolicy", env, n_steps=512, batch_size=128, policy_kwargs={"net_arch": [64, 64]}, seed=seed)


@pytest.mark.parametrize("variant", ["mattmar", "russian"])
def test_maskable_ppo_gets_the_legal_actions_through_the_wrappers(variant):
    model = make_model(variant=variant)
    vec_env = model.get_env()
    assert is_masking_supported(vec_env)
    vec_env.reset()
    rng = np.random.default_rng(0)
    for _ in range(60):
        mask = get_action_masks(vec_env)[0]
        game = vec_env.envs[0].unwrapped.aec.game
        assert sorted(np.flatnonzero(mask)) == sorted(game.legal_actions())
        vec_env.step(np.array([rng.choice(np.flatnonzero(mask))]))


def test_maskable_ppo_trained_briefly_beats_random_agent_in_duplicate_deals():
    model = make_model(seed=0, variant="mattmar", num_players=4).learn(total_timesteps=4096)
    result = evaluate(
        {"maskable_ppo": MaskablePPOAgent(model)},
        RandomAgent,
        rams_env.make_config("mattmar", 4),
        decks=100,
        seed=1,
        progress=False,
    )
    report = result.agents[0]
    assert report.advantage_ci[0] > 0, result.table()


def test_agent_plays_only_legal_actions_and_rejects_bad_input():
    agent = MaskablePPOAgent(make_model(variant="rams32"))
    env = rams_env.env(variant="rams32")
    env.reset(seed=3)
    for _ in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else agent.act(observation))  # the env raises on illegal ones
    with pytest.raises(TypeError, match="MaskablePPO"):
        MaskablePPOAgent(RandomAgent())
    with pytest.raises(ValueError, match="allows no action"):
        agent.act({"observation": observation["observation"], "action_mask": np.zeros(60, np.int8)})


def test_example_trains_saves_and_evaluates(tmp_path):
    saved = tmp_path / "ppo.zip"
    main = runpy.run_path(str(EXAMPLE))["main"]
    result = main(["--steps", "512", "--decks", "4", "--save", str(saved)])
    assert [a.name for a in result.agents] == ["maskable_ppo"] and result.decks == 4
    assert isinstance(MaskablePPO.load(saved, device="cpu"), MaskablePPO)


def test_a_warm_started_model_plays_as_the_policy_it_starts_from(tmp_path):
    from rams_env.agents.neural import PolicyAgent
    from rams_env.integrations.sb3 import warm_start
    from rams_env.obs import OBS_SIZE
    from rams_env.policy import PolicyNet, make_checkpoint, save_checkpoint
    from rams_env.rules.actions import NUM_ACTIONS

    torch.manual_seed(4)
    net = PolicyNet(OBS_SIZE, NUM_ACTIONS, (32, 32))
    config = rams_env.make_config("mattmar", 4)
    env = gymnasium.make("rams_env/Rams-v1", variant="mattmar", num_players=4, learner_seat="random")
    kwargs = {"net_arch": {"pi": [32, 32], "vf": [32, 32]}, "activation_fn": torch.nn.ReLU}
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=64, policy_kwargs=kwargs, seed=0, device="cpu")
    warm_start(model, net)
    policy, agent = PolicyAgent(net, config), MaskablePPOAgent(model)
    assert agent.greedy  # its decisions batched in evaluations against the heuristic
    aec = rams_env.env(variant="mattmar", num_players=4)
    aec.reset(seed=2)
    for _ in range(40):  # every decision of the policy's own play, the SB3 model choosing the same
        observation, _, terminated, truncated, _ = aec.last()
        if terminated or truncated:
            break
        assert agent.act(observation) == policy.act(observation)
        assert agent.act_batch(observation["observation"][None], observation["action_mask"][None])[0] == policy.act(
            observation
        )
        aec.step(policy.act(observation))
    with pytest.raises(RuntimeError, match="size mismatch"):  # other widths are refused
        warm_start(model, PolicyNet(OBS_SIZE, NUM_ACTIONS, (16, 16)))
    checkpoint = save_checkpoint(tmp_path / "start.pt", make_checkpoint(net, config)) or tmp_path / "start.pt"
    main = runpy.run_path(str(EXAMPLE))["main"]
    result = main(["--steps", "128", "--decks", "2", "--init-from", str(checkpoint), "--episode", "rams"])
    assert result.decks == 2 and result.agents[0].win_rate is not None  # whole ramsar, from the warm start
