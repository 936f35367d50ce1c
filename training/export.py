"""Ship a trained policy to the model zoo: ``checkpoints/<preset>/<name>/`` with a slim checkpoint and its card.

Run: ``python -m rams_training.export --run-dir runs/full-mattmar --name mattmar-4p --command "..."``.
The slim checkpoint keeps the network, the rules and the run's counters and arguments (no
optimizer state, no history). The card holds the exact command of the run, its steps and wall
time, the machine, the whole-ramsar evaluations against ``HeuristicAgent`` and ``RandomAgent`` (win
share against the fair share), single deals from random scores against ``HeuristicAgent`` and
``SearchAgent``, the knock rate by score, and the learning curves next to it. The folder's name is the
model's zoo name (:mod:`rams_env.zoo`): ``load_agent("<name>")``, ``rams eval <name>``.
"""

from __future__ import annotations

import csv
import os
import platform
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from rams_env.agents import load_agent
from rams_env.eval import AgentReport, Evaluation, agent_source, evaluate
from rams_env.eval.deals import REPORT_SEED
from rams_env.options import REQUIRED, arg, check_fields, option_name, parse
from rams_env.policy import (
    CheckpointError,
    checkpoint_config,
    config_at_size,
    load_checkpoint,
    make_checkpoint,
    network_from_checkpoint,
    save_checkpoint,
    table_configs,
    write_ensemble,
)
from rams_env.rules import RulesConfig
from rams_env.zoo import CARD, FLAGSHIPS, SOURCE_ZOO, is_name

from .logs import plot_learning_curves
from .runargs import read_run_args

SHIPPED = SOURCE_ZOO  # the zoo of this checkout: checkpoints/<preset>/<model>/
EVAL_SEED = REPORT_SEED  # the report set (rams_env.eval.deals)
NUMBER_WORDS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}  # opponents at a table of 3 to 7


def model_folder(variant: str, name: str) -> Path:
    """The zoo folder of model ``name`` of preset ``variant`` (created): ``checkpoints/<variant>/<name>/``."""
    if not is_name(name) or name in FLAGSHIPS:
        raise ValueError(f"a zoo model's name is lower-case letters, digits and dashes, not a preset's: {name!r}")
    folder = SHIPPED / variant / name
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _shown(path: Path) -> str:
    """``path`` as a card shows it: ``checkpoints/<preset>/<model>/...`` when in the zoo, as in a checkout."""
    try:
        return "checkpoints/" + Path(path).resolve().relative_to(SHIPPED.resolve()).as_posix()
    except ValueError:
        return str(path)


def slim_checkpoint(run_dir: Path, out: Path, which: str = "latest") -> dict[str, Any]:
    """Write checkpoint ``which`` (latest or best) of ``run_dir`` without optimizer state; returns its payload."""
    source = run_dir / f"{which}.pt"
    payload = load_checkpoint(source)
    config = checkpoint_config(payload, str(source))
    net = network_from_checkpoint(payload, str(source))
    slim = make_checkpoint(
        net,
        config,
        counters=payload["counters"],
        args=payload["args"],
        best_score=payload.get("best_score"),
        source=source.name,
        **({"table_sizes": payload["table_sizes"]} if "table_sizes" in payload else {}),
    )
    save_checkpoint(out, slim)
    return slim


def _training_time(run_dir: Path, updates: int) -> tuple[float, int]:
    """Seconds spent in the logged updates up to ``updates`` (from progress.csv), and their count."""
    with (run_dir / "progress.csv").open() as f:
        rows = [r for r in csv.DictReader(f) if int(r["update"]) <= updates]
    seconds = sum(int(r["samples"]) / float(r["steps_per_s"]) for r in rows if float(r["steps_per_s"]) > 0)
    return seconds, len(rows)


