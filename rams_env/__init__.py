"""rams_env: the Rams card game (Loo family) as a reinforcement-learning environment.

``import rams_env`` registers the Gymnasium id ``rams_env/Rams-v1`` and the integrations' agent
loaders, and nothing heavier: the names below are loaded on first use, so that ``import
rams_env.rules`` (the pure-Python engine) loads neither numba nor PettingZoo.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from . import gym_id, integrations

if TYPE_CHECKING:
    from .envs import RamsEnv, env, raw_env
    from .envs.registry import FACES, make
    from .envs.seats import Seat
    from .rules import Action, Game, IllegalActionError, Phase, RulesConfig, card_index, card_name, make_config
    from .rules.spec import EnvSpec, make_spec

__version__ = "0.1.0"

# Each public name and the module it is loaded from on first use.
_LAZY = {
    "Action": ".rules",
    "Game": ".rules",
    "IllegalActionError": ".rules",
    "Phase": ".rules",
    "RulesConfig": ".rules",
    "card_index": ".rules",
    "card_name": ".rules",
    "make_config": ".rules",
    "RamsEnv": ".envs",
    "env": ".envs",
    "raw_env": ".envs",
    "EnvSpec": ".rules.spec",
    "make_spec": ".rules.spec",
    "make": ".envs.registry",
    "FACES": ".envs.registry",
    "Seat": ".envs.seats",
}

__all__ = [
    "FACES",
    "Action",
    "EnvSpec",
    "Game",
    "IllegalActionError",
    "Phase",
    "RamsEnv",
    "RulesConfig",
    "Seat",
    "card_index",
    "card_name",
    "env",
    "make",
    "make_config",
    "make_spec",
    "raw_env",
]

gym_id.register()


def __getattr__(name: str) -> object:
    """The public names, loaded on first use; ``rams_env.rams_v1`` is the module of ``env``/``raw_env``;
    the retired ``rams_v0`` is refused."""
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name], __name__), name)
        globals()[name] = value  # loaded once
        return value
    if name == "rams_v1":
        return importlib.import_module(".envs.aec", __name__)
    if name == "rams_v0":
        raise AttributeError(
            "rams_v0 is retired: its observation was encoder version 1; use rams_env.rams_v1 "
            "(rams_env.env(...), Gymnasium id 'rams_env/Rams-v1'), whose observation is encoder version 2"
        )
    raise AttributeError(f"module 'rams_env' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY, "rams_v1"})
