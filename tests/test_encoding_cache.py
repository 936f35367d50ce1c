"""The env's incrementally updated observations equal a from-scratch encoding at every step."""

import random

import numpy as np
import pytest

import rams_env
from rams_env.encoding import SLICES

CASES = [("mattmar", 4), ("mattmar", 7), ("norrlandsknack", 3), ("rams32", 5), ("russian", 4), ("russian", 3)]


@pytest.mark.parametrize("watchers", ["all", "some"])
@pytest.mark.parametrize(("variant", "players"), CASES)
def test_cached_observation_equals_fresh_encoding(variant, players, watchers):
    """Every seat observed at every step, or a random few (so stale and current buffers mix)."""
    env = rams_env.raw_env(variant=variant, num_players=players, episode="match")
    chooser = random.Random(7)
    env.reset(seed=11)
    steps = 0
    while steps < 3000:
        agent = env.agent_selection
        if env.terminations[agent]:
            env.reset()
            continue
        for seat, name in enumerate(env.possible_agents):
            if watchers == "some" and chooser.random() < 0.6:
                continue
            cached = env.observe(name)["observation"]
            fresh = env.encoder.encode(env.game, seat)
            if not np.array_equal(cached, fresh):
                wrong = [k for k, s in SLICES.items() if not np.array_equal(cached[s], fresh[s])]
                raise AssertionError(f"step {steps}, seat {seat}: stale slices {wrong}")
        legal = env.legal_actions()
        env.step(legal[chooser.randrange(len(legal))])
        steps += 1
