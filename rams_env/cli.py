"""The ``rams`` command line: ``rams eval``, ``rams play`` and ``rams replay``.

Subcommands are :class:`Command` entries. Other packages add theirs (``rams train``) through the
entry-point group ``rams_env.commands``, each entry point naming a :class:`Command`, e.g. in their
``pyproject.toml``: ``[project.entry-points."rams_env.commands"] train = "training.cli:COMMAND"``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from importlib.metadata import EntryPoint, entry_points
from typing import Any, TextIO

from . import jsoncheck
from .envs.episode import EPISODES, next_deal_or_end
from .envs.render import render_table
from .eval import (
    AGENT_SPEC_HELP,
    BUILTIN_AGENTS,
    SCORES,
    actor_for,
    agent_label,
    agent_seed,
    agent_source,
    build_agent,
    deal_set,
    evaluate,
    league,
)
from .keyvalue import parse_pair
from .obs.encoding import ObservationEncoder
from .rules import PRESETS, Action, Game, IllegalActionError, Phase, RulesConfig, action_name, card_index, make_config

COMMAND_GROUP = "rams_env.commands"
LOG_FORMAT = "rams_env game log"
LOG_VERSION = 1
LOG_DEPTH = jsoncheck.MAX_DEPTH  # a log has 3 levels of nesting; the bound stops only absurd nesting


@dataclass(frozen=True)
class Command:
    """A subcommand: ``configure`` adds its arguments to its parser, ``run`` does it and returns the exit code."""

    name: str
    help: str
    configure: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]


class CommandError(Exception):
    """A failure to report as one line on stderr (bad file, bad value), never as a traceback."""


# ----------------------------------------------------------------------------- shared arguments
def _add_rules_arguments(parser: argparse.ArgumentParser, own: str = "") -> None:
    """The rules options; ``own``: what decides them when they are left out (then their default is None)."""
    variant, players = (None, None) if own else ("mattmar", 4)
    parser.add_argument(
        "--variant", default=variant, choices=sorted(PRESETS), help=f"rules preset (default {own}mattmar)"
    )
    parser.add_argument(
        "--num-players", type=int, default=players, metavar="N", help=f"players at the table, 3 to 7 (default {own}4)"
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
        default="deal",
        choices=EPISODES,
        help="episode: one deal, one rams, or a match of ramsar (default deal)",
    )
    parser.add_argument(
        "--scores",
        default="start",
        choices=SCORES,
        help="scores at the first deal: everyone at the start score, or drawn from 1 to it (default start)",
    )


def _config(args: argparse.Namespace) -> RulesConfig:
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


def _is_checkpoint(spec: str) -> bool:
    """Whether an agent spec names a trained policy: a checkpoint or ensemble file, an RLlib folder, a zoo name."""
    if spec.partition(":")[0] in BUILTIN_AGENTS:
        return False
    from . import zoo

    return os.path.isfile(spec) or os.path.isdir(spec) or (zoo.is_name(spec) and spec in zoo.known_names())


def _checkpoint_rules(args: argparse.Namespace) -> RulesConfig | None:
    """``rams eval``'s rules from its first checkpoint agent: its own where ``--variant`` and
    ``--num-players`` are left out; a ``CommandError`` naming the option to change where a given one
    conflicts. ``None`` when no agent is a checkpoint."""
    spec = next((s for s in [*args.agents, args.baseline or ""] if s and _is_checkpoint(s)), None)
    if spec is None:
        return None
    from .agents import load_agent

    try:
        agent = load_agent(spec)  # without torch: a MissingExtraError (a ValueError) naming the extra
    except ValueError as err:
        raise CommandError(str(err)) from None
    from .policy import config_at_size  # torch is there
    own: RulesConfig | None = getattr(agent, "config", None)
    if own is None:  # an agent that does not say its rules (an RLlib folder without them): the options decide
        return None
    if args.variant is not None and args.variant != own.variant:
        raise CommandError(
            f"{spec} plays {own.variant}, not --variant {args.variant}: change it to --variant {own.variant}, "
            "or leave --variant out (rams eval then plays the checkpoint's own rules)"
        )
    sizes = tuple(sorted(getattr(agent, "table_sizes", (own.num_players,))))
    n = args.num_players if args.num_players is not None else own.num_players
    if n not in sizes:
        allowed = str(sizes[0]) if len(sizes) == 1 else f"one of {', '.join(map(str, sizes))}"
        raise CommandError(
            f"{spec} plays {allowed} players, not --num-players {n}: change it to --num-players {own.num_players}"
            f"{'' if len(sizes) == 1 else f' ({allowed})'}, or leave --num-players out"
        )
    config = config_at_size(own, n)
    if args.option:
        wanted = _config(argparse.Namespace(**{**vars(args), "variant": own.variant, "num_players": n}))
        if wanted != config:
            ours, theirs = wanted.to_dict(), config.to_dict()
            diff = ", ".join(f"{k}={ours[k]!r} (it plays {theirs[k]!r})" for k in ours if ours[k] != theirs[k])
            raise CommandError(f"{spec} was trained for other rules than --option gives: {diff}; drop those --option")
    return config


def _agent(spec: str, config: RulesConfig) -> Any:
    try:
        if os.path.isdir(spec):  # a checkpoint folder, as RLlib saves them
            from .agents import load_agent

            return load_agent(spec, expect_config=config)
        return agent_source(spec, config)
    except ValueError as err:
        raise CommandError(str(err)) from None


def _check_output(path: str | None, option: str) -> None:
    """Refuse an output path whose folder does not exist before the work, not after it."""
    if path is None:
        return
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise CommandError(f"{option} {path}: the folder {folder} does not exist")
    if os.path.isdir(path):
        raise CommandError(f"{option} {path}: that is a folder, not a file")


def _nonnegative(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {value}")
    return value


def _positive(text: str) -> int:
    value = _nonnegative(text)
    if value == 0:
        raise argparse.ArgumentTypeError("expected a positive integer, got 0")
    return value


def _at_most(limit: int) -> Callable[[str], int]:
    """An argparse type: a positive integer up to ``limit`` (processes, threads, resamples: memory and cores)."""

    def parse(text: str) -> int:
        value = _positive(text)
        if value > limit:
            raise argparse.ArgumentTypeError(f"expected a positive integer up to {limit:,}, got {value:,}")
        return value

    return parse


MAX_WORKERS = MAX_THREADS = 1024  # processes or threads a command may start
MAX_RESAMPLES = 10_000_000  # bootstrap resamples (8 bytes each in memory)


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


# ----------------------------------------------------------------------------- rams eval
def _configure_eval(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("agents", nargs="+", metavar="AGENT", help=AGENT_SPEC_HELP)
    parser.add_argument("--baseline", default=None, metavar="AGENT", help="baseline agent (default random)")
    _add_rules_arguments(parser, own="a checkpoint agent's own, else ")
    parser.add_argument(
        "--decks",
        type=_positive,
        default=200,
        metavar="N",
        help="decks in the deal set (default 200; measured on one busy core: about 3 s per 100 decks with random "
        "and heuristic agents, about 5 minutes per 100 with search)",
    )
    parser.add_argument("--seed", type=_nonnegative, default=0, help="seed of the deal set (default 0)")
    parser.add_argument(
        "--league", action="store_true", help="rate the agents against each other with OpenSkill (default: off)"
    )
    parser.add_argument("--json", metavar="PATH", help="write the results as JSON (default: none)")
    parser.add_argument("--plot", metavar="PATH", help="write a PNG plot of the results (default: none)")
    parser.add_argument(
        "--knock-plot",
        metavar="PATH",
        help="write a PNG of each agent's knock rate by score, not with --league (default: none)",
    )
    parser.add_argument(
        "--workers", type=_at_most(MAX_WORKERS), default=1, help="processes to split the decks over (default 1)"
    )
    parser.add_argument(
        "--threads",
        type=_at_most(MAX_THREADS),
        default=1,
        help="torch threads in each process for checkpoint agents (default 1: one game's small network gains "
        "nothing from more, and several processes with torch's default of one thread per core slow each other down)",
    )
    parser.add_argument(
        "--resamples", type=_at_most(MAX_RESAMPLES), default=10_000, help="bootstrap resamples (default 10000)"
    )
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar (default: shown)")
    parser.add_argument(
        "--wide",
        action="store_true",
        help="print the earlier wide table, one line per agent (default: a table within 100 columns)",
    )


def _run_eval(args: argparse.Namespace) -> int:
    config = _checkpoint_rules(args) or _config(args)
    if len(set(args.agents)) != len(args.agents):
        raise CommandError(f"an agent is named twice: {' '.join(args.agents)}")
    if args.league and args.baseline is not None:
        raise CommandError("--baseline has no meaning with --league (every agent is rated against the others)")
    if args.league and len(args.agents) < 2:
        raise CommandError("--league needs at least 2 agents")
    _check_output(args.json, "--json")
    _check_output(args.plot, "--plot")
    _check_output(args.knock_plot, "--knock-plot")
    if args.league and args.knock_plot:
        raise CommandError("--knock-plot is for a duplicate evaluation, not --league")
    with torch_threads(args.threads):
        return _evaluate_and_report(args, config)


def _evaluate_and_report(args: argparse.Namespace, config: RulesConfig) -> int:
    agents = {spec: _agent(spec, config) for spec in args.agents}
    if "torch" in sys.modules:  # a checkpoint agent imported it: its threads now, the workers' from the environment
        sys.modules["torch"].set_num_threads(args.threads)
    progress = not args.no_progress
    if args.league:
        result: Any = league(
            agents,
            config,
            decks=args.decks,
            seed=args.seed,
            episode=args.episode,
            scores=args.scores,
            workers=args.workers,
            progress=progress,
        )
    else:
        baseline = args.baseline or "random"
        result = evaluate(
            agents,
            _agent(baseline, config),
            config,
            decks=args.decks,
            seed=args.seed,
            episode=args.episode,
            scores=args.scores,
            baseline_name=baseline,
            resamples=args.resamples,
            workers=args.workers,
            progress=progress,
        )
    print(result.table(wide=args.wide))
    if args.json:
        result.save_json(args.json)
        print(f"wrote {args.json}")
    if args.plot:
        result.plot(args.plot)
        print(f"wrote {args.plot}")
    if args.knock_plot:
        result.plot_knock_rates(args.knock_plot)
        print(f"wrote {args.knock_plot}")
    return 0


# ----------------------------------------------------------------------------- rams play
def _configure_play(parser: argparse.ArgumentParser) -> None:
    _add_rules_arguments(parser)
    parser.add_argument("--seat", type=_nonnegative, default=0, help="your seat (default 0)")
    parser.add_argument(
        "--agents",
        nargs="+",
        default=["heuristic"],
        metavar="AGENT",
        help="the other seats' agents in seat order, or one for all (default heuristic); " + AGENT_SPEC_HELP,
    )
    parser.add_argument("--seed", type=_nonnegative, default=None, help="seed of the deal (default: a fresh one)")
    parser.add_argument(
        "--save", metavar="PATH", help="write the game log as JSON, also when you quit early (default: not saved)"
    )
    parser.add_argument(
        "--replay",
        metavar="LOG",
        help="replay a saved game log instead of playing, as rams replay LOG does (default: play)",
    )


class _Quit(Exception):
    """The person asked to leave."""


@dataclass
class _Move:
    """Parsing of one line of input: an action, or the message explaining why not."""

    action: int | None
    message: str = ""


_PHASE_HINT = {
    Phase.BID: "Forehand's bid: bid better cards, bid a swing, or make no (further) bid.",
    Phase.ANSWER: "Answer the bid: accept or reject.",
    Phase.KNOCK: "Knock (play this deal) or pass.",
    Phase.BUY: "Buying: discard a card, or DRAW to replace the cards discarded.",
    Phase.PLAY: "Play a card.",
}


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
        return _Move(None, f"{action_name(action)} is not a legal move now; legal: {_legal_names(legal)}.")
    return _Move(action)


def _legal_names(legal: Sequence[int]) -> str:
    return ", ".join(action_name(a) for a in legal)


def _menu(game: Game, legal: Sequence[int]) -> str:
    hint = _PHASE_HINT.get(game.phase, "")
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


def describe(game: Game, seat: int, action: int, viewer: int) -> str:
    """What ``viewer`` sees of ``seat``'s action, said before it is applied (discards stay face down)."""
    who = "you" if seat == viewer else f"player_{seat}"
    phase = game.phase
    if phase == Phase.KNOCK:
        return f"{who}: {'knock' if action == Action.KNOCK else 'pass'}"
    if phase == Phase.BID:
        said = {Action.BID_BETTER: "bid better cards", Action.BID_SWING: "bid a swing", Action.NO_BID: "no bid"}
        return f"{who}: {said[Action(action)]}"
    if phase == Phase.ANSWER:
        return f"{who}: {'accept' if action == Action.ACCEPT else 'reject'}"
    if phase == Phase.BUY:
        if action == Action.DRAW:
            return f"{who}: draw {game.pending_discards - (1 if game.config.swedish and seat == game.dealer else 0)}"
        return f"{who}: discard {action_name(action)}" if seat == viewer else f"{who}: discard a card"
    return f"{who}: play {action_name(action)}"