def _lineage(run_dir: Path) -> str:
    """The card's line on the weights a run started from (``--init-from``), with their counters; "" for none."""
    source = read_run_args(run_dir).get("init_from", "")
    if not source:
        return ""
    try:
        prior = load_checkpoint(source)["counters"]
    except (CheckpointError, KeyError) as err:
        return f"\n- Started from `{source}` (its counters are unknown: {err})."
    return (
        f"\n- Started from `{source}` ({prior['steps']:,} learner decisions, {prior['episodes']:,} episodes,"
        f" {prior['updates']} updates, as that file was when the run began), so the policy has"
        f" {prior['steps']:,} + this run's decisions in all."
    )


@dataclass(frozen=True)
class CardEvaluation:
    """One evaluation of a model card: a baseline, an episode kind, start scores and a deck count."""

    title: str
    baseline: str  # an agent spec: random, heuristic, search
    episode: str
    scores: str
    decks: int

    def command(self, weights: str, config: RulesConfig) -> str:
        """The ``rams eval`` command that gives the same numbers."""
        return (
            f"rams eval {weights} --baseline {self.baseline} --variant {config.variant} --players {config.num_players}"
            f" --episode {self.episode} --scores {self.scores} --decks {self.decks} --seed {EVAL_SEED}"
        )


def card_evaluations(decks: int, deal_decks: int, search_decks: int) -> list[CardEvaluation]:
    """The evaluations of a card: whole ramsar first (the headline), then single deals from random scores."""
    return [
        CardEvaluation("Whole ramsar against three heuristics", "heuristic", "rams", "start", decks),
        CardEvaluation("Whole ramsar against three random agents", "random", "rams", "start", decks),
        CardEvaluation("Single deals from random scores against heuristics", "heuristic", "deal", "random", deal_decks),
        CardEvaluation("Single deals from random scores against search", "search", "deal", "random", search_decks),
    ]


def _section(title: str, ev: Evaluation, seconds: float, command: str) -> str:
    return f"### {title} ({ev.decks} decks, {seconds:.0f} s)\n\n`{command}`\n\n```\n{ev.table()}\n```\n"


def _design(args: dict[str, Any]) -> str:
    """What trained the policy, in a few words, from the run's arguments."""
    start = "imitation of the heuristic, then PPO" if args.get("imitation") else "PPO"
    against = args.get("heuristic_fraction") == 1.0 and not args.get("heuristic_after")
    return f"{start} {'against three heuristics' if against else 'self-play'} policy"


def export(
    run_dir: Path,
    name: str,
    decks: int,
    deal_decks: int,
    search_decks: int,
    command: str,
    workers: int = 1,
    which: str = "latest",
) -> Path:
    """Write ``checkpoints/<preset>/<name>/``: ``<name>.pt``, the card ``README.md``, ``curves.png``,
    ``knock_rates.png`` and the JSON results."""
    lineage = _lineage(run_dir)  # before the new file replaces a shipped one the run started from
    variant = checkpoint_config(load_checkpoint(run_dir / f"{which}.pt")).variant
    folder = model_folder(variant, name)
    weights = folder / f"{name}.pt"
    payload = slim_checkpoint(run_dir, weights, which)
    config = checkpoint_config(payload)
    curves = plot_learning_curves(run_dir / "progress.csv", folder / "curves.png")
    sizes = table_configs(payload)
    sections, headline = _card_evaluations(weights, name, sizes, decks, deal_decks, search_decks, workers)
    table_sizes = "/".join(str(n) for n in sorted(c.num_players for c in sizes))
    counters = payload["counters"]
    seconds, updates = _training_time(run_dir, counters["updates"])
    args = payload["args"]
    card = f"""# `{name}`: {_design(args)} for whole ramsar of {config.variant}, {table_sizes} players

- File: `{_shown(weights)}` ({os.path.getsize(weights) / 1e6:.1f} MB), load with
  `rams_env.agents.load_agent("{name}")`; plays greedily (masked argmax).
- Reproduce: `{command}`
- Budget: {counters["steps"]:,} learner decisions, {counters["episodes"]:,} episodes (ramsar), {updates} updates,
  {seconds / 60:.0f} minutes of training time (sum of the logged update times), checkpoint `{payload["source"]}`
  (best periodic whole-ramsar win share against heuristics in the run: {payload.get("best_score")}).{lineage}
- Machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, CPU only (whether
  other jobs shared it is not recorded: the training time is not a clean speed measurement).
- Arguments: {", ".join(f"{k}={v}" for k, v in args.items())}
- Learning curves (whole-ramsar win share over training, small periodic evaluations): `{curves.name}`;
  knock rate by score against heuristics: `knock_rates.png`.

{_card_results(headline, config, sections)}"""
    path = folder / CARD
    path.write_text(card)
    return path


