"""The ``python_rams`` parameters: their defaults and checks, the ``rules`` string, and ``ParameterSpec``, what
every state of one game shares (the package docstring lists the parameters)."""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from ...keyvalue import parse_value
from ...rules import Game, RulesConfig, deck_cards, make_config
from ...rules.config import OPTION_NAMES
from ...rules.episode import EpisodeKind, episode_kind
from ...rules.spec import make_spec

SHORT_NAME = "python_rams"
DEFAULT_MAX_DEALS = 1000


PARAMETERS: dict[str, Any] = {
    "variant": "mattmar",
    "players": 4,
    "episode": "deal",
    "reward": "points",
    "rules": "",
    "dealer": -1,
    "scores": "",
    "max_deals": 0,
}


def parse_rules(text: str) -> dict[str, Any]:
    """``"start_score:150;bids:false"`` as ``{"start_score": 150, "bids": False}`` (``=`` works too)."""
    options: dict[str, Any] = {}
    for item in str(text).replace(",", ";").split(";"):
        if not item.strip():
            continue
        sep = ":" if ":" in item else "="
        key, found, value = item.partition(sep)
        if not found or not key.strip() or not value.strip():
            raise ValueError(f"rules: expected option:value items separated by ';', got {item!r}")
        options[key.strip()] = parse_value(value.strip())
    return options


_INT_MAX = 2**31 - 1  # OpenSpiel's C++ int parameters and lengths
_TEXT_MAX = 2000  # characters of a text parameter (rules, scores)
_KINDS = {"variant": str, "players": int, "episode": str, "reward": str, "rules": str, "dealer": int}
_KINDS |= {"scores": str, "max_deals": int}


def check_parameters(params: dict[str, Any]) -> None:
    """``ValueError`` naming the first parameter of the wrong type or out of range (see the module docstring).

    Integers must fit OpenSpiel's C++ int; texts are at most ``_TEXT_MAX`` characters; ``players``,
    ``dealer``, ``scores`` and ``max_deals`` are then checked against the rules by the game itself.
    """
    for name, value in params.items():
        kind = _KINDS.get(name)
        if kind is None:
            continue
        if kind is int:
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                raise ValueError(f"{name} must be an integer, got {value!r}"[:300])
            if not -_INT_MAX <= int(value) <= _INT_MAX:
                raise ValueError(f"{name} must be an integer from -{_INT_MAX} to {_INT_MAX}, got {value}"[:300])
        elif not isinstance(value, str) or len(value) > _TEXT_MAX:
            got = f"{len(value):,} characters" if isinstance(value, str) else repr(value)[:100]
            raise ValueError(f"{name} must be a string of at most {_TEXT_MAX} characters, got {got}")


def _named_config_error(message: str) -> str:
    """A rules error said with the parameter's name: ``players`` for ``num_players``, else ``rules``/``variant``
    (an episode's or reward's error names its parameter already)."""
    if message.startswith(("episode", "reward")):
        return message
    if "num_players=" in message:
        return f"players: {message}"
    if message.startswith("unknown variant"):
        return f"variant: {message}"
    return f"rules: {message}"


def rules_string(config: RulesConfig) -> str:
    """The ``rules`` parameter giving ``config``'s options that differ from its preset's."""
    preset = make_config(config.variant, config.num_players)
    diff = [(name, getattr(config, name)) for name in OPTION_NAMES if getattr(config, name) != getattr(preset, name)]
    return ";".join(f"{name}:{str(value).lower() if isinstance(value, bool) else value}" for name, value in diff)


def game_parameters(config: RulesConfig, episode: str = "deal", reward: str = "points") -> dict[str, Any]:
    """The ``pyspiel.load_game(SHORT_NAME, params)`` parameters of a rules configuration."""
    return {
        "variant": config.variant,
        "players": config.num_players,
        "episode": episode,
        "reward": reward,
        "rules": rules_string(config),
    }


