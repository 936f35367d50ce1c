"""``rams train``: self-play PPO with the ``quick``, ``full`` or ``deal`` recipe, every argument overridable.

Registered as a ``rams`` subcommand through the ``rams_env.commands`` entry point (pyproject).
``quick`` is the README's main job: a short training for whole ramsar (docs/training.md gives its times),
then an evaluation table in whole ramsar and where the checkpoint and plots are. ``full`` is the recipe
of the shipped checkpoints; ``deal`` the earlier one-deal recipe.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tqdm.contrib.logging import logging_redirect_tqdm

from rams_env import jsoncheck
from rams_env.agents import RandomAgent
from rams_env.apps.command import Command, CommandError
from rams_env.eval import agent_source, evaluate
from rams_env.options import PARSERS, Namespace, Parser, add_options, arg
from rams_env.rules.seeding import SeedError, check_seed

from .config import FIELD_TYPES, GROUPS, TrainArgs
from .logs import plot_learning_curves
from .run import Trainer
from .runargs import read_run_args

# Every recipe but "deal" trains for whole ramsar (reward "win": +1 shared by the winners, -1 by the rest).
# "quick" and "full" start by imitating the compiled heuristic (its actions and the seats' returns,
# training/imitation.py), then train by PPO with one learning seat against three HeuristicAgents (played
# inside the compiled step) on the pure win reward: "quick" is the README's main job (minutes), "full" the
# same for longer. "staged" is the recipe that trained the zoo's policies in one command: self-play and
# snapshot-pool games with points_weight x (score decrease / start score) as a shaping of the race up to
# heuristic_after, then a second stage against three heuristics on the pure win reward at a lower learning
# rate and entropy bonus (training/config.py, "Stages"). "deal" is the earlier recipe of one-deal episodes
# from the start score, kept for comparison. docs/training.md gives their measured times and strength.
WHOLE_GAME: dict[str, Any] = dict(episode="rams", reward="win", points_weight=1.0)
AGAINST_HEURISTICS: dict[str, Any] = dict(
    WHOLE_GAME, points_weight=0.0, num_games=128, heuristic_fraction=1.0, lr=1e-4, ent_coef=0.003
)
LONG_RUN: dict[str, Any] = dict(eval_every=100, eval_decks=50, snapshot_every=50, checkpoint_every=25)
"""the periodic work of the long recipes: evaluations, pool snapshots and checkpoints (in updates)"""
RECIPES: dict[str, dict[str, Any]] = {
    "quick": dict(AGAINST_HEURISTICS, imitation=2_000_000, total_steps=2_000_000, eval_every=0, eval_decks=50),
    "full": dict(AGAINST_HEURISTICS, **LONG_RUN, imitation=4_000_000, total_steps=12_000_000),
    "staged": dict(
        WHOLE_GAME,
        total_steps=20_100_000,
        num_games=128,
        heuristic_fraction=1.0,
        heuristic_after=15_000_000,
        late_lr=1e-4,
        late_ent_coef=0.003,
        late_points_weight=0.0,
        **LONG_RUN,
    ),
    "deal": dict(
        total_steps=12_000_000,
        num_games=256,
        workers=1,
        episodes_per_game=2,
        eval_every=50,
        eval_decks=300,
        snapshot_every=25,
        checkpoint_every=10,
    ),
}
FINAL_EVAL_DECKS = {"quick": 100, "full": 100, "staged": 100, "deal": 2000}


OPTION_PARSERS: dict[str, Callable[[str], Any]] = {name: PARSERS[t.base] for name, t in FIELD_TYPES.items()}
"""each field's parser, made when this module is imported: a field of a type without one fails here"""


@dataclasses.dataclass(kw_only=True)
class TrainCommand:
    """What ``rams train`` takes beside the training arguments: the recipe and the final evaluation's size."""

    recipe: str = arg("quick", "recipe (default quick)", choices=sorted(RECIPES), positional=True)
    final_decks: int | None = arg(None, "decks of the final evaluation (default: the recipe's)", low=1)


