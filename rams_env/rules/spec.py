"""The one description of a game an env plays: :class:`EnvSpec` (rules, episode, reward, illegal actions).

Every face reads it (``rams_env.make``, the AEC, Gymnasium, vector and batched envs, the library adapters),
checkpoints and RLlib's ``env_config`` write it as :meth:`EnvSpec.to_dict`, and :func:`make_spec` is its one
resolver: variant, players and rule options by keyword, or a ready :class:`RulesConfig`. An unknown or
contradictory field is one ``ValueError`` naming it, wherever it enters.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .config import (
    DEFAULT_NUM_PLAYERS,
    DEFAULT_VARIANT,
    OPTION_NAMES,
    PRESETS,
    ConfigError,
    RulesConfig,
    make_config,
    resolve_config,
)
from .episode import check_episode

ILLEGAL_ACTIONS = ("raise", "terminate")
SPEC_FIELDS = ("variant", "num_players", "episode", "reward", "illegal_action", "illegal_reward")
"""The keys of :meth:`EnvSpec.to_dict` besides the rule options that differ from the preset."""


@dataclass(frozen=True)
class EnvSpec:
    """What game an env plays. Build it with :func:`make_spec`; it is frozen, hashable and JSON-serialisable.

    ``illegal_action`` is ``"raise"`` (an illegal action is an error), ``"terminate"`` (it ends the episode with
    ``illegal_reward`` for the offender) or ``None``: the face's own default (the AEC env raises; the
    single-seat and vector envs, built for unmasked learners, terminate).
    """

    config: RulesConfig = field(default_factory=make_config)  # the rules and the table size
    episode: str = "deal"  # "deal", "rams" or "match"
    reward: str = "points"  # "points" or "win"
    illegal_action: str | None = None  # "raise", "terminate" or None (the face's default)
    illegal_reward: float = -1.0  # what an illegal action costs its seat under "terminate"

    def __post_init__(self) -> None:
        if not isinstance(self.config, RulesConfig):
            raise TypeError(
                f"config must be a RulesConfig (from rams_env.make_config), got {type(self.config).__name__}"
            )
        check_episode(self.episode, self.reward)
        if self.illegal_action is not None and self.illegal_action not in ILLEGAL_ACTIONS:
            raise ValueError(f"illegal_action must be one of {ILLEGAL_ACTIONS} or None, got {self.illegal_action!r}")
        reward = self.illegal_reward
        if isinstance(reward, bool) or not isinstance(reward, (int, float)) or not math.isfinite(reward):
            raise ValueError(f"illegal_reward must be a finite number, got {reward!r}")
        object.__setattr__(self, "illegal_reward", float(reward))

    @property
    def variant(self) -> str:
        """The preset the rules were built from."""
        return self.config.variant

    @property
    def num_players(self) -> int:
        """Seats at the table."""
        return self.config.num_players

    def resolved(self, default: str) -> EnvSpec:
        """This spec with a face's ``default`` illegal-action policy where the spec leaves it to the face."""
        return self if self.illegal_action is not None else dataclasses.replace(self, illegal_action=default)

    def replace(self, **changes: Any) -> EnvSpec:
        """A copy with fields changed (rule options by name too), validated as :func:`make_spec` does."""
        return make_spec(**{**self.to_dict(), **changes})

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON data: the spec's fields and the rule options that differ from the preset."""
        preset = make_config(self.config.variant, self.config.num_players)
        options = {
            f.name: getattr(self.config, f.name)
            for f in dataclasses.fields(RulesConfig)
            if f.name not in ("variant", "num_players") and getattr(self.config, f.name) != getattr(preset, f.name)
        }
        return {name: getattr(self, name) for name in SPEC_FIELDS} | options

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> EnvSpec:
        """The spec :meth:`to_dict` wrote; an unknown key is a ``ValueError`` naming it."""
        if not isinstance(data, Mapping):
            raise TypeError(f"an env spec is a mapping of its fields, got {type(data).__name__}")
        return make_spec(**dict(data))


def make_spec(
    variant: str = DEFAULT_VARIANT,
    num_players: int = DEFAULT_NUM_PLAYERS,
    episode: str = "deal",
    reward: str = "points",
    illegal_action: str | None = None,
    illegal_reward: float = -1.0,
    *,
    config: RulesConfig | None = None,
    spec: EnvSpec | None = None,
    face_default: str | None = None,
    **rule_options: Any,
) -> EnvSpec:
    """The one resolver of a game's description: keywords (or a ready ``config``) as an :class:`EnvSpec`.

    With ``spec=`` that spec is returned, and any other field given beside it must agree with it (else a
    ``ValueError`` naming the field): a face called with both ``spec=`` and its defaults takes the spec.
    ``face_default`` is a face's own illegal-action policy, which fills a spec that leaves it open.
    """
    if spec is None:
        rules = resolve_config(variant, num_players, config, rule_options)
        spec = EnvSpec(rules, episode, reward, illegal_action, illegal_reward)
        return spec if face_default is None else spec.resolved(face_default)
    if not isinstance(spec, EnvSpec):
        raise TypeError(f"spec must be an EnvSpec (from rams_env.make_spec), got {type(spec).__name__}")
    unknown = sorted(set(rule_options) - set(OPTION_NAMES))
    if unknown:
        raise ConfigError(
            f"unknown keyword(s) {unknown}: neither a field of the env's spec nor a rule option", unknown[0]
        )
    if config is not None or rule_options:
        name = "config" if config is not None else sorted(rule_options)[0]
        raise ConfigError(f"{name} given with spec=: the spec holds the rules; use spec.replace({name}=...)", name)
    given = {
        "variant": (variant, variant is not DEFAULT_VARIANT),
        "num_players": (num_players, num_players is not DEFAULT_NUM_PLAYERS),
        "episode": (episode, episode != "deal"),
        "reward": (reward, reward != "points"),
        "illegal_action": (illegal_action, illegal_action is not None),
        "illegal_reward": (illegal_reward, illegal_reward != -1.0),
    }
    for name, (value, is_given) in given.items():
        if is_given and value != getattr(spec, name):
            raise ConfigError(
                f"{name}={value!r} given with a spec whose {name} is {getattr(spec, name)!r}: give one", name
            )
    return spec if face_default is None else spec.resolved(face_default)


__all__ = ["ILLEGAL_ACTIONS", "PRESETS", "EnvSpec", "make_spec"]
