"""What a run writes as it goes and what reads it back: ``progress.csv``, TensorBoard, log lines, learning curves.

``progress.csv`` has one row per update (:data:`CSV_COLUMNS`; the evaluation columns are empty between
evaluations); a resumed run cuts it, and the TensorBoard log, back to its checkpoint's update.
:func:`plot_learning_curves` draws it with the run's saved arguments (``args.json``) beside it.
"""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path
from typing import Any

from .runargs import read_run_args

EVAL_BASELINES = ("random", "heuristic", "target")
"""the baselines of the periodic evaluations (training/run.py, ``Trainer.baselines``): the target's
columns come last, so that the rows of a run from before them keep their places"""


def _evaluation_columns(names: tuple[str, ...]) -> list[str]:
    return [f"{metric}_vs_{name}{end}" for metric in ("adv", "win") for name in names for end in ("", "_lo", "_hi")]


CSV_COLUMNS = [
    "update",
    "steps",
    "episodes",
    "train_s",
    "samples",
    "steps_per_s",
    "env_steps_per_s",
    "mean_return",
    "policy_loss",
    "value_loss",
    "entropy",
    "approx_kl",
    "clip_fraction",
    *_evaluation_columns(EVAL_BASELINES[:2]),
    *_evaluation_columns(EVAL_BASELINES[2:]),
]


def write_csv(path: Path, row: dict[str, Any]) -> None:
    """Append an update's ``row`` to ``progress.csv`` (the header first, in a new file)."""
    exists = path.exists()
    with path.open("a", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=CSV_COLUMNS, restval="")
        if not exists:
            writer.writeheader()
        writer.writerow(row)


def truncate_csv(path: Path, updates: int) -> None:
    """Drop the rows of ``progress.csv`` after update ``updates`` (redone after a resume)."""
    if not path.exists():
        return
    try:
        with path.open(newline="") as f:
            rows = [r for r in csv.DictReader(f) if int(r["update"]) <= updates]
    except (KeyError, TypeError, ValueError, UnicodeDecodeError, csv.Error) as err:
        raise ValueError(
            f"{path} is damaged ({type(err).__name__}: {err}); move it aside to resume without the log "
            "of the earlier updates (the checkpoints hold the run)"
        ) from None
    tmp = path.with_suffix(".csv.tmp")
    with tmp.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=CSV_COLUMNS, restval="", extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    os.replace(tmp, path)


def tensorboard(run_dir: Path, steps: int) -> Any:
    """The run's TensorBoard writer; events past ``steps`` (redone after a resume) are purged."""
    from torch.utils.tensorboard import SummaryWriter

    return SummaryWriter(str(run_dir / "tensorboard"), purge_step=steps or None)


def log_line(row: dict[str, Any]) -> str:
    """An update's progress row as one line of the run's log."""
    text = (
        f"update {row['update']} steps {row['steps']:,} ({row['steps_per_s']:,.0f}/s, "
        f"env {row['env_steps_per_s']:,.0f}/s) return {row['mean_return']:+.3f} "
        f"entropy {row['entropy']:.3f} value_loss {row['value_loss']:.4f}"
    )
    for name in EVAL_BASELINES:
        key = f"adv_vs_{name}"
        if key in row:
            text += f" | vs {name} {row[key]:+.3f} [{row[key + '_lo']:+.3f}, {row[key + '_hi']:+.3f}]"
        key = f"win_vs_{name}"
        if key in row:
            text += f" win {row[key]:.3f} [{row[key + '_lo']:.3f}, {row[key + '_hi']:.3f}]"
    return text


# ------------------------------------------------------------------------------- learning curves
FEW_EVALUATIONS = 5  # up to this many evaluations are drawn as points with error bars, not a band


