"""Training throughput: learner decisions per second, PPO update included, on this machine.

Self-play for env process, torch thread and precision settings, as ratios to fp32 with the same
processes and threads; then episodes against three heuristics (the last stage of ``full``): played
by the compiled heuristic inside the env's step, and by ``HeuristicAgent`` in Python, each as a ratio
to self-play on the same settings, measured in the same run.

Run: ``python -m benchmarks.training_speed [--updates 4] [--heuristic-only]`` (about a minute per setting).
"""

from __future__ import annotations

import tempfile
import time
from dataclasses import dataclass
from typing import Any

from rams_env.apps.cli.options import RulesOptions
from rams_env.options import arg, options_parser
from rams_training.config import TrainArgs
from rams_training.rollout import episode_rows
from rams_training.run import Trainer

# (env worker processes, torch threads; 0 = the free cores)
SETTINGS = ((1, 0), (1, 1), (2, 1))


def measure(updates: int, variant: str, **settings: Any) -> tuple[float, str]:
    """Samples/s overall, and a line with it, env steps/s while collecting, time in collect and update."""
    values: dict[str, Any] = dict(variant=variant, total_steps=10**12, num_games=256, eval_every=0, progress=False)
    args = TrainArgs(**(values | settings), run_dir=tempfile.mkdtemp(prefix="rams-speed-"))
    trainer = Trainer(args)
    try:
        episodes, _ = trainer.collect()  # warm-up: compiled code, first allocations
        trainer.update(episode_rows(episodes))
        collecting = updating = 0.0
        samples = env_steps = 0
        for _ in range(updates):
            started = time.perf_counter()
            episodes, stats = trainer.collect()
            collected = time.perf_counter()
            batch = episode_rows(episodes)
            trainer.update(batch)
            collecting += collected - started
            updating += time.perf_counter() - collected
            samples += len(batch)
            env_steps += int(stats["env_steps"])
    finally:
        trainer.close()
    speed = samples / (collecting + updating)
    described = " ".join(f"{k}={v}" for k, v in settings.items())
    return speed, (
        f"{described}: {speed:,.0f} samples/s, "
        f"env {env_steps / collecting:,.0f} steps/s while collecting; "
        f"collect {collecting:.1f} s, update {updating:.1f} s"
    )


@dataclass(kw_only=True)
class TrainingSpeedArgs:
    """The options of ``python -m benchmarks.training_speed`` but the rules' (:class:`RulesOptions`)."""

    updates: int = arg(4, "timed updates per setting", low=1)
    heuristic_only: bool = arg(False, "only the stage against heuristics")


def main() -> None:
    parser = options_parser(__doc__.splitlines()[0], (RulesOptions, ["variant"]), TrainingSpeedArgs, validate=True)
    args = parser.parse_args()
    for workers, threads in () if args.heuristic_only else SETTINGS:
        fp32, line = measure(args.updates, args.variant, workers=workers, threads=threads, precision="fp32")
        print(line, flush=True)
        bf16, line = measure(args.updates, args.variant, workers=workers, threads=threads, precision="bf16")
        print(f"{line}; {bf16 / fp32:.2f}x fp32", flush=True)
    # The last stage of `full`: whole ramsar, every episode against three heuristics, against self-play.
    stage = dict(episode="rams", reward="win", num_games=128, threads=1, workers=1)
    selfplay, line = measure(args.updates, args.variant, heuristic_fraction=0.0, **stage)
    print(line, flush=True)
    compiled, line = measure(args.updates, args.variant, heuristic_fraction=1.0, **stage)
    print(f"{line}; {compiled / selfplay:.2f}x self-play", flush=True)
    python, line = measure(args.updates, args.variant, heuristic_fraction=1.0, compiled_heuristic=False, **stage)
    print(f"{line}; {python / selfplay:.2f}x self-play; compiled heuristic {compiled / python:.1f}x Python", flush=True)


if __name__ == "__main__":
    main()
