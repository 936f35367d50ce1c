"""Deep Monte-Carlo (as in DouZero): epsilon-greedy play on the action head, which learns each played
action's Monte-Carlo return.

Collection records values and log-probabilities of 0, and GAE with lambda 1 then makes each decision's
``ret`` its Monte-Carlo return (training/rollout.py). The update takes PPO's minibatches and clipped
gradient steps (training/ppo.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import torch

from rams_env.policy import PolicyNet

from .algorithms import Context, OptimizerState, Stage, build_networks, register_algorithm
from .ppo import gradient_step, minibatches

if TYPE_CHECKING:
    from .config import LearnArgs
    from .rollout import Rollout


@register_algorithm("dmc")
class DMC(OptimizerState):
    """Deep Monte-Carlo: epsilon-greedy play on the action head, which regresses each action's return."""

    privileged_critic = False

    def __init__(self, learn: LearnArgs, context: Context) -> None:
        self.learn, self.context = learn, context
        self.net, self.critic, self.optimizer = build_networks(learn, context, critic=False)
        self.gae = (learn.gamma, 1.0)  # values 0 and lambda 1 make ret each decision's Monte-Carlo return

    def act(self, net: PolicyNet, obs: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Epsilon-greedy actions of ``net``'s action head; log-probabilities and values of 0."""
        with torch.no_grad():
            logits, _ = net(torch.from_numpy(obs).to(self.context.device), bf16_torso=self.context.bf16)
            return act(logits, torch.from_numpy(mask).bool(), self.learn.epsilon, self.context.generator)

    def update(self, rollout: Rollout, rows: np.ndarray, stage: Stage) -> dict[str, float]:
        """The regression of the played actions' entries on their returns: :func:`update`."""
        c = self.context
        return update(
            self.net, self.optimizer, rollout, rows, self.learn, generator=c.generator, device=c.device, bf16=c.bf16
        )


def act(
    logits: torch.Tensor, legal: torch.Tensor, epsilon: float, generator: torch.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Epsilon-greedy actions on the action head, and log-probabilities and values of 0 (Monte-Carlo returns
    use neither)."""
    greedy = logits.cpu().masked_fill(~legal, -torch.inf).argmax(dim=1)
    uniform = torch.rand(legal.shape, generator=generator).masked_fill(~legal, -1.0).argmax(dim=1)
    explore = torch.rand(len(legal), generator=generator) < epsilon
    zeros = np.zeros(len(legal), np.float32)
    return torch.where(explore, uniform, greedy).numpy(), zeros, zeros


def update(
    net: PolicyNet,
    optimizer: torch.optim.Optimizer,
    rollout: Rollout,
    rows: np.ndarray,
    args: LearnArgs,
    *,
    generator: torch.Generator,
    device: torch.device,
    bf16: bool,
) -> dict[str, float]:
    """The action head's entry of each played action learns its Monte-Carlo return (squared error), the value
    head the same return. ``policy_loss`` is the action head's loss and ``entropy`` that of the epsilon-greedy
    behaviour policy."""
    rows_t = torch.from_numpy(rows).to(device)
    obs = torch.from_numpy(rollout.obs[: rollout.size]).to(device)
    actions = torch.from_numpy(rollout.action[rows]).to(device)
    ret = torch.from_numpy(rollout.ret[rows]).float().to(device)
    stats = {"policy_loss": 0.0, "value_loss": 0.0}
    batches = 0
    for idx in minibatches(len(rows), args.minibatch, generator, device, args.epochs):
        q, value = net(obs.index_select(0, rows_t[idx]), bf16_torso=bf16)
        q_loss = 0.5 * (q.gather(1, actions[idx, None]).squeeze(1) - ret[idx]).pow(2).mean()
        value_loss = 0.5 * (value - ret[idx]).pow(2).mean()
        gradient_step(optimizer, q_loss + args.vf_coef * value_loss, args.max_grad_norm)
        stats["policy_loss"] += float(q_loss.detach())
        stats["value_loss"] += float(value_loss.detach())
        batches += 1
    result = {k: v / max(batches, 1) for k, v in stats.items()}
    result["entropy"] = epsilon_greedy_entropy(rollout.mask[rows].sum(axis=1), args.epsilon)
    return result


def epsilon_greedy_entropy(legal_counts: np.ndarray, epsilon: float) -> float:
    """Mean entropy of epsilon-greedy play over decisions with ``legal_counts`` legal actions: the greedy
    action has 1 - epsilon + epsilon / k, each other epsilon / k."""
    k = np.maximum(np.asarray(legal_counts, np.float64), 1.0)
    greedy, other = 1.0 - epsilon + epsilon / k, epsilon / k
    terms = -greedy * np.log(greedy) - (k - 1) * np.where(other > 0, other * np.log(np.maximum(other, 1e-300)), 0.0)
    return float(terms.mean()) if len(k) else 0.0