def _after(game: Game, tricks_before: int, scores_before: list[int], viewer: int) -> list[str]:
    """Public news after an action: a completed trick, the end of a deal or of the game."""
    lines = []
    if len(game.completed) > tricks_before:
        cards, winner = game.completed[-1]
        shown = " ".join(action_name(c) for _, c in cards)
        lines.append(f"  trick ({shown}) taken by {'you' if winner == viewer else f'player_{winner}'}")
    if game.phase >= Phase.DEAL_OVER:
        points = "  ".join(
            f"player_{s}: {b - a:+d}" for s, (b, a) in enumerate(zip(scores_before, game.scores, strict=True))
        )
        lines.append(f"deal over ({game.deal_reason}); points this deal: {points}")
        if game.rams_over:
            winners = ", ".join("you" if s == viewer else f"player_{s}" for s in game.rams_log[-1][1])
            lines.append(f"the rams is over; won by {winners}")
    return lines


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
    while True:
        scores_before = list(game.scores)
        while (seat := game.current) >= 0:
            actor = actors[seat]
            if actor is None:
                print("\n" + render_table(game, viewer), file=out)
                action = _ask(game, ask, out)
            else:
                action = actor(game, seat)
            line = describe(game, seat, action, viewer)
            tricks_before = len(game.completed)
            game.apply(action)
            log.append([seat, action_name(action)])
            print(line, file=out)
            for news in _after(game, tricks_before, scores_before, viewer):
                print(news, file=out)
        if next_deal_or_end(game, episode):
            break
        print("\n--- next deal ---", file=out)
    print("\n" + render_table(game, viewer), file=out)


