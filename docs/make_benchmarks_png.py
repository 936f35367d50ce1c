"""Draw the learning benchmark's curves: ``python docs/make_benchmarks_png.py``.

Each ``docs/benchmarks/<label>.json`` is the ``result.json`` of one ``python -m benchmarks.learning``
run (``--add LABEL RESULT_JSON`` copies one in). One figure per budget: ``docs/benchmarks.png`` for the
4-minute runs, ``docs/benchmarks-30min.png`` for the 30-minute ones. The left panel plots the
whole-ramsar win share against three heuristics by training minutes, the right by decisions trained on
(log scale): the periodic evaluations on the choosing set; the final figures on the report set are in
docs/benchmarks.md's table (``python docs/make_tables.py``).
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.ticker import NullFormatter

HERE = Path(__file__).parent
FOLDER = HERE / "benchmarks"


def results() -> dict[str, dict[str, Any]]:
    """Every benchmark result, by label."""
    return {path.stem: json.loads(path.read_text()) for path in sorted(FOLDER.glob("*.json"))}


def figure_name(minutes: float) -> str:
    """The figure of the runs of ``minutes``: ``benchmarks.png`` for 4, ``benchmarks-30min.png`` otherwise."""
    return "benchmarks.png" if minutes == 4 else f"benchmarks-{minutes:g}min.png"


def draw(target: Path, runs: dict[str, dict[str, Any]], minutes: float) -> Path:
    """The two panels of ``runs`` (all of ``minutes``), with each curve's 95% intervals and the fair share."""
    fig, (by_time, by_decisions) = plt.subplots(1, 2, figsize=(11, 4.4), sharey=True)
    fair = 0.25
    for k, (label, result) in enumerate(runs.items()):
        curve = result["curve"]
        fair = result["final"]["fair_share"]
        trained = [r["train_minutes"] for r in curve]
        decisions = [max(1, r["decisions"]) for r in curve]
        share = [r["win_rate"] for r in curve]
        low = [r["win_rate_ci"][0] for r in curve]
        high = [r["win_rate_ci"][1] for r in curve]
        for ax, x in ((by_time, trained), (by_decisions, decisions)):
            ax.plot(x, share, marker="o", color=f"C{k}", label=label)
            ax.fill_between(x, low, high, color=f"C{k}", alpha=0.12)
    for ax in (by_time, by_decisions):
        ax.axhline(fair, color="grey", linewidth=0.8, linestyle="--")
        ax.set_ylim(0, None)
    by_decisions.set_xscale("log")
    by_decisions.xaxis.set_minor_formatter(NullFormatter())  # the labels of 2x, 3x... overlap on a short range
    by_time.set_xlabel("training minutes (evaluations left out)")
    by_decisions.set_xlabel("decisions trained on")
    by_time.set_ylabel("win share vs three heuristics (fair 0.25)")
    by_time.set_title("whole ramsar, 200 per point (deal set 7200001)", fontsize=10)
    by_decisions.legend(fontsize=8, loc="upper left")
    title = f"mattmar, 4 players: each pipeline for {minutes:g} minutes on one core of the 2-core machine"
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    fig.savefig(target, dpi=100)
    plt.close(fig)
    return target


def by_budget() -> dict[float, dict[str, dict[str, Any]]]:
    """The results grouped by their minutes of training, shortest budget first."""
    groups: dict[float, dict[str, dict[str, Any]]] = {}
    for label, result in results().items():
        groups.setdefault(float(result["minutes"]), {})[label] = result
    return dict(sorted(groups.items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--add", nargs=2, metavar=("LABEL", "RESULT_JSON"), help="copy a result in first")
    args = parser.parse_args()
    if args.add:
        FOLDER.mkdir(exist_ok=True)
        shutil.copyfile(args.add[1], FOLDER / f"{args.add[0]}.json")
    for minutes, runs in by_budget().items():
        print(draw(HERE / figure_name(minutes), runs, minutes))


if __name__ == "__main__":
    main()
