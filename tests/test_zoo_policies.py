"""The policies of the model zoo (``checkpoints/<preset>/<model>/``) load for their preset, play legal whole
ramsar, and have their card."""

from __future__ import annotations

from pathlib import Path

import pytest

import rams_env
from rams_env.agents import HeuristicAgent, load_agent
from rams_env.rules import make_config
from rams_env.rules.config import PRESETS

CHECKPOINTS = Path(__file__).resolve().parents[1] / "checkpoints"


def folder(name: str) -> Path:
    """The zoo folder of model ``name``: ``checkpoints/<preset>/<name>/``."""
    return CHECKPOINTS / name.split("-")[0] / name


@pytest.mark.parametrize("variant", sorted(PRESETS))
def test_shipped_policy_plays_a_whole_rams_legally(variant):
    path = folder(f"{variant}-4p") / f"{variant}-4p.pt"
    policy = load_agent(path, expect_config=make_config(variant, 4))
    assert (policy.variant, policy.num_players) == (variant, 4)
    assert play_rams(policy, variant, 4) > 0


def play_rams(policy, variant: str, players: int) -> int:
    """One whole rams, the policy in seat 0 against heuristics; asserts every action is legal and
    returns the policy's decisions."""
    env = rams_env.env(variant=variant, num_players=players, episode="rams")
    env.reset(seed=5)
    heuristic = HeuristicAgent(seed=1)
    decisions = 0
    for agent in env.agent_iter():
        observation, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        actor = policy if agent == "player_0" else heuristic
        action = actor.act(observation)
        assert observation["action_mask"][action] == 1, f"{variant}, {players} players: illegal action {action}"
        env.step(action)
        decisions += agent == "player_0"
    return decisions


@pytest.mark.parametrize("variant", sorted(PRESETS))
def test_shipped_policy_has_its_card_and_evaluations(variant):
    card = (folder(f"{variant}-4p") / "README.md").read_text(encoding="utf-8")
    assert "## Headline" in card and "Reproduce" in card
    for name in ("rams_vs_heuristic.json", "rams_vs_random.json", "curves.png", "knock_rates.png"):
        assert (folder(f"{variant}-4p") / name).is_file()


def every_size_name(variant: str) -> str:
    """The file stem of a preset's policy for every table size: ``mattmar-3to7p``, ``rams32-3to6p``."""
    return f"{variant}-3to{make_config(variant, 4).max_players}p"


@pytest.mark.parametrize("variant", sorted(PRESETS))
@pytest.mark.parametrize("size", ["smallest", "middle", "largest"])
def test_the_policy_for_every_table_size_plays_each_legally_and_has_its_card(variant, size):
    name, largest = every_size_name(variant), make_config(variant, 4).max_players
    players = {"smallest": 3, "middle": 5, "largest": largest}[size]
    config = make_config(variant, players)
    policy = load_agent(folder(name) / f"{name}.pt", expect_config=config)
    assert policy.num_players == players and sorted(policy.table_sizes) == list(range(3, largest + 1))
    assert play_rams(policy, variant, players) > 0
    card = (folder(name) / "README.md").read_text(encoding="utf-8")
    assert f"{players} players (fair share 1/{players})" in card
    assert (folder(name) / f"{players}p_rams_vs_heuristic.json").is_file()


# every ensemble manifest in the zoo
SHIPPED_ENSEMBLES = ["mattmar-4p-ensemble", "norrlandsknack-4p-ensemble", "russian-4p-ensemble"]


def test_every_shipped_ensemble_is_tested():
    assert sorted(p.stem for p in CHECKPOINTS.glob("*/*/*-ensemble.json")) == sorted(SHIPPED_ENSEMBLES)
    assert not list(CHECKPOINTS.glob("*.*")), "a file outside the zoo's <preset>/<model>/ folders"


@pytest.mark.parametrize("name", SHIPPED_ENSEMBLES)
def test_a_shipped_ensemble_loads_its_shipped_members_plays_legally_and_has_its_card(name):
    variant = name.split("-")[0]
    ensemble = load_agent(folder(name) / f"{name}.json", expect_config=make_config(variant, 4))  # digests checked
    assert len(ensemble.nets) >= 2 and (ensemble.variant, ensemble.num_players) == (variant, 4)
    assert play_rams(ensemble, variant, 4) > 0
    card = (folder(name) / "README.md").read_text(encoding="utf-8")
    assert "## Headline" in card and "Reproduce" in card
    for file in ("rams_vs_heuristic.json", "rams_vs_random.json", "deal_vs_heuristic.json", "knock_rates.png"):
        assert (folder(name) / file).is_file()
