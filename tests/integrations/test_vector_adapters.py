"""The library adapters over the compiled vector env: SB3's ``VecEnv``, TorchRL's batched ``EnvBase`` and
RLlib's vector env runners. Each is checked by its library's own checker where there is one, trained
for a few updates, and checked for what its library relies on (masks, final observations, partial
resets, the first transition of every episode)."""

from __future__ import annotations

import numpy as np
import pytest
import ray
import torch

from rams_env.envs import RamsVectorEnv
from rams_env.obs import OBS_SIZE

pytestmark = pytest.mark.slow  # library training runs: CI runs them, -m 'not slow' skips them


# ----------------------------------------------------------------------------- Stable-Baselines3
def test_sb3_vec_env_steps_the_vector_envs_games_and_reports_final_observations():
    from rams_env.integrations.sb3_vector import RamsVecEnv

    env = RamsVecEnv(6, opponents="heuristic", episode="deal")
    env.seed(4)
    obs = env.reset()
    reference = RamsVectorEnv(6, opponents="heuristic", episode="deal", autoreset_mode="SameStep")
    ref_obs, ref_info = reference.reset(seed=4)
    assert np.array_equal(obs, ref_obs)
    ended = 0
    for _ in range(40):
        masks = np.stack(env.env_method("action_masks"))
        assert np.array_equal(masks, ref_info["action_mask"].astype(bool))
        actions = masks.argmax(axis=1)
        env.step_async(actions)
        obs, rewards, dones, infos = env.step_wait()
        ref_obs, ref_rewards, ref_term, _, ref_info = reference.step(actions)
        assert np.array_equal(obs, ref_obs) and np.array_equal(rewards, ref_rewards)
        assert np.array_equal(dones, ref_term)
        for i in np.flatnonzero(dones):
            assert np.array_equal(infos[i]["terminal_observation"], ref_info["final_obs"][i])
            assert infos[i]["TimeLimit.truncated"] is False
        ended += int(dones.sum())
    assert ended > 0


def test_maskable_ppo_trains_on_the_vec_env_and_never_plays_an_illegal_action():
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import VecMonitor

    from rams_env.integrations.sb3_vector import RamsVecEnv

    torch.manual_seed(0)
    env = VecMonitor(RamsVecEnv(16, opponents="heuristic", illegal_action="raise", episode="rams", reward="win"))
    model = MaskablePPO("MlpPolicy", env, n_steps=16, batch_size=128, n_epochs=1, gamma=1.0, seed=0, verbose=0)
    before = [p.detach().clone() for p in model.policy.parameters()]
    model.learn(16 * 16 * 2)  # an illegal action would raise: the masks reach the policy
    assert model.num_timesteps >= 512
    assert any(not torch.equal(a, b) for a, b in zip(before, model.policy.parameters(), strict=True))


# ----------------------------------------------------------------------------- TorchRL
def test_torchrl_batched_env_passes_check_env_specs_and_resets_finished_games_alone():
    from torchrl.collectors import Collector
    from torchrl.envs.utils import check_env_specs

    from rams_env.integrations.torchrl_vector import RamsBatchedEnv, masked_actor

    env = RamsBatchedEnv(8, opponents="heuristic", episode="deal")
    check_env_specs(env, seed=0)
    actor = masked_actor(hidden=(32,))
    collector = Collector(
        env, actor, frames_per_batch=8 * 32, total_frames=8 * 32 * 2, auto_register_policy_transforms=False
    )
    done = 0
    for batch in collector:
        legal = batch["action_mask"].gather(-1, batch["action"].unsqueeze(-1))
        assert legal.all()  # the masked distribution never samples an illegal action
        done += int(batch["next", "done"].sum())
        after_done = batch["next", "done"].squeeze(-1)[:, :-1]
        # a finished game starts again at the next frame (a partial reset), while the others went on
        assert batch["action_mask"][:, 1:][after_done].any(dim=-1).all()
    assert done > 0


def test_torchrl_ppo_loss_updates_the_shared_policy_net():
    from torchrl.objectives import ClipPPOLoss
    from torchrl.objectives.value import GAE

    from rams_env.integrations.torchrl_vector import RamsBatchedEnv, masked_actor, value_module
    from rams_env.policy import PolicyNet
    from rams_env.rules.actions import NUM_ACTIONS

    env = RamsBatchedEnv(4, opponents="random", episode="deal")
    env.set_seed(1)
    net = PolicyNet(OBS_SIZE, NUM_ACTIONS, (32,))
    actor, critic = masked_actor(net), value_module(net)
    with torch.no_grad():
        batch = env.rollout(20, actor, break_when_any_done=False)
        GAE(gamma=1.0, lmbda=0.95, value_network=critic)(batch)
    loss = ClipPPOLoss(actor, critic)
    loss.set_keys(sample_log_prob="action_log_prob", value="state_value")
    values = loss(batch)
    (values["loss_objective"] + values["loss_critic"] + values["loss_entropy"]).backward()
    assert all(p.grad is not None for p in net.parameters())


# ----------------------------------------------------------------------------- RLlib
@pytest.fixture(scope="module")
def local_ray():
    from rams_env.integrations.rllib import init_ray

    init_ray(num_cpus=1)
    yield
    ray.shutdown()


def test_rllib_vector_env_runner_keeps_every_episodes_first_transition(local_ray):
    from rams_env.integrations.rllib import build_algo
    from rams_env.integrations.rllib_vector import vector_ppo_config

    config = (
        vector_ppo_config({"opponents": "heuristic", "episode": "deal"}, num_envs_per_env_runner=8, hidden=(32,))
        .env_runners(num_env_runners=0)
        .learners(num_learners=0)
        .training(train_batch_size_per_learner=256, minibatch_size=128, num_epochs=1)
    )
    algo = build_algo(config)
    try:
        result = algo.train()
        assert result["env_runners"]["num_env_steps_sampled"] >= 256
        episodes = algo.env_runner.sample(num_episodes=12, random_actions=False)
        finished = [e for e in episodes if e.is_terminated]
        assert len(finished) >= 12
        for episode in finished:
            masks = np.asarray(episode.get_observations()["action_mask"])
            # every observation but the last is a live decision: the first (the reset's) was not dropped,
            # and no final observation of another episode was taken for a decision
            assert masks[:-1].any(axis=1).all() and not masks[-1].any()
            assert len(episode) == len(masks) - 1
    finally:
        algo.stop()
