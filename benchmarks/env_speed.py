"""Environment speed against peers: random legal play, the acting player's observation read at
every step, measured in one run with alternating rounds so that the peers share the noise.

Run: ``pip install -e ".[bench]" && python -m benchmarks.env_speed [--rounds 5 --seconds 1]``.
Peers: PettingZoo ``texas_holdem_v4`` (needs rlcard) and OpenSpiel ``hearts`` through pyspiel
with ``open_spiel.python.observation.make_observation`` (hearts only has an information-state
tensor, so that is the observation read). A peer that is not installed is reported as such.
"""

from __future__ import annotations

import os
import platform
import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

import rams_env
from rams_env.options import arg, options_parser


def aec_runner(env) -> Callable[[float], int]:
    """Steps of a PettingZoo AEC env with action masks in about ``seconds``: observation and mask
    read at every step, a uniformly random legal action."""
    chooser = random.Random(0)
    env.reset(seed=0)

    def run(seconds: float) -> int:
        steps, deadline = 0, time.perf_counter() + seconds
        while time.perf_counter() < deadline:
            env.reset()
            for _ in env.agent_iter():
                obs, _, term, trunc, _ = env.last()
                if term or trunc:
                    env.step(None)
                    continue
                legal = np.flatnonzero(obs["action_mask"])
                env.step(int(legal[chooser.randrange(len(legal))]))
                steps += 1
        return steps

    return run


def rams_runner(variant: str = "mattmar", num_players: int = 4) -> Callable[[float], int]:
    """rams_env.env() with the default (points) rewards, one deal per episode."""
    return aec_runner(rams_env.env(variant=variant, num_players=num_players))


def texas_runner() -> Callable[[float], int]:
    """PettingZoo texas_holdem_v4 (needs pettingzoo[classic])."""
    from pettingzoo.classic import texas_holdem_v4

    return aec_runner(texas_holdem_v4.env())


def hearts_runner(name: str = "hearts") -> Callable[[float], int]:
    """Player decisions of an OpenSpiel game (hearts by default), the acting player's observation
    tensor read each time."""
    import pyspiel
    from open_spiel.python.observation import make_observation

    game = pyspiel.load_game(name)
    observation = make_observation(game, pyspiel.IIGObservationType(perfect_recall=True))
    chooser = random.Random(0)

    def run(seconds: float) -> int:
        steps, deadline = 0, time.perf_counter() + seconds
        while time.perf_counter() < deadline:
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes = state.chance_outcomes()
                    state.apply_action(outcomes[chooser.randrange(len(outcomes))][0])
                    continue
                observation.set_from(state, state.current_player())
                legal = state.legal_actions()
                state.apply_action(legal[chooser.randrange(len(legal))])
                steps += 1
        return steps

    return run


def measure(makers: dict[str, Callable[[], Callable[[float], int]]], rounds: int, seconds: float) -> dict[str, float]:
    """Median steps/s of each contender over alternating rounds; a peer that cannot be built is reported."""
    runners, rates = {}, {}
    for name, make in makers.items():
        try:
            runners[name] = make()
            rates[name] = []
        except ImportError as err:
            print(f"{name}: not available ({err}); pip install -e '.[bench]'")
    for run in runners.values():  # warm-up: compiled-code caches, first allocations
        run(min(0.2, seconds))
    for _ in range(rounds):
        for name, run in runners.items():
            start = time.perf_counter()
            steps = run(seconds)
            rates[name].append(steps / (time.perf_counter() - start))
    return {name: statistics.median(values) for name, values in rates.items()}


def print_table(rates: dict[str, float], headline: str, rounds: int, seconds: float) -> None:
    """The machine, then a markdown table of steps/s and the ratio of ``headline`` to each contender."""
    print(
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"{rounds} rounds x {seconds:g} s, median steps/s"
    )
    print(f"| contender | steps/s | {headline} / it |\n|---|---:|---:|")
    for name, rate in rates.items():
        print(f"| {name} | {rate:,.0f} | {rates[headline] / rate:.2f}x |")


@dataclass(kw_only=True)
class EnvSpeedArgs:
    """The options of ``python -m benchmarks.env_speed``."""

    rounds: int = arg(5, "alternating rounds per contender", low=1)
    seconds: float = arg(1.0, "seconds per contender per round", low=0, open_low=True)


def main() -> None:
    parser = options_parser(__doc__.splitlines()[0], EnvSpeedArgs, validate=True)
    args = parser.parse_args()
    makers = {
        "rams_env.env() mattmar 4p": rams_runner,
        "pettingzoo texas_holdem_v4": texas_runner,
        "open_spiel hearts (make_observation)": hearts_runner,
    }
    rates = measure(makers, args.rounds, args.seconds)
    print_table(rates, "rams_env.env() mattmar 4p", args.rounds, args.seconds)


if __name__ == "__main__":
    main()