def _run_play(args: argparse.Namespace) -> int:
    if args.replay:
        return _replay(args.replay, None, sys.stdout)
    config = _config(args)
    n = config.num_players
    if args.seat >= n:
        raise CommandError(f"--seat must be a seat 0..{n - 1}, got {args.seat}")
    specs = list(args.agents)
    if len(specs) == 1:
        specs *= n - 1
    if len(specs) != n - 1:
        raise CommandError(f"--agents needs one agent for all other seats or {n - 1} (one per seat), got {len(specs)}")
    _check_output(args.save, "--save")
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    deal = deal_set(config, seed, 1, args.scores)[0]
    others = iter(specs)
    names = ["you" if s == args.seat else next(others) for s in range(n)]
    encoder = ObservationEncoder(config)
    sources = {s: _agent(names[s], config) for s in range(n) if s != args.seat}
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
    args: argparse.Namespace, config: RulesConfig, deal: Any, names: list[str], game: Game, log: list[list[Any]]
) -> None:
    """Write ``rams play --save``'s log; ``CommandError`` if the file cannot be written."""
    record = {
        "format": LOG_FORMAT,
        "version": LOG_VERSION,
        "config": config.to_dict(),
        "episode": args.episode,
        "seed": deal.seed,
        "deck": list(deal.deck),
        "dealer": deal.dealer,
        "scores": list(deal.scores),
        "seats": names,
        "human_seat": args.seat,
        "actions": log,
        "complete": game.phase >= Phase.DEAL_OVER,
        "final_scores": list(game.scores),
    }
    try:
        with open(args.save, "w", encoding="utf-8") as f:
            json.dump(record, f, indent=1)
            f.write("\n")
    except OSError as err:
        raise CommandError(f"--save {args.save}: cannot write the game log: {err.strerror or err}") from None
    print(f"saved the game log to {args.save}")


