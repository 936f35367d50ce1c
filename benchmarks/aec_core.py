"""Would the AEC env lose speed on the batched core? One game stepped by the AEC env's own driver
(``drivers.game_step``) against the same actions through the core (``core.play``, one game), each with
the call the env would make. Prints microseconds a step and the core's cost as a share of the AEC env's
whole step. ``python -m benchmarks.aec_core`` (issue 62: keep the AEC path apart only if the core costs
it more than 20%).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

import rams_env
from rams_env import compiled
from rams_env.compiled import core
from rams_env.compiled.compiler import entry_point
from rams_env.compiled.layout import COMPLETED, SCORES
from rams_env.compiled.layout import TRICKS_WON as TRICKS
from rams_env.options import arg, options_parser
from rams_env.rules.config import make_config


def actions_of_games(steps: int, seed: int) -> list[int]:
    """The actions of random games played in the AEC env, ``steps`` of them (episodes restart with seeds)."""
    env = rams_env.env()
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    actions: list[int] = []
    while len(actions) < steps:
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.reset(seed=int(rng.integers(2**31)))
            actions.append(-1)  # a new episode: seed
            continue
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        actions.append(action)
        env.step(action)
    return actions


@dataclass(kw_only=True)
class AECCoreArgs:
    """The options of ``python -m benchmarks.aec_core``."""

    steps: int = arg(200_000, "actions of random games replayed by each driver", low=1)
    repeats: int = arg(3, "timed runs of each driver (the best counts)", low=1)


def main() -> None:
    args = options_parser(__doc__.splitlines()[0], AECCoreArgs, validate=True).parse_args()
    config = make_config("mattmar", 4)
    plan = actions_of_games(args.steps, 1)
    moves = [a for a in plan if a >= 0]

    # the AEC env's driver: one buffer, an entry point compiled for its exact types
    backend = rams_env.envs.backends.CompiledBackend(config, "deal")
    # the core on one game, with the entry point compiled for its exact types (the cheapest call it allows)
    cfg = compiled.config_array(config, "deal", "points")
    tables, out = core.make_tables(1), core.make_outputs(1, 4)
    commands, actions = np.full(1, core.ACT, np.int64), np.zeros(1, np.int64)
    play = entry_point(core.play, tables, cfg, commands, actions, out, False)

    def run_aec() -> float:
        start = time.perf_counter()
        backend.start(1)
        for a in plan:
            if a < 0:
                backend.start(1)
            else:
                backend.apply(a)
        return time.perf_counter() - start

    def run_core(reads: bool) -> float:
        """The core; with ``reads``, also what game_step hands the AEC env: score changes, scores, tricks, ends."""
        start = time.perf_counter()
        states, rewards = tables.states, out.rewards
        core.restart(tables, cfg, np.ones(1, np.int64), out, False)
        for a in plan:
            if a < 0:
                core.restart(tables, cfg, np.ones(1, np.int64), out, False)
                continue
            actions[0] = a
            play(tables, cfg, commands, actions, out, False)
            if reads:
                rewards[0].tolist(), states[0, SCORES : SCORES + 4].tolist(), states[0, TRICKS : TRICKS + 4].tolist()
                int(states[0, COMPLETED]), bool(out.over[0]), int(out.seats[0])
        return time.perf_counter() - start

    def whole_aec() -> float:  # the AEC env's whole step, for the share
        env = rams_env.env()
        env.reset(seed=1)
        start = time.perf_counter()
        count = 0
        for a in plan:
            if a < 0:
                env.reset(seed=1)
                continue
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                env.reset(seed=1)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(a) if a in legal else int(legal[0]))
            count += 1
        return (time.perf_counter() - start) / max(count, 1)

    run_aec(), run_core(True)  # compile and warm up
    aec = min(run_aec() for _ in range(args.repeats)) / len(moves)
    core_ = min(run_core(False) for _ in range(args.repeats)) / len(moves)
    reads = min(run_core(True) for _ in range(args.repeats)) / len(moves)
    whole = min(whole_aec() for _ in range(args.repeats))
    print(f"game_step driver (what the AEC env calls): {aec * 1e6:.2f} us/step")
    print(f"core.play, one game: {core_ * 1e6:.2f} us/step ({core_ / aec:.2f}x)")
    print(f"core.play and the reads the AEC env needs after it: {reads * 1e6:.2f} us/step ({reads / aec:.2f}x)")
    print(f"the AEC env's whole step: {whole * 1e6:.2f} us/step")
    share, call = (reads - aec) / whole, (core_ - aec) / whole
    print(f"the AEC env on the core: {share:+.0%} on its step (the call alone {call:+.0%})")


if __name__ == "__main__":
    main()
