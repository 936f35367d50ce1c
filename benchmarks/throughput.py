"""Training throughput against peers: agent steps per second with the acting player's observation
and action mask produced at every step and uniformly random legal actions, in one run with
alternating rounds so that every contender shares the machine's noise.

Run: ``pip install -e ".[bench]" && python -m benchmarks.throughput [--rounds 5 --seconds 2]``.
Contenders: rams_env's AEC env, its batched env (compiled engine) in one process and over every
core, the batched env over the pure-Python reference engine, the raw reference engine (no
observation), PettingZoo ``texas_holdem_v4`` and
``gin_rummy_v4``, RLCard ``uno`` (its state dict holds the observation), OpenSpiel ``hearts`` and
``oh_hell`` through pyspiel with ``make_observation``. A peer that is not installed is reported as
such. Ratios are rams_env batched (one process) over the contender.
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from benchmarks.env_speed import aec_runner, hearts_runner, measure, print_table, rams_runner, texas_runner
from rams_env import compiled
from rams_env.compiled.random_policy import random_legal_actions
from rams_env.compiled.workspace import mt_states
from rams_env.envs import BatchedRamsEnv, ReferenceBatchedRamsEnv, SubprocBatchedRamsEnv
from rams_env.options import arg, options_parser
from rams_env.rules import Game, Phase, make_config

Runner = Callable[[float], int]
HEADLINE = "rams_env batched, 1 process"


def batched_runner(env: BatchedRamsEnv | SubprocBatchedRamsEnv | ReferenceBatchedRamsEnv) -> Runner:
    """Steps of a batched env (one step = one agent decision in one game); the uniformly random
    legal actions are drawn by a compiled helper, as a trained policy would be batched."""
    rng = mt_states()
    compiled.mt_seed(rng, 0)
    state = {"out": env.reset(seed=0)}
    actions = np.empty(env.num_games, np.int64)

    def run(seconds: float) -> int:
        steps, deadline = 0, time.perf_counter() + seconds
        out = state["out"]
        while time.perf_counter() < deadline:
            random_legal_actions(out.action_masks, rng, actions)
            out = env.step(actions)
            steps += len(actions)
        state["out"] = out
        return steps

    return run


def engine_runner(variant: str = "mattmar", num_players: int = 4) -> Runner:
    """The reference engine alone: legal actions and a random legal action per step."""
    config = make_config(variant, num_players)
    chooser = random.Random(0)

    def run(seconds: float) -> int:
        steps, deadline = 0, time.perf_counter() + seconds
        while time.perf_counter() < deadline:
            game = Game(config, seed=chooser.getrandbits(63))
            while game.phase < Phase.DEAL_OVER:
                legal = game.legal_actions()
                game.apply(legal[chooser.randrange(len(legal))])
                steps += 1
        return steps

    return run


def gin_rummy_runner() -> Runner:
    """PettingZoo gin_rummy_v4 (needs pettingzoo[classic])."""
    from pettingzoo.classic import gin_rummy_v4

    return aec_runner(gin_rummy_v4.env())


def rlcard_runner(name: str = "uno") -> Runner:
    """RLCard: ``env.step`` returns the next state, whose ``obs`` and ``legal_actions`` are read."""
    import rlcard

    env = rlcard.make(name, config={"seed": 0})
    chooser = random.Random(0)

    def run(seconds: float) -> int:
        steps, deadline = 0, time.perf_counter() + seconds
        while time.perf_counter() < deadline:
            state, _ = env.reset()
            while not env.is_over():
                legal = list(state["legal_actions"])
                _ = state["obs"]
                state, _ = env.step(legal[chooser.randrange(len(legal))])
                steps += 1
        return steps

    return run


def oh_hell_runner() -> Runner:
    """OpenSpiel oh_hell with its observation tensor read at every decision."""
    return hearts_runner("oh_hell")


def contenders(workers: int) -> dict[str, Callable[[], Runner]]:
    """Name -> factory of a runner; factories raise ImportError for a missing peer."""
    return {
        "rams_env env() AEC, mattmar 4p": rams_runner,
        HEADLINE: lambda: batched_runner(BatchedRamsEnv(256, seed=0)),
        f"rams_env batched, {workers} processes (copy=False)": lambda: batched_runner(
            SubprocBatchedRamsEnv(1024 * workers, workers=workers, seed=0, copy=False)
        ),
        "rams_env batched, Python reference engine": lambda: batched_runner(ReferenceBatchedRamsEnv(64, seed=0)),
        "rams_env raw engine (no observation)": engine_runner,
        "pettingzoo texas_holdem_v4": texas_runner,
        "pettingzoo gin_rummy_v4": gin_rummy_runner,
        "rlcard uno": rlcard_runner,
        "open_spiel hearts": hearts_runner,
        "open_spiel oh_hell": oh_hell_runner,
    }


@dataclass(kw_only=True)
class ThroughputArgs:
    """The options of ``python -m benchmarks.throughput``."""

    rounds: int = arg(5, "alternating rounds per contender", low=1)
    seconds: float = arg(2.0, "seconds per contender per round", low=0, open_low=True)
    workers: int = arg(os.cpu_count() or 1, "processes of the multi-core run", low=1)


def main() -> None:
    parser = options_parser(__doc__.splitlines()[0], ThroughputArgs, validate=True)
    args = parser.parse_args()
    rates = measure(contenders(args.workers), args.rounds, args.seconds)
    print_table(rates, HEADLINE, args.rounds, args.seconds)


if __name__ == "__main__":
    main()
