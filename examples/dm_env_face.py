"""A dm_env-style face on the one compiled core: the recipe "A new library adapter" of docs/extending.md.

``N`` Rams games stepped together, every seat a learner (self-play), shaped like EnvPool's dm_env face: each
step returns one batched ``TimeStep`` (``step_type``, ``reward``, ``discount``, ``observation``). dm_env resets
on the next step, so the core runs without autoreset: a game whose episode ended (``LAST``) is told to
``RESTART`` at the next step, which ignores its action and returns the new episode's first decision
(``FIRST``). It needs neither dm_env nor anything of rams_env but its public core (``rams_env.core.Core``);
tests/test_extending.py checks that it plays the very games of ``BatchedRamsEnv``, the batched face on the same core.
"""

from __future__ import annotations

import enum
from typing import Any, NamedTuple

import numpy as np

from rams_env import make_spec
from rams_env.core import ACT, RESTART, Core
from rams_env.envs import game_seeds
from rams_env.obs import OBS_SIZE
from rams_env.rules.actions import NUM_ACTIONS


class StepType(enum.IntEnum):
    """dm_env's step types."""

    FIRST = 0  # the observation is an episode's first decision
    MID = 1
    LAST = 2  # the last action ended the episode: its rewards, no decision (an all-zero mask)


class TimeStep(NamedTuple):
    """dm_env's ``TimeStep``, one row a game."""

    step_type: np.ndarray  # (N,) int8, StepType
    reward: np.ndarray  # (N, num_players) float32: every seat's reward for the last action
    discount: np.ndarray  # (N,) float32: 0 at LAST, else 1
    observation: dict[str, np.ndarray]  # "observation" (N, OBS_SIZE), "action_mask" (N, 60), "seat" (N,)


class DmRamsEnv:
    """``num_games`` games of one rules configuration, dm_env-style (see the module docstring)."""

    def __init__(
        self,
        num_games: int,
        variant: str = "mattmar",
        num_players: int | None = None,
        episode: str = "deal",
        reward: str = "points",
        **options: Any,
    ) -> None:
        self.core = Core(make_spec(variant, num_players, episode, reward, **options), num_games)  # every seat a learner
        self.num_games, self.num_players = num_games, self.core.num_players
        self._ended = np.zeros(num_games, bool)

    def observation_spec(self) -> dict[str, tuple[tuple[int, ...], type]]:
        """Each observation entry's shape (per game) and dtype."""
        return {"observation": ((OBS_SIZE,), np.float32), "action_mask": ((NUM_ACTIONS,), np.int8), "seat": ((), int)}

    def action_spec(self) -> tuple[int, int]:
        """Actions are integers in [0, 60) (masked by ``action_mask``), one per game."""
        return 0, NUM_ACTIONS - 1

    def reward_spec(self) -> tuple[int]:
        """Each game's rewards: one per seat."""
        return (self.num_players,)

    def reset(self, seed: int | None = None) -> TimeStep:
        """Start every game; game ``i`` deals as ``BatchedRamsEnv(N).reset(seed)``'s game ``i`` does."""
        self.core.restart(game_seeds(seed, self.num_games))
        self._ended[:] = False
        return self._timestep(np.full(self.num_games, StepType.FIRST, np.int8))

    def step(self, actions: Any) -> TimeStep:
        """Apply each game's action to its seat to act; a game that ended at the last step starts anew instead."""
        commands = np.where(self._ended, RESTART, ACT).astype(np.int64)
        actions = np.where(self._ended, 0, np.asarray(actions, np.int64))
        out = self.core.step(actions, commands)  # an illegal action raises IllegalActionError naming the game
        step_type = np.where(out.over, StepType.LAST, np.where(out.started, StepType.FIRST, StepType.MID))
        self._ended[:] = out.over
        return self._timestep(step_type.astype(np.int8))

    def _timestep(self, step_type: np.ndarray) -> TimeStep:
        out = self.core.outputs
        observation = {
            "observation": out.observations.copy(),
            "action_mask": out.masks.copy(),
            "seat": out.seats.copy(),
        }
        discount = (step_type != StepType.LAST).astype(np.float32)
        return TimeStep(step_type, out.rewards.copy(), discount, observation)

    def close(self) -> None:
        """Nothing to release: the games live in this process."""


if __name__ == "__main__":  # a few random steps
    env, rng = DmRamsEnv(4, episode="rams"), np.random.default_rng(0)
    timestep = env.reset(seed=0)
    for _ in range(200):
        legal = [np.flatnonzero(mask) for mask in timestep.observation["action_mask"]]
        timestep = env.step([rng.choice(a) if len(a) else 0 for a in legal])
    print("step types", timestep.step_type, "rewards", timestep.reward.sum(axis=0))
