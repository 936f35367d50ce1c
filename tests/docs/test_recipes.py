"""The training recipes' figures in docs/training.md and the README are those of their evaluation files."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RECIPES = ROOT / "docs" / "recipes"
INTERVAL = r"\d\.\d{3} \[\d\.\d{3}, \d\.\d{3}\]"


def win(path: Path) -> str:
    """``0.294 [0.272, 0.316]``: the win share against heuristics in a ``rams eval --json`` file."""
    agent = json.loads(path.read_text())["agents"][0]
    low, high = agent["win_rate_ci"]
    assert agent["games"] == 1600, f"{path.name}: every figure that decides something is over 1,600 ramsar"
    return f"{agent['win_rate']:.3f} [{low:.3f}, {high:.3f}]"


def recipe_tables(path: Path) -> list[tuple[list[str], list[list[str]]]]:
    """Each table whose header names deal-set seeds: (header cells, run rows)."""
    tables, header = [], None
    for line in [*path.read_text(encoding="utf-8").splitlines(), ""]:
        if line.startswith("|") and re.search(r"\b7[24]00001\b", line) and not line.startswith("| `"):
            header, rows = [c.strip() for c in line.strip().strip("|").split("|")], []
            tables.append((header, rows))
        elif header is not None and line.startswith("| `"):
            rows.append([c.strip() for c in line.strip().strip("|").split("|")])
        elif not line.startswith("|"):
            header = None
    return tables


@pytest.mark.parametrize("page", ["docs/training.md"])
def test_every_interval_of_the_recipe_tables_is_its_evaluation_files(page):
    tables = recipe_tables(ROOT / page)
    assert tables, f"{page} has no recipe table"
    checked = 0
    for header, rows in tables:
        seeds = {i: re.search(r"7[24]00001", cell).group(0) for i, cell in enumerate(header) if "00001" in cell}
        for row in rows:
            run = re.match(r"`([\w-]+)`", row[0]).group(1)
            for i, seed in seeds.items():
                if re.fullmatch(INTERVAL, row[i]):
                    assert row[i] == win(RECIPES / f"{run}-{seed}.json"), (run, seed)
                    checked += 1
    assert checked >= 8


def test_the_readme_states_the_main_jobs_result_from_its_file():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert win(RECIPES / "quick-7400001.json") in readme
