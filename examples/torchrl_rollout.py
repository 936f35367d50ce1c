"""Collect a TorchRL rollout of Rams with a masked policy shared by every seat.

Run: ``python examples/torchrl_rollout.py [--steps 200]`` (needs the ``torchrl`` extra:
``pip install -e ".[torchrl]"`` in a checkout).
Prints what the rollout holds: steps, finished episodes, the rewards of each seat, and a check that
every action the env used was legal.
"""

from __future__ import annotations

import argparse
import time

import torch
from tensordict import TensorDictBase

from rams_env.integrations.torchrl import ACTING_KEY, ACTION_KEY, ACTION_MASK_KEY, GROUP, make_env, masked_policy


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line (tiny defaults: the run takes seconds)."""
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter
    )
    parser.add_argument("--variant", default="mattmar", help="rules preset")
    parser.add_argument("--num-players", type=int, default=4, metavar="N", help="players at the table")
    parser.add_argument("--players", type=int, dest="num_players", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    parser.add_argument("--episode", default="deal", help="episode kind: deal, rams or match")
    parser.add_argument("--steps", type=int, default=200, help="env steps to collect")
    parser.add_argument("--hidden", type=int, nargs="+", default=[64], help="hidden layer widths of the policy")
    parser.add_argument("--seed", type=int, default=0, help="seed of the env and of the policy's weights and samples")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (one is fastest for this small MLP)")
    args = parser.parse_args(argv)
    if min(args.steps, args.threads, *args.hidden) < 1:
        parser.error("--steps, --threads and --hidden must be positive")
    return args


def main(argv: list[str] | None = None) -> TensorDictBase:
    """Collect the rollout and print a summary; returns the rollout."""
    args = parse_args(argv)
    torch.set_num_threads(args.threads)
    env = make_env(seed=args.seed, variant=args.variant, num_players=args.num_players, episode=args.episode)
    # TorchRL initialises weights and samples actions with torch's default generator: seed a fork of it.
    with torch.random.fork_rng(), torch.no_grad():
        torch.manual_seed(args.seed)
        policy = masked_policy(env, hidden=args.hidden)
        start = time.perf_counter()
        rollout = env.rollout(args.steps, policy, break_when_any_done=False)
        elapsed = time.perf_counter() - start
    acting = rollout[ACTING_KEY]
    chosen = rollout[ACTION_MASK_KEY].gather(-1, rollout[ACTION_KEY].unsqueeze(-1)).squeeze(-1)
    rewards = rollout["next", GROUP, "reward"].sum(dim=0).flatten().tolist()
    print(f"{rollout.batch_size[0]} steps in {elapsed:.2f} s, {int(rollout['next', 'done'].sum())} episodes finished")
    print("summed reward per seat: " + ", ".join(f"{r:+.0f}" for r in rewards))
    print(f"every action the env used was legal: {bool(chosen[acting].all())}")
    return rollout


if __name__ == "__main__":
    main()
