"""Self-play training throughput: learner decisions per second, PPO update included, for env
process and torch thread settings on this machine.

Run: ``python -m benchmarks.training_speed [--updates 4]`` (about a minute per setting).
"""

from __future__ import annotations

import argparse
import tempfile
import time

from training.selfplay import TrainArgs, Trainer

SETTINGS = ((1, 0), (2, 1), (1, 1))  # (env worker processes, torch threads; 0 = the free cores)


def measure(workers: int, threads: int, updates: int, variant: str) -> str:
    """One line: samples/s overall, env steps/s while collecting, time in collect and update."""
    args = TrainArgs(
        variant=variant,
        total_steps=10**12,
        num_games=256,
        workers=workers,
        threads=threads,
        eval_every=0,
        run_dir=tempfile.mkdtemp(prefix="rams-speed-"),
        progress=False,
    )
    trainer = Trainer(args)
    try:
        episodes, _ = trainer.collect()  # warm-up: compiled code, first allocations
        trainer.update([s for e in episodes for s in e.samples])
        collecting = updating = 0.0
        samples = env_steps = 0
        for _ in range(updates):
            started = time.perf_counter()
            episodes, stats = trainer.collect()
            collected = time.perf_counter()
            batch = [s for e in episodes for s in e.samples]
            trainer.update(batch)
            collecting += collected - started
            updating += time.perf_counter() - collected
            samples += len(batch)
            env_steps += int(stats["env_steps"])
    finally:
        trainer.env.close()
    return (
        f"workers={workers} threads={threads or 'auto'}: {samples / (collecting + updating):,.0f} samples/s, "
        f"env {env_steps / collecting:,.0f} steps/s while collecting; "
        f"collect {collecting:.1f} s, update {updating:.1f} s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--updates", type=int, default=4, help="timed updates per setting")
    parser.add_argument("--variant", default="mattmar")
    args = parser.parse_args()
    for workers, threads in SETTINGS:
        print(measure(workers, threads, args.updates, args.variant), flush=True)


if __name__ == "__main__":
    main()
