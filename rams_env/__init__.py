"""rams_env: the Rams card game (Loo family) as a reinforcement-learning environment."""

from __future__ import annotations

from .env import RamsEnv, env, raw_env
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


def _register_gymnasium() -> None:
    import gymnasium

    if "rams_env/Rams-v0" not in gymnasium.registry:
        gymnasium.register(id="rams_env/Rams-v0", entry_point="rams_env.gym_env:RamsGymEnv")


_register_gymnasium()
