"""``learning_curves.png``: a run with one periodic evaluation draws points with error bars (not an
empty band on a sliver of an axis), and the panel names its deal set apart from the final tables'."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import matplotlib.pyplot as plt
import pytest
from matplotlib.collections import PolyCollection
from matplotlib.container import ErrorbarContainer

from rams_training.logs import CSV_COLUMNS, learning_curves_figure, plot_learning_curves


def _run(folder: Path, evaluations: int, updates: int = 3, episode: str = "rams") -> Path:
    (folder / "args.json").write_text(json.dumps({"num_players": 4, "episode": episode, "eval_decks": 50,
                                                  "eval_seed": 20261129}))  # fmt: skip
    path = folder / "progress.csv"
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, CSV_COLUMNS)
        writer.writeheader()
        for k in range(1, updates + 1):
            row = {c: "" for c in CSV_COLUMNS} | {"update": k, "steps": 500_000 * k, "mean_return": 0.1, "entropy": 1}
            if k > updates - evaluations:
                for name, win in (("random", 0.9), ("heuristic", 0.172)):
                    if episode != "deal":  # one-deal evaluations have no win share
                        row |= {f"win_vs_{name}": win, f"win_vs_{name}_lo": win - 0.05, f"win_vs_{name}_hi": win + 0.05}
                    row |= {f"adv_vs_{name}": 1.0, f"adv_vs_{name}_lo": 0.5, f"adv_vs_{name}_hi": 1.5}
            writer.writerow(row)
    return path


def test_one_evaluation_is_a_point_with_its_error_bar_on_an_axis_from_zero(tmp_path: Path) -> None:
    fig = learning_curves_figure(_run(tmp_path, evaluations=1))
    try:
        panel = fig.axes[2]
        bars = [c for c in panel.containers if isinstance(c, ErrorbarContainer)]
        assert len(bars) == 2  # vs random and vs heuristic
        assert not [c for c in panel.collections if isinstance(c, PolyCollection)]  # no band
        low, high = panel.get_ylim()
        assert low < 0.172 - 0.05 and high > 0.172 + 0.05  # the interval is drawn, not empty
        assert panel.get_xlim()[0] == 0  # the steps axis starts at 0, not at 1.42e6
        assert "50 decks of deal set 20261129" in panel.get_title() and panel.get_ylabel() == "win share"
        notes = " ".join(t.get_text() for t in panel.texts)
        assert "final tables" in notes and "another deal set 20261130" in notes
    finally:
        plt.close(fig)
    assert plot_learning_curves(tmp_path / "progress.csv", tmp_path / "c.png").read_bytes()[:4] == b"\x89PNG"


def test_many_evaluations_are_a_line_with_a_band(tmp_path: Path) -> None:
    fig = learning_curves_figure(_run(tmp_path, evaluations=8, updates=8))
    try:
        assert [c for c in fig.axes[2].collections if isinstance(c, PolyCollection)]
    finally:
        plt.close(fig)


def test_one_deal_runs_plot_the_advantage_per_deal(tmp_path: Path) -> None:
    fig = learning_curves_figure(_run(tmp_path, evaluations=2, episode="deal"))
    try:
        assert fig.axes[2].get_ylabel() == "advantage per deal"
    finally:
        plt.close(fig)


def test_a_damaged_progress_log_is_named_on_resume(tmp_path):
    from rams_training.logs import truncate_csv

    path = tmp_path / "progress.csv"
    path.write_bytes(b"update,steps\n1,10\n\xff\xfe garbage,\n")
    with pytest.raises(ValueError, match=r"progress.csv is damaged .*move it aside"):
        truncate_csv(path, 1)