def export_ensemble(
    members: list[Path],
    name: str,
    note: str,
    decks: int,
    deal_decks: int,
    search_decks: int,
    workers: int = 1,
) -> Path:
    """Write ``checkpoints/<preset>/<name>/<name>.json`` (an ensemble manifest of zoo ``members``), its card
    ``README.md`` and results.

    No training: each member's own card gives the command that trained it. ``note`` says why these
    members (it is the manifest's description and a paragraph of the card).
    """
    outside = [str(m) for m in members if Path(m).resolve().parent.parent.parent != SHIPPED.resolve()]
    if outside:
        raise ValueError(
            f"ensemble members must be zoo checkpoints in {SHIPPED}/<preset>/<model>/; not there: {outside}"
        )
    variant = checkpoint_config(load_checkpoint(members[0])).variant
    manifest = model_folder(variant, name) / f"{name}.json"
    write_ensemble(manifest, members, note)
    agent = load_agent(manifest)
    config, sizes = agent.config, [config_at_size(agent.config, n) for n in agent.table_sizes]
    sizes.sort(key=lambda c: c.num_players != config.num_players)  # the members' own size first
    sections, headline = _card_evaluations(manifest, name, sizes, decks, deal_decks, search_decks, workers)
    table_sizes = "/".join(str(n) for n in agent.table_sizes)
    listed = "\n".join(f"  - `{_shown(m)}` (card: `{_shown(m.parent / CARD)}`)" for m in map(Path, members))
    files = " ".join(_shown(Path(m)) for m in members)
    title = f"{len(members)} shipped policies played as one, whole ramsar of {config.variant}, {table_sizes} players"
    card = f"""# `{name}`: {title}

- File: `{_shown(manifest)}`, an ensemble manifest (JSON: the members' files and the SHA-256 of their
  weights, no weights of its own); load with `rams_env.agents.load_agent("{name}")`. It
  plays the masked argmax of the members' mean log-probabilities (one forward pass per member and decision).
- Members:
{listed}
- Reproduce: `python -m rams_training.export --ensemble {files} --name {name}
  --decks {decks} --deal-decks {deal_decks} --search-decks {search_decks}` (no training of its own; each member's
  card gives the one command that trained it).
- Why: {note}
- Knock rate by score against heuristics: `knock_rates.png`.

{_card_results(headline, config, sections)}"""
    path = manifest.parent / CARD
    path.write_text(card)
    return path


