"""Stable-Baselines3: ``RamsVecEnv``, an SB3 ``VecEnv`` over the compiled vector env (:class:`RamsVectorEnv`).

Every game steps in one compiled call, the opponents' turns included, where SB3's ``DummyVecEnv`` steps one
Python env after another. sb3-contrib's ``MaskablePPO`` reads the masks through
``env_method("action_masks")``; a finished episode's last observation is in the step's info as
``terminal_observation`` (SB3's same-step autoreset, which the vector env runs in), with
``TimeLimit.truncated`` False (Rams episodes are never cut short). Wrap it in SB3's ``VecMonitor`` for the
episode statistics of SB3's logs. Needs the ``rams_env[sb3]`` extra.

    from sb3_contrib import MaskablePPO
    from rams_env.integrations.sb3_vector import RamsVecEnv

    env = RamsVecEnv(64, variant="mattmar", num_players=4, opponents="heuristic", episode="rams", reward="win")
    MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=1024, gamma=1.0).learn(100_000)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices, VecEnvStepReturn

from ..envs.gym_vector import RamsVectorEnv


class RamsVecEnv(VecEnv):
    """``num_envs`` Rams games as one SB3 ``VecEnv``; the keywords go to :class:`RamsVectorEnv`."""

    def __init__(self, num_envs: int = 8, **kwargs: Any) -> None:
        if "autoreset_mode" in kwargs or "observation_mode" in kwargs:
            raise ValueError("RamsVecEnv runs the vector env with same-step autoreset and array observations")
        self.venv = RamsVectorEnv(num_envs, autoreset_mode=AutoresetMode.SAME_STEP, **kwargs)
        self.render_mode = None
        super().__init__(self.venv.num_envs, self.venv.single_observation_space, self.venv.single_action_space)
        self._actions: np.ndarray | None = None

    def reset(self) -> np.ndarray:
        """Start every game; a seed given by ``seed()`` seeds them all (game ``i`` from ``game_seeds``)."""
        seed = self._seeds[0]
        observations, _ = self.venv.reset(seed=seed)
        self._reset_seeds()
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return observations

    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        """The seed of the next ``reset()``: one seed for the vector env (it derives one per game)."""
        self._seeds = [seed] + [None] * (self.num_envs - 1)
        return self._seeds

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions, np.int64).reshape(self.num_envs)

    def step_wait(self) -> VecEnvStepReturn:
        if self._actions is None:
            raise RuntimeError("step_wait() without step_async()")
        observations, rewards, terminated, truncated, info = self.venv.step(self._actions)
        self._actions = None
        dones = terminated | truncated
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for i in np.flatnonzero(dones).tolist():
            infos[i]["terminal_observation"] = info["final_obs"][i]
            infos[i]["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
        return observations, rewards, dones, infos

    def action_masks(self) -> np.ndarray:
        """Every game's legal learner actions, bool (num_envs, 60)."""
        return self.venv.action_masks()

    def close(self) -> None:
        self.venv.close()

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """The vector env's attribute, once per game asked for (the games share one env)."""
        value = getattr(self.venv, attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        raise AttributeError(f"RamsVecEnv's games share one vector env: cannot set {attr_name!r} per game")

    def env_method(self, method_name: str, *method_args: Any, indices: VecEnvIndices = None, **kwargs: Any) -> list:
        """``action_masks`` gives each game's mask (what MaskablePPO calls); other methods are refused."""
        if method_name != "action_masks":
            raise AttributeError(f"RamsVecEnv offers env_method('action_masks') only, not {method_name!r}")
        masks = self.venv.action_masks()
        return [masks[i] for i in self._get_indices(indices)]

    def env_is_wrapped(self, wrapper_class: type[gymnasium.Wrapper], indices: VecEnvIndices = None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]
