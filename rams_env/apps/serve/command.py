"""``rams serve``: its options (the server's limits among them), and starting the server until Ctrl-C."""

from __future__ import annotations

import argparse
import contextlib
import io
import ipaddress
import os

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


def _configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("logs", nargs="*", metavar="LOG", help="game logs (rams play --save) to offer for watching")
    parser.add_argument(
        "--host", default=DEFAULT_HOST, help=f"address to listen on (default {DEFAULT_HOST}: this machine only)"
    )
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT}; 0: any free)")
    parser.add_argument(
        "--save-dir",
        metavar="DIR",
        default=None,
        help="save the log of each finished game there and offer them for watching (default: none)",
    )
    parser.add_argument(
        "--checkpoints",
        metavar="DIR",
        default="checkpoints",
        help="folder of trained agents the page suggests after the model zoo's names: their model cards "
        "(*.md, at any depth) with their headlines, and other *.pt files in it (default checkpoints)",
    )
    parser.add_argument("--threads", type=int, default=1, help="torch threads for checkpoint agents (default 1)")
    parser.add_argument(
        "--quiet",
        action=argparse.BooleanOptionalAction,
        default=False,
        help="do not log each request (default: logged)",
    )
    _configure_limits(parser)


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if not 1 <= value <= 10**7:
        raise argparse.ArgumentTypeError(f"expected a positive integer up to 10000000, got {value}")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not 0 < value < 10**7:
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text!r}")
    return value


def _configure_limits(parser: argparse.ArgumentParser) -> None:
    """The options of :class:`rams_env.apps.serve.limits.Limits`: what requests may ask of the server."""
    d = Limits()
    group = parser.add_argument_group("limits", "what requests may ask of the server (rams_env.apps.serve.limits)")
    group.add_argument(
        "--max-games",
        type=_positive_int,
        default=d.max_games,
        metavar="N",
        help="games kept in memory; a new game replaces one its player left, one finished longer than "
        f"--keep-finished ago, or one idle; else it is refused (503) (default {d.max_games})",
    )
    group.add_argument(
        "--max-replays",
        type=_positive_int,
        default=d.max_replays,
        metavar="N",
        help=f"replays kept in memory, replaced when idle (default {d.max_replays})",
    )
    group.add_argument(
        "--idle-time",
        type=_seconds,
        default=d.idle_seconds,
        metavar="SECONDS",
        help=f"a game or replay untouched this long may make room for a new one (default {d.idle_seconds:g})",
    )
    group.add_argument(
        "--keep-finished",
        type=_seconds,
        default=d.keep_finished_seconds,
        metavar="SECONDS",
        help="a finished game stays readable this long, unless its player starts another "
        f"(default {d.keep_finished_seconds:g})",
    )
    group.add_argument(
        "--max-simulations",
        type=_positive_int,
        default=d.max_simulations,
        metavar="N",
        help="most simulations per move of an agent named in a request: search worlds, ISMCTS simulations "
        f"times rollouts; a request asking more is refused (default {d.max_simulations})",
    )
    group.add_argument(
        "--move-time",
        type=_seconds,
        default=d.move_seconds,
        metavar="SECONDS",
        help=f"time limit of each move of a search agent named in a request (default {d.move_seconds:g})",
    )
    group.add_argument(
        "--request-time",
        type=_seconds,
        default=d.request_seconds,
        metavar="SECONDS",
        help="time for the agents' moves of one request; then the request is answered 503 and the agents stop "
        f"(default {d.request_seconds:g})",
    )


def limits_from_args(args: argparse.Namespace) -> Limits:
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


def _run(args: argparse.Namespace) -> int:
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
