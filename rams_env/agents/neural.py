"""The trained-policy agent: plays a :class:`~rams_env.policy.PolicyNet` loaded from a checkpoint.

The one agent module that needs torch (the ``torch`` extra). :mod:`rams_env.agents` imports it only
when a checkpoint is loaded, so the non-neural agents work without torch.
"""

from __future__ import annotations

import copy
import os
from pathlib import Path

import numpy as np
import torch

from ..loaders import loader_for
from ..policy import (
    MaskedCategorical,
    PolicyNet,
    checkpoint_config,
    load_checkpoint,
    load_ensemble,
    network_from_checkpoint,
    table_configs,
)
from ..rules import RulesConfig
from ..rules.actions import NUM_ACTIONS
from ..rules.seeding import check_seed
from .base import Observation, ObservationAgent, legal_from_mask, observation_vector


class PolicyAgent(ObservationAgent):
    """Plays a :class:`PolicyNet`: the masked argmax (``greedy``) or a sample of the masked policy."""

    def __init__(
        self,
        net: PolicyNet,
        config: RulesConfig,
        greedy: bool = True,
        seed: int | None = None,
        table_sizes: tuple[int, ...] | None = None,
    ) -> None:
        self.net = net.eval()
        self.config = config
        self.variant = config.variant
        self.num_players = config.num_players
        self.table_sizes = table_sizes or (config.num_players,)  # the table sizes it was trained for
        self.greedy = greedy
        self.generator = torch.Generator()
        self.seed(seed)

    def for_table(self, config: RulesConfig) -> PolicyAgent:
        """This policy playing ``config`` (the caller checked that it was trained for it: one of its table
        sizes): a copy that shares the network, so that nothing is read again, and draws as this one would."""
        if config == self.config:
            return self
        agent = copy.copy(self)
        agent.config, agent.variant, agent.num_players = config, config.variant, config.num_players
        agent.generator = torch.Generator()
        agent.generator.set_state(self.generator.get_state())
        return agent

    def seed(self, seed: int | None) -> None:
        """Reseed the sampling of a non-greedy policy (a greedy one draws nothing); ``None``: a fresh seed."""
        seed = check_seed(seed)
        if seed is None:
            self.generator.seed()
        else:
            self.generator.manual_seed(seed)

    def act(self, observation: Observation) -> int:
        """The policy's action among the legal ones."""
        legal = legal_from_mask(observation)
        vector = observation_vector(observation)
        mask = torch.zeros(NUM_ACTIONS, dtype=torch.bool)
        mask[torch.from_numpy(legal)] = True
        with torch.no_grad():
            dist = MaskedCategorical(self.logits(torch.from_numpy(vector)), mask)
            action = dist.mode() if self.greedy else dist.sample(self.generator)
        return int(action)

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The policy's actions for a batch: observations (B, OBS_SIZE) float32, masks (B, 60)."""
        legal = torch.from_numpy(np.asarray(masks) != 0)
        if legal.ndim != 2 or legal.shape[1] != NUM_ACTIONS or not legal.any(dim=1).all():
            raise ValueError(f"masks must have shape (B, {NUM_ACTIONS}) with a legal action in every row")
        with torch.no_grad():
            dist = MaskedCategorical(self.logits(torch.from_numpy(np.asarray(observations, np.float32))), legal)
            action = dist.mode() if self.greedy else dist.sample(self.generator)
        return action.numpy().astype(np.int64)

    def logits(self, vector: torch.Tensor) -> torch.Tensor:
        """The network's action logits for one observation vector, or a batch of them (before masking)."""
        return self.net(vector)[0]


class EnsembleAgent(PolicyAgent):
    """Plays several policies as one: the masked argmax (or a sample) of their mean log-probabilities.

    Masking before or after the mean gives the same choice: masking shifts each member's
    log-probabilities by one constant over the legal actions.
    """

    def __init__(
        self,
        nets: list[PolicyNet],
        config: RulesConfig,
        greedy: bool = True,
        seed: int | None = None,
        table_sizes: tuple[int, ...] | None = None,
    ) -> None:
        if not nets:
            raise ValueError("an ensemble needs at least one network")
        super().__init__(nets[0], config, greedy, seed, table_sizes)
        self.nets = [net.eval() for net in nets]

    def logits(self, vector: torch.Tensor) -> torch.Tensor:
        """The members' mean log-probabilities over all actions, for one vector or a batch (the mask is
        applied by the caller)."""
        return torch.stack([torch.log_softmax(net(vector)[0].float(), -1) for net in self.nets]).mean(0)


def load_policy_agent(
    path: str | os.PathLike[str],
    expect_config: RulesConfig | None = None,
    greedy: bool = True,
    seed: int | None = None,
) -> PolicyAgent:
    """A :class:`PolicyAgent` from a checkpoint file (checked by :func:`~rams_env.policy.load_checkpoint`).

    A path that a registered loader recognises (:mod:`rams_env.loaders`: a folder saved by RLlib, read
    by :func:`rams_env.integrations.rllib.load_rllib_agent`, needs the rllib extra) is read by it, and a
    ``.json`` file as an ensemble manifest (:func:`~rams_env.policy.load_ensemble`): an
    :class:`EnsembleAgent` of its members, for the table sizes every member was trained for.
    """
    if Path(path).suffix == ".json":
        return load_ensemble_agent(path, expect_config, greedy, seed)
    loader = loader_for(path)  # a folder an integration registered a loader for (RLlib's)
    if loader is not None:
        return loader.load(Path(path), expect_config)  # type: ignore[no-any-return]
    payload = load_checkpoint(path, expect_config)
    where = str(path)
    sizes = tuple(c.num_players for c in table_configs(payload, where))
    config = expect_config or checkpoint_config(payload, where)  # a multi-size policy plays the table asked for
    return PolicyAgent(network_from_checkpoint(payload, where), config, greedy, seed, sizes)


def load_ensemble_agent(
    path: str | os.PathLike[str],
    expect_config: RulesConfig | None = None,
    greedy: bool = True,
    seed: int | None = None,
) -> EnsembleAgent:
    """An :class:`EnsembleAgent` from an ensemble manifest (checked by :func:`~rams_env.policy.load_ensemble`)."""
    payloads = load_ensemble(path, expect_config)
    where = str(path)
    config = expect_config or checkpoint_config(payloads[0], where)
    common = set.intersection(*({c.num_players for c in table_configs(p, where)} for p in payloads))
    nets = [network_from_checkpoint(p, f"{where} member {k}") for k, p in enumerate(payloads)]
    return EnsembleAgent(nets, config, greedy, seed, tuple(sorted(common)))
