"""Multi-agent PPO on Rams with RLlib: one masked policy shared by every seat, locally or on a Ray cluster.

Run locally: ``python examples/rllib_ppo.py [--iterations 2]`` (needs ``pip install "rams_env[rllib]"``).
On a running cluster (``ray start --head`` on one machine, ``ray start --address=HEAD:6379`` on the others,
rams_env installed on every node): ``python examples/rllib_ppo.py --address auto --env-runners 8``.
After training, the greedy policy plays duplicate deals against ``--baseline``.
"""

from __future__ import annotations

import argparse
import time

import ray

import rams_env
from rams_env.evaluation import AGENT_SPEC_HELP, Evaluation, agent_source, evaluate
from rams_env.integrations.rllib import SHARED_POLICY, RLlibAgent, ppo_config


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line (tiny defaults: the run takes seconds)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="mattmar", help="rules preset")
    parser.add_argument("--players", type=int, default=4, help="number of players")
    parser.add_argument("--episode", default="deal", help="episode kind: deal, rams or match")
    parser.add_argument("--iterations", type=int, default=2, help="training iterations")
    parser.add_argument("--batch", type=int, default=400, help="env steps per training iteration")
    parser.add_argument("--minibatch", type=int, default=100, help="SGD minibatch size")
    parser.add_argument("--epochs", type=int, default=2, help="SGD epochs per iteration")
    parser.add_argument("--hidden", type=int, nargs="+", default=[64], help="hidden layer widths")
    parser.add_argument("--env-runners", type=int, default=0, help="remote env runners (0: sample in this process)")
    parser.add_argument("--address", default=None, help="Ray cluster to join ('auto' or HEAD:PORT); default: local")
    parser.add_argument("--num-cpus", type=int, default=2, help="CPUs of the local Ray instance (without --address)")
    parser.add_argument("--baseline", default="random", help=f"baseline of the final evaluation: {AGENT_SPEC_HELP}")
    parser.add_argument("--decks", type=int, default=20, help="decks of the final duplicate evaluation")
    parser.add_argument("--seed", type=int, default=0, help="seed of sampling and evaluation")
    parser.add_argument("--checkpoint", default=None, help="save the algorithm to this directory at the end")
    args = parser.parse_args(argv)
    if min(args.iterations, args.batch, args.minibatch, args.epochs, args.decks, *args.hidden) < 1:
        parser.error("--iterations, --batch, --minibatch, --epochs, --decks and --hidden must be positive")
    if args.env_runners < 0:
        parser.error("--env-runners must be 0 or more")
    return args


def main(argv: list[str] | None = None) -> Evaluation:
    """Train, print each iteration, evaluate the greedy policy; returns the evaluation."""
    args = parse_args(argv)
    env_config = {"variant": args.variant, "num_players": args.players, "episode": args.episode}
    config = (
        ppo_config(env_config, hidden=args.hidden)
        .env_runners(num_env_runners=args.env_runners, rollout_fragment_length="auto")
        .training(train_batch_size_per_learner=args.batch, minibatch_size=args.minibatch, num_epochs=args.epochs)
        .debugging(seed=args.seed)
    )
    if args.address:
        ray.init(address=args.address)
    else:
        ray.init(num_cpus=args.num_cpus, include_dashboard=False)
    try:
        algo = config.build_algo()
        for i in range(1, args.iterations + 1):
            start = time.perf_counter()
            result = algo.train()
            runners = result["env_runners"]
            per_seat = runners["agent_episode_returns_mean"]
            print(
                f"iteration {i}: {runners['num_env_steps_sampled_lifetime']:.0f} env steps, "
                f"mean return per seat {sum(per_seat.values()) / len(per_seat):+.3f}, "
                f"{time.perf_counter() - start:.1f} s"
            )
        if args.checkpoint:
            print(f"saved {algo.save_to_path(args.checkpoint)}")
        agent = RLlibAgent(algo.get_module(SHARED_POLICY))
        algo.stop()
    finally:
        ray.shutdown()
    rules = rams_env.make_config(args.variant, args.players)
    result = evaluate(
        {"rllib_ppo": agent},
        agent_source(args.baseline, rules),
        rules,
        decks=args.decks,
        seed=args.seed,
        episode=args.episode,
        baseline_name=args.baseline,
        progress=False,
    )
    print(result.table())
    return result


if __name__ == "__main__":
    main()
