"""RLlib (new API stack): Rams as a turn-based ``MultiAgentEnv`` and a PPO RLModule that masks illegal actions.

``ppo_config()`` puts them together: multi-agent PPO with one policy shared by every seat. Needs the
``rams_env[rllib]`` extra (Ray with RLlib's dependencies).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium
import numpy as np
import torch
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module import MultiRLModuleSpec, RLModuleSpec
from ray.rllib.core.rl_module.apis import ValueFunctionAPI
from ray.rllib.core.rl_module.torch import TorchRLModule
from ray.rllib.env.multi_agent_env import MultiAgentEnv
from torch import nn

from ..env import RamsEnv

SHARED_POLICY = "shared"
DEFAULT_HIDDEN = (128, 128)
# Logit of an illegal action: exp() of it is exactly 0, and it stays finite so that PPO's KL and entropy do too.
MASKED_LOGIT = -1e9


class RamsMultiAgentEnv(MultiAgentEnv):
    """Rams for RLlib's ``MultiAgentEnv``: only the seat to act gets an observation.

    ``config`` holds the keywords of :func:`rams_env.env` (``variant``, ``num_players``, ``episode``...).
    Every step reports that step's reward of every seat (RLlib credits each to the seat's last
    action); when the episode ends every seat gets its final observation. A game that is over at
    ``reset()`` (russian: going out on jacks at the deal) is skipped, as nobody had a decision.
    """

    def __init__(self, config: Mapping[str, Any] | None = None) -> None:
        super().__init__()
        self.aec = RamsEnv(**dict(config or {}))
        self.possible_agents = list(self.aec.possible_agents)
        self.agents = list(self.possible_agents)
        self.observation_spaces = {a: self.aec.observation_space(a) for a in self.possible_agents}
        self.action_spaces = {a: self.aec.action_space(a) for a in self.possible_agents}

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        super().reset(seed=seed, options=options)
        self.aec.reset(seed=seed, options=options)
        while self.aec.terminations[self.aec.agent_selection]:
            self.aec.reset()
        agent = self.aec.agent_selection
        return {agent: self.aec.observe(agent)}, {agent: dict(self.aec.infos[agent])}

    def step(self, action_dict: Mapping[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        aec = self.aec
        agent = aec.agent_selection
        if agent not in action_dict:
            raise ValueError(f"{agent} is to act, but the actions are for {sorted(action_dict)}")
        aec.step(int(action_dict[agent]))
        rewards = {a: float(aec.rewards[a]) for a in self.possible_agents}
        if all(aec.terminations.values()):
            everyone = self.possible_agents
            observations = {a: aec.observe(a) for a in everyone}
            infos = {a: dict(aec.infos[a]) for a in everyone}
            terminateds = {**dict.fromkeys(everyone, True), "__all__": True}
            return observations, rewards, terminateds, {"__all__": False}, infos
        nxt = aec.agent_selection
        return {nxt: aec.observe(nxt)}, rewards, {"__all__": False}, {"__all__": False}, {nxt: dict(aec.infos[nxt])}

    def render(self) -> str | None:
        return self.aec.render()


class MaskedPPOModule(TorchRLModule, ValueFunctionAPI):
    """Actor-critic MLP on ``obs["observation"]``; the logits of actions outside ``obs["action_mask"]`` are masked.

    ``model_config``: ``{"hidden": [widths of the shared hidden layers]}``.
    """

    def setup(self) -> None:
        space = self.observation_space
        if not isinstance(space, gymnasium.spaces.Dict) or set(space.spaces) != {"observation", "action_mask"}:
            raise ValueError(f'MaskedPPOModule needs a Dict space with "observation" and "action_mask", got {space}')
        hidden = tuple(int(h) for h in dict(self.model_config or {}).get("hidden", DEFAULT_HIDDEN))
        if not hidden or min(hidden) < 1:
            raise ValueError(f"model_config['hidden'] must be positive layer widths, got {hidden}")
        layers: list[nn.Module] = []
        width = int(np.prod(space["observation"].shape))
        for h in hidden:
            layers += [nn.Linear(width, h), nn.Tanh()]
            width = h
        self.torso = nn.Sequential(*layers)
        self.pi = nn.Linear(width, int(self.action_space.n))
        self.vf = nn.Linear(width, 1)

    def _masked_logits(self, obs: Mapping[str, torch.Tensor], features: torch.Tensor) -> torch.Tensor:
        return self.pi(features).masked_fill(obs["action_mask"] == 0, MASKED_LOGIT)

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        obs = batch[Columns.OBS]
        return {Columns.ACTION_DIST_INPUTS: self._masked_logits(obs, self.torso(obs["observation"]))}

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        obs = batch[Columns.OBS]
        features = self.torso(obs["observation"])
        # The value head reuses these features in compute_values (PPO's learner passes them back).
        return {Columns.ACTION_DIST_INPUTS: self._masked_logits(obs, features), Columns.EMBEDDINGS: features}

    def compute_values(self, batch: dict[str, Any], embeddings: torch.Tensor | None = None) -> torch.Tensor:
        if embeddings is None:
            embeddings = self.torso(batch[Columns.OBS]["observation"])
        return self.vf(embeddings).squeeze(-1)


def shared_policy(agent_id: str, episode: Any = None, **kwargs: Any) -> str:
    """Policy mapping: every seat plays the one shared policy."""
    return SHARED_POLICY


def ppo_config(env_config: Mapping[str, Any] | None = None, hidden: Sequence[int] = DEFAULT_HIDDEN) -> PPOConfig:
    """Multi-agent PPO on Rams with one masked policy shared by every seat; chain further RLlib settings on it.

    ``env_config`` holds the keywords of :func:`rams_env.env`; bad ones raise ``ValueError`` here,
    before Ray starts anything.
    """
    env_config = dict(env_config or {})
    RamsEnv(**env_config)  # validate now rather than inside a remote env runner
    # RLlib's env check steps the env with an unmasked random action (illegal in Rams, so it raises)
    # and leaves every env runner's env seeded with 42: it is switched off.
    module = RLModuleSpec(module_class=MaskedPPOModule, model_config={"hidden": [int(h) for h in hidden]})
    return (
        PPOConfig()
        .environment(RamsMultiAgentEnv, env_config=env_config, disable_env_checking=True)
        .multi_agent(policies={SHARED_POLICY}, policy_mapping_fn=shared_policy)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={SHARED_POLICY: module}))
    )


class RLlibAgent:
    """A trained RLlib module as a Rams agent: ``act(observation)`` takes the most likely legal action."""

    def __init__(self, module: TorchRLModule) -> None:
        self.module = module

    def act(self, observation: Mapping[str, np.ndarray]) -> int:
        """The greedy action for ``{"observation": ..., "action_mask": ...}``."""
        mask = np.asarray(observation["action_mask"])
        if not mask.any():
            raise ValueError("the action mask allows no action: this agent is not to act")
        obs = {
            "observation": torch.as_tensor(np.asarray(observation["observation"], np.float32)).unsqueeze(0),
            "action_mask": torch.as_tensor(mask).unsqueeze(0),
        }
        logits = self.module.forward_inference({Columns.OBS: obs})[Columns.ACTION_DIST_INPUTS]
        return int(torch.argmax(logits[0]))
