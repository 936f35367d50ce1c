"""The policy network (an MLP torso with a policy head and a value head) and the masked categorical.

Training scripts and the trained-policy agent build the same :class:`PolicyNet` and sample from the
same :class:`MaskedCategorical`, so they cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import nn

DEFAULT_HIDDEN = (256, 256)


def mlp_torso(width: int, hidden: Sequence[int]) -> nn.Sequential:
    """Linear + ReLU layers of the given widths on ``width`` inputs (state-dict keys ``0.weight``, ``2.weight``...)."""
    layers: list[nn.Module] = []
    for h in hidden:
        layers += [nn.Linear(width, h), nn.ReLU()]
        width = h
    return nn.Sequential(*layers)


class PolicyNet(nn.Module):
    """MLP torso with a policy-logits head and a value head."""

    def __init__(self, obs_size: int, num_actions: int, hidden: Sequence[int] = DEFAULT_HIDDEN) -> None:
        super().__init__()
        hidden = tuple(int(h) for h in hidden)
        if obs_size < 1 or num_actions < 1 or not hidden or min(hidden) < 1:
            raise ValueError(
                f"PolicyNet needs positive sizes: obs_size={obs_size}, num_actions={num_actions}, hidden={hidden}"
            )
        self.obs_size, self.num_actions, self.hidden = obs_size, num_actions, hidden
        self.torso = mlp_torso(obs_size, hidden)
        self.policy_head = nn.Linear(hidden[-1], num_actions)
        self.value_head = nn.Linear(hidden[-1], 1)

    def forward(self, obs: torch.Tensor, bf16_torso: bool = False) -> tuple[torch.Tensor, torch.Tensor]:
        """``(logits [..., num_actions], value [...])`` for a batch of observations ``[..., obs_size]``.

        ``bf16_torso`` runs the hidden layers under bfloat16 autocast (float32 weights; faster on CPUs
        with AVX-512 BF16, docs/performance.md) and the two heads in float32, so that
        log-probabilities and values keep full precision.
        """
        with torch.autocast(obs.device.type, dtype=torch.bfloat16, enabled=bf16_torso):
            features = self.torso(obs)
        features = features.float()
        return self.policy_head(features), self.value_head(features).squeeze(-1)


class MaskedCategorical:
    """A categorical over the legal actions only: illegal actions get probability exactly zero.

    ``mask`` is boolean (or 0/1) with the shape of ``logits``; every row needs a legal action.
    Entropy and log-probabilities are computed over the legal actions alone.
    """

    def __init__(self, logits: torch.Tensor, mask: torch.Tensor) -> None:
        mask = mask.to(dtype=torch.bool, device=logits.device)
        if mask.shape != logits.shape:
            raise ValueError(f"mask shape {tuple(mask.shape)} differs from logits shape {tuple(logits.shape)}")
        if not bool(mask.any(dim=-1).all()):
            raise ValueError("every row of the mask needs at least one legal action")
        self.mask = mask
        # A finite floor (not -inf) keeps 0 * log p at 0 in the entropy and its gradient free of NaN;
        # exp of it underflows to exactly 0.
        self.logits = torch.where(mask, logits, torch.finfo(logits.dtype).min)
        self.log_probs = torch.log_softmax(self.logits, dim=-1)
        # exp of the floor's huge negative log-probabilities takes a slow path (docs/performance.md):
        # those entries get exp(0) and are then zeroed by the mask.
        self.probs = torch.where(mask, self.log_probs, 0.0).exp() * mask

    def sample(self, generator: torch.Generator | None = None) -> torch.Tensor:
        """Actions drawn from the distribution (shape of the batch)."""
        flat = self.probs.reshape(-1, self.probs.shape[-1])
        drawn = torch.multinomial(flat, 1, generator=generator).squeeze(-1)
        return drawn.reshape(self.probs.shape[:-1])

    def log_prob(self, actions: torch.Tensor) -> torch.Tensor:
        """Log-probability of ``actions`` (shape of the batch)."""
        return self.log_probs.gather(-1, actions.long().unsqueeze(-1)).squeeze(-1)

    def entropy(self) -> torch.Tensor:
        """Entropy over the legal actions (shape of the batch)."""
        return -torch.where(self.mask, self.probs * self.log_probs, 0.0).sum(-1)

    def mode(self) -> torch.Tensor:
        """The most probable legal action (shape of the batch)."""
        return self.logits.argmax(dim=-1)