def configure(parser: Parser) -> None:
    """One option per :class:`TrainArgs` field (help from its documentation), in a section per group of
    fields, defaults from the recipe."""
    add_options(parser, TrainCommand, only=("recipe",))
    for name, group in GROUPS.items():
        section = parser.add_argument_group(f"{name}: {(group.__doc__ or '').splitlines()[0].rstrip('.')}")
        add_options(section, group, unset=True, extra_help=recipe_values)  # unset: None, the recipe's defaults stay
    add_options(parser, TrainCommand, only=("final_decks",))


def recipe_values(name: str) -> str:
    """`` (quick 1500000, full ..., deal ...)``: what each recipe sets the field ``name`` to, for ``--help``."""
    default = getattr(TrainArgs, name, None)
    values = {recipe: RECIPES[recipe].get(name, default) for recipe in sorted(RECIPES)}
    if len({repr(v) for v in values.values()}) == 1:
        return f" (every recipe: {next(iter(values.values()))})"
    return f" (recipes: {', '.join(f'{recipe} {value}' for recipe, value in values.items())})"


KNOCKS_NOTE = (
    "(knocks: knocks per deal played, counting deals without a knock to decide, such as the dealer's five tricks "
    "without play; knock rate by score: knocks per knock decision)"
)


def args_from(namespace: Namespace) -> TrainArgs:
    """The recipe's arguments with every option given on the command line applied.

    With ``--resume`` the run's saved arguments (``args.json``) take the recipe's place, so a run
    resumes with the rules and settings it was started with; given options that differ from them
    are applied and named (``--total-steps`` to train on, say).
    """
    given = {f.name: getattr(namespace, f.name) for f in dataclasses.fields(TrainArgs)}
    given = {k: v for k, v in given.items() if v is not None}
    values = dict(RECIPES[namespace.recipe])
    if given.get("resume"):
        if "run_dir" not in given:
            raise CommandError("--resume needs --run-dir (the folder of the run to continue)")
        values = _saved_args(Path(given["run_dir"]))
        changed = [f"{k}={v!r} (saved {values.get(k)!r})" for k, v in given.items() if values.get(k) != v]
        changed = [c for c in changed if not c.startswith(("resume=", "progress="))]
        if changed:
            print("resuming with the run's saved arguments, except: " + ", ".join(changed), flush=True)
    values.update(given)
    if "run_dir" not in values:
        variant = values.get("variant", TrainArgs.variant)
        values["run_dir"] = f"runs/{namespace.recipe}-{variant}-{time.strftime('%Y%m%d-%H%M%S')}"
    check_run_dir(str(values["run_dir"]))
    try:
        args = TrainArgs(**values)
    except (TypeError, ValueError) as err:
        raise CommandError(str(err)) from None
    try:  # the final evaluation plays the deal set after the periodic ones'
        check_seed(args.eval_seed + 1, "--eval-seed + 1 (the final evaluation's deal set)")
    except SeedError as err:
        raise CommandError(str(err)) from None
    return args


def _saved_args(run_dir: Path) -> dict[str, Any]:
    """The arguments a run was started with (its ``args.json``, every field's type checked)."""
    check_run_dir(str(run_dir))
    try:
        return read_run_args(run_dir)
    except FileNotFoundError:
        raise CommandError(f"{run_dir} holds no run to resume (no args.json)") from None
    except ValueError as err:
        raise CommandError(str(err)) from None


def check_run_dir(run_dir: str) -> None:
    """``CommandError`` naming ``--run-dir`` for a folder that cannot be made or used (before any work)."""
    try:
        check_folder(run_dir, "--run-dir")
    except ValueError as err:
        raise CommandError(str(err)) from None


def check_folder(folder: str | os.PathLike[str], option: str) -> None:
    """``ValueError`` naming ``option`` for a folder that cannot be made or used: a bad path, or a file
    where it or a folder above it would be (checked before any work, so no ``NotADirectoryError`` later)."""
    jsoncheck.check_path(str(folder), option)
    path = Path(folder)
    for above in (path, *path.parents):
        if os.path.lexists(above):
            if not os.path.isdir(above):
                raise ValueError(f"{option} {folder}: {above} is a file, not a folder")
            break


