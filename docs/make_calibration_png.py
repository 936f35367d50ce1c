"""Draw the calibration curves of ``rams exploit``: ``python docs/make_calibration_png.py``.

Each ``docs/exploit/calibration/<run>.csv`` is the ``progress.csv`` of one ``rams exploit`` run (its
report beside it as ``<run>.json``). The figure, ``docs/exploit-calibration.png``, plots the exploiter's
whole-ramsar win share against three copies of its target on the choosing set 7200001 by learner
decisions (log scale), with 95% intervals, the fair share dashed and each run's report-set figure as a cross at
its end.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

HERE = Path(__file__).parent
FOLDER = HERE / "exploit" / "calibration"


def curve(path: Path) -> tuple[list[int], list[float], list[float], list[float]]:
    """Decisions, win share and its interval at each evaluation of a run's ``progress.csv``."""
    with path.open() as f:
        rows = [row for row in csv.DictReader(f) if row["win_vs_target"]]
    values = [[float(row[key]) for row in rows] for key in ("win_vs_target", "win_vs_target_lo", "win_vs_target_hi")]
    return [int(row["steps"]) for row in rows], *values  # type: ignore[return-value]


def draw(target: Path = HERE / "exploit-calibration.png") -> Path:
    """The figure of every run in ``FOLDER``."""
    fig, ax = plt.subplots(figsize=(8, 4.6))
    for k, path in enumerate(sorted(FOLDER.glob("*.csv"))):
        steps, share, low, high = curve(path)
        report = json.loads(path.with_suffix(".json").read_text())
        label = f"{report['target']} ({report['decisions']:,} decisions)"
        ax.plot(steps, share, marker="o", markersize=3, color=f"C{k}", label=label)
        ax.fill_between(steps, low, high, color=f"C{k}", alpha=0.12)
        ax.plot([report["decisions"]], [report["win_share"]], marker="x", markersize=9, color=f"C{k}")
    ax.axhline(0.25, color="grey", linewidth=0.8, linestyle="--")
    ax.set_ylim(0, 0.75)
    ax.set_xscale("log")
    ax.set_xlabel("learner decisions, log scale (the imitation of the target before them)")
    ax.set_ylabel("exploiter's win share against 3 x target")
    ax.set_title("rams exploit: calibration (mattmar, 4 players; x = report set, 1,600 ramsar)")
    ax.legend(fontsize=8, loc="upper right")
    fig.tight_layout()
    fig.savefig(target, dpi=110)
    plt.close(fig)
    return target


if __name__ == "__main__":
    print(draw())
