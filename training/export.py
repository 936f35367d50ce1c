"""Ship a trained policy: a slim checkpoint in ``checkpoints/`` and its model card.

Run: ``python -m training.export --run-dir runs/mattmar-4p --name mattmar-4p [--decks 2000]``.
The slim checkpoint keeps the network, the rules and the run's counters and arguments (no
optimizer state, no history). The card holds the exact command of the run, its steps and wall
time, the machine, the duplicate evaluations against ``RandomAgent``, ``HeuristicAgent`` and
``SearchAgent`` (95% bootstrap intervals), and the learning curves next to it.
"""

from __future__ import annotations

import argparse
import csv
import functools
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

from rams_env.agents import HeuristicAgent, RandomAgent, SearchAgent, load_agent
from rams_env.evaluation import Evaluation, evaluate
from rams_env.policy import (
    checkpoint_config,
    load_checkpoint,
    make_checkpoint,
    network_from_checkpoint,
    save_checkpoint,
)

from .selfplay import plot_learning_curves

SHIPPED = Path(__file__).resolve().parents[1] / "checkpoints"
EVAL_SEED = 7_000_001  # a deal set no training run evaluates on


def slim_checkpoint(run_dir: Path, out: Path) -> dict[str, Any]:
    """Write the best checkpoint of ``run_dir`` without optimizer state; returns its payload."""
    source = run_dir / "best.pt" if (run_dir / "best.pt").exists() else run_dir / "latest.pt"
    payload = load_checkpoint(source)
    config = checkpoint_config(payload, str(source))
    net = network_from_checkpoint(payload, str(source))
    slim = make_checkpoint(
        net,
        config,
        counters=payload["counters"],
        args=payload["args"],
        best_score=payload.get("best_score"),
        source=source.name,
    )
    save_checkpoint(out, slim)
    return slim


def _training_time(run_dir: Path) -> tuple[float, int]:
    """Seconds spent in the logged updates (from progress.csv), and their count."""
    with (run_dir / "progress.csv").open() as f:
        rows = list(csv.DictReader(f))
    seconds = sum(int(r["samples"]) / float(r["steps_per_s"]) for r in rows if float(r["steps_per_s"]) > 0)
    return seconds, len(rows)


def baselines(decks: int, search_decks: int, search_simulations: int) -> list[tuple[str, Any, int]]:
    """(name, agent factory, decks) of each baseline; the factories pickle, for worker processes."""
    return [
        ("random", RandomAgent, decks),
        ("heuristic", functools.partial(HeuristicAgent), decks),
        ("search", functools.partial(SearchAgent, simulations=search_simulations), search_decks),
    ]


def _section(title: str, ev: Evaluation) -> str:
    return f"### {title}\n\n```\n{ev.table()}\n```\n"


def export(
    run_dir: Path,
    name: str,
    decks: int,
    search_decks: int,
    search_simulations: int,
    command: str,
    workers: int = 1,
) -> Path:
    """Write ``checkpoints/<name>.pt``, ``<name>.md`` and ``<name>_curves.png``; returns the card's path."""
    SHIPPED.mkdir(exist_ok=True)
    weights = SHIPPED / f"{name}.pt"
    payload = slim_checkpoint(run_dir, weights)
    config = checkpoint_config(payload)
    curves = plot_learning_curves(run_dir / "progress.csv", SHIPPED / f"{name}_curves.png")
    policy = load_agent(weights, expect_config=config)
    sections = []
    for baseline_name, baseline, count in baselines(decks, search_decks, search_simulations):
        if count <= 0:
            continue
        started = time.perf_counter()
        ev = evaluate(
            {name: policy},
            baseline,
            config,
            decks=count,
            seed=EVAL_SEED,
            baseline_name=baseline_name,
            progress=True,
            workers=workers,
        )
        ev.save_json(SHIPPED / f"{name}_vs_{baseline_name}.json")
        title = f"Against {baseline_name} ({count} decks, {time.perf_counter() - started:.0f} s)"
        sections.append(_section(title, ev))
        print(ev.table(), flush=True)
    seconds, updates = _training_time(run_dir)
    counters = payload["counters"]
    args = payload["args"]
    reproduce = (
        f"rams eval checkpoints/{weights.name} --baseline heuristic --variant {config.variant} "
        f"--players {config.num_players} --decks {decks} --seed {EVAL_SEED}"
    )
    card = f"""# `{name}`: PPO self-play policy for {config.variant}, {config.num_players} players

- File: `checkpoints/{weights.name}` ({os.path.getsize(weights) / 1e6:.1f} MB), load with
  `rams_env.agents.load_agent("checkpoints/{weights.name}")`; plays greedily (masked argmax).
- Command: `{command}`
- Training: {counters["steps"]:,} learner decisions, {counters["episodes"]:,} episodes, {updates} updates,
  {seconds / 60:.0f} minutes of training time (sum of the logged update times), checkpoint `{payload["source"]}`
  (best periodic evaluation against the heuristic: {payload.get("best_score")}).
- Machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, CPU only; other
  jobs shared the machine during the run, so the wall time is not a clean speed measurement.
- Arguments: {", ".join(f"{k}={v}" for k, v in args.items())}
- Learning curves: `{curves.name}`.

## Evaluation

Duplicate deals (the same deck played with the policy in each seat and by the baseline alone),
seat rotation, deal set seed {EVAL_SEED} (not used during training), single deals from the start
score, 95% bootstrap confidence intervals of the advantage in points per deal. Reproduce with
`{reproduce}`.

{chr(10).join(sections)}
## Limits

Trained on single deals from the start score: in the Swedish presets a flight then costs nothing
(the cap is the start score), so the policy learned to knock on every hand, as the heuristic does
there. Lower scores, where a flight costs up to five points, are outside its training; train with
`--episode rams` for play over a whole rams.
"""
    path = SHIPPED / f"{name}.md"
    path.write_text(card)
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run-dir", required=True, type=Path, help="folder of the training run")
    parser.add_argument("--name", required=True, help="name of the shipped files, e.g. mattmar-4p")
    parser.add_argument("--decks", type=int, default=2000, help="decks against random and heuristic")
    parser.add_argument("--search-decks", type=int, default=200, help="decks against SearchAgent (slow)")
    parser.add_argument("--search-simulations", type=int, default=60, help="SearchAgent budget")
    parser.add_argument("--command", required=True, help="the exact command that trained the run (for the card)")
    parser.add_argument("--workers", type=int, default=1, help="evaluation processes (same numbers, less time)")
    args = parser.parse_args(argv)
    if not (args.run_dir / "progress.csv").exists():
        print(f"{args.run_dir} is not a training run folder (no progress.csv)", file=sys.stderr)
        return 1
    card = export(
        args.run_dir, args.name, args.decks, args.search_decks, args.search_simulations, args.command, args.workers
    )
    print(f"wrote {card}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
