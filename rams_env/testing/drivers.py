"""The drivers of the faces of rams_env that hand out every seat's decisions: each implements
:class:`~rams_env.testing.Driver`."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..envs.vector import game_seeds
from ..rules import RulesConfig
from .driver import Decisions, Outcome


def _one(seat: int, observation: np.ndarray, mask: np.ndarray) -> Decisions:
    return Decisions(np.array([seat]), np.asarray(observation)[None], np.asarray(mask)[None])


class AECDriver:
    """A PettingZoo AEC env (``rams_env.env()``, ``raw_env()``, ``RamsEnv``) as one game; after an episode
    ends it calls ``reset()`` itself, skipping episodes without a decision, as a batched env does."""

    num_games = 1

    def __init__(self, env: Any) -> None:
        self.env = env
        self.config: RulesConfig = env.unwrapped.config
        self.agents = list(env.possible_agents)
        self.zero_masks_seen: list[str] = []  # where a seat not to act had a non-zero mask

    def rebind(self, env: Any) -> AECDriver:
        return AECDriver(env)

    def game_seeds(self, seed: int) -> list[int]:
        return [seed]

    def heuristic_seats(self) -> None:
        return None

    def _skip_empty(self) -> None:
        while all(self.env.terminations.values()):
            self.env.reset()

    def _decisions(self) -> Decisions:
        env = self.env
        agent = env.agent_selection
        for other in self.agents:
            if other != agent and env.observe(other)["action_mask"].any():
                self.zero_masks_seen.append(f"{other}'s mask is not all zeros while {agent} is to act")
        obs = env.observe(agent)
        return _one(self.agents.index(agent), obs["observation"], obs["action_mask"])

    def reset(self, seed: Any) -> Decisions:
        self.env.reset(seed=seed)
        self._skip_empty()
        return self._decisions()

    def step(self, actions: np.ndarray) -> Outcome:
        env = self.env
        env.step(int(actions[0]))
        rewards = np.array([[env.rewards[a] for a in self.agents]], np.float64)
        terminated = all(env.terminations.values())
        truncated = any(env.truncations.values())
        if terminated or truncated:
            env.reset()
            self._skip_empty()
        return Outcome(rewards, np.array([terminated]), np.array([truncated]), self._decisions())


class BatchedDriver:
    """A :class:`~rams_env.envs.contracts.BatchedEnv` (``BatchedRamsEnv``, ``ReferenceBatchedRamsEnv``,
    ``SubprocBatchedRamsEnv``)."""

    def __init__(self, env: Any) -> None:
        self.env = env
        self.config: RulesConfig = env.config
        self.num_games = int(env.num_games)

    def rebind(self, env: Any) -> BatchedDriver:
        return BatchedDriver(env)

    def game_seeds(self, seed: int) -> list[int]:
        return game_seeds(seed, self.num_games)

    def heuristic_seats(self) -> np.ndarray | None:
        return getattr(self.env, "heuristic_seats", None)

    @staticmethod
    def _decisions(out: Any) -> Decisions:
        return Decisions(np.array(out.seats), np.array(out.observations), np.array(out.action_masks))

    def reset(self, seed: Any) -> Decisions:
        return self._decisions(self.env.reset(seed=seed))

    def step(self, actions: np.ndarray) -> Outcome:
        out = self.env.step(actions)
        return Outcome(
            np.array(out.rewards, np.float64), np.array(out.terminated), np.array(out.truncated), self._decisions(out)
        )


class RLlibDriver:
    """RLlib's ``RamsMultiAgentEnv``: the seat to act is the one agent with an observation."""

    num_games = 1

    def __init__(self, env: Any) -> None:
        self.env = env
        self.config: RulesConfig = env.aec.config
        self.agents = list(env.possible_agents)

    def rebind(self, env: Any) -> RLlibDriver:
        return RLlibDriver(env)

    def game_seeds(self, seed: int) -> list[int]:
        return [seed]

    def heuristic_seats(self) -> None:
        return None

    def _decisions(self, observations: dict[str, Any]) -> Decisions:
        acting = [a for a in observations if observations[a]["action_mask"].any()]
        agent = acting[0] if len(acting) == 1 else next(iter(observations))
        obs = observations[agent]
        return _one(self.agents.index(agent), obs["observation"], obs["action_mask"])

    def reset(self, seed: Any) -> Decisions:
        observations, _ = self.env.reset(seed=seed)
        return self._decisions(observations)

    def step(self, actions: np.ndarray) -> Outcome:
        agent = self.env.aec.agent_selection
        observations, rewards, terminateds, truncateds, _ = self.env.step({agent: int(actions[0])})
        row = np.array([[rewards.get(a, 0.0) for a in self.agents]], np.float64)
        terminated, truncated = bool(terminateds.get("__all__")), bool(truncateds.get("__all__"))
        if terminated or truncated:
            observations, _ = self.env.reset()
        return Outcome(row, np.array([terminated]), np.array([truncated]), self._decisions(observations))


class SelfPlayDriver:
    """TorchRL's ``RamsSelfPlayEnv``, through TorchRL's own calls (``set_seed``, ``reset``,
    ``step_and_maybe_reset``)."""

    def __init__(self, env: Any) -> None:
        self.env = env
        self.config: RulesConfig = env.games.config
        self.num_games = int(env.games.num_games)
        self._root: Any = None

    def rebind(self, env: Any) -> SelfPlayDriver:
        twin = SelfPlayDriver(env)
        twin._root = None if self._root is None else self._root.clone()
        return twin

    def game_seeds(self, seed: int) -> list[int]:
        return game_seeds(seed, self.num_games)

    def heuristic_seats(self) -> None:
        return None

    @staticmethod
    def _decisions(td: Any) -> Decisions:
        return Decisions(
            td["seat"].cpu().numpy().copy(),
            td["observation"].cpu().numpy().copy(),
            td["action_mask"].cpu().numpy().astype(np.int8),
        )

    def reset(self, seed: Any) -> Decisions:
        self.env.set_seed(seed)
        self._root = self.env.reset()
        return self._decisions(self._root)

    def step(self, actions: np.ndarray) -> Outcome:
        import torch

        td = self._root.clone()
        td.set("action", torch.as_tensor(actions, dtype=torch.int64))
        stepped, self._root = self.env.step_and_maybe_reset(td)
        nxt = stepped["next"]
        return Outcome(
            nxt["reward"].cpu().numpy().astype(np.float64),
            nxt["terminated"].reshape(-1).cpu().numpy(),
            nxt["truncated"].reshape(-1).cpu().numpy(),
            self._decisions(self._root),
        )