# ----------------------------------------------------------------------------- rams replay
def _configure_replay(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("log", metavar="LOG", help="a game log written by rams play --save")
    parser.add_argument("--seat", type=_nonnegative, default=None, help="whose view to show (default: the player's)")


def _run_replay(args: argparse.Namespace) -> int:
    return _replay(args.log, args.seat, sys.stdout)


def load_log(path: str | os.PathLike[str]) -> tuple[Game, dict[str, Any]]:
    """The fresh game a saved log starts from, and the log; ``CommandError`` naming what is wrong."""
    try:
        record = jsoncheck.read(path, max_depth=LOG_DEPTH)
    except jsoncheck.JsonInputError as err:
        raise CommandError(str(err)) from None
    if not isinstance(record, dict) or record.get("format") != LOG_FORMAT:
        raise CommandError(f"{path} is not a rams game log (no 'format': {LOG_FORMAT!r})")
    if record.get("version") != LOG_VERSION:
        raise CommandError(f"{path}: log version {_short(record.get('version'))} is not {LOG_VERSION}")
    missing = [k for k in ("config", "episode", "seed", "deck", "dealer", "scores", "actions") if k not in record]
    if missing:
        raise CommandError(f"{path}: the log lacks {', '.join(missing)}")
    for key, ok, expected in (
        (
            "config",
            isinstance(record["config"], dict) and _is_preset(record["config"].get("variant", "mattmar")),
            f"an object of rule options of a preset ({', '.join(sorted(PRESETS))})",
        ),
        ("episode", isinstance(record["episode"], str) and record["episode"] in EPISODES, f"one of {EPISODES}"),
        ("seed", _is_int(record["seed"]), "an integer"),
        ("deck", _is_list(record["deck"], str), "a list of card names"),
        ("dealer", _is_int(record["dealer"]), "a seat number"),
        ("scores", _is_list(record["scores"], int), "a list of integers"),
        ("actions", isinstance(record["actions"], list), "a list of [seat, action name]"),
        ("human_seat", "human_seat" not in record or _is_int(record["human_seat"]), "a seat number"),
    ):
        if not ok:
            raise CommandError(f"{path}: {key!r} must be {expected}, got {_short(record[key])}")
    try:
        config = RulesConfig(**record["config"])
        game = Game(config, record["seed"], deck=record["deck"], dealer=record["dealer"], scores=record["scores"])
    except (TypeError, ValueError, OverflowError, KeyError, IndexError) as err:
        raise CommandError(f"{path}: bad game setup: {_short(err)}") from None
    return game, record


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_preset(value: Any) -> bool:
    """A preset's name: a string first (a list or an object is no dict key: ``in PRESETS`` would raise)."""
    return isinstance(value, str) and value in PRESETS


def _is_list(value: Any, kind: type) -> bool:
    return isinstance(value, list) and all(isinstance(v, kind) and not isinstance(v, bool) for v in value)


def _short(value: Any, limit: int = 200) -> str:
    """``repr``/``str`` of a value from a file, cut to one short line."""
    text = str(value) if isinstance(value, BaseException) else repr(value)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _log_action(entry: Any, game: Game) -> tuple[int, int]:
    """``(seat, action)`` of a log entry, checked against the game; ``ValueError`` saying what is wrong."""
    if not (isinstance(entry, list) and len(entry) == 2 and _is_int(entry[0]) and isinstance(entry[1], str)):
        raise ValueError("an action entry must be [seat, action name]")
    name = entry[1].upper()
    action = int(Action[name]) if name in Action.__members__ else card_index(name)
    if entry[0] != game.current:
        raise ValueError(f"it is player_{game.current}'s turn, the log says player_{entry[0]}")
    legal = game.legal_actions()
    if action not in legal:
        raise ValueError(f"{action_name(action)} is not legal now; legal: {_legal_names(legal)}")
    return entry[0], action


def _replay(path: str, seat: int | None, out: TextIO) -> int:
    game, record = load_log(path)
    viewer = record.get("human_seat", 0) if seat is None else seat
    if not 0 <= viewer < game.n:
        where = "--seat" if seat is not None else f"{path}: 'human_seat'"
        raise CommandError(f"{where} must be a seat 0..{game.n - 1}, got {viewer!r}")
    print(f"Replay of {path}: {game.config.variant}, {game.n} players, seen by player_{viewer}.", file=out)
    print("\n" + render_table(game, viewer), file=out)
    scores_before = list(game.scores)
    for k, entry in enumerate(record["actions"], 1):
        if game.phase >= Phase.DEAL_OVER:
            if next_deal_or_end(game, record["episode"]):
                raise CommandError(f"{path}: the {record['episode']} is over after action {k - 1}, the log goes on")
            scores_before = list(game.scores)
            print("\n--- next deal ---", file=out)
        try:
            actor, action = _log_action(entry, game)
            line = describe(game, actor, action, viewer)
            tricks_before = len(game.completed)
            game.apply(action)
        except (ValueError, IllegalActionError) as err:
            raise CommandError(f"{path}: action {k} {_short(entry)} does not replay: {_short(err)}") from None
        print(f"\n[{k}] {line}", file=out)
        for news in _after(game, tricks_before, scores_before, viewer):
            print(news, file=out)
        print(render_table(game, viewer), file=out)
    print(f"\nend of the log ({len(record['actions'])} actions)", file=out)
    return 0


# ----------------------------------------------------------------------------- main
BUILTIN_COMMANDS = (
    Command("eval", "duplicate evaluation of agents against a baseline, or a league", _configure_eval, _run_eval),
    Command("play", "play a seat in the terminal against agents", _configure_play, _run_play),
    Command("replay", "replay a game log saved by rams play --save", _configure_replay, _run_replay),
)


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

    def configure(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("arguments", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)

    def run(args: argparse.Namespace) -> int:
        raise CommandError(message)

    return Command(point.name, f"(not available: {message})", configure, run)


def build_parser(commands: Sequence[Command]) -> argparse.ArgumentParser:
    """The ``rams`` parser with one subparser per command (each remembers its ``run``)."""
    parser = argparse.ArgumentParser(prog="rams", description="Rams card game: evaluate agents, play, replay.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    seen: set[str] = set()
    for command in commands:
        if command.name in seen:
            raise ValueError(f"two rams commands are named {command.name!r}")
        seen.add(command.name)
        child = sub.add_parser(command.name, help=command.help, description=command.help)
        command.configure(child)
        child.set_defaults(run=command.run)
    return parser


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


if __name__ == "__main__":
    # Run the package module's main: plugins build their Command from rams_env.cli, not from __main__.
    from rams_env.cli import main as package_main

    sys.exit(package_main())