class ParameterSpec:
    """What every state of one game shares: rules, episode, reward and the limits (immutable)."""

    def __init__(self, params: dict[str, Any]) -> None:
        unknown = sorted(set(params) - set(PARAMETERS))
        if unknown:
            raise ValueError(f"unknown parameter(s) {unknown}; known: {sorted(PARAMETERS)}")
        p = {**PARAMETERS, **params}
        check_parameters(p)
        rules = parse_rules(p["rules"])
        if "num_players" in rules or "variant" in rules:
            raise ValueError("rules: give the variant and the number of players as the variant and players parameters")
        try:
            spec = make_spec(str(p["variant"]), int(p["players"]), str(p["episode"]), str(p["reward"]), **rules)
        except ValueError as err:
            raise ValueError(_named_config_error(str(err))) from None
        self.spec = spec
        """the game as every face describes it (:class:`~rams_env.rules.spec.EnvSpec`)"""
        self.config, self.episode, self.reward = spec.config, spec.episode, spec.reward
        self.n = n = self.config.num_players
        self.kind = episode_kind(self.episode)
        dealer = int(p["dealer"])
        if not -1 <= dealer < n:
            raise ValueError(f"dealer must be -1 (drawn by chance) or a seat 0..{n - 1}, got {dealer}")
        self.dealer = dealer
        text = str(p["scores"]).replace(",", ";").strip()
        self.scores: list[int] | None = None
        if text:
            try:
                self.scores = [int(s) for s in text.split(";")]
            except ValueError:
                raise ValueError(f"scores must be ints separated by ';', got {p['scores']!r}") from None
            if len(self.scores) != n:
                raise ValueError(f"scores must give {n} scores (one per player), got {len(self.scores)}")
            try:
                Game(self.config, 0, scores=self.scores, dealer=0)
            except ValueError as err:
                raise ValueError(f"scores: {err}") from None
        max_deals = int(p["max_deals"])
        most = _INT_MAX // self.config.max_deal_actions  # OpenSpiel's max_game_length is a C++ int
        if not 0 <= max_deals <= most:
            raise ValueError(
                f"max_deals must be 0 (the default, {DEFAULT_MAX_DEALS}) or 1 to {most:,} (the longest game OpenSpiel "
                f"can hold: {most:,} deals of up to {self.config.max_deal_actions} actions), got {max_deals}"
            )
        self.max_deals = 1 if self.kind == EpisodeKind.DEAL else (max_deals or DEFAULT_MAX_DEALS)
        self.deck = deck_cards(self.config.deck_size)
        self.deck_set = frozenset(self.deck)
        self.params = p

    def utilities(self) -> tuple[float, float]:
        """Bounds of every return (OpenSpiel's min_utility, max_utility)."""
        cfg = self.config
        if self.reward == "win":
            return -1.0, 1.0
        if cfg.swedish:
            if self.kind == EpisodeKind.DEAL:
                return -float(cfg.flight_fine), 5.0
            ramsar = 1 if self.kind == EpisodeKind.RAMS else cfg.ramsar_per_match
            starts = [cfg.start_score, *(self.scores or [])]  # a rams' points: its start less its end score
            return float(ramsar * (min(starts) - cfg.flight_cap)), float(ramsar * (max(starts) + 4))
        worst = cfg.flight_fine + 50  # a fine: 5 plus aces; a deal's best: 5 tricks, aces, jacks
        if self.kind == EpisodeKind.DEAL:
            return -float(worst), 65.0
        return -float(self.max_deals * worst), float(max([cfg.start_score, *(self.scores or [])]) + 64)


_SPECS: dict[str, ParameterSpec] = {}


def spec_of(params: dict[str, Any]) -> ParameterSpec:
    key = json.dumps(params, sort_keys=True)
    if key not in _SPECS:
        _SPECS[key] = ParameterSpec(params)
    return _SPECS[key]
