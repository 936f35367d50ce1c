"""HeuristicPool: heuristic decisions shared between this process and helpers, as reproducible as one agent."""

from __future__ import annotations

import numpy as np
import pytest

from rams_env.agents import HeuristicAgent
from rams_env.envs import BatchedRamsEnv
from rams_env.rules import make_config
from rams_training.heuristic_pool import HeuristicPool


def observations(variant: str, games: int = 40, steps: int = 30) -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks of ``games`` games at ``steps`` moments of random play (the knock rounds
    and the trick play, where the heuristic draws from its generator)."""
    env = BatchedRamsEnv(games, variant=variant, num_players=4, episode="rams", reward="win")
    out, rng = env.reset(seed=5), np.random.default_rng(5)
    obs, masks = [], []
    for _ in range(steps):
        obs.append(out.observations)
        masks.append(out.action_masks)
        noise = rng.random(out.action_masks.shape) * out.action_masks
        out = env.step(noise.argmax(axis=1))
    return np.concatenate(obs), np.concatenate(masks)


@pytest.mark.parametrize("variant", ["mattmar", "russian"])
def test_each_process_plays_its_share_like_its_own_seeded_agent(variant):
    config = make_config(variant, 4)
    obs, masks = observations(variant)
    pool = HeuristicPool(config, processes=2)
    try:
        pool.seed([11, 12])
        first = pool.act(obs[:101], masks[:101])
        second = pool.act(obs[101:], masks[101:])
    finally:
        pool.close()
    # The reference: one agent per process, seeded alike, each playing its half of every call in order.
    agents = [HeuristicAgent(config), HeuristicAgent(config)]
    for agent, seed in zip(agents, [11, 12], strict=True):
        agent.rng.seed(seed)
    expected = []
    for part_obs, part_masks in ((obs[:101], masks[:101]), (obs[101:], masks[101:])):
        for agent, share in zip(agents, np.array_split(np.arange(len(part_obs)), 2), strict=True):
            expected.extend(agent.act({"observation": part_obs[r], "action_mask": part_masks[r]}) for r in share)
    actions = np.concatenate([first, second])
    assert actions.tolist() == expected
    assert all(masks[r, a] for r, a in enumerate(actions))


def test_one_process_is_a_plain_agent_and_bad_use_is_refused():
    config = make_config("mattmar", 4)
    obs, masks = observations("mattmar", games=8, steps=10)
    pool, agent = HeuristicPool(config), HeuristicAgent(config)
    pool.seed([3])
    agent.rng.seed(3)
    expected = [agent.act({"observation": o, "action_mask": m}) for o, m in zip(obs, masks, strict=True)]
    assert pool.act(obs, masks).tolist() == expected
    with pytest.raises(ValueError, match="needs 1 seeds"):
        pool.seed([1, 2])
    pool.close()
    with pytest.raises(RuntimeError, match="closed"):
        pool.act(obs, masks)
    with pytest.raises(ValueError, match="processes must be an int >= 1"):
        HeuristicPool(config, processes=0)


def test_a_helper_that_dies_is_reported():
    config = make_config("mattmar", 4)
    obs, masks = observations("mattmar", games=8, steps=4)
    pool = HeuristicPool(config, processes=2)
    pool._helpers[0].kill()
    pool._helpers[0].join()
    with pytest.raises(RuntimeError, match="heuristic helper process died"):
        pool.act(obs, masks)
    assert pool.closed


def test_a_helper_that_fails_reports_the_error():
    config = make_config("mattmar", 4)
    obs, masks = observations("mattmar", games=8, steps=4)
    pool = HeuristicPool(config, processes=2)
    bad = masks.copy()
    bad[-1] = 0  # no legal action in the last row, the helper's share
    try:
        with pytest.raises(
            RuntimeError, match="a heuristic helper process failed: ValueError: the action mask allows no"
        ):
            pool.act(obs, bad)
        assert pool.act(obs, masks).shape == (len(obs),)  # the pool still works
        with pytest.raises(ValueError, match="allows no action"):  # this process's share: its own error
            pool.act(obs, np.zeros_like(masks))
        assert pool.act(obs, masks).shape == (len(obs),)
    finally:
        pool.close()
