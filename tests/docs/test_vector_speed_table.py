"""The speed table of docs/benchmarks.md shows what ``python -m benchmarks.vector_speed --json`` wrote."""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RECORD = json.loads((ROOT / "docs" / "speed" / "vector-speed.json").read_text(encoding="utf-8"))
PAGE = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")
GOALS = {"env": 0.8, "train cleanrl": 20_000, "train sb3": 15_000, "train torchrl": 15_000, "train rllib": 8_000}


def rows() -> dict[str, tuple[int, float, str]]:
    """Each row of the table: its JSON name, decisions/s, ratio, and what it says of its goal."""
    found = re.findall(r"^\| `([^`]+)`[^|]*\| ([\d,]+) \| ([\d.]+) \|[^|]*\|\s*(\w*)\s*\|$", PAGE, re.M)
    return {name: (int(rate.replace(",", "")), float(ratio), verdict) for name, rate, ratio, verdict in found}


def test_every_row_is_the_json_figure_and_every_figure_has_a_row():
    table, results = rows(), RECORD["results"]
    assert set(table) == set(results)
    for name, (rate, ratio, verdict) in table.items():
        peer = results["env BatchedRamsEnv" if name.startswith("env") else "train rams"]["wall"]
        assert rate == round(results[name]["wall"]), name
        assert ratio == round(results[name]["wall"] / peer, 2), name
        goal = GOALS.get("env" if name.startswith("env") and "Vector" in name else name)
        if goal is not None:
            value = ratio if name.startswith("env") else rate
            assert verdict == ("met" if value >= goal else "missed"), name


def test_the_page_gives_the_command_and_the_load_it_ran_under():
    assert RECORD["command"].startswith("python -m benchmarks.vector_speed")
    assert RECORD["command"] in PAGE
    before, after = RECORD["load_average"]
    assert f"load average {before:.2f} before, {after:.2f} after" in PAGE
