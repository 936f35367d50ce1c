"""Train sb3-contrib's MaskablePPO on one seat of Rams, then evaluate it in duplicate deals.

Run: ``python examples/sb3_maskable_ppo.py [--steps 4096] [--opponent random] [--save ppo_rams.zip]``
(needs the ``sb3`` extra: ``pip install -e ".[sb3]"`` in a checkout). The learning seat is drawn at
every reset; the other seats are played by ``--opponent``. The trained model then plays duplicate
deals against ``--baseline``.
"""

from __future__ import annotations

import argparse
import time

import gymnasium
import torch
from sb3_contrib import MaskablePPO

import rams_env  # registers rams_env/Rams-v1
from rams_env.eval import AGENT_SPEC_HELP, Evaluation, agent_source, build_agent, evaluate
from rams_env.integrations.sb3 import MaskablePPOAgent


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line (tiny defaults: the run takes seconds)."""
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter
    )
    parser.add_argument("--variant", default="mattmar", help="rules preset")
    parser.add_argument("--num-players", type=int, default=4, metavar="N", help="players at the table")
    parser.add_argument("--players", type=int, dest="num_players", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    parser.add_argument("--steps", type=int, default=4096, help="learner decisions to train on")
    parser.add_argument("--opponent", default="random", help=f"the other seats while training: {AGENT_SPEC_HELP}")
    parser.add_argument("--baseline", default="random", help="baseline of the duplicate evaluation (same choices)")
    parser.add_argument("--decks", type=int, default=100, help="decks of the duplicate evaluation")
    parser.add_argument("--seed", type=int, default=0, help="seed of training and evaluation")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (one is fastest for this small MLP)")
    parser.add_argument("--save", default=None, help="write the trained model here (MaskablePPO.load reads it)")
    args = parser.parse_args(argv)
    if args.steps < 1 or args.decks < 1 or args.threads < 1:
        parser.error("--steps, --decks and --threads must be positive")
    return args


def train(args: argparse.Namespace) -> MaskablePPO:
    """MaskablePPO trained for ``args.steps`` learner decisions against ``args.opponent``."""
    config = rams_env.make_config(args.variant, args.num_players)
    opponent = build_agent(agent_source(args.opponent, config), args.seed)
    env = gymnasium.make(
        "rams_env/Rams-v1",
        variant=args.variant,
        num_players=args.num_players,
        learner_seat="random",
        opponents=opponent,
    )
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=512,
        batch_size=128,
        policy_kwargs={"net_arch": [64, 64]},
        seed=args.seed,
        device="cpu",
    )
    return model.learn(total_timesteps=args.steps)


def main(argv: list[str] | None = None) -> Evaluation:
    """Train, evaluate, print the evaluation table; returns the evaluation."""
    args = parse_args(argv)
    torch.set_num_threads(args.threads)
    start = time.perf_counter()
    model = train(args)
    print(f"trained {args.steps} steps in {time.perf_counter() - start:.1f} s")
    if args.save:
        model.save(args.save)
        print(f"saved {args.save}")
    config = rams_env.make_config(args.variant, args.num_players)
    result = evaluate(
        {"maskable_ppo": MaskablePPOAgent(model)},
        agent_source(args.baseline, config),
        config,
        decks=args.decks,
        seed=args.seed,
        baseline_name=args.baseline,
        progress=False,
    )
    print(result.table())
    return result


if __name__ == "__main__":
    main()
