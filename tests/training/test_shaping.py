"""The equity shaping of the win reward (training/shaping.py): potential-based, so it telescopes."""

from __future__ import annotations

import numpy as np
import pytest

from rams_env.envs import BatchedRamsEnv
from rams_env.equity import equity
from rams_env.rules import make_config
from rams_training.run import Trainer
from rams_training.shaping import EquityShaping
from tests.training.test_run import tiny


def _potential(config, scores, dealers):
    n = config.num_players
    return (n * equity(config, scores, dealers) - 1.0) / (n - 1)


@pytest.mark.parametrize("variant, players", [("mattmar", 4), ("norrlandsknack", 3), ("russian", 5), ("rams32", 4)])
def test_shaped_rewards_add_up_to_the_win_reward_less_the_start_potential(variant, players):
    """Random play of whole ramsar: a seat's win reward plus its shaping over an episode equals its
    win reward minus the potential of the start, and every reward is paid when a deal starts or ends."""
    config = make_config(variant, players)
    env = BatchedRamsEnv(8, variant=variant, num_players=players, episode="rams", reward="win")
    out = env.reset(seed=11)
    shaping = EquityShaping(config, env)
    start = shaping.potential.copy()
    assert np.allclose(start, _potential(config, env.scores, env.dealers))
    totals = np.zeros((8, players))
    rng = np.random.default_rng(3)
    checked = 0
    while checked < 24:
        deal_before = env.deal_numbers
        noise = rng.random(out.action_masks.shape)
        noise[out.action_masks == 0] = -1.0
        out = env.step(noise.argmax(axis=1))
        extra = shaping.step(env, out.done)
        quiet = ~out.done & (env.deal_numbers == deal_before)
        assert not extra[quiet].any(), "shaping paid inside a deal"
        assert np.allclose(extra.sum(axis=1), 0.0), "the potentials of a table sum to 0"
        totals += out.rewards + extra
        for i in np.flatnonzero(out.done):
            assert np.allclose(totals[i], out.rewards[i] - start[i]), (i, totals[i], out.rewards[i], start[i])
            totals[i] = 0.0
            start[i] = _potential(config, env.scores[i], env.dealers[i])
            checked += 1
    env.close()


def test_a_run_with_equity_shaping_trains_and_its_returns_follow_the_win_reward(tmp_path):
    trainer = Trainer(tiny(tmp_path, episode="rams", reward="win", equity_shaping=True, num_games=4))
    episodes, stats = trainer.collect()
    trainer.env.close()
    assert len(episodes) == 4
    rewards = trainer.rollout.reward[: trainer.rollout.size]
    assert np.abs(rewards).max() <= 2.0
    # Deals inside the rams are paid: more rewarded decisions than the one win reward per seat and episode.
    assert np.count_nonzero(rewards) > 4 * 4
    assert -1.0 <= stats["mean_return"] <= 1.0


@pytest.mark.parametrize(
    "override, named",
    [
        ({"equity_shaping": True, "episode": "rams", "reward": "points"}, "equity_shaping"),
        ({"equity_shaping": True, "episode": "match", "reward": "win"}, "episode=rams"),
    ],
)
def test_equity_shaping_needs_the_win_reward_of_a_rams(tmp_path, override, named):
    with pytest.raises(ValueError, match=named):
        tiny(tmp_path, **override)
