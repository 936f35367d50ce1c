"""Reading the JSON of a request: integers and choices within bounds, the rules, agent specs and their
agents within the server's budgets, and an action by id or name. A bad value is an :class:`ApiError`
(a 400) whose message names the field."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ... import jsoncheck
from ...eval import agent_source
from ...rules import PRESETS, Action, RulesConfig, card_index, make_config
from .limits import Limits, budgeted

SEED_LIMIT = 2**63


class ApiError(Exception):
    """A request the server refuses: answered as ``{"error": message}`` with ``status``."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def read_int(body: dict[str, Any], key: str, default: int | None, low: int, high: int) -> int:
    value = body.get(key, default)
    if value is None and default is None:
        raise ApiError(400, f"{key!r} is required: an integer {low} to {high}")
    if isinstance(value, bool) or not isinstance(value, int):
        raise ApiError(400, f"{key!r} must be an integer {low} to {high}, got {jsoncheck.short(value)}")
    if not low <= value <= high:
        raise ApiError(400, f"{key!r} must be {low} to {high}, got {jsoncheck.short(value, 40)}")
    return value


def read_choice(body: dict[str, Any], key: str, default: str, choices: Sequence[str]) -> str:
    value = body.get(key, default)
    if not isinstance(value, str) or value not in choices:
        raise ApiError(400, f"{key!r} must be one of {', '.join(choices)}, got {jsoncheck.short(value)}")
    return value


def rules_from_body(body: dict[str, Any]) -> RulesConfig:
    """The rules of a request: ``variant``, ``num_players`` and rule ``options`` (as ``--option``)."""
    variant = read_choice(body, "variant", "mattmar", sorted(PRESETS))
    players = read_int(body, "num_players", 4, 1, 64)
    options = body.get("options", {})
    if not isinstance(options, dict) or not all(
        isinstance(v, (int, str)) and not isinstance(v, float) for v in options.values()
    ):
        raise ApiError(
            400,
            "'options' must be an object of rule options (integers, booleans, strings), "
            f"got {jsoncheck.short(options)}",
        )
    try:
        return make_config(variant, players, **options)
    except (TypeError, ValueError, OverflowError) as err:
        raise ApiError(400, str(err)) from None


def agent_specs(body: dict[str, Any], key: str, count: int, default: str | None) -> list[str]:
    """``count`` agent specs from ``body[key]``: a list of that many, or one (string or list) for all."""
    value = body.get(key, default)
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) and 0 < len(v.strip()) <= 500 for v in value):
        raise ApiError(
            400,
            f"{key!r} must be a list of agent specs (random, heuristic, search, search:200 or a "
            f"checkpoint path), got {jsoncheck.short(value)}",
        )
    if len(value) == 1:
        value = value * count
    if len(value) != count:
        raise ApiError(400, f"{key!r} needs one agent for all seats or {count} (one per seat), got {len(value)}")
    return [v.strip() for v in value]


def agent_sources(specs: Sequence[str], config: RulesConfig, limits: Limits | None = None) -> dict[str, Any]:
    """Each distinct spec's agent source (``rams eval``'s rules) within ``limits``' budget; 400 naming a bad one."""
    sources: dict[str, Any] = {}
    for spec in specs:
        if spec in sources:
            continue
        try:
            sources[spec] = agent_source(spec, config)
        except Exception as err:  # a bad spec, or a checkpoint that does not load: the request is refused
            message = str(err) or type(err).__name__
            raise ApiError(400, message if spec in message else f"agent {spec!r}: {message}") from None
        sources[spec] = budgeted(spec, sources[spec], limits or Limits())
    return sources


def read_action(value: Any) -> int:
    """An action id from a request: an int 0-59, a card name (``"TH"``, ``"10H"``) or an action name."""
    if isinstance(value, int) and not isinstance(value, bool):
        if 0 <= value < len(Action) + 52:
            return value
        raise ApiError(400, f"'action' {value} is not an action id 0 to 59")
    if isinstance(value, str) and 0 < len(value) <= 20:
        token = value.strip().upper().replace(" ", "_").replace("-", "_")
        if token in Action.__members__:
            return int(Action[token])
        if token.startswith("10") and len(token) == 3:
            token = "T" + token[2]
        try:
            return card_index(token)
        except ValueError:
            pass
    raise ApiError(
        400,
        '\'action\' must be an action id 0 to 59, a card like "TH" or a name like "PASS", '
        f"got {jsoncheck.short(value)}",
    )
