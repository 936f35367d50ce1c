"""How close the search's worlds come to the true deal: uniform, filtered by decisions, and learned.

For 4-player deals played by the compiled heuristic (seeds 0 to ``--deals - 1``, which the belief
network's collection never plays: ``rams_training.beliefs.FIRST_SEED``), at the first decision of the
third trick with a choice. For each way of drawing the worlds, 20 worlds per decision:

- ``placed``: the share of the other hands' cards that a world places in the right hand;
- ``log-lik``: the mean log-probability of each hidden card's true place (each other hand, the talon,
  the face-down cards), estimated from the 20 worlds (add-one smoothing over the places with room);
  the learned network's own probabilities give ``net log-lik``;
- ``agrees``: how often the search (20 worlds, no confidence margin) chooses the action that the same
  search on the true deal chooses.

The ways: uniform re-deals; worlds filtered by the heuristic as opponent model (``opponent_model``) at
two strengths; worlds drawn from the learned beliefs (``beliefs``), alone and filtered.

Run: ``python -m benchmarks.belief_accuracy [--deals 60] [--variant mattmar] [--beliefs NAME_OR_FILE]``
(``--beliefs`` defaults to the preset's network in the zoo; ``--beliefs none`` leaves the learned rows out).
"""

from __future__ import annotations

import json
import math
import random
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from rams_env.agents import OracleAgent, SearchAgent
from rams_env.agents.beliefs import load_beliefs_option
from rams_env.agents.compiled_heuristic import CompiledHeuristicAgent
from rams_env.agents.deal_sampler import DealSampler
from rams_env.agents.search import believed_worlds
from rams_env.apps.cli.options import RulesOptions
from rams_env.eval.stats import wilson_interval
from rams_env.obs.beliefs import NOT_HIDDEN, hidden_places, place_room
from rams_env.options import arg, options_parser
from rams_env.policy.checkpoint import write_atomically
from rams_env.rules import Game, Phase, make_config

