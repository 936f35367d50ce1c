"""``rams psro AGENT``: PSRO steps (Lanctot et al. 2017) from a policy, with the exploitability of every iterate.

Iteration 0 exploits AGENT (``rams exploit``). Iteration ``k >= 1`` then:

1. trains iterate ``k`` from iterate ``k - 1``'s weights (AGENT's: an ensemble's first member) by PPO
   against a mixture of the heuristic, AGENT and every exploiter found so far, one drawn per episode to play
   every other seat (``rams train --target heuristic+AGENT+X0+...``, whole ramsar, the win reward);
2. exploits iterate ``k`` (``rams exploit``), adding its exploiter to the mixture of the next iteration;
3. evaluates iterate ``k`` against three heuristics on the report set (``rams eval``).

Each stage is a ``rams`` command run in its own folder under ``--run-dir``, with its own progress lines;
a stage that finished is skipped and one that was stopped resumes (``--resume``), so ``rams psro`` run
again with the same options continues where it stopped (``--threads`` may differ: it changes no result).
``psro.json`` lists, by iterate, the exploitability estimate and the win share against heuristics, each
with its interval, and the commands.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rams_env.apps.command import Command, CommandError
from rams_env.eval.deals import REPORT_SEED
from rams_env.options import (
    REQUIRED,
    SEED,
    Namespace,
    Parser,
    add_options,
    arg,
    check_fields,
    field_docs,
    option_name,
)
from rams_env.policy import load_checkpoint
from rams_env.policy.checkpoint import write_atomically

from .config import TrainArgs
from .targets import starting_weights

NO_RESULT = ("threads",)
"""options a run may be continued with changed: they change how fast it runs, not what it finds"""
DONE = "stage.done"
"""written into a stage's folder when its command has finished"""


@dataclass(kw_only=True)
class PSROOptions:
    """The options of ``rams psro``, checked as they are made (rams_env/options.py)."""

    agent: str = arg("", "the policy PSRO starts from: a zoo name or a checkpoint")
    variant: str = arg("mattmar", "rules preset")
    iterations: int = arg(3, "iterates trained after the start (each then exploited and evaluated)", low=1)
    exploit_decisions: int = arg(1_000_000, "learner decisions of each exploiter", low=1)
    exploit_imitation: int = arg(1_000_000, "decisions of the target's play each exploiter imitates first", low=1)
    train_decisions: int = arg(2_000_000, "learner decisions of each iterate's training", low=1)
    num_games: int = arg(128, "games each training and exploit steps together", low=1)
    report_decks: int = arg(400, "decks of each report: 1,600 ramsar at four players", low=1)
    report_seed: int = arg(REPORT_SEED, "deal set of the reports", check=SEED)
    seed: int = arg(0, "seed of the runs (iteration k's runs use seed + k)", check=SEED)
    threads: int = arg(0, "torch threads of each stage (0: the free cores)", low=0)

    def __post_init__(self) -> None:
        check_fields(self, option_name)
        if not self.agent.strip():
            raise ValueError("AGENT must name a policy (a zoo name or a checkpoint)")


@dataclass(kw_only=True)
class PSRORun:
    """The options of ``rams psro`` that are not the runs' own: its folder and the progress bars."""

    run_dir: str = arg(REQUIRED, "folder of the PSRO run (run again to continue it)")
    progress: bool = arg(True, "show progress bars")


@dataclass(kw_only=True)
class PSROStart:
    """The positional argument of ``rams psro``: the policy it starts from (given, unlike the options' default)."""

    agent: str = arg(REQUIRED, field_docs(PSROOptions)["agent"], positional=True)


def configure(parser: Parser) -> None:
    """The starting policy, the budget of each stage and the folder."""
    add_options(parser, PSROStart)
    others = [f.name for f in dataclasses.fields(PSROOptions) if f.name != "agent"]
    add_options(parser, PSROOptions, extra_help=lambda name: f" ({getattr(PSROOptions, name)})", only=others)
    add_options(parser, PSRORun)


