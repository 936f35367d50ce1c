"""rams_env: the Rams card game (Loo family) as a reinforcement-learning environment."""

from __future__ import annotations

from . import integrations  # noqa: F401  (registers the integrations' agent loaders: rams_env.loaders)
from .envs import RamsEnv, env, raw_env  # importing them registers the Gymnasium id rams_env/Rams-v1
from .rules import Action, Game, IllegalActionError, Phase, RulesConfig, card_index, card_name, make_config

__version__ = "0.1.0"

__all__ = [
    "Action",
    "Game",
    "IllegalActionError",
    "Phase",
    "RamsEnv",
    "RulesConfig",
    "card_index",
    "card_name",
    "env",
    "make_config",
    "raw_env",
]


def __getattr__(name: str) -> object:
    """``rams_env.rams_v1`` is the module of ``env``/``raw_env``; the retired ``rams_v0`` is refused."""
    if name == "rams_v1":
        import importlib

        return importlib.import_module(".envs.aec", __name__)
    if name == "rams_v0":
        raise AttributeError(
            "rams_v0 is retired: its observation was encoder version 1; use rams_env.rams_v1 "
            "(rams_env.env(...), Gymnasium id 'rams_env/Rams-v1'), whose observation is encoder version 2"
        )
    raise AttributeError(f"module 'rams_env' has no attribute {name!r}")