def _card_evaluations(
    weights: Path,
    name: str,
    sizes: list[RulesConfig],
    decks: int,
    deal_decks: int,
    search_decks: int,
    workers: int,
) -> tuple[list[str], dict[tuple[str, str], AgentReport]]:
    """Play a card's evaluations of ``weights`` (a checkpoint or an ensemble manifest in ``checkpoints/``):
    every one at the first table size, whole ramsar at the others; saves each as JSON and the knock-rate
    plot. Returns the card's sections and the headline reports by (episode, baseline)."""
    sections: list[str] = []
    headline: dict[tuple[str, str], AgentReport] = {}
    players: dict[int, Any] = {}  # the loaded policy per table size

    def run(item: CardEvaluation, table: RulesConfig, title: str, stem: str) -> Evaluation:
        """One evaluation of the card: played, saved as JSON, its section added."""
        started = time.perf_counter()
        if table.num_players not in players:
            players[table.num_players] = load_agent(weights, expect_config=table)
        ev = evaluate(
            {name: players[table.num_players]},
            agent_source(item.baseline, table),
            table,
            decks=item.decks,
            seed=EVAL_SEED,
            episode=item.episode,
            scores=item.scores,
            baseline_name=item.baseline,
            progress=True,
            workers=workers,
        )
        ev.save_json(weights.parent / f"{stem}.json")
        seconds = time.perf_counter() - started
        sections.append(_section(title, ev, seconds, item.command(_shown(weights), table)))
        print(ev.table(), flush=True)
        return ev

    for item in card_evaluations(decks, deal_decks, search_decks):
        if item.decks > 0:
            ev = run(item, sizes[0], item.title, f"{item.episode}_vs_{item.baseline}")
            if item.episode == "rams" and item.baseline == "heuristic":
                ev.plot_knock_rates(weights.parent / "knock_rates.png")
            headline[(item.episode, item.baseline)] = ev.agents[0]
    for table in sizes[1:]:  # a policy for several table sizes: whole ramsar at each of the others too
        for item in card_evaluations(decks, 0, 0):
            if item.decks > 0:
                n = table.num_players
                title = f"{item.title.replace('three', NUMBER_WORDS[n - 1])}, {n} players (fair share 1/{n})"
                run(item, table, title, f"{n}p_{item.episode}_vs_{item.baseline}")
    return sections, headline


def _card_results(headline: dict[tuple[str, str], AgentReport], config: RulesConfig, sections: list[str]) -> str:
    """The card's headline table, how the evaluations were played, and their sections."""
    return f"""## Headline

{_headline(headline, config)}

## Evaluation

Duplicate deals: every deck (and, in a rams, the deck sequence that follows from its seed) is
played with the policy in each seat and by the baseline alone, deal set seed {EVAL_SEED} (not
used in training). Whole ramsar: win rate = share of the ramsar won (ties shared), fair share
1/{config.num_players}, 95% Wilson intervals; points per rams with 95% bootstrap intervals.
Single deals from random scores: each seat starts from a random score, so a flight costs what
it costs in a real rams.

{chr(10).join(sections)}"""


def _headline(reports: dict[tuple[str, str], AgentReport], config: RulesConfig) -> str:
    """The card's summary table: each strength goal of issue 12 with the measured figure."""
    fair = 1.0 / config.num_players
    rows = ["| yardstick | goal | measured | 95% CI | met |", "|---|---|---:|---|---|"]

    def win(key: tuple[str, str], goal: float, label: str) -> None:
        r = reports.get(key)
        if r is None or r.win_rate is None or r.win_rate_ci is None:
            return
        met = r.win_rate >= goal and (key[1] != "heuristic" or r.win_rate_ci[0] > fair)
        ci = f"[{r.win_rate_ci[0]:.3f}, {r.win_rate_ci[1]:.3f}]"
        rows.append(f"| {label} | >= {goal:.3f} | {r.win_rate:.3f} | {ci} | {'yes' if met else 'no'} |")

    win(("rams", "heuristic"), 1.3 * fair, "whole ramsar vs 3 heuristics, win share")
    win(("rams", "random"), 0.9, "whole ramsar vs 3 random, win share")
    for baseline in ("heuristic", "search"):
        r = reports.get(("deal", baseline))
        if r is not None and r.advantage is not None and r.advantage_ci is not None:
            lo, hi = r.advantage_ci
            rows.append(
                f"| single deals from random scores vs {baseline}, points per deal | CI above 0 | "
                f"{r.advantage:+.3f} | [{lo:+.3f}, {hi:+.3f}] | {'yes' if lo > 0 else 'no'} |"
            )
    r = reports.get(("rams", "heuristic"))
    if r is not None and config.swedish:
        low, high = _knock_share(r, range(2, 6)), _knock_share(r, range(8, config.flight_cap + 1))
        if low is not None and high is not None:
            rows.append(
                f"| knock rate at scores 2-5 vs 8-{config.flight_cap} (whole ramsar vs heuristics) | lower at 2-5 | "
                f"{low:.2f} vs {high:.2f} | | {'yes' if low < high else 'no'} |"
            )
    return "\n".join(rows)


