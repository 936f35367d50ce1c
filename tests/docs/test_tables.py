"""Every result table of the docs is what ``python docs/make_tables.py`` makes from its JSON."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


def make_tables() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_tables", ROOT / "docs" / "make_tables.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["make_tables"] = module  # its dataclass looks itself up there
    spec.loader.exec_module(module)
    return module


def test_every_generated_table_is_what_the_page_holds():
    tables = make_tables()
    assert tables.differing() == [], "run python docs/make_tables.py"
    assert len(tables.TABLES) >= 11


def test_a_wrong_figure_is_rewritten_and_the_pages_words_kept():
    tables = make_tables()
    page = (ROOT / "docs" / "agents.md").read_text(encoding="utf-8")
    shown = next(m["body"] for m in tables.BLOCK.finditer(page) if m["name"] == "league-mattmar")
    row = next(line for line in shown.splitlines() if line.startswith("| `heuristic` |"))
    wrong = row.replace("| rule-based |", "| rule-based, edited |").replace(row.split(" | ")[-1], "0.999 [0.9, 1.0] |")
    made = tables.render(tables.TABLES["league-mattmar"], shown.replace(row, wrong))
    assert row.replace("| rule-based |", "| rule-based, edited |") in made.splitlines()
    moved = "\n".join(shown.strip().splitlines()[:2] + shown.strip().splitlines()[:1:-1])  # rows reversed
    assert tables.render(tables.TABLES["league-mattmar"], moved) == shown.strip()  # a league's order is its ranks


def test_the_learned_beliefs_are_judged_only_against_a_control_on_the_same_decks(monkeypatch):
    tables = make_tables()
    assert [str(row[0]) for row in tables.beliefs_in_play_rows()] == ["mattmar", "russian"]
    load = tables.load

    def shifted(path: Path) -> dict:
        result = load(path)
        if path.stem.endswith("-uniform"):  # the control's decks one place on: no longer the same deals
            reference = result["wins"]["reference"]
            result["wins"]["reference"] = reference[1:] + reference[:1]
        return result

    monkeypatch.setattr(tables, "load", shifted)
    with pytest.raises(ValueError, match="decks differ"):
        tables.beliefs_in_play_rows()
