"""Self-play PPO on Rams with RLlib: one masked policy plays every seat, locally or on a Ray cluster.

By default each env runner steps ``--envs-per-runner`` games of the batched compiled engine in one call
(``rams_env.integrations.rllib_selfplay``: each seat's decisions are an episode of the one module);
``--env aec`` runs RLlib's multi-agent env runner over ``RamsMultiAgentEnv`` instead, one game at a
time (``ppo_config``), about 20 times slower (docs/benchmarks.md).

Run locally: ``python examples/rllib_ppo.py [--iterations 2]`` (needs the ``rllib`` extra). On a
running cluster (``ray start --head`` on one machine, ``ray start --address=HEAD:6379`` on the others,
the same rams_env wheel installed on every node): ``python examples/rllib_ppo.py --address auto
--env-runners 8``, or set ``RAY_ADDRESS`` instead of ``--address``. Every ``--eval-every`` iterations
the greedy policy plays a fixed set of duplicate deals against ``--baseline`` (the progress line
shows its advantage, which moves as the policy learns; the self-play return of a zero-sum game does
not), and at the end a larger set. ``--checkpoint DIR`` saves the algorithm; ``rams eval DIR`` then
evaluates its policy beside any other agent.

Settings that learn (docs/benchmarks.md): from a random policy, PPO does not learn whole ramsar in
minutes in any library. ``--init-from`` copies a trained policy (a zoo name such as ``mattmar-4p``, or
a checkpoint) into the module before it learns (``rams_env.integrations.rllib.warm_start``; the module
takes its widths and ReLU), and then trains with a learning rate of 1e-4 and an entropy bonus of 0.003,
which keep the policy it starts from. ``gamma`` is 1: the one reward of a rams comes at its end.
For example: ``--episode rams --init-from mattmar-4p --baseline heuristic``.
"""

from __future__ import annotations

import argparse
import time

import ray