def _knock_share(report: AgentReport, scores: range) -> float | None:
    """Knocks per knock decision at the given scores."""
    decided = sum(report.knock_by_score.get(s, (0, 0))[0] for s in scores)
    knocked = sum(report.knock_by_score.get(s, (0, 0))[1] for s in scores)
    return knocked / decided if decided else None


CHECKPOINTS = ("latest", "best")


@dataclass(kw_only=True)
class ExportArgs:
    """The options of ``python -m rams_training.export``, checked as they are made (rams_env/fields.py): what
    is exported, a training run's checkpoint or zoo checkpoints as one ensemble (one of the two), and how."""

    run_dir: str | None = arg(None, "folder of the training run")
    ensemble: tuple[str, ...] | None = arg(None, "zoo checkpoints to play as one policy", metavar="CHECKPOINT")
    name: str = arg(REQUIRED, "the model's zoo name (its folder), e.g. mattmar-4p")
    decks: int = arg(400, "decks of the whole-ramsar evaluations (x seats ramsar: 1,600 at four players)", low=1)
    deal_decks: int = arg(1000, "decks of the single-deal evaluation (heuristic)", low=0)
    search_decks: int = arg(100, "decks against SearchAgent (slow)", low=0)
    command: str | None = arg(None, "the exact command that trained the run (for the card; with --run-dir)")
    note: str | None = arg(None, "why these members (for the card and the manifest; with --ensemble)")
    workers: int = arg(1, "evaluation processes (same numbers, less time)", low=1)
    checkpoint: str = arg(
        "latest",
        "which checkpoint of the run to ship: latest or best (by the small periodic evaluations, a noisy choice)",
        choices=CHECKPOINTS,
    )
    threads: int = arg(1, "torch threads (1: fastest for one-at-a-time decisions)", low=0)

    def __post_init__(self) -> None:
        check_fields(self, option_name)
        if (self.run_dir is None) == (self.ensemble is None):
            raise ValueError("give one of --run-dir and --ensemble: what is exported")
        if self.ensemble is not None and not self.note:
            raise ValueError("--ensemble needs --note: why these members (it goes on the card)")
        if self.run_dir is not None and not self.command:
            raise ValueError("--run-dir needs --command: the exact command that trained the run")


def main(argv: list[str] | None = None) -> int:
    args = parse(ExportArgs, argv, "python -m rams_training.export", __doc__.splitlines()[0])
    run_dir = Path(args.run_dir) if args.run_dir else None
    ensemble = [Path(member) for member in args.ensemble] if args.ensemble else None
    torch.set_num_threads(max(1, args.threads))
    if ensemble:
        try:
            card = export_ensemble(
                ensemble, args.name, args.note, args.decks, args.deal_decks, args.search_decks, args.workers
            )
        except ValueError as err:  # CheckpointError too
            print(f"rams_training.export: error: {err}", file=sys.stderr)
            return 1
        print(f"wrote {card}")
        return 0
    if not (run_dir / "progress.csv").exists():
        print(f"{run_dir} is not a training run folder (no progress.csv)", file=sys.stderr)
        return 1
    card = export(
        run_dir,
        args.name,
        args.decks,
        args.deal_decks,
        args.search_decks,
        args.command,
        args.workers,
        args.checkpoint,
    )
    print(f"wrote {card}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
