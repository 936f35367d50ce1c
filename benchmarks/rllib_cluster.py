"""RLlib's PPO on the vector env over a Ray cluster: sampling decisions/s with K env runners, a checkpoint, a resume.

Joins the cluster at ``--address`` (``auto``, ``HEAD:PORT``, or ``RAY_ADDRESS``; without one, a local Ray of
``--num-cpus`` CPUs), spreads ``--env-runners`` env runners over its nodes (one CPU each, each stepping
``--envs`` games of ``gymnasium.make_vec("rams_env/RamsVec-v1")``), trains ``--iterations`` PPO iterations,
saves a checkpoint to ``--checkpoint``, builds the algorithm again from it and trains one more iteration.
Prints each iteration's sampling rate (env steps over RLlib's own sampling timer) and the nodes the env
runners ran on.

Run (docs/integrations.md has the cluster's setup):
``python -m benchmarks.rllib_cluster --address auto --env-runners 2 --checkpoint /tmp/rams_rllib``.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ray
import torch

from rams_env.options import REQUIRED, arg, options_parser


def sampling_rate(result: dict[str, Any]) -> float:
    """Env steps sampled in an iteration over the seconds RLlib's sampling timer gives it."""
    steps = result["env_runners"]["num_env_steps_sampled"]
    seconds = result["timers"]["env_runner_sampling_timer"]
    return float(steps) / float(seconds)


@dataclass(kw_only=True)
class RLlibClusterArgs:
    """The options of ``python -m benchmarks.rllib_cluster``."""

    address: str | None = arg(None, "the Ray cluster to join (default: RAY_ADDRESS, else local)")
    num_cpus: int = arg(2, "CPUs of a local Ray (ignored when joining)", low=1)
    env_runners: int = arg(2, "remote env runners (one CPU each)", low=0)
    envs: int = arg(64, "games per env runner", low=1)
    iterations: int = arg(2, "PPO iterations before the checkpoint", low=1)
    batch: int = arg(4096, "decisions per iteration", low=1)
    checkpoint: str = arg(REQUIRED, "folder of the checkpoint (written, then resumed)")
    json: str | None = arg(None, "also write the figures here")


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = options_parser(__doc__.splitlines()[0], RLlibClusterArgs, validate=True)
    args = parser.parse_args(argv)
    for name in ("env_runners", "envs", "iterations", "batch"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be a positive int")
    torch.set_num_threads(1)

    from ray.rllib.algorithms.algorithm import Algorithm

    from rams_env.integrations.rllib import build_algo, init_ray
    from rams_env.integrations.rllib_vector import vector_ppo_config

    print(init_ray(args.address, num_cpus=args.num_cpus))
    config = (
        vector_ppo_config(
            {"opponents": "heuristic", "learner_seat": "random", "episode": "rams", "reward": "win"},
            num_envs_per_env_runner=args.envs,
            hidden=(64, 64),
        )
        .env_runners(num_env_runners=args.env_runners, rollout_fragment_length="auto")
        .learners(num_learners=0)
        .training(train_batch_size_per_learner=args.batch, minibatch_size=min(1024, args.batch), num_epochs=1)
    )
    algo = build_algo(config)
    command = "python -m benchmarks.rllib_cluster " + " ".join(argv if argv is not None else sys.argv[1:])
    record: dict[str, Any] = {"reproduce": command, "env_runners": args.env_runners, "envs": args.envs, "rates": []}
    try:
        nodes = algo.env_runner_group.foreach_env_runner(lambda runner: ray.get_runtime_context().get_node_id())
        record["nodes"] = len({node for node in nodes if node})
        print(f"{args.env_runners} env runners on {record['nodes']} node(s)")
        for iteration in range(1, args.iterations + 1):
            started = time.perf_counter()
            rate = sampling_rate(algo.train())
            record["rates"].append(rate)
            print(f"iteration {iteration}: sampled {rate:,.0f} decisions/s ({time.perf_counter() - started:.1f} s)")
        path = Path(args.checkpoint).resolve()
        algo.save_to_path(str(path))
        record["steps_before"] = int(algo.metrics.peek(("env_runners", "num_env_steps_sampled_lifetime")))
    finally:
        algo.stop()
    resumed = Algorithm.from_checkpoint(str(path))
    try:
        result = resumed.train()
        record["steps_after"] = int(result["env_runners"]["num_env_steps_sampled_lifetime"])
        print(f"resumed from {path}: {record['steps_before']} -> {record['steps_after']} env steps in all")
    finally:
        resumed.stop()
        ray.shutdown()
    if args.json:
        Path(args.json).write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    return record


if __name__ == "__main__":
    main()
