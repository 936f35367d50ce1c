"""Draw docs/recipes.png, the training recipes' learning curves: ``python docs/make_recipes_png.py``.

Each ``docs/recipes/<name>.csv`` holds a run's periodic evaluations, cut from its ``progress.csv``
(``python docs/make_recipes_png.py --add NAME RUN_DIR`` cuts one): the decisions trained on (the
imitated ones and the learner's), training seconds (imitation, collection and learning; evaluations
left out) and the whole-ramsar win share against three heuristics with its interval.
The left panel plots it by decisions, the right by minutes.
"""

from __future__ import annotations

import argparse
import csv
import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

HERE = Path(__file__).parent
FOLDER = HERE / "recipes"
COLUMNS = ("decisions", "steps", "train_s", "win_vs_heuristic", "win_vs_heuristic_lo", "win_vs_heuristic_hi")


def cut(name: str, run_dir: Path) -> Path:
    """Write ``docs/recipes/<name>.csv`` from the evaluated rows of ``run_dir/progress.csv``."""
    imitation = run_dir / "imitation.json"
    imitated = json.loads(imitation.read_text())["decisions"] if imitation.exists() else 0
    seconds = json.loads(imitation.read_text())["seconds"] if imitation.exists() else 0.0
    with (run_dir / "progress.csv").open(newline="") as f:
        every = list(csv.DictReader(f))
    for row in every:  # runs from before the train_s column: the sum of the updates' own times
        seconds += int(row["samples"]) / float(row["steps_per_s"])
        row["train_s"] = row.get("train_s") or f"{seconds:.1f}"
        row["decisions"] = imitated + int(row["steps"])
    rows = [r for r in every if r.get("win_vs_heuristic")]
    target = FOLDER / f"{name}.csv"
    FOLDER.mkdir(exist_ok=True)
    with target.open("w", newline="") as f:
        writer = csv.DictWriter(f, COLUMNS, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    return target


def curves() -> dict[str, list[dict[str, float]]]:
    """Every run's evaluated rows, by name."""
    found = {}
    for path in sorted(FOLDER.glob("*.csv")):
        with path.open(newline="") as f:
            found[path.stem] = [{k: float(v) for k, v in row.items()} for row in csv.DictReader(f)]
    return found


def draw(target: Path) -> Path:
    """The two panels, by decisions and by training minutes, with the fair share."""
    fig, (by_steps, by_time) = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    for name, rows in curves().items():
        steps = [r["decisions"] / 1e6 for r in rows]
        minutes = [r["train_s"] / 60 for r in rows]
        win = [r["win_vs_heuristic"] for r in rows]
        low = [r["win_vs_heuristic_lo"] for r in rows]
        high = [r["win_vs_heuristic_hi"] for r in rows]
        for axis, x in ((by_steps, steps), (by_time, minutes)):
            (line,) = axis.plot(x, win, marker=".", label=name)
            axis.fill_between(x, low, high, color=line.get_color(), alpha=0.12)
    for axis in (by_steps, by_time):
        axis.axhline(0.25, color="grey", linestyle="--", linewidth=1)
        axis.grid(alpha=0.3)
    by_steps.set_xlabel("decisions trained on (millions; imitated ones included)")
    by_time.set_xlabel("training minutes (imitation included, evaluations left out)")
    by_steps.set_ylabel("win share against three heuristics")
    by_steps.legend(fontsize=8)
    fig.suptitle("mattmar, 4 players: periodic evaluations, 200 ramsar each (fair share 0.25, dashed)")
    fig.tight_layout()
    fig.savefig(target, dpi=90)
    plt.close(fig)
    return target


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--add", nargs=2, metavar=("NAME", "RUN_DIR"), help="cut a run's curve into docs/recipes/")
    args = parser.parse_args()
    if args.add:
        print(cut(args.add[0], Path(args.add[1])))
    print(draw(HERE / "recipes.png"))


if __name__ == "__main__":
    main()
