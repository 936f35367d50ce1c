"""``rams_env.make``: the one way to build an env, every face from one :class:`~rams_env.rules.spec.EnvSpec`.

``make(spec_or_variant, face=..., num_envs=..., seats=..., **keywords)`` resolves the spec (:func:`make_spec`:
variant, players, episode, reward, illegal actions, rule options) and builds the face of :data:`FACES` with it;
the keywords that are not the spec's go to the face (``seed``, ``render_mode``, ``autoreset_mode``...). The
library faces are named by entry point, as Gymnasium's registry names its envs, so nothing here imports an
integration before it is asked for. ``rams_env.env``, ``raw_env``, the Gymnasium ids and the adapters' classes
stay as the names users know, each the same env as its face here.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..rules.config import OPTION_NAMES, PRESETS, RulesConfig
from ..rules.spec import SPEC_FIELDS, EnvSpec, make_spec


@dataclass(frozen=True)
class Face:
    """One way an env is offered: its class or factory, how it counts games, and whether seats= applies."""

    entry_point: str  # "module:attribute", imported when the face is made
    count: str | None  # the keyword that takes num_envs ("num_envs", "num_games"), or None: one game
    seats: bool  # takes seats= (who plays each seat)
    default_illegal: str  # what an illegal action does when the spec leaves it to the face
    what: str  # one line for the docs and errors


FACES: dict[str, Face] = {
    "aec": Face("rams_env.envs.aec:env", None, False, "raise", "PettingZoo AEC env, wrapped (rams_env.env)"),
    "raw_aec": Face("rams_env.envs.aec:RamsEnv", None, False, "raise", "PettingZoo AEC env (rams_env.raw_env)"),
    "gym": Face("rams_env.envs.gym_env:RamsGymEnv", None, True, "terminate", "Gymnasium env, one learning seat"),
    "vector": Face(
        "rams_env.envs.gym_vector:RamsVectorEnv", "num_envs", True, "terminate", "Gymnasium vector env, compiled"
    ),
    "batched": Face("rams_env.envs.vector:BatchedRamsEnv", "num_games", True, "raise", "batched self-play env"),
    "reference": Face(
        "rams_env.envs.vector:ReferenceBatchedRamsEnv", "num_games", False, "raise", "batched env, Python engine"
    ),
    "subproc": Face(
        "rams_env.envs.subproc:SubprocBatchedRamsEnv", "num_games", True, "raise", "batched env over processes"
    ),
    "sb3": Face("rams_env.integrations.sb3_vector:RamsVecEnv", "num_envs", True, "terminate", "SB3 VecEnv"),
    "torchrl": Face("rams_env.integrations.torchrl:make_env", None, False, "raise", "TorchRL PettingZooWrapper"),
    "torchrl_vector": Face(
        "rams_env.integrations.torchrl_vector:RamsBatchedEnv", "num_envs", True, "terminate", "TorchRL batched env"
    ),
    "torchrl_selfplay": Face(
        "rams_env.integrations.torchrl_selfplay:RamsSelfPlayEnv", "num_games", False, "raise", "TorchRL self-play"
    ),
    "rllib": Face("rams_env.integrations.rllib:RamsMultiAgentEnv", None, False, "terminate", "RLlib MultiAgentEnv"),
}
"""Every face ``make`` builds, by name."""

SPEC_KEYWORDS = frozenset((*SPEC_FIELDS, *OPTION_NAMES, "config"))


def make(
    spec: EnvSpec | Mapping[str, Any] | RulesConfig | str | None = None,
    /,
    face: str = "aec",
    *,
    num_envs: int | None = None,
    seats: Any = None,
    **keywords: Any,
) -> Any:
    """Build the ``face`` of :data:`FACES` that plays ``spec``.

    ``spec`` is an :class:`EnvSpec`, its ``to_dict()``, a variant's name, a ``RulesConfig`` (the rules; the
    keywords say the rest) or None (the keywords alone say it);
    ``num_envs`` is the number of games of a batched face; ``seats`` says who plays each seat (one
    :class:`~rams_env.envs.seats.Seat`, name or agent per seat), on the faces that take it. Keywords that
    belong to the spec (variant, num_players, episode, reward, illegal_action, illegal_reward, rule options)
    resolve with it; the others go to the face. Anything unknown or contradictory is a ``ValueError``.
    """
    if face not in FACES:
        raise ValueError(f"unknown face {face!r}; choose one of {sorted(FACES)}")
    info = FACES[face]
    resolved = _resolve(spec, {k: v for k, v in keywords.items() if k in SPEC_KEYWORDS})
    resolved = resolved.resolved(info.default_illegal)
    rest = {k: v for k, v in keywords.items() if k not in SPEC_KEYWORDS}
    if num_envs is not None:
        if info.count is None:
            raise ValueError(f"face {face!r} is one game: num_envs does not apply")
        rest[info.count] = num_envs
    if seats is not None:
        if not info.seats:
            raise ValueError(f"face {face!r} takes no seats=: the caller plays every seat")
        rest["seats"] = seats
    module, _, name = info.entry_point.partition(":")
    factory = getattr(importlib.import_module(module), name)
    if face == "rllib":  # RLlib builds its env from a plain env_config
        return factory({**resolved.to_dict(), **rest})
    return factory(spec=resolved, **rest)


def _resolve(spec: EnvSpec | Mapping[str, Any] | RulesConfig | str | None, fields: dict[str, Any]) -> EnvSpec:
    """The spec of ``make``'s first argument and its spec keywords."""
    if spec is None:
        return make_spec(**fields)
    if isinstance(spec, RulesConfig):
        if "config" in fields:
            raise ValueError("config given twice: as make's first argument and as config=")
        return make_spec(config=spec, **fields)
    if isinstance(spec, str):
        if spec not in PRESETS:
            raise ValueError(f"unknown variant {spec!r}; choose one of {sorted(PRESETS)} (or give an EnvSpec)")
        if "variant" in fields:
            raise ValueError("variant given twice: as make's first argument and as variant=")
        return make_spec(spec, **fields)
    if isinstance(spec, Mapping):
        spec = EnvSpec.from_dict(spec)
    return make_spec(spec=spec, **fields)


__all__ = ["FACES", "Face", "make"]
