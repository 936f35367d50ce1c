"""``benchmarks.outside_libraries`` at a tiny size: every library asked for is measured beside the project's PPO."""

from __future__ import annotations

import json

import pytest

from benchmarks import outside_libraries, vector_speed


# TorchRL warns on every wrapper that it was tested with PettingZoo 1.24.3; the TorchRL tests cover 1.27.
@pytest.mark.filterwarnings("ignore:PettingZoo in TorchRL is tested using version:UserWarning")
@pytest.mark.slow
def test_tiny_run_measures_every_library_beside_rams(tmp_path, monkeypatch):
    for name, value in dict(GAMES=8, STEPS=8, ROLLOUT=64, MINIBATCH=32, HIDDEN=(16,)).items():
        monkeypatch.setattr(vector_speed, name, value)  # the project's PPO at a tiny size
    out = tmp_path / "outside.json"
    outside_libraries.main(["--scale", "0.02", "--json", str(out)])
    rows = json.loads(out.read_text())["rows"]
    assert set(rows) == set(outside_libraries.RUNS)
    assert all(row["decisions"] > 0 and row["per_second"] > 0 for row in rows.values())
