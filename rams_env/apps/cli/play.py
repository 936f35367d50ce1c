"""``rams play``: a person plays a seat in the terminal against agents, and may save the game log."""

from __future__ import annotations

import contextlib
import random
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

from ...eval import AGENT_SPEC_HELP, actor_for, agent_label, agent_seed, build_agent, deal_set
from ...obs import ObservationEncoder
from ...options import SEED, Namespace, Parser, add_options, arg
from ...rules import Action, Game, RulesConfig, action_name, card_index
from ...rules.episode import next_deal_or_end
from ..command import Command, CommandError
from ..game_log import log_record, write_log
from ..narration import NEXT_DEAL, apply_and_narrate, legal_names, move_hint
from ..scores import DealStart
from .options import add_rules_options, check_output, make_agent, rules_from_args
from .replay import TablePrinter, replay


@dataclass(kw_only=True)
class PlayOptions:
    """The options of ``rams play`` but the rules' (:class:`rams_env.apps.cli.options.RulesOptions`)."""

    seat: int = arg(0, "your seat (default 0)", low=0)
    agents: tuple[str, ...] = arg(
        ("heuristic",),
        "the other seats' agents in seat order, or one for all (default heuristic); " + AGENT_SPEC_HELP,
        metavar="AGENT",
    )
    seed: int | None = arg(None, "seed of the deal (default: a fresh one)", check=SEED)
    save: str | None = arg(
        None, "write the game log as JSON, also when you quit early (default: not saved)", metavar="PATH"
    )
    replay: str | None = arg(
        None, "replay a saved game log instead of playing, as rams replay LOG does (default: play)", metavar="LOG"
    )


def _configure(parser: Parser) -> None:
    add_rules_options(parser)
    add_options(parser, PlayOptions, validate=True)


class _Quit(Exception):
    """The person asked to leave."""


@dataclass
class _Move:
    """Parsing of one line of input: an action, or the message explaining why not."""

    action: int | None
    message: str = ""


def parse_move(text: str, legal: Sequence[int]) -> _Move:
    """Read a move typed by a person: its number in ``legal`` (from 1), a card name or an action name."""
    word = text.strip()
    if not word:
        return _Move(None, "Please type a move: its number, a card like TH, or a name like PASS.")
    if word.isascii() and word.isdigit():  # str.isdigit is also true of "²", which int() refuses
        k = int(word)
        if 1 <= k <= len(legal):
            return _Move(legal[k - 1])
        return _Move(None, f"There is no move number {k}: choose 1 to {len(legal)}.")
    token = word.upper().replace("-", "_").replace(" ", "_")
    if token.startswith("10") and len(token) == 3:
        token = "T" + token[2]
    action: int | None = None
    if len(token) == 2:
        try:
            action = card_index(token)
        except ValueError:
            action = None
    if action is None and token in Action.__members__:
        action = int(Action[token])
    if action is None:
        return _Move(None, f"Unknown move {word!r}: type a number 1 to {len(legal)}, a card like TH, or a name.")
    if action not in legal:
        return _Move(None, f"{action_name(action)} is not a legal move now; legal: {legal_names(legal)}.")
    return _Move(action)


def _menu(game: Game, legal: Sequence[int]) -> str:
    hint = move_hint(game, game.current)
    items = "  ".join(f"{k}) {action_name(a)}" for k, a in enumerate(legal, 1))
    return f"{hint}\nYour moves: {items}\n(type a number or a name; 'help' repeats this, 'quit' leaves)"


def _ask(game: Game, ask: Callable[[str], str], out: TextIO) -> int:
    legal = game.legal_actions()
    print(_menu(game, legal), file=out)
    undecodable = 0
    while True:
        try:
            text = ask("your move> ")
        except UnicodeDecodeError:  # bytes that are not text in the terminal's encoding: ask again
            undecodable += 1
            if undecodable > 100:  # a stream of binary input, not a person: as the end of input
                raise EOFError from None
            print("That line is not text; type a move: its number, a card like TH, or a name like PASS.", file=out)
            continue
        undecodable = 0
        if text.strip().lower() in ("quit", "exit", "q"):
            raise _Quit
        if text.strip().lower() in ("help", "?", "h"):
            print(_menu(game, legal), file=out)
            continue
        try:
            move = parse_move(text, legal)
        except Exception as err:  # whatever was typed, the prompt goes on
            move = _Move(None, f"Could not read {text.strip()[:40]!r} as a move ({type(err).__name__}); try again.")
        if move.action is not None:
            return move.action
        print(move.message, file=out)


