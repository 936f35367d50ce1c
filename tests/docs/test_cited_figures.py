"""Figures the docs' prose cites from result files, outside the generated tables (docs/make_tables.py): each
benchmark's command and versions, the vector-speed run's command and load, the exploitability goal lines, and
each shipped model's league rank on its card."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from rams_env.zoo import models

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


def test_the_benchmarks_page_names_each_results_command_and_versions() -> None:
    text = (DOCS / "benchmarks.md").read_text(encoding="utf-8")
    for path in (DOCS / "benchmarks").glob("*.json"):
        result = json.loads(path.read_text())
        assert result["command"] and result["command"] in text, path.stem
        for library, version in result["versions"].items():
            assert f"{library} {version}" in text, (path.stem, library)


def test_the_speed_table_gives_its_command_and_the_load_it_ran_under() -> None:
    record = json.loads((DOCS / "speed" / "vector-speed.json").read_text(encoding="utf-8"))
    text = (DOCS / "benchmarks.md").read_text(encoding="utf-8")
    assert record["command"].startswith("python -m benchmarks.vector_speed") and record["command"] in text
    before, after = record["load_average"]
    assert f"load average {before:.2f} before, {after:.2f} after" in text


def test_the_goal_lines_hold_each_presets_flagship_and_heuristic_estimates() -> None:
    text = (DOCS / "agents.md").read_text(encoding="utf-8")
    goal = (
        r"- (\w+)(, from the flagship's weights)?: the flagship `(\w+)` ([+-]\d\.\d{3}) against the "
        r"heuristic's ([+-]\d\.\d{3}) \(half: ([+-]\d\.\d{3})\): (met|\*\*missed\*\*)"
    )
    lines = re.findall(goal, text)
    assert {start for _, start, *_ in lines} == {"", ", from the flagship's weights"}, "both starts have goal lines"
    for variant, start, flagship, estimate, heuristic, half, verdict in lines:
        runs = "-weights" if start else ""
        mine = json.loads((DOCS / "exploit" / f"{variant}-flagship{runs}.json").read_text())
        theirs = json.loads((DOCS / "exploit" / f"{variant}-heuristic{runs}.json").read_text())
        assert mine["target"] == flagship == variant
        assert (estimate, heuristic) == (f"{mine['exploitability']:+.3f}", f"{theirs['exploitability']:+.3f}")
        assert half == f"{theirs['exploitability'] / 2:+.3f}"
        assert (verdict == "met") == (mine["exploitability"] <= theirs["exploitability"] / 2), variant


SHIPPED = sorted(models(ROOT / "checkpoints").values(), key=lambda m: m.name)


@pytest.mark.parametrize("model", SHIPPED, ids=lambda m: m.name)
def test_every_shipped_model_is_in_its_league_and_its_card_cites_its_rank(model) -> None:
    agents = json.loads((DOCS / "league" / f"{model.preset}-4p.json").read_text())["agents"]  # best first
    names = [a["name"] for a in agents]
    assert model.name in names, f"{model.name} is not in the {model.preset} league"
    rank = names.index(model.name) + 1
    card = model.card.read_text(encoding="utf-8")
    found = re.search(r"league of every agent[^\n]*: rank (\d+) of (\d+), in tier (\d+) of (\d+)", card)
    assert found, f"{model.card} cites no league rank"
    cited = tuple(int(n) for n in found.groups())
    assert cited == (rank, len(agents), agents[rank - 1]["tier"], agents[-1]["tier"]), model.card