WORLDS = 20  # worlds drawn per decision, for every figure
FILTERS = {  # name: SearchAgent keywords of the filter by the opponents' decisions
    "uniform": {},
    "filtered, noise 0.1, 8 draws (default)": {"opponent_model": "heuristic"},
    "filtered, noise 0.02, 32 draws": {"opponent_model": "heuristic", "belief_noise": 0.02, "belief_draws": 32},
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


def world_figures(game: Game, worlds: list[Game]) -> tuple[int, int, float, int]:
    """For worlds drawn for the seat to act: other hands' cards placed right, their number (over all
    worlds), the summed log-probability of the hidden cards' true places (smoothed frequencies), and the
    number of hidden cards."""
    seat = game.current
    truth = hidden_places(game, seat)
    hidden = np.flatnonzero(truth != NOT_HIDDEN)
    places = np.stack([hidden_places(w, seat) for w in worlds])  # worlds x cards
    room = place_room(game, seat) > 0
    in_hands = [c for c in hidden if truth[c] < len(room) - 2]
    right = int(sum((places[:, c] == truth[c]).sum() for c in in_hands))
    loglik = sum(math.log(((places[:, c] == truth[c]).sum() + 1) / (len(worlds) + room.sum())) for c in hidden)
    return right, len(in_hands) * len(worlds), loglik, len(hidden)


def net_log_likelihood(beliefs: Any, game: Game) -> tuple[float, int]:
    """The learned network's summed log-probability of the hidden cards' true places, and their number."""
    seat = game.current
    truth = hidden_places(game, seat)
    probs = beliefs.probabilities(game, seat)
    hidden = np.flatnonzero(truth != NOT_HIDDEN)
    return float(np.log(probs[hidden, truth[hidden]]).sum()), len(hidden)


def figures_of(per_deal: np.ndarray, resamples: int = 2000) -> dict[str, Any]:
    """The figures of a way of drawing worlds from its per-deal sums (right, total, log-likelihood, hidden,
    agrees), with 95% intervals: bootstrap over the deals for the placement, Wilson for the agreement."""
    right, total, loglik, hidden, agrees = per_deal.T
    rng = np.random.default_rng(0)
    picks = rng.integers(0, len(per_deal), size=(resamples, len(per_deal)))
    placed = right[picks].sum(1) / total[picks].sum(1)
    return {
        "placed": right.sum() / total.sum(),
        "placed_ci": [float(q) for q in np.quantile(placed, [0.025, 0.975])],
        "log_likelihood": loglik.sum() / hidden.sum(),
        "agrees": agrees.mean(),
        "agrees_ci": list(wilson_interval(agrees.sum(), len(agrees))),
    }


@dataclass(kw_only=True)
class BeliefArgs:
    """The options of ``python -m benchmarks.belief_accuracy`` but the rules' (:class:`RulesOptions`)."""

    deals: int = arg(60, "deals", low=1)
    beliefs: str = arg("", "learned beliefs: a zoo name or belief file (default: the preset's; 'none': leave out)")
    json: str = arg("", "also write the figures to this JSON file (docs/beliefs/ holds the docs' own)")


def main(argv: list[str] | None = None) -> None:
    parser = options_parser(__doc__.splitlines()[0], (RulesOptions, ["variant"]), BeliefArgs, validate=True)
    args = parser.parse_args(argv)
    states = third_trick_states(args.variant, args.deals)
    model = CompiledHeuristicAgent(make_config(args.variant, 4), seed=1)
    learned = None if args.beliefs == "none" else load_beliefs_option(args.beliefs or args.variant)
    settings: dict[str, dict[str, Any]] = dict(FILTERS)
    if learned is not None:
        settings["learned"] = {"beliefs": learned}
        settings["learned, filtered (noise 0.1, 8 draws)"] = {"beliefs": learned, "opponent_model": "heuristic"}
    print(f"{args.variant}, {len(states)} third-trick decisions, {WORLDS} worlds each")
    print(f"{'worlds':42s} {'placed':>7s} {'log-lik':>8s} {'agrees':>7s}   95% intervals: placed, agrees")
    report: dict[str, Any] = {"variant": args.variant, "deals": args.deals, "decisions": len(states), "worlds": WORLDS}
    report["beliefs"] = None if learned is None else (args.beliefs or args.variant)
    report["rows"] = {}
    oracle = [OracleAgent(simulations=20, seed=i, confidence=0).search(g, g.current)[0] for i, g in enumerate(states)]
    for name, options in settings.items():
        per_deal = []  # right, total, log-likelihood, hidden, agrees
        for i, game in enumerate(states):
            seat = game.current
            sample = options["beliefs"].worlds(game, seat) if "beliefs" in options else DealSampler(game, seat).sample
            if "opponent_model" in options:
                noise, draws = options.get("belief_noise", 0.1), options.get("belief_draws", 8)
                sample = believed_worlds(sample, game, model, noise, draws)
            rng = random.Random(i)
            agent = SearchAgent(simulations=20, seed=i, confidence=0, **options)
            agrees = agent.search(game, seat)[0] == oracle[i]
            per_deal.append((*world_figures(game, [sample(rng) for _ in range(WORLDS)]), agrees))
        row = figures_of(np.asarray(per_deal, dtype=np.float64))
        report["rows"][name] = row
        (low, high), (a_low, a_high) = row["placed_ci"], row["agrees_ci"]
        print(
            f"{name:42s} {row['placed']:7.3f} {row['log_likelihood']:8.3f} {row['agrees']:7.3f}   "
            f"[{low:.3f}, {high:.3f}] [{a_low:.3f}, {a_high:.3f}]"
        )
    if learned is not None:
        sums = [net_log_likelihood(learned, g) for g in states]
        report["net_log_likelihood"] = sum(s for s, _ in sums) / sum(k for _, k in sums)
        print(f"net log-lik (the network's own probabilities): {report['net_log_likelihood']:.3f}")
    if args.json:
        report["reproduce"] = "python -m benchmarks.belief_accuracy " + " ".join(
            argv if argv is not None else sys.argv[1:]
        )
        write_atomically(Path(args.json), lambda f: f.write(json.dumps(report, indent=1).encode()))


if __name__ == "__main__":
    main()
