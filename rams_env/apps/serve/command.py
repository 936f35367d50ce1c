"""``rams serve``: its options (the server's limits among them), and starting the server until Ctrl-C."""

from __future__ import annotations

import contextlib
import io
import ipaddress
import os
from dataclasses import dataclass

from ...options import Namespace, Parser, add_options, arg
from ..cli.options import MAX_THREADS
from ..command import Command, CommandError
from ..game_log import load_log
from .app import SERVE_EXTRA_HINT, ServeExtraMissing, create_app
from .limits import Limits
from .state import ServeState

DEFAULT_HOST, DEFAULT_PORT = "127.0.0.1", 8765


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


@dataclass(kw_only=True)
class ServeOptions:
    """The options of ``rams serve`` but its limits (:class:`LimitOptions`)."""

    logs: tuple[str, ...] = arg(
        (), "game logs (rams play --save) to offer for watching", positional=True, nargs="*", metavar="LOG"
    )
    host: str = arg(DEFAULT_HOST, f"address to listen on (default {DEFAULT_HOST}: this machine only)")
    port: int = arg(DEFAULT_PORT, f"port (default {DEFAULT_PORT}; 0: any free)")
    save_dir: str | None = arg(
        None, "save the log of each finished game there and offer them for watching (default: none)", metavar="DIR"
    )
    checkpoints: str = arg(
        "checkpoints",
        "folder of trained agents the page suggests after the model zoo's names: their model cards (*.md, at any "
        "depth) with their headlines, and other *.pt files in it (default checkpoints)",
        metavar="DIR",
    )
    threads: int = arg(1, "torch threads for checkpoint agents (default 1)")
    quiet: bool = arg(False, "do not log each request (default: logged)")


_D = Limits()
MOST = 10**7
"""the largest count and the longest time (seconds, excluded) a limit takes"""


def _count(default: int, doc: str) -> int:
    return arg(default, doc, low=1, high=MOST, metavar="N")


def _seconds(default: float, doc: str) -> float:
    return arg(default, doc, low=0, high=MOST, open_low=True, open_high=True, metavar="SECONDS")


@dataclass(kw_only=True)
class LimitOptions:
    """The options of :class:`rams_env.apps.serve.limits.Limits`: what requests may ask of the server."""

    max_games: int = _count(
        _D.max_games,
        "games kept in memory; a new game replaces one its player left, one finished longer than --keep-finished "
        f"ago, or one idle; else it is refused (503) (default {_D.max_games})",
    )
    max_replays: int = _count(_D.max_replays, f"replays kept in memory, replaced when idle (default {_D.max_replays})")
    idle_time: float = _seconds(
        _D.idle_seconds,
        f"a game or replay untouched this long may make room for a new one (default {_D.idle_seconds:g})",
    )
    keep_finished: float = _seconds(
        _D.keep_finished_seconds,
        "a finished game stays readable this long, unless its player starts another "
        f"(default {_D.keep_finished_seconds:g})",
    )
    max_simulations: int = _count(
        _D.max_simulations,
        "most simulations per move of an agent named in a request: search worlds, ISMCTS simulations times "
        f"rollouts; a request asking more is refused (default {_D.max_simulations})",
    )
    move_time: float = _seconds(
        _D.move_seconds, f"time limit of each move of a search agent named in a request (default {_D.move_seconds:g})"
    )
    request_time: float = _seconds(
        _D.request_seconds,
        "time for the agents' moves of one request; then the request is answered 503 and the agents stop "
        f"(default {_D.request_seconds:g})",
    )


def _configure(parser: Parser) -> None:
    add_options(parser, ServeOptions)
    group = parser.add_argument_group("limits", "what requests may ask of the server (rams_env.apps.serve.limits)")
    add_options(group, LimitOptions, validate=True)


def limits_from_args(args: Namespace) -> Limits:
    """The :class:`Limits` of ``rams serve``'s options."""
    return Limits(
        max_games=args.max_games,
        max_replays=args.max_replays,
        idle_seconds=args.idle_time,
        keep_finished_seconds=args.keep_finished,
        max_simulations=args.max_simulations,
        move_seconds=args.move_time,
        request_seconds=args.request_time,
    )


def _check_host(host: str, port: int) -> None:
    """``CommandError`` naming ``--host`` for an address that does not resolve (Werkzeug would print and exit)."""
    import socket

    try:
        socket.getaddrinfo(host.strip("[]"), port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as err:
        raise CommandError(f"--host {host!r} does not resolve to an address to listen on: {err}") from None


def _run(args: Namespace) -> int:
    for path in args.logs:
        load_log(path)  # a bad log is a CommandError now, not a surprise on the page
    if args.save_dir is not None and not os.path.isdir(args.save_dir):
        raise CommandError(f"--save-dir {args.save_dir}: no such folder")
    if not 0 <= args.port <= 65535:
        raise CommandError(f"--port must be 0 to 65535, got {args.port}")
    if not 1 <= args.threads <= MAX_THREADS:
        raise CommandError(f"--threads must be 1 to {MAX_THREADS}, got {args.threads}")
    try:
        from werkzeug.serving import make_server

        local = _loopback(args.host)
        app = create_app(
            ServeState(args.save_dir, args.logs, args.checkpoints, args.threads, limits_from_args(args)),
            allowed_hosts=("127.0.0.1", "localhost", "::1") if local else None,
        )
    except ServeExtraMissing as err:
        raise CommandError(str(err)) from None
    except ImportError:  # Werkzeug (which comes with Flask) missing
        raise CommandError(SERVE_EXTRA_HINT) from None
    if args.quiet:
        import logging

        logging.getLogger("werkzeug").setLevel(logging.WARNING)
    _check_host(args.host, args.port)
    said = io.StringIO()  # Werkzeug prints why it cannot listen, then exits: said here in one line instead
    try:
        with contextlib.redirect_stderr(said):
            server = make_server(args.host, args.port, app, threaded=True)
    except (OSError, SystemExit) as err:
        why = " ".join(said.getvalue().split()) or str(err)
        raise CommandError(f"cannot listen on {args.host}:{args.port}: {why}") from None
    host = f"[{args.host}]" if ":" in args.host else args.host
    print(f"rams serve: http://{host}:{server.server_port}/  (Ctrl-C stops)", flush=True)
    if not local:
        print(
            f"rams serve: warning: listening on {args.host}, not this machine only: anyone who can reach it can "
            "play, and load checkpoint files by path",
            flush=True,
        )
    try:
        server.serve_forever()  # Werkzeug's returns on Ctrl-C
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    print("\nrams serve: stopped", flush=True)
    return 0


COMMAND = Command("serve", "a local web page: play against agents, watch saved games step by step", _configure, _run)
