"""A toy training algorithm for ``rams train``: REINFORCE with the value head as its baseline.

docs/extending.md ("A new training algorithm") shows this file; tests/training/test_new_algorithm.py trains
with it through ``rams train``'s options. Importing it registers the name ``reinforce``.
"""

from __future__ import annotations

import numpy as np
import torch

from rams_env.policy import MaskedCategorical, PolicyNet
from rams_training.algorithms import Context, OptimizerState, Stage, build_networks, register_algorithm
from rams_training.config import LearnArgs
from rams_training.rollout import Rollout


@register_algorithm("reinforce")
class Reinforce(OptimizerState):  # OptimizerState: state_dict and load_state_dict of the optimizer
    """Sampled actions; one gradient step per update on log-probability x (Monte-Carlo return - value)."""

    privileged_critic = False  # it takes its baseline from the policy's own value head

    def __init__(self, learn: LearnArgs, context: Context) -> None:
        self.learn, self.context = learn, context
        self.net, self.critic, self.optimizer = build_networks(learn, context, critic=False)
        self.gae = (learn.gamma, 1.0)  # lambda 1: collection makes each decision's ret its Monte-Carlo return

    def act(self, net: PolicyNet, obs: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Actions sampled from ``net``'s policy over the legal ones, their log-probabilities and the values."""
        with torch.no_grad():
            logits, value = net(torch.from_numpy(obs).to(self.context.device))
            dist = MaskedCategorical(logits.cpu(), torch.from_numpy(mask).bool())
            action = dist.sample(self.context.generator)
            return action.numpy(), dist.log_prob(action).numpy(), value.cpu().numpy()

    def update(self, rollout: Rollout, rows: np.ndarray, stage: Stage) -> dict[str, float]:
        """One step on all of the update's decisions; the losses are names of progress.csv's columns."""
        if not len(rows):
            return {"policy_loss": 0.0, "value_loss": 0.0, "entropy": 0.0}
        device = self.context.device
        obs = torch.from_numpy(rollout.obs[rows]).to(device)
        legal = torch.from_numpy(rollout.mask[rows]).bool().to(device)
        actions = torch.from_numpy(rollout.action[rows]).to(device)
        ret = torch.from_numpy(rollout.ret[rows]).float().to(device)
        logits, value = self.net(obs)
        dist = MaskedCategorical(logits, legal)
        policy_loss = -(dist.log_prob(actions) * (ret - value.detach())).mean()
        value_loss = 0.5 * (value - ret).pow(2).mean()
        entropy = dist.entropy().mean()
        loss = policy_loss + self.learn.vf_coef * value_loss - stage.ent_coef * entropy
        self.optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.net.parameters(), self.learn.max_grad_norm)
        self.optimizer.step()
        losses = {"policy_loss": policy_loss, "value_loss": value_loss, "entropy": entropy}
        return {name: float(value.detach()) for name, value in losses.items()}
