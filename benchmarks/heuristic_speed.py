"""The compiled heuristic against ``HeuristicAgent``: decisions per second, evaluation time, and a long
decision-by-decision comparison.

- Decisions: the same recorded observations (whole ramsar, mattmar, 4 players) decided by the Python
  agent and by the compiled twin inside a compiled loop (as the batched env calls it); the ratio; and the
  twin's decisions/s by phase, over the decisions with a choice.
- Evaluation: ``evaluate`` of a policy against three heuristics over 400 decks of whole ramsar
  (1,600 ramsar and the 400 of the heuristics alone), on the batched compiled path; and the Python
  path on a tenth of the decks, scaled.
- ``--compare N``: N decisions per preset at every table size, both agents on every observation
  (whole ramsar from the start score and from random scores, some seats playing at random); exits 1
  on a difference.

- Seats: the batched env's decisions of every seat a second with three heuristic seats, against self-play
  with random legal actions, in the same run.

Run: ``python -m benchmarks.heuristic_speed [--compare 1000000]``.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass

import numba
import numpy as np

from rams_env import make
from rams_env.agents import HeuristicAgent
from rams_env.agents.base import observe
from rams_env.agents.compiled_heuristic import CompiledHeuristicAgent, compare_agents
from rams_env.compiled import config_array
from rams_env.compiled import heuristic as twin
from rams_env.compiled.workspace import mt_state
from rams_env.envs import next_deal_or_end
from rams_env.options import arg, options_parser
from rams_env.rules import Game, make_config
from rams_env.rules.config import PRESETS


@numba.njit(nogil=True)  # not cached: numba's cache of this file would keep the heuristic it was compiled with
def _decide_all(observations, legal, c, mt, work, iwork, out) -> None:
    for i in range(observations.shape[0]):
        out[i] = twin.heuristic_action(observations[i], c, legal[i], mt, work, iwork)


def decision_speed(ramsar: int = 40) -> tuple[float, float, dict[str, tuple[int, float]]]:
    """Python and compiled decisions per second on the observations of ``ramsar`` whole ramsar; and by phase,
    of the decisions with a choice (more than one legal action), their count and the compiled decisions/s."""
    config = make_config("mattmar", 4)
    records, phases = [], []
    for g in range(ramsar):
        game, agent = Game(config, seed=g), HeuristicAgent(config, seed=g)
        while True:
            while (seat := game.current) >= 0:
                obs = observe(game, seat)
                records.append(obs)
                phases.append(game.phase.name.lower())
                game.apply(agent.act(obs))
            if next_deal_or_end(game, "rams"):
                break
    observations = np.stack([r["observation"] for r in records])
    bits = np.left_shift(1, np.arange(60, dtype=np.int64))
    legal = np.array([int(r["action_mask"].astype(np.int64) @ bits) for r in records], np.int64)
    c = config_array(config, "rams", "win")
    mt = mt_state(1)
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
    by_phase = {}
    chosen = legal & (legal - 1) != 0
    for phase in dict.fromkeys(phases):
        rows = np.flatnonzero(chosen & (np.array(phases) == phase))
        if len(rows):
            seconds = min(_timed(observations[rows], legal[rows], c, mt, work, iwork) for _ in range(3))
            by_phase[phase] = (len(rows), len(rows) / seconds)
    return 3 / t_python, 3 / t_compiled, by_phase


def _timed(observations: np.ndarray, legal: np.ndarray, c: np.ndarray, *scratch: np.ndarray) -> float:
    """Seconds for the compiled heuristic to decide ``observations``, from passes over them for 0.2 s."""
    out = np.zeros(len(observations), np.int64)
    passes, started = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - started) < 0.2:
        _decide_all(observations, legal, c, *scratch, out)
        passes += 1
    return elapsed / passes


def seat_speed(steps: int = 400, games: int = 256, ramsar: int = 200) -> tuple[float, float, float]:
    """Decisions of every seat a second in the batched env (mattmar, 4 players, whole ramsar, one thread):
    self-play with random legal actions, and one random learner against three compiled heuristics, alternated
    (best of three); and the decisions of every seat per learner decision at that table, counted over ``ramsar``
    ramsar in the AEC env (the batched env reports the learner's only)."""
    from rams_env.compiled.random_policy import random_legal_actions

    def rate(env) -> float:
        masks, rng, actions = env.reset().action_masks, mt_state(0), np.zeros(games, np.int64)
        for _ in range(20):  # warm-up (compiling)
            random_legal_actions(masks, rng, actions)
            masks = env.step(actions).action_masks
        started = time.perf_counter()
        for _ in range(steps):
            random_legal_actions(masks, rng, actions)
            masks = env.step(actions).action_masks
        return games * steps / (time.perf_counter() - started)

    kwargs = dict(num_envs=games, episode="rams", reward="win", seed=0)
    selfplay = make("mattmar", "batched", **kwargs)
    mixed = make("mattmar", "batched", seats=["learner"] + ["heuristic"] * 3, **kwargs)
    best_selfplay = best_mixed = 0.0
    for _ in range(3):
        best_selfplay, best_mixed = max(best_selfplay, rate(selfplay)), max(best_mixed, rate(mixed))
    return best_selfplay, best_mixed * _seat_decisions_per_learner(ramsar), _seat_decisions_per_learner(ramsar)


def _seat_decisions_per_learner(ramsar: int) -> float:
    """Every seat's decisions per decision of seat 0 (uniformly random) against three heuristics, whole ramsar."""
    config = make_config("mattmar", 4)
    env = make("mattmar", "aec", episode="rams")
    chooser = np.random.default_rng(0)
    players = [None] + [CompiledHeuristicAgent(config, seed=s) for s in (1, 2, 3)]
    learner = total = 0
    for r in range(ramsar):
        env.reset(seed=r)
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            seat = env.seat_of(agent)
            total += 1
            learner += seat == 0
            player = players[seat]
            env.step(int(chooser.choice(np.flatnonzero(obs["action_mask"]))) if player is None else player.act(obs))
    return total / learner


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
    python, compiled, by_phase = decision_speed()
    print(
        f"heuristic decisions/s: Python {python:,.0f}, compiled {compiled:,.0f}: {compiled / python:.0f}x", flush=True
    )
    phases = ", ".join(f"{phase} {rate:,.0f} ({count})" for phase, (count, rate) in by_phase.items())
    print(f"compiled decisions/s by phase (of the decisions with a choice, their count): {phases}", flush=True)
    selfplay, mixed, per_learner = seat_speed()
    print(
        f"batched env, decisions of every seat/s (256 games, whole ramsar): self-play with random actions "
        f"{selfplay:,.0f}; a random learner and three heuristics {mixed:,.0f} ({per_learner:.2f} a learner "
        f"decision): {mixed / selfplay:.2f}x",
        flush=True,
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
