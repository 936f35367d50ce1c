"""The compiled heuristic against ``HeuristicAgent``: decisions per second, evaluation time, and a long
decision-by-decision comparison.

- Decisions: the same recorded observations (whole ramsar, mattmar, 4 players) decided by the Python
  agent and by the compiled twin inside a compiled loop (as the batched env calls it); the ratio.
- Evaluation: ``evaluate`` of a policy against three heuristics over 400 decks of whole ramsar
  (1,600 ramsar and the 400 of the heuristics alone), on the batched compiled path; and the Python
  path on a tenth of the decks, scaled.
- ``--compare N``: N decisions per preset at every table size, both agents on every observation
  (whole ramsar from the start score and from random scores, some seats playing at random); exits 1
  on a difference.

Run: ``python -m benchmarks.heuristic_speed [--compare 1000000]``.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass

import numpy as np

from rams_env.agents import HeuristicAgent
from rams_env.agents.base import observe
from rams_env.agents.compiled_heuristic import CompiledHeuristicAgent, compare_agents
from rams_env.compiled import config_array
from rams_env.compiled import heuristic as twin
from rams_env.compiled.compiler import jit
from rams_env.envs import next_deal_or_end
from rams_env.options import arg, options_parser
from rams_env.rules import Game, make_config
from rams_env.rules.config import PRESETS


@jit
def _decide_all(observations, legal, c, mt, work, iwork, out) -> None:
    for i in range(observations.shape[0]):
        out[i] = twin.heuristic_action(observations[i], c, legal[i], mt, work, iwork)


def decision_speed(ramsar: int = 40) -> tuple[float, float]:
    """Python and compiled decisions per second on the observations of ``ramsar`` whole ramsar."""
    config = make_config("mattmar", 4)
    records = []
    for g in range(ramsar):
        game, agent = Game(config, seed=g), HeuristicAgent(config, seed=g)
        while True:
            while (seat := game.current) >= 0:
                obs = observe(game, seat)
                records.append(obs)
                game.apply(agent.act(obs))
            if next_deal_or_end(game, "rams"):
                break
    observations = np.stack([r["observation"] for r in records])
    bits = np.left_shift(1, np.arange(60, dtype=np.int64))
    legal = np.array([int(r["action_mask"].astype(np.int64) @ bits) for r in records], np.int64)
    c = config_array(config, "rams", "win")
    mt = CompiledHeuristicAgent(config, seed=1).mt
    work, iwork = np.zeros(twin.WORK_SIZE), np.zeros(twin.WORK_SIZE, np.int64)
    out = np.zeros(len(records), np.int64)
    _decide_all(observations[:10], legal[:10], c, mt, work, iwork, out)  # compile
    python = HeuristicAgent(config, seed=1)
    t_python = t_compiled = 0.0
    for _ in range(3):  # alternated, so that a busy machine slows both alike
        started = time.perf_counter()
        for r in records[::4]:
            python.act(r)
        t_python += (time.perf_counter() - started) / len(records[::4])
        started = time.perf_counter()
        _decide_all(observations, legal, c, mt, work, iwork, out)
        t_compiled += (time.perf_counter() - started) / len(records)
    return 3 / t_python, 3 / t_compiled


def evaluation_time(decks: int = 400) -> tuple[float, float]:
    """Seconds for ``decks`` decks of whole ramsar of a policy against three heuristics: the batched
    path, and the Python path (on a tenth of the decks, scaled)."""
    import torch

    from rams_env.agents.neural import PolicyAgent
    from rams_env.eval import agent_source, evaluate
    from rams_env.obs import OBS_SIZE
    from rams_env.policy import PolicyNet
    from rams_env.rules.actions import NUM_ACTIONS

    torch.set_num_threads(1)
    config = make_config("mattmar", 4)
    torch.manual_seed(0)
    agent = PolicyAgent(PolicyNet(OBS_SIZE, NUM_ACTIONS, (512, 512)), config)
    heuristic = agent_source("heuristic", config)
    common = dict(seed=7000001, episode="rams", progress=False)
    evaluate({"policy": agent}, heuristic, config, decks=2, **common)  # compile
    started = time.perf_counter()
    evaluate({"policy": agent}, heuristic, config, decks=decks, batched=True, **common)
    batched = time.perf_counter() - started
    started = time.perf_counter()
    evaluate({"policy": agent}, heuristic, config, decks=max(1, decks // 10), batched=False, **common)
    python = (time.perf_counter() - started) * decks / max(1, decks // 10)
    return batched, python


@dataclass(kw_only=True)
class HeuristicSpeedArgs:
    """The options of ``python -m benchmarks.heuristic_speed``."""

    compare: int = arg(0, "decisions per preset to compare", low=0, metavar="N")
    decks: int = arg(400, "decks of the evaluation timing (4 ramsar each)", low=1)


def main() -> None:
    parser = options_parser(__doc__.splitlines()[0], HeuristicSpeedArgs, validate=True)
    args = parser.parse_args()
    python, compiled = decision_speed()
    print(
        f"heuristic decisions/s: Python {python:,.0f}, compiled {compiled:,.0f}: {compiled / python:.0f}x", flush=True
    )
    batched, slow = evaluation_time(args.decks)
    print(
        f"{args.decks * 4} whole ramsar of a policy against three heuristics (+ {args.decks} of heuristics alone): "
        f"batched compiled {batched:.1f} s, Python path {slow:.0f} s (scaled from a tenth): {slow / batched:.1f}x",
        flush=True,
    )
    if args.compare:
        for variant in PRESETS:
            started = time.perf_counter()
            made, differ = compare_agents(variant, args.compare, seed=4242)
            print(f"{variant}: {made:,} decisions, {len(differ)} differences ({time.perf_counter() - started:.0f} s)")
            if differ:
                print("\n".join(differ[:10]))
                sys.exit(1)


if __name__ == "__main__":
    main()
