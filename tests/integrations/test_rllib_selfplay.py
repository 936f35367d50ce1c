"""RLlib self-play on the batched engine (``rams_env.integrations.rllib_selfplay``): the env runner's episodes
are each seat's own decisions of the games ``BatchedRamsEnv`` plays, with that seat's rewards between them,
and PPO trains on them, saves, and loads as an agent."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pytest
import ray
import torch

import rams_env
from rams_env.agents import load_agent
from rams_env.envs import BatchedRamsEnv

pytestmark = pytest.mark.slow  # RLlib: CI runs these, -m 'not slow' skips them

GAMES = 5


def tiny_config(env_config, seed=7, **training):
    from rams_env.integrations.rllib_selfplay import selfplay_ppo_config

    return (
        selfplay_ppo_config(env_config, num_envs_per_env_runner=GAMES, hidden=(16,))
        .env_runners(num_env_runners=0, rollout_fragment_length=20)
        .learners(num_learners=0)
        .training(**({"train_batch_size_per_learner": 200, "minibatch_size": 100, "num_epochs": 1} | training))
        .debugging(seed=seed)
    )


class Recorder:
    """Wraps the runner's games: logs every step's actions and what the engine answered."""

    def __init__(self, games: BatchedRamsEnv) -> None:
        self.games, self.log = games, []
        self.reset, self.num_games, self.num_players = games.reset, games.num_games, games.num_players

    def step(self, actions):
        before = self.last
        step = self.games.step(actions)
        self.log.append((before, np.array(actions), step.rewards.copy(), step.done.copy()))
        self.last = _copy(step)
        return step

    def close(self) -> None:
        self.games.close()


def _copy(step):
    return type(step)(*(np.array(getattr(step, f)) for f in step.__dataclass_fields__))


def expected_seat_sequences(log, num_players):
    """By (game, seat): the finished episodes as lists of (observation, action, reward), from the engine's log:
    a seat's reward of a decision is its rewards from that decision up to its next one, or to the episode's end."""
    finished = defaultdict(list)
    open_ = defaultdict(list)  # (game, seat) -> decisions of the episode in play
    for before, actions, rewards, done in log:
        for game in range(len(actions)):
            seat = int(before.seats[game])
            open_[game, seat].append([before.observations[game], int(actions[game]), 0.0])
            for s in range(num_players):
                if open_[game, s]:
                    open_[game, s][-1][2] += float(rewards[game, s])
            if done[game]:
                for s in range(num_players):
                    if open_[game, s]:
                        finished[game, s].append(open_.pop((game, s)))
    return finished, open_


@pytest.mark.parametrize(("episode", "reward"), [("deal", "points"), ("rams", "win")])
def test_the_runners_episodes_are_each_seats_decisions_and_rewards(episode, reward):
    from rams_env.integrations.rllib_selfplay import BatchedSelfPlayEnvRunner

    torch.manual_seed(0)
    runner = BatchedSelfPlayEnvRunner(config=tiny_config({"episode": episode, "reward": reward}))
    recorder = runner.games = Recorder(runner.games)
    original_reset = recorder.reset

    def reset(seed=None):
        step = original_reset(seed=seed)
        recorder.last = _copy(step)
        return step

    recorder.reset = reset
    chunks = []
    for _ in range(6 if episode == "deal" else 40):
        chunks += runner.sample(num_timesteps=GAMES * 20, explore=True)
    runner.stop()
    by_id = defaultdict(list)
    for chunk in chunks:
        by_id[chunk.id_].append(chunk)
    got = []
    for parts in by_id.values():
        if not parts[-1].is_terminated:
            continue
        observations = np.concatenate(
            [np.asarray(p.get_observations()["observation"])[(0 if i == 0 else 1) :] for i, p in enumerate(parts)]
        )
        actions = np.concatenate([np.asarray(p.get_actions()) for p in parts])
        rewards = np.concatenate([np.asarray(p.get_rewards()) for p in parts])
        masks = np.concatenate([np.asarray(p.get_observations()["action_mask"])[:-1] for p in parts])
        assert masks[np.arange(len(actions)), actions].all()  # every action legal where it was taken
        assert len(observations) == len(actions) + 1  # the terminal observation repeats the last decision's
        assert np.array_equal(observations[-1], observations[-2])
        got.append((observations[:-1], actions, rewards))
    finished, _ = expected_seat_sequences(recorder.log, recorder.num_players)
    expected = [episode for episodes in finished.values() for episode in episodes]
    assert len(got) == len(expected) > 10

    def key(e):
        return len(e[1]), e[1].tobytes(), e[0].tobytes()

    got.sort(key=key)
    as_arrays = [
        (np.stack([d[0] for d in e]), np.array([d[1] for d in e]), np.array([d[2] for d in e])) for e in expected
    ]
    as_arrays.sort(key=key)
    for (obs, actions, rewards), (e_obs, e_actions, e_rewards) in zip(got, as_arrays, strict=True):
        assert np.array_equal(obs, e_obs) and np.array_equal(actions, e_actions)
        np.testing.assert_allclose(rewards, e_rewards, atol=1e-6)
    if reward == "win":  # the win reward comes once, at the end: +-1 shared, summing to zero over a game's seats
        assert all(np.count_nonzero(r) == 1 for _, _, r in got)


def test_the_runner_refuses_what_it_sets_itself():
    from rams_env.integrations.rllib_selfplay import selfplay_ppo_config

    for key in ("num_games", "seed", "heuristic_seats"):
        with pytest.raises(ValueError, match=f"env_config\\['{key}'\\] is set by BatchedSelfPlayEnvRunner"):
            selfplay_ppo_config({key: 1})
    with pytest.raises(ValueError, match="variant"):
        selfplay_ppo_config({"variant": "nosuch"})


@pytest.fixture
def local_ray():
    from rams_env.integrations.rllib import init_ray

    init_ray(num_cpus=1)
    yield
    ray.shutdown()


def test_ppo_trains_on_batched_self_play_saves_and_loads_as_an_agent(local_ray, tmp_path):
    from rams_env.integrations.rllib import SINGLE_AGENT_POLICY, build_algo, save_rules

    env_config = {"variant": "russian", "num_players": 3, "episode": "deal", "reward": "points"}
    algo = build_algo(tiny_config(env_config))
    try:
        module = algo.get_module(SINGLE_AGENT_POLICY)
        before = [p.detach().clone() for p in module.parameters()]
        result = algo.train()
        assert result["env_runners"]["num_env_steps_sampled"] >= 200
        assert result["env_runners"]["num_episodes"] > 0  # seat episodes finished and were counted
        after = algo.get_module(SINGLE_AGENT_POLICY)
        assert any(not torch.equal(a, b) for a, b in zip(before, after.parameters(), strict=True))
        saved = algo.save_to_path(str(tmp_path / "checkpoint"))
        save_rules(saved, env_config)
    finally:
        algo.stop()
    agent = load_agent(saved, expect_config=rams_env.make_config("russian", 3))
    env = rams_env.env(variant="russian", num_players=3)
    env.reset(seed=1)
    for _ in range(30):
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            break
        action = agent.act(observation)
        assert observation["action_mask"][action]
        env.step(action)


def test_a_remote_env_runner_samples_batched_self_play():
    """The runner class travels to a remote env runner by reference: rams_env is importable there."""
    from rams_env.integrations.rllib import build_algo, init_ray

    init_ray(num_cpus=2)
    try:
        algo = build_algo(tiny_config({"episode": "deal"}).env_runners(num_env_runners=1))
        try:
            result = algo.train()
            assert result["env_runners"]["num_env_steps_sampled"] >= 200 and result["env_runners"]["num_episodes"] > 0
        finally:
            algo.stop()
    finally:
        ray.shutdown()
