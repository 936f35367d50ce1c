"""A game's state as data: the copy that continues alike (``Game.clone``) and the JSON round trip
(``Game.to_dict``/``from_dict``, ``to_json``/``from_json``).

Every field of a ``Game`` is named below, grouped by how it is copied; a field the machine adds
must be added here, or clones and saved states lose it.
"""

from __future__ import annotations

import json
import random
from typing import TYPE_CHECKING, Any

from .config import RulesConfig
from .phases import Phase, TurnedAt

if TYPE_CHECKING:
    from .game import Game

# Fields of the state, grouped by how they are copied and serialised (with config, n, rng, _legal and
# _next_in_play, handled on their own).
_SCALARS = (
    "rams_number",
    "deal_number",
    "deal_in_rams",
    "rams_over",
    "end_reason",
    "deal_reason",
    "dealer",
    "forehand",
    "phase",
    "current",
    "trump",
    "turned",
    "turned_at",
    "turned_public",
    "talon_pos",
    "better_made",
    "swing_made",
    "pending_bid",
    "buyer_index",
    "pending_discards",
    "take_pending",
    "leader",
    "queen_due",
    "winners",
    "settlement",
)
_LISTS = (
    "scores",
    "flights",
    "rams_flights",
    "totals",
    "passed_prev",
    "talon",
    "out_public",
    "active",
    "discards",
    "draws",
    "buy_order",
    "play_order",
    "tricks_won",
    "aces_held",
    "jacks",
    "dealt_ace",
    "jacks_shown",
)
_NESTED = ("hands", "out_hidden")  # lists of per-seat lists
_LOGS = ("bid_log", "answers", "trick", "completed", "shown", "rams_log", "jack_cards")  # lists of tuples


def as_tuples(value: Any) -> Any:
    """``value`` with every list (at any depth) made a tuple: what a JSON round trip turned into lists."""
    if isinstance(value, (list, tuple)):
        return tuple(as_tuples(v) for v in value)
    return value


def clone(game: Game) -> Game:
    """An independent copy that continues exactly as ``game`` would."""
    other = object.__new__(type(game))
    other.config, other.n = game.config, game.n
    other.rng = random.Random()
    other.rng.setstate(game.rng.getstate())
    other._legal = game._legal
    d, od = game.__dict__, other.__dict__
    for name in _SCALARS:
        od[name] = d[name]
    for name in _LISTS + _LOGS:
        od[name] = list(d[name])
    for name in _NESTED:
        od[name] = [list(x) for x in d[name]]
    if "_next_in_play" in d:
        od["_next_in_play"] = d["_next_in_play"]
    return other


def to_dict(game: Game) -> dict[str, Any]:
    """The whole state as JSON-native data (see :func:`from_dict`)."""
    d = game.__dict__
    state: dict[str, Any] = {name: d[name] for name in _SCALARS + _LISTS + _NESTED + _LOGS}
    state["phase"] = int(game.phase)
    state["turned_at"] = game.turned_at.label
    state["rng"] = list(game.rng.getstate())
    state["config"] = game.config.to_dict()
    return json.loads(json.dumps(state))


def to_json(game: Game) -> str:
    """The whole state as a JSON string; ``Game.from_json(g.to_json())`` continues identically."""
    return json.dumps(to_dict(game), separators=(",", ":"))


def from_dict(cls: type[Game], state: dict[str, Any]) -> Game:
    """Rebuild a game from :func:`to_dict` data; ``ValueError`` naming what is wrong with other data."""
    if not isinstance(state, dict):
        raise ValueError(f"a Game state is a dict (Game.to_dict), got {type(state).__name__}")
    missing = [
        k for k in ("config", "rng", "phase", "turned_at", *_SCALARS, *_LISTS, *_NESTED, *_LOGS) if k not in state
    ]
    if missing:
        raise ValueError(f"not a Game state (Game.to_dict): it lacks {', '.join(missing[:5])}")
    if not isinstance(state["config"], dict):
        raise ValueError("not a Game state (Game.to_dict): 'config' must be a dict of rule options")
    try:
        return _rebuild(cls, state)
    except (TypeError, ValueError, KeyError, IndexError, AttributeError, OverflowError) as err:
        raise ValueError(f"not a Game state (Game.to_dict): {type(err).__name__}: {str(err)[:200]}") from None


def from_json(cls: type[Game], text: str) -> Game:
    """Rebuild a game from :func:`to_json` text; ``ValueError`` for text that is no such state."""
    try:
        state = json.loads(text)
    except RecursionError:
        raise ValueError("not a Game state (Game.to_json): its JSON is nested too deeply") from None
    return cls.from_dict(state)


def _rebuild(cls: type[Game], state: dict[str, Any]) -> Game:
    game = object.__new__(cls)
    game.config = RulesConfig(**state["config"])
    game.n = game.config.num_players
    version, internal, gauss = state["rng"]
    game.rng = random.Random()
    game.rng.setstate((version, tuple(internal), gauss))
    game._legal = None
    d = game.__dict__
    for name in _SCALARS:
        d[name] = as_tuples(state[name])
    for name in _LISTS:
        d[name] = list(state[name])
    for name in _NESTED:
        d[name] = [list(x) for x in state[name]]
    for name in _LOGS:
        d[name] = [as_tuples(x) for x in state[name]]
    game.phase = Phase(state["phase"])
    game.turned_at = TurnedAt[state["turned_at"].upper()]
    order = game.play_order
    game._next_in_play = {s: order[(i + 1) % len(order)] for i, s in enumerate(order)}
    return game
