"""Gymnasium's seed contract on the single-agent wrapper: ``reset(seed=s)`` fixes the whole episode, the
opponents' choices included, for every kind of opponent, and ``reset()`` after it goes on the same way
every time; ``check_env`` (through ``gymnasium.make``, so that its determinism checks run) passes for each."""

from __future__ import annotations

import random
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import rams_env  # noqa: F401  (registers rams_env/Rams-v1)
from rams_env.agents import CompiledHeuristicAgent, HeuristicAgent, RandomAgent, SearchAgent
from rams_env.envs.gym_env import opponent_seed


def random_opponent():
    return RandomAgent(seed=0)


def heuristic_opponent():
    return HeuristicAgent()


def compiled_heuristic_opponent():
    return CompiledHeuristicAgent()


def policy_opponent():
    from rams_env.agents import load_agent

    return load_agent("mattmar-4p", greedy=False, seed=0)  # sampling: its generator matters


def ensemble_opponent():
    from rams_env.agents import load_agent

    return load_agent("mattmar-4p-ensemble", greedy=False, seed=0)


def search_opponent():
    return SearchAgent(simulations=2, seed=0)


def mixed_opponents():
    shared = RandomAgent(seed=1)
    return [shared, HeuristicAgent(seed=2), shared]  # one agent in two seats is reseeded once


KINDS = {
    "random": random_opponent,
    "heuristic": heuristic_opponent,
    "compiled-heuristic": compiled_heuristic_opponent,
    "policy": policy_opponent,
    "ensemble": ensemble_opponent,
    "search": search_opponent,
    "list": mixed_opponents,
}


def make(kind: str, **kwargs):
    return gymnasium.make(
        "rams_env/Rams-v1", variant="mattmar", num_players=4, opponents=KINDS[kind](), episode="deal", **kwargs
    )


def trajectory(env, seed, episodes: int = 2) -> list:
    """Observations, rewards and every seat's final view of ``episodes`` episodes: the first from
    ``reset(seed=seed)``, the rest from ``reset()``; the learner plays from a fixed generator."""
    rng = random.Random(7)
    out = []
    for episode in range(episodes):
        obs, info = env.reset(seed=seed) if episode == 0 else env.reset()
        out.append((obs.tobytes(), info["seat"]))
        done = False
        while not done:
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            obs, reward, terminated, truncated, info = env.step(action)
            out.append((obs.tobytes(), reward))
            done = terminated or truncated
        aec = env.unwrapped.aec
        out.append([aec.view(agent) for agent in aec.possible_agents])  # every seat's end of the deal
    return out


@pytest.mark.parametrize("kind", list(KINDS))
def test_check_env_passes(kind):
    env = make(kind)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(env.unwrapped)
    env.close()


@pytest.mark.parametrize("kind", list(KINDS))
def test_seed_fixes_the_episodes(kind):
    env = make(kind, learner_seat="random")
    first = trajectory(env, 11)
    env.reset(seed=99)  # play something else between: the seed alone decides what follows
    trajectory(env, 12, episodes=1)
    assert trajectory(env, 11) == first
    other = make(kind, learner_seat="random")  # a fresh env (and fresh opponents) gives the same
    assert trajectory(other, 11) == first


def test_the_seed_reaches_the_opponents():
    agent = RandomAgent(seed=0)
    env = gymnasium.make("rams_env/Rams-v1", variant="mattmar", num_players=4, opponents=agent)
    env.reset(seed=5)
    expected = random.Random(opponent_seed(5, 0)).getstate()
    replay = RandomAgent(seed=opponent_seed(5, 0))
    assert replay.rng.getstate() == expected
    # Different seeds give the opponents different generators.
    assert opponent_seed(5, 0) != opponent_seed(6, 0) != opponent_seed(5, 1)
    assert 0 <= opponent_seed(2**63, 3) < 2**63


def test_plain_callables_still_work():
    def first_legal(observation) -> int:
        return int(np.flatnonzero(observation["action_mask"])[0])

    env = gymnasium.make("rams_env/Rams-v1", variant="mattmar", num_players=4, opponents=first_legal)
    assert trajectory(env, 3) == trajectory(env, 3)