def _play_loop(
    game: Game,
    actors: list[Callable[[Game, int], int] | None],
    episode: str,
    viewer: int,
    ask: Callable[[str], str],
    out: TextIO,
    log: list[list[Any]],
) -> None:
    """Play to the end of the episode; ``actors[viewer] is None`` means the person at the keyboard decides."""
    table = TablePrinter(out)
    while True:
        start = DealStart.of(game)
        while (seat := game.current) >= 0:
            actor = actors[seat]
            if actor is None:
                table(game, viewer)
                action = _ask(game, ask, out)
            else:
                action = actor(game, seat)
            line, said = apply_and_narrate(game, seat, action, viewer, start)
            log.append([seat, action_name(action)])
            print(line, file=out)
            for news in said:
                print(news, file=out)
        if next_deal_or_end(game, episode):
            break
        print("\n" + NEXT_DEAL, file=out)
    table(game, viewer)


def _run(args: Namespace) -> int:
    if args.replay:
        return replay(args.replay, None, sys.stdout)
    config = rules_from_args(args)
    n = config.num_players
    if args.seat >= n:
        raise CommandError(f"--seat must be a seat 0..{n - 1}, got {args.seat}")
    specs = list(args.agents)
    if len(specs) == 1:
        specs *= n - 1
    if len(specs) != n - 1:
        raise CommandError(f"--agents needs one agent for all other seats or {n - 1} (one per seat), got {len(specs)}")
    check_output(args.save, "--save")
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    deal = deal_set(config, seed, 1, args.scores)[0]
    others = iter(specs)
    names = ["you" if s == args.seat else next(others) for s in range(n)]
    encoder = ObservationEncoder(config)
    sources = {s: make_agent(names[s], config) for s in range(n) if s != args.seat}
    actors: list[Callable[[Game, int], int] | None] = [
        None if s == args.seat else actor_for(build_agent(sources[s], agent_seed(seed, deal.index, s)), encoder)
        for s in range(n)
    ]
    game = deal.game(config)
    log: list[list[Any]] = []
    labels = [agent_label(name, sources[s]) if s in sources else name for s, name in enumerate(names)]
    print(f"Rams {config.variant}, {n} players, seed {seed}; you are player_{args.seat}.")
    print("Seats: " + ", ".join(f"player_{s} = {label}" for s, label in enumerate(labels)))
    status = 0
    reconfigure = getattr(sys.stdin, "reconfigure", None)
    if reconfigure is not None:  # bytes that are not text become U+FFFD, a line the prompt refuses
        with contextlib.suppress(ValueError, OSError):
            reconfigure(errors="replace")
    try:
        _play_loop(game, actors, args.episode, args.seat, input, sys.stdout, log)
    except (_Quit, EOFError):
        print("\nYou left the game.")
    except KeyboardInterrupt:
        print("\nInterrupted.")
        status = 130
    finally:  # the log is saved whatever ended the game (an agent's failure too)
        if args.save:
            _save_play_log(args, config, deal, names, game, log)
    return status


def _save_play_log(
    args: Namespace, config: RulesConfig, deal: Any, names: list[str], game: Game, log: list[list[Any]]
) -> None:
    """Write ``rams play --save``'s log; ``CommandError`` if the file cannot be written."""
    record = log_record(config, args.episode, deal, names, args.seat, log, game)
    try:
        write_log(args.save, record)
    except OSError as err:
        raise CommandError(f"--save {args.save}: cannot write the game log: {err.strerror or err}") from None
    print(f"saved the game log to {args.save}")


COMMAND = Command("play", "play a seat in the terminal against agents", _configure, _run)
