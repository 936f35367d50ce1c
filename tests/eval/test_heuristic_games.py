"""Evaluation against heuristics on the compiled engine (``rams_env.eval.heuristic_games``): the same
games and the same numbers as the Python path, for greedy policies."""

from __future__ import annotations

import pytest
import torch

from rams_env.agents import RandomAgent
from rams_env.agents.neural import EnsembleAgent, PolicyAgent
from rams_env.eval import agent_source, evaluate
from rams_env.obs import OBS_SIZE
from rams_env.policy import PolicyNet
from rams_env.rules import make_config
from rams_env.rules.actions import NUM_ACTIONS


def policy(config, seed: int = 0, greedy: bool = True) -> PolicyAgent:
    torch.manual_seed(seed)
    return PolicyAgent(PolicyNet(OBS_SIZE, NUM_ACTIONS, (32,)), config, greedy=greedy, seed=seed)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("variant", "players", "episode", "scores"),
    [("mattmar", 4, "rams", "start"), ("russian", 5, "rams", "start"), ("norrlandsknack", 3, "deal", "random")],
)
def test_batched_games_against_heuristics_are_the_python_games(variant, players, episode, scores) -> None:
    config = make_config(variant, players)
    agents = {"policy": policy(config), "pair": EnsembleAgent([policy(config, 1).net, policy(config, 2).net], config)}
    heuristic = agent_source("heuristic", config)
    common = dict(decks=4, seed=9, episode=episode, scores=scores, progress=False)
    python = evaluate(agents, heuristic, config, batched=False, **common).to_dict()
    batched = evaluate(agents, heuristic, config, batched=True, **common).to_dict()
    assert batched == python
    assert evaluate(agents, heuristic, config, **common).to_dict() == python  # the default takes the batched path


def test_the_batched_path_is_refused_where_it_cannot_play_the_same_games() -> None:
    config = make_config("mattmar", 4)
    heuristic = agent_source("heuristic", config)
    common = dict(decks=1, progress=False, batched=True)
    with pytest.raises(ValueError, match="not the heuristic"):
        evaluate({"p": policy(config)}, RandomAgent, config, **common)
    with pytest.raises(ValueError, match="episode 'match'"):
        evaluate({"p": policy(config)}, heuristic, config, episode="match", **common)
    with pytest.raises(ValueError, match="greedy act_batch"):
        evaluate({"p": policy(config, greedy=False)}, heuristic, config, **common)
    with pytest.raises(ValueError, match="greedy act_batch"):
        evaluate({"r": RandomAgent}, heuristic, config, **common)
    # without batched=True those evaluations take the Python path
    assert evaluate({"r": RandomAgent}, heuristic, config, decks=1, progress=False).agents[0].games == 4


def test_the_baseline_is_read_as_a_seat_the_heuristic_only_for_these_rules() -> None:
    from rams_env.envs.seats import HEURISTIC_SEAT, LEARNER_SEAT, RANDOM_SEAT, caller_seats
    from rams_env.eval.duplicate import source_seat

    config = make_config("mattmar", 4)
    assert source_seat(agent_source("heuristic", config), config) == HEURISTIC_SEAT
    assert source_seat(agent_source("heuristic"), config) == HEURISTIC_SEAT
    assert source_seat(agent_source("heuristic", make_config("russian", 4)), config).kind == "agent"
    assert source_seat(RandomAgent, config).kind == "agent"
    assert caller_seats(["heuristic", "random", RandomAgent(), "learner"], 4) == (HEURISTIC_SEAT, *[LEARNER_SEAT] * 3)
    assert RANDOM_SEAT not in caller_seats(["random"] * 4, 4)
