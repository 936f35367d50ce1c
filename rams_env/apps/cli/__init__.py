"""The ``rams`` command: :func:`main` builds one parser of the built-in subcommands and those that
installed packages add (``rams train``, ``rams serve``: :mod:`rams_env.apps.command`), and runs one.

One module per built-in subcommand: ``evaluate`` (``rams eval``), ``play`` (``rams play``) and
``replay`` (``rams replay``); ``options`` holds what they share (the rules options, bounded argument
types, torch's threads). What the server uses too lives one level up: the :class:`Command` type and
the plugins (``command``), the game log (``game_log``) and the lines that say what happened
(``narration``). ``python -m rams_env.apps.cli`` runs :func:`main` where the console script is missing.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from ..command import CommandError, build_parser, plugin_commands
from .evaluate import COMMAND as EVAL
from .play import COMMAND as PLAY
from .replay import COMMAND as REPLAY

BUILTIN_COMMANDS = (EVAL, PLAY, REPLAY)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``rams`` command; returns the exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    builtin = {c.name for c in BUILTIN_COMMANDS}
    # Plugins (which may import heavy packages) are loaded only for their own commands and for help.
    plugins = plugin_commands() if not argv or argv[0] not in builtin else []
    parser = build_parser([*BUILTIN_COMMANDS, *plugins])
    args = parser.parse_args(argv)
    try:
        code = args.run(args)
        sys.stdout.flush()  # a closed pipe shows here, not in the interpreter's final flush
        return code
    except CommandError as err:
        print(f"rams {args.command}: error: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\nInterrupted.", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (rams replay log.json | head): stop quietly. Python would flush stdout
        # again at exit and report that failure, so stdout is pointed at /dev/null first.
        _silence_stdout()
        return 1
    except OSError as err:  # a file that cannot be written or read where no check could tell beforehand
        where = f"{err.filename}: " if err.filename else ""
        print(f"rams {args.command}: error: {where}{err.strerror or err}", file=sys.stderr)
        return 1


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # stdout replaced by an object without a file descriptor
        pass
