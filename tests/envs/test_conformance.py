"""PettingZoo and Gymnasium conformance: ``api_test``, ``seed_test`` and ``render_test`` over every
preset, player count and episode kind, and Gymnasium's ``check_env`` on the single-agent wrapper.

Warnings are errors here, except the four benign ones listed (and explained) in ``strict_warnings``.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterator
from contextlib import contextmanager

import gymnasium
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, render_test, seed_test

import rams_env
from rams_env.envs import RamsGymEnv

PLAYERS = {"mattmar": range(3, 8), "norrlandsknack": range(3, 8), "rams32": range(3, 7), "russian": range(3, 8)}
CASES = [(v, n) for v, counts in PLAYERS.items() for n in counts]
EPISODES = ("deal", "rams", "match")

# Kept modest so that the whole file runs well under a minute.
API_CYCLES = 150
SEED_CYCLES = 150


@contextmanager
def strict_warnings() -> Iterator[None]:
    """Every warning is an error, except these benign ones, each for a stated reason."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # Our env warns on unknown reset options, and api_test deliberately passes {"options": 1}
        # to check that reset accepts the keyword.
        warnings.filterwarnings("ignore", message=re.escape("ignoring unknown reset option"))
        # docs/contract.md mandates a Dict observation {"observation", "action_mask"}, like PettingZoo's
        # classic card envs, so the observation space is neither a Box nor a Discrete.
        warnings.filterwarnings("ignore", message=re.escape("Observation space for each agent probably should be"))
        # docs/contract.md mandates an all-zero mask for every agent whose turn it is not (and after the end).
        warnings.filterwarnings("ignore", message=re.escape("Action mask numpy array is all zeros"))
        # The same Dict observation: api_test expects a bare numpy array.
        warnings.filterwarnings("ignore", message=re.escape("Observation is not a NumPy array"))
        yield


@pytest.mark.parametrize("episode", EPISODES)
@pytest.mark.parametrize(("variant", "n"), CASES)
def test_api_test(variant, n, episode):
    with strict_warnings():
        api_test(rams_env.env(variant=variant, num_players=n, episode=episode), num_cycles=API_CYCLES)


@pytest.mark.parametrize("episode", EPISODES)
@pytest.mark.parametrize(("variant", "n"), [(v, n) for v, counts in PLAYERS.items() for n in (3, counts[-1])])
def test_api_test_raw_env(variant, n, episode):
    with strict_warnings():
        api_test(rams_env.raw_env(variant=variant, num_players=n, episode=episode), num_cycles=API_CYCLES)


@pytest.mark.parametrize("episode", EPISODES)
@pytest.mark.parametrize(("variant", "n"), CASES)
def test_seed_test(variant, n, episode):
    with strict_warnings():
        seed_test(lambda: rams_env.env(variant=variant, num_players=n, episode=episode), num_cycles=SEED_CYCLES)


@pytest.mark.parametrize("variant", list(PLAYERS))
def test_api_test_with_win_rewards(variant):
    with strict_warnings():
        api_test(rams_env.env(variant=variant, num_players=4, episode="rams", reward="win"), num_cycles=API_CYCLES)


@pytest.mark.parametrize("variant", list(PLAYERS))
def test_render_test(variant, capsys):
    def make(render_mode=None):
        return rams_env.env(variant=variant, num_players=4, episode="rams", render_mode=render_mode)

    with strict_warnings():
        render_test(make)
    assert "your hand" in capsys.readouterr().out  # human mode printed the table


@pytest.mark.parametrize("variant", list(PLAYERS))
@pytest.mark.parametrize("episode", EPISODES)
def test_gymnasium_check_env(variant, episode):
    env = gymnasium.make("rams_env/Rams-v1", variant=variant, num_players=4, episode=episode)
    with strict_warnings():
        check_env(env.unwrapped)
    env.close()


@pytest.mark.parametrize("learner_seat", [0, 2, "random"])
def test_gymnasium_check_env_direct(learner_seat):
    with strict_warnings():
        # Built without gymnasium.make there is no spec, and check_env says it cannot try other
        # render modes; that is the only warning expected here.
        warnings.filterwarnings("ignore", message=".*Not able to test alternative render modes")
        check_env(RamsGymEnv(variant="russian", num_players=5, learner_seat=learner_seat, episode="match"))