@dataclass
class Stage:
    """One ``rams`` command of the run: its folder and its arguments (``--resume`` added when it resumes)."""

    folder: Path
    command: list[str]
    resumable: bool = True

    @property
    def done(self) -> bool:
        return (self.folder / DONE).is_file()

    def run(self, progress: bool) -> None:
        """Run the command (resuming a stopped one) unless it finished; ``CommandError`` if it fails."""
        if self.done:
            print(f"psro: {self.folder.name} finished earlier, skipped", flush=True)
            return
        command = list(self.command)
        if self.resumable and (self.folder / "args.json").is_file():
            command.append("--resume")
        if not progress and command[0] != "eval":
            command.append("--no-progress")
        print(f"psro: rams {' '.join(command)}", flush=True)
        if not self.resumable:  # eval writes its JSON into the folder
            self.folder.mkdir(parents=True, exist_ok=True)
        finished = subprocess.run([sys.executable, "-m", "rams_env.apps.cli", *command], check=False)
        if finished.returncode != 0:
            raise CommandError(f"rams {' '.join(command)} failed (exit status {finished.returncode}); run again")
        self.folder.mkdir(parents=True, exist_ok=True)
        (self.folder / DONE).write_text(" ".join(["rams", *self.command]) + "\n", encoding="utf-8")


def exploit_stage(root: Path, k: int, agent: str, o: PSROOptions) -> Stage:
    folder = root / f"{k}-exploit"
    command = ["exploit", agent, "--variant", o.variant, "--decisions", str(o.exploit_decisions)]
    command += ["--imitation", str(o.exploit_imitation), "--num-games", str(o.num_games)]
    command += ["--seed", str(o.seed + k), "--threads", str(o.threads), "--run-dir", str(folder)]
    command += ["--report-decks", str(o.report_decks), "--report-seed", str(o.report_seed)]
    return Stage(folder, command)


def train_stage(root: Path, k: int, start: str, mixture: list[str], hidden: Any, o: PSROOptions) -> Stage:
    folder = root / f"{k}-train"
    command = ["train", "quick", "--variant", o.variant, "--target", "+".join(mixture), "--init-from", start]
    command += ["--hidden", ",".join(str(int(h)) for h in hidden)]  # the start's widths
    command += ["--heuristic-fraction", "0", "--imitation", "0", "--total-steps", str(o.train_decisions)]
    command += ["--seed", str(o.seed + k), "--num-games", str(o.num_games)]
    command += ["--threads", str(o.threads), "--run-dir", str(folder), "--final-decks", "20"]
    return Stage(folder, command)


def trained(root: Path, k: int) -> str:
    """Iterate ``k``'s checkpoint: the best by its run's evaluations, else its last weights."""
    best = root / f"{k}-train" / "best.pt"
    return str(best if best.is_file() else root / f"{k}-train" / "latest.pt")


def eval_stage(root: Path, k: int, agent: str, o: PSROOptions) -> Stage:
    folder = root / f"{k}-eval"
    command = ["eval", agent, "--baseline", "heuristic", "--variant", o.variant, "--episode", "rams"]
    command += ["--decks", str(o.report_decks), "--seed", str(o.report_seed), "--json", str(folder / "eval.json")]
    return Stage(folder, command, resumable=False)


def iterate_row(root: Path, k: int, agent: str) -> dict[str, Any]:
    """Iterate ``k``'s line of ``psro.json``: its exploitability and, past the start, its win share."""
    exploit = json.loads((root / f"{k}-exploit" / "exploit.json").read_text(encoding="utf-8"))
    row: dict[str, Any] = {
        "iterate": k,
        "agent": agent,
        "exploiter": exploit["exploiter"],
        "exploitability": exploit["exploitability"],
        "exploitability_ci": exploit["exploitability_ci"],
    }
    evaluation = root / f"{k}-eval" / "eval.json"
    if evaluation.is_file():
        mine = json.loads(evaluation.read_text(encoding="utf-8"))["agents"][0]
        row["win_share_vs_heuristics"] = mine["win_rate"]
        row["win_share_vs_heuristics_ci"] = mine["win_rate_ci"]
    return row


