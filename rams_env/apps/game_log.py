"""The game log that ``rams play --save`` and ``rams serve`` write: its format, and reading it back.

A log holds the rules, the episode, the deal (seed, deck, dealer, scores) and every action as
``[seat, action name]``, so it holds the whole deck. :func:`log_record` makes one and :func:`write_log`
writes it; :func:`load_log` (a file) and :func:`check_log` (parsed JSON) check one before ``rams replay``
or the server's replays play it again.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .. import jsoncheck
from ..rules import PRESETS, Action, Game, Phase, RulesConfig, action_name, card_index
from ..rules.episode import EPISODES
from .command import CommandError
from .narration import legal_names

if TYPE_CHECKING:
    from ..eval import Deal

LOG_FORMAT = "rams_env game log"
LOG_VERSION = 1
LOG_DEPTH = jsoncheck.MAX_DEPTH  # a log has 3 levels of nesting; the bound stops only absurd nesting


def load_log(path: str | os.PathLike[str]) -> tuple[Game, dict[str, Any]]:
    """The fresh game a saved log starts from, and the log; ``CommandError`` naming what is wrong."""
    try:
        record = jsoncheck.read(path, max_depth=LOG_DEPTH)
    except jsoncheck.JsonInputError as err:
        raise CommandError(str(err)) from None
    return check_log(record, str(path))


def check_log(record: Any, where: str) -> tuple[Game, dict[str, Any]]:
    """The fresh game a parsed log starts from, and the log, checked; ``CommandError`` naming ``where``."""
    if not isinstance(record, dict) or record.get("format") != LOG_FORMAT:
        raise CommandError(f"{where} is not a rams game log (no 'format': {LOG_FORMAT!r})")
    if record.get("version") != LOG_VERSION:
        raise CommandError(f"{where}: log version {short_repr(record.get('version'))} is not {LOG_VERSION}")
    missing = [k for k in ("config", "episode", "seed", "deck", "dealer", "scores", "actions") if k not in record]
    if missing:
        raise CommandError(f"{where}: the log lacks {', '.join(missing)}")
    for key, ok, expected in (
        (
            "config",
            isinstance(record["config"], dict) and _is_preset(record["config"].get("variant", "mattmar")),
            f"an object of rule options of a preset ({', '.join(sorted(PRESETS))})",
        ),
        ("episode", isinstance(record["episode"], str) and record["episode"] in EPISODES, f"one of {EPISODES}"),
        ("seed", jsoncheck.is_int(record["seed"]), "an integer"),
        ("deck", _is_list(record["deck"], str), "a list of card names"),
        ("dealer", jsoncheck.is_int(record["dealer"]), "a seat number"),
        ("scores", _is_list(record["scores"], int), "a list of integers"),
        ("actions", isinstance(record["actions"], list), "a list of [seat, action name]"),
        ("human_seat", "human_seat" not in record or jsoncheck.is_int(record["human_seat"]), "a seat number"),
    ):
        if not ok:
            raise CommandError(f"{where}: {key!r} must be {expected}, got {short_repr(record[key])}")
    try:
        config = RulesConfig(**record["config"])
        game = Game(config, record["seed"], deck=record["deck"], dealer=record["dealer"], scores=record["scores"])
    except (TypeError, ValueError, OverflowError, KeyError, IndexError) as err:
        raise CommandError(f"{where}: bad game setup: {short_repr(err)}") from None
    return game, record


def _is_preset(value: Any) -> bool:
    """A preset's name: a string first (a list or an object is no dict key: ``in PRESETS`` would raise)."""
    return isinstance(value, str) and value in PRESETS


def _is_list(value: Any, kind: type) -> bool:
    return isinstance(value, list) and all(isinstance(v, kind) and not isinstance(v, bool) for v in value)


def short_repr(value: Any, limit: int = 200) -> str:
    """``repr``/``str`` of a value from a file, cut to one short line."""
    text = str(value) if isinstance(value, BaseException) else repr(value)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def log_record(
    config: RulesConfig,
    episode: str,
    deal: Deal,
    seats: Sequence[str],
    human_seat: int,
    actions: list[list[Any]],
    game: Game,
) -> dict[str, Any]:
    """The log of ``game``, which started from ``deal``: what ``rams play --save`` and ``rams serve`` write."""
    return {
        "format": LOG_FORMAT,
        "version": LOG_VERSION,
        "config": config.to_dict(),
        "episode": episode,
        "seed": deal.seed,
        "deck": list(deal.deck),
        "dealer": deal.dealer,
        "scores": list(deal.scores),
        "seats": list(seats),
        "human_seat": human_seat,
        "actions": actions,
        "complete": game.phase >= Phase.DEAL_OVER,
        "final_scores": list(game.scores),
    }


def write_log(path: str | os.PathLike[str], record: dict[str, Any]) -> None:
    """Write a log as JSON (``OSError`` when it cannot)."""
    with open(path, "w", encoding="utf-8") as f:
        json.dump(record, f, indent=1)
        f.write("\n")


def log_action(entry: Any, game: Game) -> tuple[int, int]:
    """``(seat, action)`` of a log entry, checked against the game; ``ValueError`` saying what is wrong."""
    if not (isinstance(entry, list) and len(entry) == 2 and jsoncheck.is_int(entry[0]) and isinstance(entry[1], str)):
        raise ValueError("an action entry must be [seat, action name]")
    name = entry[1].upper()
    action = int(Action[name]) if name in Action.__members__ else card_index(name)
    if entry[0] != game.current:
        raise ValueError(f"it is player_{game.current}'s turn, the log says player_{entry[0]}")
    legal = game.legal_actions()
    if action not in legal:
        raise ValueError(f"{action_name(action)} is not legal now; legal: {legal_names(legal)}")
    return entry[0], action
