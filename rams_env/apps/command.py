"""The plumbing every ``rams`` subcommand shares: the :class:`Command` type, :class:`CommandError`, the
subcommands other packages add, and the parser that holds them all.

Other packages add their subcommands (``rams train``, ``rams serve``) through the entry-point group
``rams_env.commands``, each entry point naming a :class:`Command`, e.g. in their ``pyproject.toml``:
``[project.entry-points."rams_env.commands"] train = "rams_training.cli:COMMAND"``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib.metadata import EntryPoint, entry_points
from typing import TextIO

from ..options import Namespace, Parser, add_options, arg, commands_parser

COMMAND_GROUP = "rams_env.commands"


@dataclass(frozen=True)
class Command:
    """A subcommand: ``configure`` adds its options to its parser (:func:`rams_env.options.add_options` of its
    dataclasses), ``run`` does it with what the parser read and returns the exit code."""

    name: str
    help: str
    configure: Callable[[Parser], None]
    run: Callable[[Namespace], int]


class CommandError(Exception):
    """A failure to report as one line on stderr (bad file, bad value), never as a traceback."""


def plugin_commands(warn: TextIO | None = None) -> list[Command]:
    """Commands that installed packages declare in the ``rams_env.commands`` entry-point group.

    One that cannot be loaded is left out with a warning (on ``warn``, default stderr), so that it
    cannot break the other commands; one that needs a module that is not installed (``rams train``
    without torch) is listed, and running it says what to install.
    """
    warn = warn or sys.stderr
    found = []
    for point in entry_points(group=COMMAND_GROUP):
        try:
            command = point.load()
        except Exception as err:  # a plugin's import error of any kind
            if isinstance(err, ModuleNotFoundError) and _top_level(err.name) != _top_level(point.module):
                found.append(_needs_module(point, err))  # a missing dependency: rams train without torch
            else:
                print(f"rams: warning: command {point.name!r} ({point.value}) not loaded: {err!r}", file=warn)
            continue
        if not isinstance(command, Command):
            print(f"rams: warning: entry point {point.name!r} ({point.value}) is not a Command", file=warn)
            continue
        found.append(command)
    return found


def _top_level(module: str | None) -> str:
    return (module or "").partition(".")[0]


def _needs_module(point: EntryPoint, err: ModuleNotFoundError) -> Command:
    """A stand-in for a command whose import needs a module that is not installed: running it says
    what to install (for this package's own commands, the extra named like the command)."""
    own = point.dist is not None and point.dist.name.replace("-", "_") == "rams_env"
    install = f'pip install "rams_env[{point.name}]"' if own else f"install {err.name!r}"
    message = f"needs {err.name!r}, which is not installed: {install}"

    def configure(parser: Parser) -> None:
        add_options(parser, _Unavailable)

    def run(args: Namespace) -> int:
        raise CommandError(message)

    return Command(point.name, f"(not available: {message})", configure, run)


@dataclass(kw_only=True)
class _Unavailable:
    """The arguments of a command that is not available: taken, never read (running it says what to install)."""

    arguments: tuple[str, ...] = arg((), "not read: the command is not available", positional=True, nargs="...")


def build_parser(commands: Sequence[Command]) -> Parser:
    """The ``rams`` parser with one subcommand per command (each remembers its ``run``)."""
    names = [command.name for command in commands]
    twice = next((name for name in names if names.count(name) > 1), None)
    if twice is not None:
        raise ValueError(f"two rams commands are named {twice!r}")
    return commands_parser("rams", "Rams card game: evaluate agents, play, replay.", commands)
