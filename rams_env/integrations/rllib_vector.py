"""RLlib: one learning seat a game through RLlib's own vector path (``gym_env_vectorize_mode="vector_entry_point"``).

Each env runner builds ``gymnasium.make_vec("rams_env/RamsVec-v1", num_envs=num_envs_per_env_runner)``: a
:class:`~rams_env.envs.gym_vector.RamsVectorEnv` whose games all step in one compiled call, the opponents'
turns included, in the next-step autoreset mode that RLlib's single-agent env runner expects (it keeps the
first transition of every episode). Observations are the AEC env's dicts, which :class:`MaskedPPOModule`
masks with. The env id is given as ``"rams_env:rams_env/RamsVec-v1"``, so that a remote env runner imports
``rams_env`` (which registers it) before it makes the env. Needs the ``rams_env[rllib]`` extra.

Self-play (every seat learning) on the batched engine is :mod:`rams_env.integrations.rllib_selfplay`'s env
runner: RLlib 2.60's multi-agent env runner steps its sub-envs one by one and has no vector entry point.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ray.rllib.algorithms.ppo import PPOConfig

from ..envs.gym_vector import RamsVectorEnv
from ..gym_id import VECTOR_ENV_ID
from .rllib import DEFAULT_ACTIVATION, DEFAULT_HIDDEN, masked_module_spec

ENV = f"rams_env:{VECTOR_ENV_ID}"  # "module:id": gymnasium imports rams_env (registering the id) first
FIXED = {"observation_mode": "dict"}  # what the masked module reads; the autoreset mode is the default, next-step


def vector_env_config(env_config: Mapping[str, Any] | None) -> dict[str, Any]:
    """``env_config`` (keywords of :class:`RamsVectorEnv` but ``num_envs``) with the dict observations set,
    checked by building one env here rather than inside a remote env runner."""
    config = dict(env_config or {})
    for key in ("num_envs", *FIXED, "autoreset_mode"):
        if key in config:
            raise ValueError(f"env_config[{key!r}] is set by vector_ppo_config (num_envs: num_envs_per_env_runner)")
    config.update(FIXED)
    RamsVectorEnv(1, **config)
    return config


def vector_ppo_config(
    env_config: Mapping[str, Any] | None = None,
    num_envs_per_env_runner: int = 64,
    hidden: Sequence[int] = DEFAULT_HIDDEN,
    activation: str = DEFAULT_ACTIVATION,
) -> PPOConfig:
    """Single-agent PPO on the vector env with the masked module; chain further RLlib settings on it.

    ``env_config``: keywords of :class:`RamsVectorEnv` (``variant``, ``num_players``, ``opponents``,
    ``learner_seat``, ``episode``, ``reward``...); ``opponents`` must be ``"heuristic"`` or ``"random"`` (or a
    list of them) for remote env runners, which receive the config as data.
    """
    config = vector_env_config(env_config)
    return (
        PPOConfig()
        .environment(ENV, env_config=config, disable_env_checking=True)
        .env_runners(num_envs_per_env_runner=num_envs_per_env_runner, gym_env_vectorize_mode="vector_entry_point")
        .rl_module(rl_module_spec=masked_module_spec(hidden, activation))
    )
