"""What numba compiles before ``rams train quick``'s first step, on a fresh cache: seconds per function group.

A child process, its numba cache an empty temporary folder (``NUMBA_CACHE_DIR``), does what the quick recipe
does before its first update, phase by phase: builds the run's env (its core binds the compiled step), collects
the imitation's first decisions (the labeller's env reset and step, the heuristic's labels), plays the first
update's reset and step against heuristics; then the final evaluation's first games (after training, apart).
It prints each phase's wall and CPU seconds and the seconds numba spent compiling in it, then one row per
function group (its module, mostly of :mod:`rams_env.compiled`; ``numba`` for numba's own helpers): the
specialisations compiled and their seconds, each function's own (the functions it calls are counted in their
rows), and the functions compiled more than once. As ``rams train``'s first run, it compiles the heuristic in a
second process meanwhile (:mod:`rams_env.compiled.ahead`; ``--no-ahead``: not). ``--runs 2`` runs the child
again on the same cache: a later run should compile nothing. ``python -m benchmarks.compile_time`` (issue 69).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from numba.core import event

from rams_env.options import arg, options_parser

BEFORE_STEP = ("env", "imitation", "first update")
"""the phases before the first step; "evaluation" comes after training"""


@dataclass(kw_only=True)
class CompileTimeArgs:
    """The options of ``python -m benchmarks.compile_time``."""

    games: int = arg(4, "games of each env and labeller (what compiles does not depend on it)", low=1)
    decks: int = arg(1, "decks of the final evaluation's first games", low=1)
    runs: int = arg(1, "child processes run one after another on one fresh cache (later runs load it)", low=1)
    ahead: bool = arg(True, "compile the heuristic in a second process meanwhile, as rams train's first run does")


class CompileLog(event.Listener):
    """numba's compile events, each function's own seconds (its callees' compiles taken out), by phase."""

    def __init__(self) -> None:
        super().__init__()
        self.phase = "import"
        self.rows: list[tuple[str, str, str, float]] = []  # phase, group, function, own seconds
        self._open: list[list[float]] = []  # start, callees' seconds

    def on_start(self, event: Any) -> None:
        self._open.append([time.perf_counter(), 0.0])

    def on_end(self, event: Any) -> None:
        start, callees = self._open.pop()
        seconds = time.perf_counter() - start
        if self._open:
            self._open[-1][1] += seconds
        function = event.data["dispatcher"].py_func
        module = function.__module__
        group = module.rsplit(".", 1)[1] if module.startswith("rams_env.") else "numba"
        self.rows.append((self.phase, group, f"{module}.{function.__qualname__}", seconds - callees))


def child(args: CompileTimeArgs) -> None:
    """Run the phases in this process (whose numba cache the parent chose) and print their tables."""
    started = time.perf_counter()
    log = CompileLog()
    event.register("numba:compile", log)
    if args.ahead:  # as rams train's first run does
        from rams_env.core import compile_ahead

        compile_ahead()

    import numpy as np

    from rams_env.envs import BatchedRamsEnv
    from rams_env.envs.seats import LEARNER_SEAT
    from rams_env.rules import make_config
    from rams_training.cli import RECIPES
    from rams_training.config import TrainArgs
    from rams_training.imitation import HeuristicLabeller

    with tempfile.TemporaryDirectory() as run_dir:
        quick = TrainArgs(**{**RECIPES["quick"], "run_dir": run_dir})
    config = make_config(quick.variant, quick.num_players)
    n = config.num_players
    times: dict[str, tuple[float, float]] = {"import": (time.perf_counter() - started, time.process_time())}
    env: Any = None

    def build_env() -> None:  # Trainer._open_tables: the env plays the heuristic seats inside its step
        nonlocal env
        seats = [LEARNER_SEAT] * n
        env = BatchedRamsEnv(args.games, config=config, episode=quick.episode, reward=quick.reward, seats=seats)

    def imitation() -> None:  # imitate(): the labeller's env, its reset, the heuristic's labels, a step
        labeller = HeuristicLabeller(config, quick.episode, quick.reward, args.games, quick.seed, 1.0)
        labeller.chunk(1)
        labeller.close()

    def first_update() -> None:  # Collector.collect: heuristic seats drawn, the env reset, a step
        heuristic = np.ones((args.games, n), bool)
        heuristic[:, 0] = False
        env.set_heuristic_seats(heuristic)
        out = env.reset(seed=quick.seed)
        env.set_next_heuristic_seats(heuristic)
        env.step(np.argmax(out.action_masks, axis=1))

    def evaluation() -> None:  # the final evaluation: a greedy policy against random players and heuristics
        from rams_env.agents import RandomAgent
        from rams_env.agents.neural import PolicyAgent
        from rams_env.eval import agent_source, evaluate
        from rams_env.obs.encoding import OBS_SIZE
        from rams_env.policy import PolicyNet
        from rams_env.rules.actions import NUM_ACTIONS

        policy = PolicyAgent(PolicyNet(OBS_SIZE, NUM_ACTIONS).eval(), config, greedy=True)
        for baseline in (RandomAgent, agent_source("heuristic", config)):
            evaluate({"policy": policy}, baseline, config, decks=args.decks, episode=quick.episode, progress=False)

    for name, phase in zip((*BEFORE_STEP, "evaluation"), (build_env, imitation, first_update, evaluation), strict=True):
        log.phase = name
        wall, cpu = time.perf_counter(), time.process_time()
        phase()
        times[name] = (time.perf_counter() - wall, time.process_time() - cpu)
    env.close()
    print_tables(log, times)


def print_tables(log: CompileLog, times: dict[str, tuple[float, float]]) -> None:
    """The phase table, the group table and the functions compiled more than once."""
    compiled: dict[str, float] = defaultdict(float)
    for phase, _, _, seconds in log.rows:
        compiled[phase] += seconds
    print(f"{'phase':<28}{'wall s':>9}{'cpu s':>9}{'compiling s':>13}")
    for phase in ("import", *BEFORE_STEP):
        wall, cpu = times[phase]
        print(f"{phase:<28}{wall:>9.2f}{cpu:>9.2f}{compiled[phase]:>13.2f}")
    wall, cpu = (sum(times[p][k] for p in BEFORE_STEP) for k in (0, 1))
    print(f"{'before the first step':<28}{wall:>9.2f}{cpu:>9.2f}{sum(compiled[p] for p in BEFORE_STEP):>13.2f}")
    wall, cpu = times["evaluation"]
    print(f"{'evaluation (after training)':<28}{wall:>9.2f}{cpu:>9.2f}{compiled['evaluation']:>13.2f}")
    print()
    groups: dict[str, list[Any]] = defaultdict(lambda: [0, 0.0, 0, 0.0])  # before: count, s; evaluation: count, s
    for phase, group, _, seconds in log.rows:
        cell = groups[group]
        k = 0 if phase in BEFORE_STEP or phase == "import" else 2
        cell[k] += 1
        cell[k + 1] += seconds
    print(f"{'':<20}{'before the first step':^24}{'evaluation':^24}")
    print(f"{'group':<20}{'signatures':>12}{'seconds':>12}{'signatures':>12}{'seconds':>12}")
    for group, (count, seconds, later, later_s) in sorted(groups.items(), key=lambda kv: -kv[1][1] - kv[1][3]):
        print(f"{group:<20}{count:>12}{seconds:>12.2f}{later:>12}{later_s:>12.2f}")
    counts: dict[str, int] = defaultdict(int)
    for _, _, function, _ in log.rows:
        counts[function] += 1
    again = sorted(f"{function} ({count})" for function, count in counts.items() if count > 1)
    print(f"\ncompiled more than once: {', '.join(again) or 'none'}")
    print(f"functions compiled: {len(counts)}, specialisations: {len(log.rows)}")


def main(argv: list[str] | None = None) -> None:
    args = options_parser(__doc__.splitlines()[0], CompileTimeArgs, validate=True).parse_args(argv)
    if os.environ.get("RAMS_COMPILE_TIME_CHILD"):
        child(args)
        return
    root = str(Path(__file__).resolve().parent.parent)
    with tempfile.TemporaryDirectory(prefix="numba-cache-") as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache, RAMS_COMPILE_TIME_CHILD="1")
        env["PYTHONPATH"] = os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p)
        for run in range(1, args.runs + 1):
            print(f"run {run} of {args.runs} on {'a fresh' if run == 1 else 'the same'} numba cache", flush=True)
            argv_child = [
                "--games",
                str(args.games),
                "--decks",
                str(args.decks),
                "--ahead" if args.ahead else "--no-ahead",
            ]
            subprocess.run([sys.executable, "-m", "benchmarks.compile_time", *argv_child], env=env, check=True)
            print(flush=True)


if __name__ == "__main__":
    main()
