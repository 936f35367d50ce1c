"""RLlib: the MultiAgentEnv adapter (turn order, rewards of every seat, end of episode), the masked RLModule,
and multi-agent PPO with one shared policy training on a local Ray instance, whose policy picks only legal
actions; the example script."""

from __future__ import annotations

import runpy
from collections.abc import Iterator
from pathlib import Path

import gymnasium
import numpy as np
import pytest
import ray
import torch
from ray.rllib.core.columns import Columns

import rams_env
from rams_env.integrations.rllib import (
    MASKED_LOGIT,
    SHARED_POLICY,
    MaskedPPOModule,
    RamsMultiAgentEnv,
    RLlibAgent,
    ppo_config,
)

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "rllib_ppo.py"
BATCH = 200


@pytest.fixture
def local_ray() -> Iterator[None]:
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


@pytest.mark.parametrize(("variant", "episode"), [("mattmar", "deal"), ("russian", "rams"), ("rams32", "match")])
def test_env_asks_the_seat_to_act_and_pays_every_seat_its_score_change(variant, episode):
    env = RamsMultiAgentEnv({"variant": variant, "num_players": 4, "episode": episode})
    rng = np.random.default_rng(0)
    for seed in range(3):
        observations, infos = env.reset(seed=seed)
        game = env.aec.game
        returns = dict.fromkeys(env.possible_agents, 0.0)
        start = list(game.scores)
        new_rams = 0
        while True:
            [agent] = observations
            assert agent == f"player_{game.current_player}" and set(infos) == {agent}
            assert env.observation_spaces[agent].contains(observations[agent])
            rams_before = game.rams_number if episode == "match" else 0
            action = int(rng.choice(np.flatnonzero(observations[agent]["action_mask"])))
            observations, rewards, terminateds, truncateds, infos = env.step({agent: action})
            assert set(rewards) == set(env.possible_agents) and truncateds == {"__all__": False}
            for a, r in rewards.items():
                returns[a] += r
            if episode == "match" and game.rams_number != rams_before:
                new_rams += 1  # a new rams starts from fresh scores, which is no reward
            if terminateds["__all__"]:
                break
            assert terminateds == {"__all__": False}
        assert set(observations) == set(env.possible_agents) and all(terminateds.values())
        assert not any(o["action_mask"].any() for o in observations.values())
        if not new_rams:
            assert [returns[a] for a in env.possible_agents] == [b - e for b, e in zip(start, game.scores, strict=True)]


def test_env_rejects_an_action_for_a_seat_not_to_act():
    env = RamsMultiAgentEnv({})
    observations, _ = env.reset(seed=0)
    [agent] = observations
    other = next(a for a in env.possible_agents if a != agent)
    with pytest.raises(ValueError, match=f"{agent} is to act"):
        env.step({other: 0})


def test_bad_settings_fail_before_ray_starts():
    with pytest.raises(ValueError, match="variant"):
        ppo_config({"variant": "whist"})
    with pytest.raises(ValueError, match="action_mask"):
        MaskedPPOModule(observation_space=gymnasium.spaces.Box(0, 1, (3,)), action_space=gymnasium.spaces.Discrete(60))


def test_module_masks_illegal_logits():
    env = RamsMultiAgentEnv({"variant": "norrlandsknack", "num_players": 5})
    module = MaskedPPOModule(
        observation_space=env.observation_spaces["player_0"],
        action_space=env.action_spaces["player_0"],
        model_config={"hidden": [16]},
    )
    observations, _ = env.reset(seed=1)
    [obs] = observations.values()
    batch = {Columns.OBS: {k: torch.as_tensor(v).unsqueeze(0) for k, v in obs.items()}}
    logits = module.forward_exploration(batch)[Columns.ACTION_DIST_INPUTS][0]
    legal = torch.as_tensor(obs["action_mask"]).bool()
    assert torch.all(logits[~legal] == MASKED_LOGIT) and torch.all(logits[legal] > MASKED_LOGIT)
    values = module.compute_values(batch)
    assert values.shape == (1,)


def test_ppo_trains_a_shared_policy_that_plays_only_legal_actions(local_ray):
    config = (
        ppo_config({"variant": "mattmar", "num_players": 4}, hidden=[32])
        .env_runners(num_env_runners=0, rollout_fragment_length=BATCH)
        .training(train_batch_size_per_learner=BATCH, minibatch_size=100, num_epochs=1)
        .debugging(seed=0)
    )
    algo = config.build_algo()
    try:
        module = algo.get_module(SHARED_POLICY)
        assert isinstance(module, MaskedPPOModule) and module.torso[0].out_features == 32
        before = {k: v.clone() for k, v in module.state_dict().items()}
        for _ in range(2):
            result = algo.train()
        assert result["env_runners"]["num_env_steps_sampled_lifetime"] >= 2 * BATCH
        assert set(result["env_runners"]["agent_episode_returns_mean"]) <= {f"player_{i}" for i in range(4)}
        after = module.state_dict()
        assert any(not torch.equal(before[k], after[k]) for k in before), "training left the weights unchanged"
    finally:
        algo.stop()
    # The trained policy in every seat, greedy, through whole deals of the PettingZoo env (which raises on an
    # illegal action); sampled actions of the exploration distribution must be legal too.
    agent = RLlibAgent(module)
    env = rams_env.env(variant="mattmar", num_players=4)
    decisions = 0
    for seed in range(20):
        env.reset(seed=seed)
        for _ in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            action = agent.act(obs)
            assert obs["action_mask"][action] == 1
            batch = {Columns.OBS: {k: torch.as_tensor(v).unsqueeze(0).repeat(16, 1) for k, v in obs.items()}}
            logits = module.forward_exploration(batch)[Columns.ACTION_DIST_INPUTS]
            sampled = module.get_exploration_action_dist_cls().from_logits(logits).sample()
            assert obs["action_mask"][sampled.numpy()].all()
            env.step(action)
            decisions += 1
    assert decisions > 100


# RLlib registers its env wrapper with gymnasium again for every algorithm built in a process: benign.
@pytest.mark.filterwarnings("ignore:.*Overriding environment rllib-multi-agent-env-v0:UserWarning")
def test_example_trains_locally_and_evaluates():
    main = runpy.run_path(str(EXAMPLE))["main"]
    result = main(["--iterations", "1", "--batch", str(BATCH), "--num-cpus", "1", "--decks", "2"])
    assert [a.name for a in result.agents] == ["rllib_ppo"] and result.decks == 2
    assert not ray.is_initialized()
