"""PPO: sampling the learner's actions, and the clipped policy-gradient update over an update's samples.

The advantages come from GAE (training/rollout.py) on the value head's values, or on the privileged
critic's (training/critic.py), whose value loss is then trained beside the policy's own value head;
during ``critic_warmup`` only the critic learns. :func:`minibatches` and :func:`gradient_step` are
shared with Deep Monte-Carlo (training/dmc.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import numpy as np
import torch

from rams_env.policy import MaskedCategorical, PolicyNet

from .algorithms import Context, OptimizerState, Stage, build_networks, register_algorithm
from .critic import PrivilegedCritic

if TYPE_CHECKING:
    from .config import LearnArgs
    from .rollout import Rollout


@register_algorithm("ppo")
class PPO(OptimizerState):
    """Clipped PPO on GAE advantages (of the value head, or of the privileged critic where the run has one)."""

    privileged_critic = True

    def __init__(self, learn: LearnArgs, context: Context) -> None:
        self.learn, self.context = learn, context
        self.net, self.critic, self.optimizer = build_networks(learn, context, critic=learn.privileged_critic)
        self.gae = (learn.gamma, learn.gae_lambda)

    def act(self, net: PolicyNet, obs: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Actions sampled from ``net``'s masked policy, their log-probabilities and the values."""
        with torch.no_grad():
            logits, value = net(torch.from_numpy(obs).to(self.context.device), bf16_torso=self.context.bf16)
            return act(logits, value, torch.from_numpy(mask).bool(), self.context.generator)

    def update(self, rollout: Rollout, rows: np.ndarray, stage: Stage) -> dict[str, float]:
        """``epochs`` passes of clipped PPO over ``rows``: :func:`update`."""
        c = self.context
        return update(
            self.net,
            self.critic,
            self.optimizer,
            rollout,
            rows,
            self.learn,
            ent_coef=stage.ent_coef,
            warming=stage.warming,
            generator=c.generator,
            device=c.device,
            bf16=c.bf16,
        )


def act(
    logits: torch.Tensor, value: torch.Tensor, legal: torch.Tensor, generator: torch.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Actions sampled from the masked policy, their log-probabilities and the values (call under ``no_grad``)."""
    dist = MaskedCategorical(logits.cpu(), legal)
    action = dist.sample(generator)
    return action.numpy(), dist.log_prob(action).numpy(), value.cpu().numpy()


def update(
    net: PolicyNet,
    critic: PrivilegedCritic | None,
    optimizer: torch.optim.Optimizer,
    rollout: Rollout,
    rows: np.ndarray,
    args: LearnArgs,
    *,
    ent_coef: float,
    warming: bool,
    generator: torch.Generator,
    device: torch.device,
    bf16: bool,
) -> dict[str, float]:
    """``args.epochs`` passes of clipped PPO over ``rows`` of ``rollout``; the mean losses and diagnostics.

    ``warming``: only the critic learns (no gradient reaches the policy network). No rows: nothing is learnt
    and every loss is 0, as in DMC's update.
    """
    # The observations stay where collect() wrote them; each minibatch gathers its own rows.
    rows_t = torch.from_numpy(rows).to(device)
    obs = torch.from_numpy(rollout.obs[: rollout.size]).to(device)
    mask = torch.from_numpy(rollout.mask[: rollout.size]).to(device)
    hidden = torch.from_numpy(rollout.hidden[: rollout.size]).to(device) if rollout.hidden is not None else None
    actions = torch.from_numpy(rollout.action[rows]).to(device)
    old_logp = torch.from_numpy(rollout.log_prob[rows]).to(device)
    adv = torch.from_numpy(rollout.advantage[rows]).float().to(device)
    ret = torch.from_numpy(rollout.ret[rows]).float().to(device)
    adv = normalised(adv)
    stats = {"policy_loss": 0.0, "value_loss": 0.0, "entropy": 0.0, "approx_kl": 0.0, "clip_fraction": 0.0}
    batches = 0
    for idx in minibatches(len(rows), args.minibatch, generator, device, args.epochs):
        where = rows_t[idx]
        obs_batch = obs.index_select(0, where)  # faster than obs[where] (docs/performance.md)
        logits, value = net(obs_batch, bf16_torso=bf16)
        dist = MaskedCategorical(logits, mask.index_select(0, where).bool())
        logp = dist.log_prob(actions[idx])
        ratio = (logp - old_logp[idx]).exp()
        a = adv[idx]
        policy_loss = -torch.min(ratio * a, ratio.clamp(1 - args.clip, 1 + args.clip) * a).mean()
        value_loss = 0.5 * (value - ret[idx]).pow(2).mean()
        if critic is not None and hidden is not None:  # the policy's own value head learns too
            critic_value = critic(obs_batch, hidden.index_select(0, where), bf16_torso=bf16)
            critic_loss = 0.5 * (critic_value - ret[idx]).pow(2).mean()
            value_loss = critic_loss if warming else critic_loss + value_loss
        entropy = dist.entropy().mean()
        loss = policy_loss + args.vf_coef * value_loss - ent_coef * entropy
        if warming:  # only the critic learns: no gradient reaches the policy network
            loss = args.vf_coef * value_loss
        gradient_step(optimizer, loss, args.max_grad_norm)
        with torch.no_grad():
            stats["policy_loss"] += float(policy_loss)
            stats["value_loss"] += float(value_loss)
            stats["entropy"] += float(entropy)
            stats["approx_kl"] += float(((ratio - 1) - (logp - old_logp[idx])).mean())
            stats["clip_fraction"] += float(((ratio - 1).abs() > args.clip).float().mean())
        batches += 1
    # No rows (no decision of a learning seat in the update): no step and zero losses, as dmc.update.
    return {k: v / max(batches, 1) for k, v in stats.items()}


def normalised(adv: torch.Tensor) -> torch.Tensor:
    """Advantages to zero mean and unit spread (one sample has no spread, its std is NaN: centred only)."""
    if len(adv) > 1:
        return (adv - adv.mean()) / (adv.std() + 1e-8)
    return adv - adv.mean() if len(adv) == 1 else adv


def minibatches(
    total: int, size: int, generator: torch.Generator, device: torch.device, epochs: int = 1
) -> Iterator[torch.Tensor]:
    """Indices into ``total`` rows: ``epochs`` shuffled passes, ``size`` at a time."""
    for _ in range(epochs):
        order = torch.randperm(total, generator=generator).to(device)
        for start in range(0, total, size):
            yield order[start : start + size]


def gradient_step(optimizer: torch.optim.Optimizer, loss: torch.Tensor, max_grad_norm: float) -> None:
    """One optimizer step on ``loss``, the gradient norm clipped to ``max_grad_norm``."""
    optimizer.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(optimizer.param_groups[0]["params"], max_grad_norm)
    optimizer.step()
