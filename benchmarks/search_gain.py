"""What a search adds to the agent it searches over: both on the same whole ramsar, seat for seat.

The reference (``--reference``, by default the preset's flagship) and the search (``--search``, an agent
spec of ``rams eval``) each play every deck of the report set in every seat against three heuristics,
as ``rams eval A B --baseline heuristic --episode rams`` plays them (the same deals, the same agent
seeds: the reference's figures are those of ``rams eval``). The gain is the search's win share less the
reference's, with a 95% bootstrap interval over the decks (each deck's four seats stay together:
a paired interval). Before the ramsar, the search's seconds per decision with a choice are timed in
this process, on one torch thread (``--time-decisions``).

A long job: decks are played in chunks of ``--chunk`` over ``--workers`` processes, and after each chunk
the results so far are written atomically to ``--out``; running the same command again resumes there
(other options are refused by name).

Run: ``python -m benchmarks.search_gain --variant mattmar --decks 400 --out runs/gain-mattmar.json \\
--search search:simulations=10,base=mattmar,rollout_policy=mattmar-4p,objective=win,beliefs=mattmar``.
"""

from __future__ import annotations

import json
import multiprocessing
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from tqdm.auto import tqdm

from rams_env.agents.specs import build_agent
from rams_env.apps.cli.options import RulesOptions
from rams_env.eval import agent_source
from rams_env.eval.deals import REPORT_SEED
from rams_env.eval.play import play_decks
from rams_env.eval.stats import bootstrap_interval
from rams_env.options import REQUIRED, SEED, arg, options_parser
from rams_env.policy.checkpoint import write_atomically
from rams_env.rules import Game, Phase, RulesConfig, make_config
from rams_env.zoo import FLAGSHIPS

ROLES = ("reference", "search")


@dataclass
class PairJob:
    """Each deck's games: the reference in each seat, then the search in each seat, heuristics elsewhere."""

    config: RulesConfig
    seed: int
    agents: tuple[tuple[str, Any], tuple[str, Any]]
    heuristic: Any
    episode: str = "rams"
    scores: str = "start"

    def lineups(self, index: int) -> Iterator[list[tuple[str, Any]]]:
        n = self.config.num_players
        for agent in self.agents:
            for seat in range(n):
                lineup = [("heuristic", self.heuristic)] * n
                lineup[seat] = agent
                yield lineup


def _play(job: PairJob, indices: list[int]) -> list[list[list[float]]]:
    """Per deck of ``indices``: the win share of the tested seat, reference then search, seat by seat."""
    import torch

    torch.set_num_threads(1)
    n = job.config.num_players
    out = []
    for records in play_decks(job, indices):
        wins = [records[k * n + s].wins[s] for k in range(2) for s in range(n)]
        out.append([wins[:n], wins[n:]])
    return out


def time_decisions(spec: str, config: RulesConfig, decisions: int, seed: int = 0) -> dict[str, float]:
    """The search's seconds per decision with a choice, in seat 0 of whole ramsar against heuristics."""
    import torch

    torch.set_num_threads(1)
    heuristic = build_agent(agent_source("heuristic", config), seed)
    search = build_agent(agent_source(spec, config), seed)
    times: list[float] = []
    game = Game(config, seed)
    while len(times) < decisions:
        if game.phase >= Phase.DEAL_OVER:
            game = Game(config, seed + len(times) + 1) if game.rams_over else game
            if game.phase >= Phase.DEAL_OVER:
                game.next_deal()
            continue
        seat = game.current
        if seat == 0 and len(game.legal_actions()) > 1:
            start = time.perf_counter()
            action = search.act_game(game, seat)
            times.append(time.perf_counter() - start)
        else:
            action = (search if seat == 0 else heuristic).act_game(game, seat)
        game.apply(action)
    return {"mean": float(np.mean(times)), "p95": float(np.quantile(times, 0.95)), "max": float(max(times))}