import rams_env
from rams_env.agents import load_agent
from rams_env.eval import AGENT_SPEC_HELP, Evaluation, agent_source, evaluate
from rams_env.integrations.rllib import (
    DEFAULT_ACTIVATION,
    SHARED_POLICY,
    SINGLE_AGENT_POLICY,
    RLlibAgent,
    build_algo,
    init_ray,
    ppo_config,
    save_rules,
    warm_start,
)
from rams_env.integrations.rllib_selfplay import selfplay_ppo_config


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line (tiny defaults: the run takes seconds)."""
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter
    )
    parser.add_argument("--variant", default="mattmar", help="rules preset")
    parser.add_argument("--num-players", type=int, default=4, metavar="N", help="players at the table")
    parser.add_argument("--players", type=int, dest="num_players", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    parser.add_argument("--episode", default="deal", help="episode kind: deal, rams or match")
    parser.add_argument(
        "--env",
        choices=("batched", "aec"),
        default="batched",
        help="batched: the compiled engine's games in one call per env runner; aec: RLlib's multi-agent env runner",
    )
    parser.add_argument("--envs-per-runner", type=int, default=16, help="games each env runner steps (--env batched)")
    parser.add_argument("--iterations", type=int, default=2, help="training iterations")
    parser.add_argument("--batch", type=int, default=400, help="env steps per training iteration")
    parser.add_argument("--minibatch", type=int, default=100, help="SGD minibatch size")
    parser.add_argument("--epochs", type=int, default=2, help="SGD epochs per iteration")
    parser.add_argument("--hidden", type=int, nargs="+", default=[64], help="hidden layer widths")
    parser.add_argument(
        "--init-from", default=None, help="a trained policy the module starts from (zoo name or path; sets --hidden)"
    )
    parser.add_argument(
        "--env-runners",
        type=int,
        default=0,
        help="remote env runners, one CPU each in the Ray cluster (0: sample in this process)",
    )
    parser.add_argument(
        "--address",
        default=None,
        help="Ray cluster to join ('auto' or HEAD:PORT); unset: RAY_ADDRESS if set, else a local instance",
    )
    parser.add_argument("--num-cpus", type=int, default=2, help="CPUs of a local Ray instance (not when joining)")
    parser.add_argument("--baseline", default="random", help=f"baseline of the evaluations: {AGENT_SPEC_HELP}")
    parser.add_argument("--eval-every", type=int, default=1, help="iterations between evaluations (0: none)")
    parser.add_argument("--eval-decks", type=int, default=10, help="decks of each periodic evaluation (a fixed set)")
    parser.add_argument("--decks", type=int, default=20, help="decks of the final duplicate evaluation")
    parser.add_argument("--seed", type=int, default=0, help="seed of sampling and evaluation")
    parser.add_argument("--checkpoint", default=None, help="save the algorithm to this directory at the end")
    args = parser.parse_args(argv)
    sizes = (args.iterations, args.batch, args.minibatch, args.epochs, args.decks, args.eval_decks)
    sizes += (args.envs_per_runner,)
    if min(*sizes, *args.hidden) < 1:
        parser.error(
            "--iterations, --batch, --minibatch, --epochs, --decks, --eval-decks, --envs-per-runner, --hidden "
            "must be positive"
        )
    if args.env_runners < 0 or args.eval_every < 0:
        parser.error("--env-runners and --eval-every must be 0 or more")
    return args


def _evaluate(agent: RLlibAgent, rules: rams_env.RulesConfig, args: argparse.Namespace, decks: int) -> Evaluation:
    return evaluate(
        {"rllib_ppo": agent},
        agent_source(args.baseline, rules),
        rules,
        decks=decks,
        seed=args.seed,
        episode=args.episode,
        baseline_name=args.baseline,
        resamples=1000,
        progress=False,
    )


def main(argv: list[str] | None = None) -> Evaluation:
    """Train, print each iteration with a periodic evaluation, evaluate the greedy policy; returns the evaluation."""
    args = parse_args(argv)
    env_config = {"variant": args.variant, "num_players": args.num_players, "episode": args.episode}
    rules = rams_env.make_config(args.variant, args.num_players)
    initial = load_agent(args.init_from, expect_config=rules) if args.init_from else None
    hidden, activation = (args.hidden, DEFAULT_ACTIVATION) if initial is None else (list(initial.net.hidden), "relu")
    warm = {"lr": 1e-4, "entropy_coeff": 0.003} if initial is not None else {}
    if args.env == "batched":
        config = selfplay_ppo_config(env_config, args.envs_per_runner, hidden=hidden, activation=activation)
        policy = SINGLE_AGENT_POLICY
    else:
        config, policy = ppo_config(env_config, hidden=hidden, activation=activation), SHARED_POLICY
    config = (
        config.env_runners(num_env_runners=args.env_runners, rollout_fragment_length="auto")
        .training(
            train_batch_size_per_learner=args.batch,
            minibatch_size=args.minibatch,
            num_epochs=args.epochs,
            gamma=1.0,
            **warm,
        )
        .debugging(seed=args.seed)
    )
    print(init_ray(args.address, num_cpus=args.num_cpus))
    try:
        try:
            algo = build_algo(config)
        except RuntimeError as err:
            raise SystemExit(f"rllib_ppo.py: error: {err}") from None
        if initial is not None:
            warm_start(algo, initial.net, policy)  # the module now plays as the policy it starts from
            print(f"starting from {args.init_from} ({'x'.join(map(str, hidden))}, ReLU)")
        for i in range(1, args.iterations + 1):
            start = time.perf_counter()
            result = algo.train()
            line = (
                f"iteration {i}: {result['env_runners']['num_env_steps_sampled_lifetime']:.0f} env steps, "
                f"{time.perf_counter() - start:.1f} s"
            )
            entropy = result.get("learners", {}).get(policy, {}).get("entropy")
            if entropy is not None:
                line += f", policy entropy {float(entropy):.3f}"
            if args.eval_every and (i % args.eval_every == 0 or i == args.iterations):
                agent = RLlibAgent(algo.get_module(policy), rules)
                report = _evaluate(agent, rules, args, args.eval_decks).agents[0]
                low, high = report.advantage_ci
                line += (
                    f", vs {args.baseline} {report.advantage:+.3f} [{low:+.3f}, {high:+.3f}] "
                    f"points per {args.episode} ({args.eval_decks} decks)"
                )
            print(line, flush=True)
        if args.checkpoint:
            saved = algo.save_to_path(args.checkpoint)
            save_rules(saved, env_config)
            print(
                f"saved {saved}; evaluate it with: rams eval {saved} --variant {args.variant} "
                f"--num-players {args.num_players} --baseline heuristic"
            )
        agent = RLlibAgent(algo.get_module(policy), rules)
        algo.stop()
    finally:
        ray.shutdown()
    result = _evaluate(agent, rules, args, args.decks)
    print(result.table())
    return result


if __name__ == "__main__":
    main()
