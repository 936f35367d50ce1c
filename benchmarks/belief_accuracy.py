"""How close the search's worlds come to the true deal, with and without beliefs (``opponent_model``).

For 4-player deals played by the compiled heuristic, at the first decision of the third trick with a
choice: the share of the other hands' cards that a sampled world places in the right hand
(``placed``), for uniform re-deals and for worlds filtered by the heuristic as opponent model at two
strengths; and how often the search (20 worlds, no confidence margin) then chooses the action that
the same search on the true deal chooses (``agrees with the oracle``).

Run: ``python -m benchmarks.belief_accuracy [--deals 60] [--variant mattmar]``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from rams_env.agents import OracleAgent, SearchAgent
from rams_env.agents.compiled_heuristic import CompiledHeuristicAgent
from rams_env.agents.deal_sampler import DealSampler
from rams_env.agents.search import believed_worlds
from rams_env.apps.cli.options import RulesOptions
from rams_env.options import arg, options_parser
from rams_env.rules import Game, Phase, make_config

SETTINGS = {  # name: SearchAgent keywords
    "uniform": {},
    "beliefs, noise 0.1, 8 draws (default)": {"opponent_model": "heuristic"},
    "beliefs, noise 0.02, 32 draws": {"opponent_model": "heuristic", "belief_noise": 0.02, "belief_draws": 32},
}


def third_trick_states(variant: str, deals: int) -> list[Game]:
    """One state per deal: the first decision with a choice once two tricks are done."""
    config = make_config(variant, 4)
    heuristic = CompiledHeuristicAgent(config, seed=1)
    states = []
    for seed in range(deals):
        game = Game(config, seed)
        while game.phase < Phase.DEAL_OVER:
            if game.phase == Phase.PLAY and len(game.completed) >= 2 and len(game.legal_actions()) > 1:
                states.append(game.clone())
                break
            game.apply(heuristic.act_game(game, game.current))
    return states


@dataclass(kw_only=True)
class BeliefArgs:
    """The options of ``python -m benchmarks.belief_accuracy`` but the rules' (:class:`RulesOptions`)."""

    deals: int = arg(60, "deals", low=1)


def main(argv: list[str] | None = None) -> None:
    parser = options_parser(__doc__.splitlines()[0], (RulesOptions, ["variant"]), BeliefArgs, validate=True)
    args = parser.parse_args(argv)
    states = third_trick_states(args.variant, args.deals)
    model = CompiledHeuristicAgent(make_config(args.variant, 4), seed=1)
    print(f"{args.variant}, {len(states)} third-trick decisions, 5 worlds each for the placement")
    print(f"{'worlds':42s} {'placed':>7s} {'agrees with the oracle':>23s}")
    oracle = [OracleAgent(simulations=20, seed=i, confidence=0).search(g, g.current)[0] for i, g in enumerate(states)]
    for name, options in SETTINGS.items():
        right = total = agree = 0
        for i, game in enumerate(states):
            seat = game.current
            sample = DealSampler(game, seat).sample
            if options:
                noise, draws = options.get("belief_noise", 0.1), options.get("belief_draws", 8)
                sample = believed_worlds(sample, game, model, noise, draws)
            rng = random.Random(i)
            for _ in range(5):
                world = sample(rng)
                for j in range(4):
                    if j != seat:
                        right += len(set(world.hands[j]) & set(game.hands[j]))
                        total += len(game.hands[j])
            agent = SearchAgent(simulations=20, seed=i, confidence=0, **options)
            agree += agent.search(game, seat)[0] == oracle[i]
        print(f"{name:42s} {right / total:7.3f} {agree / len(states):23.3f}")


if __name__ == "__main__":
    main()
