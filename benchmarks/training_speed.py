"""Self-play training throughput: learner decisions per second, PPO update included, for env
process, torch thread and precision settings on this machine, as ratios to fp32 with the same
processes and threads (measured in the same run).

Run: ``python -m benchmarks.training_speed [--updates 4]`` (about a minute per setting).
"""

from __future__ import annotations

import argparse
import tempfile
import time

import numpy as np

from training.selfplay import TrainArgs, Trainer

# (env worker processes, torch threads; 0 = the free cores)
SETTINGS = ((1, 0), (1, 1), (2, 1))


def measure(workers: int, threads: int, precision: str, updates: int, variant: str) -> tuple[float, str]:
    """Samples/s overall, and a line with it, env steps/s while collecting, time in collect and update."""
    args = TrainArgs(
        variant=variant,
        total_steps=10**12,
        num_games=256,
        workers=workers,
        threads=threads,
        precision=precision,
        eval_every=0,
        run_dir=tempfile.mkdtemp(prefix="rams-speed-"),
        progress=False,
    )
    trainer = Trainer(args)
    try:
        episodes, _ = trainer.collect()  # warm-up: compiled code, first allocations
        trainer.update(np.concatenate([e.rows for e in episodes]))
        collecting = updating = 0.0
        samples = env_steps = 0
        for _ in range(updates):
            started = time.perf_counter()
            episodes, stats = trainer.collect()
            collected = time.perf_counter()
            batch = np.concatenate([e.rows for e in episodes])
            trainer.update(batch)
            collecting += collected - started
            updating += time.perf_counter() - collected
            samples += len(batch)
            env_steps += int(stats["env_steps"])
    finally:
        trainer.env.close()
    speed = samples / (collecting + updating)
    return speed, (
        f"workers={workers} threads={threads or 'auto'} {precision}: {speed:,.0f} samples/s, "
        f"env {env_steps / collecting:,.0f} steps/s while collecting; "
        f"collect {collecting:.1f} s, update {updating:.1f} s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--updates", type=int, default=4, help="timed updates per setting")
    parser.add_argument("--variant", default="mattmar")
    args = parser.parse_args()
    for workers, threads in SETTINGS:
        fp32, line = measure(workers, threads, "fp32", args.updates, args.variant)
        print(line, flush=True)
        bf16, line = measure(workers, threads, "bf16", args.updates, args.variant)
        print(f"{line}; {bf16 / fp32:.2f}x fp32", flush=True)


if __name__ == "__main__":
    main()