def plot_learning_curves(csv_path: Path, png_path: Path) -> Path:
    """A PNG of the run's progress: mean return, entropy, and the evaluations with their 95% CIs."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = learning_curves_figure(csv_path)
    try:
        fig.savefig(png_path, dpi=100)
    finally:
        plt.close(fig)
    return Path(png_path)


def learning_curves_figure(csv_path: Path) -> Any:
    """The figure of :func:`plot_learning_curves`. The third panel names its deal set: the periodic
    evaluation's (``eval_decks`` decks of ``eval_seed``), not the final tables' (another deal set)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with Path(csv_path).open() as f:
        rows = list(csv.DictReader(f))
    saved = run_arguments(csv_path)
    steps = [int(r["steps"]) for r in rows]
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.4))
    axes[0].plot(steps, [float(r["mean_return"]) for r in rows], marker="o" if len(rows) <= FEW_EVALUATIONS else None)
    axes[0].set_title("self-play return per seat and episode (reward units)")
    axes[1].plot(steps, [float(r["entropy"]) for r in rows], marker="o" if len(rows) <= FEW_EVALUATIONS else None)
    axes[1].set_title("policy entropy (legal actions)")
    evaluation_panel(axes[2], rows, saved)
    if axes[2].get_legend_handles_labels()[0]:
        axes[2].legend()
    for ax in axes:
        ax.set_xlabel("learner decisions")
        if steps:
            ax.set_xlim(0, max(steps) * 1.05)  # from the start: one point is not drawn on a 5% sliver of steps
    fig.tight_layout()
    return fig


def evaluation_panel(ax: Any, rows: list[dict[str, str]], saved: dict[str, Any]) -> None:
    """The periodic evaluations of ``rows`` (progress.csv) with their 95% CIs on ``ax``, titled with the
    deal set they played (``saved``: the run's arguments)."""
    whole = any(r.get(f"win_vs_{name}") for r in rows for name in EVAL_BASELINES)
    metric, fair = ("win", 1.0 / int(saved.get("num_players", 4))) if whole else ("adv", 0.0)
    for k, name in enumerate(EVAL_BASELINES):
        evaluated = [r for r in rows if r.get(f"{metric}_vs_{name}")]
        if not evaluated:
            continue
        x = [int(r["steps"]) for r in evaluated]
        mid = [float(r[f"{metric}_vs_{name}"]) for r in evaluated]
        lo = [float(r[f"{metric}_vs_{name}_lo"]) for r in evaluated]
        hi = [float(r[f"{metric}_vs_{name}_hi"]) for r in evaluated]
        label = f"vs {saved.get('target') or name}" if name == "target" else f"vs {name}"
        if len(evaluated) <= FEW_EVALUATIONS:  # a band between a few points hides them: draw each with its bar
            below = [max(0.0, m - a) for m, a in zip(mid, lo, strict=True)]
            above = [max(0.0, b - m) for m, b in zip(mid, hi, strict=True)]
            ax.errorbar(x, mid, yerr=[below, above], fmt="o-", capsize=5, color=f"C{k}", label=label)
        else:
            ax.plot(x, mid, marker="o", color=f"C{k}", label=label)
            ax.fill_between(x, lo, hi, alpha=0.2, color=f"C{k}")
    ax.axhline(fair, color="grey", linewidth=0.8, linestyle="--")
    decks, seed = saved.get("eval_decks", "?"), saved.get("eval_seed", "?")
    games = {"rams": "ramsar", "match": "matches"}.get(saved.get("episode", "rams"), "games")
    kind = f"win share in whole {games}" if whole else "duplicate advantage per deal"
    ax.set_title(
        f"periodic evaluation on {decks} decks of deal set {seed}: {kind}, 95% CI"
        + (f" (fair {fair:.2f})" if whole else ""),
        fontsize=10,
    )
    ax.set_ylabel("win share" if whole else "advantage per deal")
    final = "" if seed == "?" else f" {seed + 1}"
    ax.annotate(
        f"the final tables (eval_vs_*.json) play another deal set{final}: their numbers differ by chance",
        xy=(0.5, -0.22),
        xycoords="axes fraction",
        ha="center",
        fontsize=8,
        color="dimgrey",
    )


def run_arguments(csv_path: Path) -> dict[str, Any]:
    """The saved arguments (``args.json``) of the run whose ``progress.csv`` this is; empty if missing."""
    path = Path(csv_path).with_name("args.json")
    return json.loads(path.read_text()) if path.exists() else {}


def num_players(csv_path: Path) -> int:
    """Players of the run whose ``progress.csv`` this is (from its ``args.json``; 4 if that is missing)."""
    try:  # every field's type checked: a damaged args.json is named
        return int(read_run_args(Path(csv_path).parent).get("num_players", 4))
    except FileNotFoundError:
        return 4
