"""Agent specs have one home (rams_env.agents.specs): the names users type, read into agent sources that
the rest of the package recognises by type."""

from __future__ import annotations

import functools
import pickle

import pytest

from rams_env.agents import CompiledHeuristicAgent, OracleAgent, SearchAgent
from rams_env.agents.specs import (
    BUILTIN_AGENTS,
    AgentFactory,
    agent_option,
    agent_source,
    is_builtin,
    sees_hidden_cards,
    source_name,
    split_spec,
)
from rams_env.loaders import AGENT_CLASSES
from rams_env.rules import make_config

CONFIG = make_config("mattmar")


def test_every_builtin_name_has_a_registered_class():
    assert set(AGENT_CLASSES) == set(BUILTIN_AGENTS)  # ismcts by rams_env.integrations


def test_a_spec_is_its_name_and_options_with_simulations_as_the_positional_one():
    assert split_spec("search:200") == ("search", {"simulations": 200})
    assert split_spec("oracle:simulations=3,objective=win") == ("oracle", {"simulations": 3, "objective": "win"})
    assert split_spec("heuristic") == ("heuristic", {})
    assert is_builtin("search:2") and not is_builtin("mattmar-4p") and not is_builtin("runs/a.pt")
    with pytest.raises(ValueError, match="key=value pairs"):
        split_spec("random:3")


def test_a_seeded_builtin_is_a_factory_of_its_class_with_the_spec_options():
    source = agent_source("search:simulations=2,objective=win", CONFIG)
    assert isinstance(source, AgentFactory) and source.cls is SearchAgent
    assert source.options == {"simulations": 2, "objective": "win"}  # SearchAgent takes no config
    assert source_name(source) == "search" and not sees_hidden_cards(source)
    agent = source(seed=4)
    assert isinstance(agent, SearchAgent) and agent.objective == "win"
    assert pickle.loads(pickle.dumps(source)) == source  # worker processes get it
    assert source.with_options(time_limit=0.5).options["time_limit"] == 0.5 and "time_limit" not in source.options
    heuristic = agent_source("heuristic", CONFIG)
    assert heuristic.cls is CompiledHeuristicAgent and heuristic.options == {"config": CONFIG}
    assert source_name(heuristic) == "heuristic"


def test_sources_are_named_and_judged_by_their_agents_class():
    assert sees_hidden_cards(agent_source("oracle:2", CONFIG)) and sees_hidden_cards(OracleAgent)
    assert source_name(functools.partial(SearchAgent, simulations=3)) == "search"  # a caller's own factory
    assert source_name(object()) == "object"


def test_an_agent_option_keeps_its_given_values_and_refuses_an_agent_without_the_method():
    assert agent_option("heuristic", "base", "act_game", keep=("heuristic",)) == "heuristic"
    assert agent_option(None, "rollout_policy", "act_batch", keep=(None,)) is None
    with pytest.raises(ValueError, match=r"rollout_policy must be None, .* an agent with act_batch"):
        agent_option(object(), "rollout_policy", "act_batch", keep=(None,))