def summary(wins: dict[str, list[list[float]]], seed: int) -> dict[str, Any]:
    """Win shares with their intervals, and the paired gain of the search over the reference."""
    per_deck = {role: np.asarray(wins[role]).mean(axis=1) for role in ROLES}
    out: dict[str, Any] = {"decks": len(per_deck["search"]), "ramsar": int(np.asarray(wins["search"]).size)}
    for role in ROLES:
        out[f"{role}_win_share"] = float(per_deck[role].mean())
        out[f"{role}_ci"] = list(bootstrap_interval(per_deck[role], seed=seed))
    gain = per_deck["search"] - per_deck["reference"]
    out["gain"] = float(gain.mean())
    out["gain_ci"] = list(bootstrap_interval(gain, seed=seed))
    return out


@dataclass(kw_only=True)
class GainArgs:
    """The options of ``python -m benchmarks.search_gain`` but the rules' (:class:`RulesOptions`)."""

    search: str = arg(REQUIRED, "the search, an agent spec of rams eval")
    reference: str = arg("", "the agent it searches over (default: the preset's flagship)")
    decks: int = arg(400, "decks of four ramsar each", low=1)
    seed: int = arg(REPORT_SEED, "seed of the deals (the report set)", check=SEED)
    chunk: int = arg(10, "decks between two writes of the results", low=1)
    workers: int = arg(2, "processes", low=1)
    time_decisions: int = arg(100, "decisions timed before the ramsar (0: none)", low=0)
    out: str = arg(REQUIRED, "the results file (JSON), resumed from when it exists")


def main(argv: list[str] | None = None) -> None:
    parser = options_parser(__doc__.splitlines()[0], (RulesOptions, ["variant"]), GainArgs, validate=True)
    args = parser.parse_args(argv)
    config = make_config(args.variant, 4)
    reference = args.reference or FLAGSHIPS[args.variant]
    options = {"variant": args.variant, "search": args.search, "reference": reference, "seed": args.seed}
    out = Path(args.out)
    state: dict[str, Any] = {"options": options, "wins": {role: [] for role in ROLES}}
    state["reproduce"] = "python -m benchmarks.search_gain " + " ".join(argv if argv is not None else sys.argv[1:])
    if out.exists():
        state = json.loads(out.read_text())
        differ = [k for k in options if state["options"].get(k) != options[k]]
        if differ:
            raise SystemExit(f"{out} holds results of other {', '.join(differ)}; use another --out")
    if args.time_decisions and "seconds_per_decision" not in state:
        state["seconds_per_decision"] = time_decisions(args.search, config, args.time_decisions)
        print("seconds per decision:", json.dumps(state["seconds_per_decision"]))
    job = PairJob(
        config,
        args.seed,
        ((reference, agent_source(reference, config)), (args.search, agent_source(args.search, config))),
        agent_source("heuristic", config),
    )
    done = len(state["wins"]["search"])
    bar = tqdm(total=args.decks, initial=min(done, args.decks), desc="decks", unit="deck")
    ctx = multiprocessing.get_context("spawn")
    with bar, ProcessPoolExecutor(max_workers=args.workers, mp_context=ctx) as pool:
        for start in range(done, args.decks, args.chunk):
            indices = list(range(start, min(args.decks, start + args.chunk)))
            parts = [indices[k :: args.workers] for k in range(args.workers) if indices[k :: args.workers]]
            by_index: dict[int, Any] = {}
            for part, results in zip(parts, pool.map(_play, [job] * len(parts), parts), strict=True):
                by_index.update(zip(part, results, strict=True))
            for i in indices:
                for k, role in enumerate(ROLES):
                    state["wins"][role].append(by_index[i][k])
            state.update(summary(state["wins"], args.seed))
            write_atomically(out, lambda f: f.write(json.dumps(state, indent=1).encode()))
            bar.update(len(indices))
            bar.set_postfix(gain=f"{state['gain']:+.3f}")
    print(json.dumps({k: v for k, v in state.items() if k != "wins"}, indent=1))


if __name__ == "__main__":
    main()
