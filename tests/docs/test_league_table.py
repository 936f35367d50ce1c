"""docs/agents.md's leagues, one per preset, are their files in docs/league/; every shipped model sits in
its preset's league and its card cites its rank there."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from rams_env.eval.league import tiers
from rams_env.zoo import FLAGSHIPS, models

from .test_exploit_table import table_rows

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "agents.md"
ZOO = ROOT / "checkpoints"


def league_file(preset: str) -> Path:
    return ROOT / "docs" / "league" / f"{preset}-4p.json"


def ranked(preset: str) -> list[dict]:
    """The preset's league, best first (the file holds its agents in rank order)."""
    league = json.loads(league_file(preset).read_text())
    assert league["config"]["variant"] == preset and league["config"]["num_players"] == 4
    agents = league["agents"]
    assert [a["ordinal"] for a in agents] == sorted((a["ordinal"] for a in agents), reverse=True)
    return agents


@pytest.mark.parametrize("preset", sorted(FLAGSHIPS))
def test_each_league_table_is_its_file(preset: str) -> None:
    agents = ranked(preset)
    rows = table_rows(PAGE, f"The {preset} league")
    assert len(rows) == len(agents) >= 5
    told = tiers([(a["mu"], a["sigma"]) for a in agents])
    for rank, (row, agent, (above, tier)) in enumerate(zip(rows, agents, told, strict=True), start=1):
        assert row[0] == f"`{agent['name']}`" and row[1] == str(rank), row
        assert row[2] == str(tier) and row[3] == ("" if above is None else f"{above:.2f}"), row
        assert f"{agent['mu']:.2f}" in row and f"{agent['ordinal']:.2f}" in row, row
        low, high = agent["win_rate_ci"]
        assert f"{agent['win_rate']:.3f} [{low:.3f}, {high:.3f}]" in row, row


@pytest.mark.parametrize("model", sorted(models(ZOO).values(), key=lambda m: m.name), ids=lambda m: m.name)
def test_every_shipped_model_is_in_its_league_and_its_card_cites_its_rank(model) -> None:
    agents = ranked(model.preset)
    names = [a["name"] for a in agents]
    assert model.name in names, f"{model.name} is not in the {model.preset} league"
    rank = names.index(model.name) + 1
    card = model.card.read_text(encoding="utf-8")
    found = re.search(r"league of every agent[^\n]*: rank (\d+) of (\d+), in tier (\d+) of (\d+)", card)
    assert found, f"{model.card} cites no league rank"
    cited = tuple(int(n) for n in found.groups())
    assert cited == (rank, len(agents), agents[rank - 1]["tier"], agents[-1]["tier"]), model.card
