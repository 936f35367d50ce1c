"""The cost of ``SearchAgent`` per deal: seconds of one searching seat over a 4-player deal, for the
default search, ``objective="win"``, policy rollouts, beliefs (``opponent_model``) and a policy base,
beside the heuristic in the same run.

Each configuration plays the same deals (mattmar, 4 players, seeds 0..N-1, from the start score):
seat 0 searches and the other seats play ``HeuristicAgent``; the time is that of seat 0's decisions
alone, per deal. The ratio column is against ``HeuristicAgent`` in seat 0, measured in the same run.

Run: ``python -m benchmarks.search_speed [--deals 10] [--policy mattmar-4p]``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from rams_env.agents import HeuristicAgent, SearchAgent
from rams_env.options import arg, options_parser
from rams_env.rules import Game, Phase, make_config


def seat_zero_seconds(agent, others, game: Game) -> float:
    """Play ``game``'s deal out, ``agent`` in seat 0 and ``others`` elsewhere; seat 0's seconds deciding."""
    spent = 0.0
    while game.phase < Phase.DEAL_OVER:
        seat = game.current
        if seat == 0:
            start = time.perf_counter()
            action = agent.act_game(game, seat)
            spent += time.perf_counter() - start
        else:
            action = others.act_game(game, seat)
        game.apply(action)
    return spent


def seconds_per_deal(make_agent, deals: int, variant: str = "mattmar") -> float:
    """Mean seconds seat 0's agent spends deciding over one deal, against three heuristics, after one
    deal of warm-up that is not timed (loading a policy, compiling the compiled heuristic)."""
    config = make_config(variant, 4)
    others = HeuristicAgent(config, seed=1)
    seat_zero_seconds(make_agent(deals), others, Game(config, deals))
    return sum(seat_zero_seconds(make_agent(seed), others, Game(config, seed)) for seed in range(deals)) / deals


@dataclass(kw_only=True)
class SearchSpeedArgs:
    """The options of ``python -m benchmarks.search_speed``."""

    deals: int = arg(10, "deals per configuration", low=1)
    policy: str = arg("mattmar-4p", "the policy of the rollouts row (a zoo name or path)")


def main(argv: list[str] | None = None) -> None:
    parser = options_parser(__doc__.splitlines()[0], SearchSpeedArgs, validate=True)
    args = parser.parse_args(argv)
    config = make_config("mattmar", 4)
    rows = [
        ("heuristic", lambda seed: HeuristicAgent(config, seed=seed)),
        ("search (points)", lambda seed: SearchAgent(seed=seed)),
        ("search objective=win", lambda seed: SearchAgent(seed=seed, objective="win")),
        (
            f"search objective=win rollout_policy={args.policy} simulations=10",
            lambda seed: SearchAgent(seed=seed, objective="win", rollout_policy=args.policy, simulations=10),
        ),
        (
            "search opponent_model=heuristic (beliefs)",
            lambda seed: SearchAgent(seed=seed, opponent_model="heuristic"),
        ),
        (
            f"search base={args.policy} opponent_model=heuristic simulations=10",
            lambda seed: SearchAgent(seed=seed, base=args.policy, opponent_model="heuristic", simulations=10),
        ),
    ]
    base = None
    print(f"seconds of one seat's decisions per 4-player mattmar deal, {args.deals} deals")
    for name, make in rows:
        seconds = seconds_per_deal(make, args.deals)
        base = base or seconds
        print(f"{name:55s} {seconds:8.3f} s/deal  {seconds / base:8.0f}x the heuristic")


if __name__ == "__main__":
    main()
