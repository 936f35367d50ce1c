"""What several commands share: the rules options (:class:`RulesOptions`, one dataclass that ``rams eval``,
``rams play`` and the benchmarks add with :func:`rams_env.options.add_options`) and the rules they give,
the agent of a spec, the check of an output path, and torch's threads. Every option is built from a
dataclass (rams_env/options.py); what is here is what those options mean."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ...agents.specs import ResolvedAgent, resolve
from ...eval import SCORES
from ...keyvalue import parse_pair
from ...options import Namespace, Parser, add_options, arg
from ...rules import PRESETS, RulesConfig, make_config
from ...rules.config import MAX_PLAYERS, MIN_PLAYERS
from ...rules.episode import EPISODES, EpisodeKind
from ..command import CommandError

MAX_WORKERS = MAX_THREADS = 1024  # processes or threads a command may start
MAX_RESAMPLES = 10_000_000  # bootstrap resamples (8 bytes each in memory)


@dataclass(kw_only=True)
class RulesOptions:
    """The rules options, one group for every command that takes them (``only=`` picks the ones it needs):
    the preset, the table, rule options over the preset's, the episode and the scores of the first deal."""

    variant: str = arg("mattmar", "rules preset", choices=sorted(PRESETS))
    num_players: int = arg(
        4, f"players at the table, {MIN_PLAYERS} to {MAX_PLAYERS}", metavar="N", old_names=["players"]
    )
    option: tuple[str, ...] = arg(
        (), "override a rule option, e.g. --option start_score=150; repeatable", metavar="KEY=VALUE", repeat=True
    )
    episode: str = arg(EpisodeKind.DEAL.label, "episode: one deal, one rams, or a match of ramsar", choices=EPISODES)
    scores: str = arg(
        "start", "scores at the first deal: everyone at the start score, or drawn from 1 to it", choices=SCORES
    )


RULES_DEFAULTS = {"option": "the preset's options"}
"""how a default of :class:`RulesOptions` reads in ``--help`` where it is not its value"""


def add_rules_options(parser: Parser, own: str = "", only: Sequence[str] | None = None) -> None:
    """:class:`RulesOptions` (``only``: these), each help saying its default; ``own``: what decides the preset
    and the table when they are left out (then their default is None)."""
    names = list(only or RulesOptions.__dataclass_fields__)
    unset = [name for name in names if own and name in ("variant", "num_players")]
    add_options(parser, RulesOptions, unset=True, extra_help=rules_help(own), only=unset)
    add_options(parser, RulesOptions, extra_help=rules_help(), only=[name for name in names if name not in unset])


def rules_help(own: str = "") -> Callable[[str], str]:
    """The ``extra_help`` of :class:`RulesOptions`: `` (default 4)``, or ``own`` before it."""

    def text(name: str) -> str:
        default = RULES_DEFAULTS.get(name, RulesOptions.__dataclass_fields__[name].default)
        return f" (default {own}{default})" if name not in RULES_DEFAULTS else f" (default: {default})"

    return text


def rules_from_args(args: Namespace) -> RulesConfig:
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
