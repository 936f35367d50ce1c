"""docs/integrations.md's table of RLlib sampling rates shows the records of ``benchmarks/rllib_cluster.py``."""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGE = (ROOT / "docs" / "integrations.md").read_text(encoding="utf-8")


def test_each_row_is_its_record():
    rows = re.findall(r"^\| (\d) \| (\d) \| ([\d, ]+) \|$", PAGE, re.M)
    assert [int(runners) for runners, _, _ in rows] == [1, 2]
    for runners, nodes, rates in rows:
        record = json.loads((ROOT / "docs" / "speed" / f"rllib-cluster-{runners}.json").read_text())
        assert record["env_runners"] == int(runners) and record["nodes"] == int(nodes)
        assert rates.strip() == ", ".join(f"{x:,.0f}" for x in record["rates"])
        assert record["steps_after"] > record["steps_before"]  # it resumed and trained on
        assert record["reproduce"].startswith("python -m benchmarks.rllib_cluster")
