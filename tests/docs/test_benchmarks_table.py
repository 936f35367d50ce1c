"""docs/benchmarks.md's table holds the figures of the learning benchmark's results in docs/benchmarks/."""

from __future__ import annotations

import json
import re
from pathlib import Path

from .test_exploit_table import table_rows

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "docs" / "benchmarks"
PAGE = ROOT / "docs" / "benchmarks.md"
PIPELINES = {"rams", "improve", "sb3", "rllib", "rllib-heuristic", "torchrl", "openspiel"}


def test_every_row_of_the_benchmark_table_is_its_result() -> None:
    rows = table_rows(PAGE, "Results")
    labels = {re.fullmatch(r"`([\w.-]+)`", row[0]).group(1) for row in rows}
    assert labels == {path.stem for path in RESULTS.glob("*.json")}, "a row for every result, a result for every row"
    seen = set()
    for row in rows:
        label = re.fullmatch(r"`([\w.-]+)`", row[0]).group(1)
        result = json.loads((RESULTS / f"{label}.json").read_text())
        final = result["final"]
        assert final["ramsar"] == 1600 and final["seed"] == 7400001, label  # the report set, 1,600 ramsar
        low, high = final["win_rate_ci"]
        cells = " | ".join(row)
        assert f"{final['win_rate']:.3f} [{low:.3f}, {high:.3f}]" in cells, label
        assert f"{result['decisions']:,}" in cells and f"{result['decisions_per_s']:,.0f}" in cells, label
        assert f"{final['points_per_deal_vs_baseline']:+.2f}" in cells, label
        assert row[1] == f"`{result['pipeline']}`" and row[2] == f"{result['minutes']:g}", label
        seen.add(result["pipeline"])
    assert seen == PIPELINES, f"pipelines without a figure: {sorted(PIPELINES - seen)}"


def test_the_page_names_each_results_command_and_versions() -> None:
    text = PAGE.read_text(encoding="utf-8")
    for path in RESULTS.glob("*.json"):
        result = json.loads(path.read_text())
        assert result["command"] and result["command"] in text, path.stem
        for library, version in result["versions"].items():
            assert f"{library} {version}" in text, (path.stem, library)