def options_from(namespace: Namespace) -> PSROOptions:
    """The options given, checked; ``CommandError`` naming the first bad one."""
    try:
        return PSROOptions(**{f.name: getattr(namespace, f.name) for f in dataclasses.fields(PSROOptions)})
    except ValueError as err:
        raise CommandError(str(err)) from None


def check_same_run(saved: Path, o: PSROOptions) -> None:
    """``CommandError`` naming the options that differ from the run saved in ``saved`` (its options.json),
    but those of :data:`NO_RESULT`, with which the run goes on."""
    try:
        before = json.loads(saved.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise CommandError(f"{saved} cannot be read ({err}); give another --run-dir") from None
    before = before if isinstance(before, dict) else {}
    differ = [
        f"{'AGENT' if name == 'agent' else option_name(name)} {value} (saved {before.get(name, 'nothing')})"
        for name, value in o.__dict__.items()
        if name not in NO_RESULT and before.get(name) != value
    ]
    if differ:
        raise CommandError(
            f"{saved.parent} holds a PSRO run with other options ({saved}: {', '.join(differ)}); give another --run-dir"
        )


def run(namespace: Namespace) -> int:
    """Every stage in order (finished ones skipped), then ``psro.json``."""
    o = options_from(namespace)
    try:
        weights = starting_weights(o.agent, o.variant)  # a zoo name or an ensemble: a checkpoint to train on from
        hidden = load_checkpoint(weights, migrate=True)["network"].get("hidden", TrainArgs.hidden)
    except (OSError, ValueError, KeyError) as err:
        raise CommandError(f"AGENT {o.agent!r}: {err}") from None
    root = Path(namespace.run_dir)
    saved = root / "options.json"
    mine = json.dumps(o.__dict__, indent=1, sort_keys=True) + "\n"
    if saved.is_file():
        check_same_run(saved, o)
    root.mkdir(parents=True, exist_ok=True)
    saved.write_text(mine, encoding="utf-8")
    agents = [o.agent]
    exploit_stage(root, 0, o.agent, o).run(namespace.progress)
    exploiters = [str(root / "0-exploit" / "best.pt")]
    for k in range(1, o.iterations + 1):
        mixture = ["heuristic", o.agent, *exploiters]
        train_stage(root, k, weights if k == 1 else agents[-1], mixture, hidden, o).run(namespace.progress)
        agents.append(trained(root, k))
        exploit_stage(root, k, agents[-1], o).run(namespace.progress)
        exploiters.append(str(root / f"{k}-exploit" / "best.pt"))
        eval_stage(root, k, agents[-1], o).run(namespace.progress)
    eval_stage(root, 0, o.agent, o).run(namespace.progress)
    rows = [iterate_row(root, k, agent) for k, agent in enumerate(agents)]
    summary = {"options": o.__dict__, "iterates": rows}
    text = json.dumps(summary, indent=1) + "\n"
    write_atomically(root / "psro.json", lambda f: f.write(text.encode()))
    for row in rows:
        lo, hi = row["exploitability_ci"]
        share = row.get("win_share_vs_heuristics")
        against = "" if share is None else f", win share vs 3 heuristics {share:.3f}"
        print(f"iterate {row['iterate']} ({row['agent']}): exploitability {row['exploitability']:+.3f} "
              f"[{lo:+.3f}, {hi:+.3f}]{against}")  # fmt: skip
    print(f"psro: {root / 'psro.json'}")
    return 0


COMMAND = Command("psro", "PSRO steps from a policy: train against its exploiters, exploit again", configure, run)
