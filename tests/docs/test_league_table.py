"""docs/agents.md's league table and the zoo cards' league ranks are those of docs/league/mattmar-4p.json."""

from __future__ import annotations

import json
import re
from pathlib import Path

from rams_env.eval.league import tiers

from .test_exploit_table import table_rows

ROOT = Path(__file__).resolve().parents[2]
LEAGUE = ROOT / "docs" / "league" / "mattmar-4p.json"
CARDS = {
    "mattmar": ROOT / "checkpoints" / "mattmar" / "mattmar-4p-ensemble" / "README.md",
    "mattmar-4p": ROOT / "checkpoints" / "mattmar" / "mattmar-4p" / "README.md",
    "mattmar-3to7p": ROOT / "checkpoints" / "mattmar" / "mattmar-3to7p" / "README.md",
}


def ranked() -> list[dict]:
    """The league's agents, best first (the file holds them in rank order)."""
    agents = json.loads(LEAGUE.read_text())["agents"]
    assert [a["ordinal"] for a in agents] == sorted((a["ordinal"] for a in agents), reverse=True)
    return agents


def test_the_league_table_is_the_league_file() -> None:
    agents = ranked()
    rows = table_rows(ROOT / "docs" / "agents.md", "A league of every agent")
    assert len(rows) == len(agents) >= 10
    told = tiers([(a["mu"], a["sigma"]) for a in agents])
    for rank, (row, agent, (above, tier)) in enumerate(zip(rows, agents, told, strict=True), start=1):
        assert row[0] == f"`{agent['name']}`" and row[1] == str(rank), row
        assert row[2] == str(tier) and row[3] == ("" if above is None else f"{above:.2f}"), row
        assert f"{agent['mu']:.2f}" in row and f"{agent['ordinal']:.2f}" in row, row
        low, high = agent["win_rate_ci"]
        assert f"{agent['win_rate']:.3f} [{low:.3f}, {high:.3f}]" in row, row


def test_each_flagship_card_cites_its_league_rank() -> None:
    agents = ranked()
    for name, card in CARDS.items():
        rank = next(i for i, a in enumerate(agents, start=1) if a["name"] == name)
        text = card.read_text(encoding="utf-8")
        found = re.search(r"league of every agent[^\n]*: rank (\d+) of (\d+)", text)
        assert found, f"{card} cites no league rank"
        assert (int(found.group(1)), int(found.group(2))) == (rank, len(agents)), card
