"""Train sb3-contrib's MaskablePPO on one seat of Rams, then evaluate it in duplicate deals.

Run: ``python examples/sb3_maskable_ppo.py [--steps 4096] [--opponent random] [--save ppo_rams.zip]``
(needs the ``sb3`` extra: ``pip install -e ".[sb3]"`` in a checkout). The learning seat is drawn at
every reset; the other seats are played by ``--opponent``. The trained model then plays duplicate
deals against ``--baseline``.

Settings that learn (docs/benchmarks.md): PPO from a random policy does not learn whole ramsar against
heuristics in minutes, in SB3 or in this project's own PPO; from a warm start it does. ``--init-from``
copies a trained policy (a zoo name such as ``mattmar-4p``, or a checkpoint) into the model before it
learns, and the model takes its widths (ReLU, as the project's network). Also set: ``gamma`` 1 (the one
reward comes at the end of a rams, about 60 of the learner's decisions after its first), rollouts of
2048 steps in minibatches of 512 over 4 epochs; from a warm start a learning rate of 1e-4 and an
entropy bonus of 0.003, which keep the policy it starts from (the second stage of ``rams train quick``).
For example: ``--steps 200000 --opponent heuristic --baseline heuristic --episode rams --init-from
mattmar-4p``.
"""

from __future__ import annotations

import argparse
import time

import gymnasium
import torch
from sb3_contrib import MaskablePPO

import rams_env  # registers rams_env/Rams-v1
from rams_env.agents import load_agent
from rams_env.eval import AGENT_SPEC_HELP, Evaluation, agent_source, build_agent, evaluate
from rams_env.integrations.sb3 import MaskablePPOAgent, warm_start


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
    parser.add_argument("--episode", default="deal", choices=("deal", "rams"), help="episode kind (rams: whole ramsar)")
    parser.add_argument("--init-from", default=None, help="a trained policy the model starts from (zoo name or path)")
    args = parser.parse_args(argv)
    if args.steps < 1 or args.decks < 1 or args.threads < 1:
        parser.error("--steps, --decks and --threads must be positive")
    return args


def train(args: argparse.Namespace) -> MaskablePPO:
    """MaskablePPO trained for ``args.steps`` learner decisions against ``args.opponent``."""
    config = rams_env.make_config(args.variant, args.num_players)
    opponent = build_agent(agent_source(args.opponent, config), args.seed)
    reward = "win" if args.episode == "rams" else "points"
    env = gymnasium.make(
        "rams_env/Rams-v1",
        variant=args.variant,
        num_players=args.num_players,
        episode=args.episode,
        reward=reward,
        learner_seat="random",
        opponents=opponent,
    )
    start = load_agent(args.init_from, expect_config=config) if args.init_from else None
    hidden = list(start.net.hidden) if start is not None else [64, 64]
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=min(2048, args.steps),
        batch_size=min(512, args.steps),
        n_epochs=4,
        gamma=1.0,
        learning_rate=1e-4 if start is not None else 3e-4,
        ent_coef=0.003 if start is not None else 0.01,
        policy_kwargs={"net_arch": {"pi": hidden, "vf": hidden}, "activation_fn": torch.nn.ReLU},
        seed=args.seed,
        device="cpu",
    )
    if start is not None:
        warm_start(model, start.net)  # the model now plays as the policy it starts from
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
        episode=args.episode,
        baseline_name=args.baseline,
        progress=False,
    )
    print(result.table())
    return result


if __name__ == "__main__":
    main()
