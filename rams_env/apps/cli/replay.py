"""``rams replay``: a game log saved by ``rams play --save``, action by action, as one seat saw it."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import TextIO

from ...envs.render import render_table
from ...options import REQUIRED, Namespace, Parser, add_options, arg
from ...rules import Game, IllegalActionError, Phase
from ...rules.episode import next_deal_or_end
from ..command import Command, CommandError
from ..game_log import load_log, log_action, short_repr
from ..narration import BOUGHT_KEY, NEXT_DEAL, apply_and_narrate
from ..scores import DealStart


@dataclass(kw_only=True)
class ReplayOptions:
    """The options of ``rams replay``."""

    log: str = arg(REQUIRED, "a game log written by rams play --save", positional=True, metavar="LOG")
    seat: int | None = arg(None, "whose view to show (default: the player's)", low=0)


def _configure(parser: Parser) -> None:
    add_options(parser, ReplayOptions, validate=True)


def _run(args: Namespace) -> int:
    return replay(args.log, args.seat, sys.stdout)


class TablePrinter:
    """Prints the table as a seat sees it; under the first that shows the ``bought`` column, what it means."""

    def __init__(self, out: TextIO) -> None:
        self.out, self.explained = out, False

    def __call__(self, game: Game, viewer: int, lead: str = "\n") -> None:
        text = render_table(game, viewer)
        if not self.explained and any(game.active):  # a seat that knocked shows what it bought
            text += "\n" + BOUGHT_KEY
            self.explained = True
        print(lead + text, file=self.out)


def replay(path: str, seat: int | None, out: TextIO) -> int:
    """Print the log at ``path`` action by action as ``seat`` (default: its player) saw it; returns 0."""
    game, record = load_log(path)
    viewer = record.get("human_seat", 0) if seat is None else seat
    if not 0 <= viewer < game.n:
        where = "--seat" if seat is not None else f"{path}: 'human_seat'"
        raise CommandError(f"{where} must be a seat 0..{game.n - 1}, got {viewer!r}")
    print(f"Replay of {path}: {game.config.variant}, {game.n} players, seen by player_{viewer}.", file=out)
    table = TablePrinter(out)
    table(game, viewer)
    start = DealStart.of(game)
    for k, entry in enumerate(record["actions"], 1):
        if game.phase >= Phase.DEAL_OVER:
            if next_deal_or_end(game, record["episode"]):
                raise CommandError(f"{path}: the {record['episode']} is over after action {k - 1}, the log goes on")
            start = DealStart.of(game)
            print("\n" + NEXT_DEAL, file=out)
        try:
            actor, action = log_action(entry, game)
            line, said = apply_and_narrate(game, actor, action, viewer, start)
        except (ValueError, IllegalActionError) as err:
            raise CommandError(f"{path}: action {k} {short_repr(entry)} does not replay: {short_repr(err)}") from None
        print(f"\n[{k}] {line}", file=out)
        for news in said:
            print(news, file=out)
        table(game, viewer, lead="")
    print(f"\nend of the log ({len(record['actions'])} actions)", file=out)
    return 0


COMMAND = Command("replay", "replay a game log saved by rams play --save", _configure, _run)