def summary(recipe: str, args: TrainArgs) -> str:
    """One line of what a run trains (its full arguments go to its ``args.json``)."""
    sizes = "/".join(str(n) for n in args.sizes)
    return (
        f"rams train {recipe}: {args.variant}, {sizes} players, episode {args.episode}, reward {args.reward}, "
        f"{args.total_steps:,} steps over {args.num_games} games; all arguments in {Path(args.run_dir) / 'args.json'}"
    )


def engine_compiled() -> bool:
    """Whether numba's cache holds the batched env's compiled step (False when unsure), so that the
    first run can say it compiles."""
    from rams_env.core import is_compiled  # every batched face's driver: the env's steps, the final evaluation's games

    return is_compiled()


def compile_heuristic_ahead() -> None:
    """On a first run, the heuristic compiled in a second process while this one compiles the core
    (:func:`rams_env.core.compile_ahead`)."""
    from rams_env.core import compile_ahead

    compile_ahead()


def run(namespace: Namespace) -> int:
    """Train, then evaluate the best checkpoint and say where everything is."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", stream=sys.stderr)
    args = args_from(namespace)
    print(summary(namespace.recipe, args), flush=True)
    if not engine_compiled():
        print("compiling the rules engine, once per install (later runs load it from numba's cache) ...", flush=True)
        compile_heuristic_ahead()
    started = time.perf_counter()
    try:
        trainer = Trainer(args)
    except (FileExistsError, ValueError) as err:
        raise CommandError(str(err)) from None
    except OSError as err:  # the run folder cannot be made or written (permissions, a full disk)
        raise CommandError(f"--run-dir {args.run_dir}: {err.strerror or err}") from None
    with logging_redirect_tqdm():  # log lines above the progress bar, not inside it
        best = trainer.run()
    minutes = (time.perf_counter() - started) / 60
    run_dir = Path(args.run_dir)
    curves = plot_learning_curves(run_dir / "progress.csv", run_dir / "learning_curves.png")
    decks = namespace.final_decks or FINAL_EVAL_DECKS[namespace.recipe]
    from rams_env.agents import load_agent

    written = []
    print(
        f"final evaluation: {decks} decks of deal set {args.eval_seed + 1}, a fresh one (the periodic evaluations "
        f"of {curves.name} play {args.eval_decks} decks of deal set {args.eval_seed}: numbers differ by chance)",
        flush=True,
    )
    for table in trainer.tables:  # every table size it trained for (a suffix names the size when several)
        config = table.config
        policy = load_agent(best, expect_config=config)
        suffix = f"_{config.num_players}p" if len(trainer.tables) > 1 else ""
        for name, baseline in (("random", RandomAgent), ("heuristic", agent_source("heuristic", config))):
            ev = evaluate(
                {"policy": policy},
                baseline,
                config,
                decks=decks,
                seed=args.eval_seed + 1,
                episode=args.episode,
                baseline_name=name,
                progress=args.progress,
            )
            print(ev.table() + "\n" + KNOCKS_NOTE, flush=True)
            ev.save_json(run_dir / f"eval_vs_{name}{suffix}.json")
            ev.plot(run_dir / f"eval_vs_{name}{suffix}.png")
            ev.plot_knock_rates(run_dir / f"knock_rates_vs_{name}{suffix}.png")
            written.append(str(run_dir / f"eval_vs_{name}{suffix}.json"))
    print(f"trained {trainer.steps:,} steps in {minutes:.1f} min")
    print(f"checkpoint: {best}")
    print(f"learning curves: {curves}")
    print(f"evaluations: {', '.join(written)} (and .png)")
    return 0


COMMAND = Command("train", "train a policy by imitation and PPO (recipes quick, full, staged and deal)", configure, run)
