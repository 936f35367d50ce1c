"""What several ``rams`` subcommands share: the rules options, argument types with bounds, the agent
of a spec, the check of an output path, and torch's threads."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Callable, Iterator
from typing import Any

from ...agents.specs import ResolvedAgent, resolve
from ...eval import SCORES
from ...keyvalue import parse_pair
from ...rules import PRESETS, RulesConfig, make_config
from ...rules.config import MAX_PLAYERS, MIN_PLAYERS
from ...rules.episode import EPISODES, EpisodeKind
from ..command import CommandError

MAX_WORKERS = MAX_THREADS = 1024  # processes or threads a command may start
MAX_RESAMPLES = 10_000_000  # bootstrap resamples (8 bytes each in memory)


def add_rules_arguments(parser: argparse.ArgumentParser, own: str = "") -> None:
    """The rules options; ``own``: what decides them when they are left out (then their default is None)."""
    variant, players = (None, None) if own else ("mattmar", 4)
    parser.add_argument(
        "--variant", default=variant, choices=sorted(PRESETS), help=f"rules preset (default {own}mattmar)"
    )
    parser.add_argument(
        "--num-players",
        type=int,
        default=players,
        metavar="N",
        help=f"players at the table, {MIN_PLAYERS} to {MAX_PLAYERS} (default {own}4)",
    )
    # The spelling of earlier versions, still accepted (rams train and the env keyword say num_players).
    parser.add_argument("--players", type=int, dest="num_players", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a rule option, e.g. --option start_score=150; repeatable (default: the preset's options)",
    )
    parser.add_argument(
        "--episode",
        default=EpisodeKind.DEAL.label,
        choices=EPISODES,
        help="episode: one deal, one rams, or a match of ramsar (default deal)",
    )
    parser.add_argument(
        "--scores",
        default="start",
        choices=SCORES,
        help="scores at the first deal: everyone at the start score, or drawn from 1 to it (default start)",
    )


def rules_from_args(args: argparse.Namespace) -> RulesConfig:
    """The rules that ``--variant``, ``--num-players`` and ``--option`` give; ``CommandError`` for a bad one."""
    options: dict[str, Any] = {}
    for item in args.option:
        try:
            key, value = parse_pair(item)
        except ValueError:
            raise CommandError(f"--option needs KEY=VALUE, got {item!r}") from None
        if key in ("variant", "num_players"):  # make_config's own arguments: a TypeError there
            flag = "--variant" if key == "variant" else "--num-players"
            raise CommandError(f"--option {item}: give {key} with {flag}, not as a rule option")
        options[key] = value
    try:
        return make_config(args.variant or "mattmar", args.num_players or 4, **options)
    except ValueError as err:
        raise CommandError(str(err)) from None


def resolve_agent(spec: str, config: RulesConfig | None = None) -> ResolvedAgent:
    """:func:`rams_env.agents.specs.resolve` of an agent spec; ``CommandError`` for a bad spec (without
    torch, for a policy: the message names the extra)."""
    try:
        return resolve(spec, config)
    except ValueError as err:
        raise CommandError(str(err)) from None


def make_agent(spec: str, config: RulesConfig) -> Any:
    """The agent (or agent source) of an agent spec for ``config``; ``CommandError`` for a bad spec."""
    return resolve_agent(spec, config).source


def check_output(path: str | None, option: str) -> None:
    """Refuse an output path whose folder does not exist before the work, not after it."""
    if path is None:
        return
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise CommandError(f"{option} {path}: the folder {folder} does not exist")
    if os.path.isdir(path):
        raise CommandError(f"{option} {path}: that is a folder, not a file")


def nonnegative(text: str) -> int:
    """An argparse type: an integer 0 or more."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {value}")
    return value


def positive(text: str) -> int:
    """An argparse type: an integer 1 or more."""
    value = nonnegative(text)
    if value == 0:
        raise argparse.ArgumentTypeError("expected a positive integer, got 0")
    return value


def at_most(limit: int) -> Callable[[str], int]:
    """An argparse type: a positive integer up to ``limit`` (processes, threads, resamples: memory and cores)."""

    def parse(text: str) -> int:
        value = positive(text)
        if value > limit:
            raise argparse.ArgumentTypeError(f"expected a positive integer up to {limit:,}, got {value:,}")
        return value

    return parse


@contextlib.contextmanager
def torch_threads(threads: int) -> Iterator[None]:
    """Give torch ``threads`` threads here and in the processes started meanwhile; restore both afterwards.

    The worker processes of ``--workers`` are spawned fresh: torch reads ``OMP_NUM_THREADS`` when they
    import it. In this process torch may already be imported, so its setting is changed too.
    """
    names = ("OMP_NUM_THREADS", "MKL_NUM_THREADS")
    saved_env = {name: os.environ.get(name) for name in names}
    torch = sys.modules.get("torch")
    saved_threads = torch.get_num_threads() if torch is not None else None
    os.environ.update(dict.fromkeys(names, str(threads)))
    if torch is not None:
        torch.set_num_threads(threads)
    try:
        yield
    finally:
        for name, value in saved_env.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        if saved_threads is not None:
            sys.modules["torch"].set_num_threads(saved_threads)
