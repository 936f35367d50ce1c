"""The privileged critic: a value network for training only that also sees the other seats' hands.

Its values give PPO its advantages (lower variance: it knows whose cards win); the policy never sees its
inputs, and exported checkpoints leave it out. :func:`other_hands` turns the batched env's hands into its
extra input, which the rollout keeps in its ``hidden`` column.
"""

from __future__ import annotations

import numpy as np
import torch

from rams_env.obs import MAX_PLAYERS, OBS_SIZE
from rams_env.policy import mlp_torso
from rams_env.rules.cards import NUM_CARDS

HIDDEN_SIZE = (MAX_PLAYERS - 1) * NUM_CARDS
"""the other seats' hands as card flags, padded to 7 seats like the observation"""


def other_hands(hands: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """Per row: the hands of the other seats, in seat order after ``seats[row]``, as card flags
    (uint8, ``HIDDEN_SIZE``; padded like the observation). ``hands``: (rows, num_players) card masks."""
    rows, n = hands.shape
    order = (seats[:, None] + np.arange(1, n)[None, :]) % n
    others = np.take_along_axis(hands, order, axis=1)
    bits = (others[:, :, None] >> np.arange(NUM_CARDS)[None, None, :]) & 1
    out = np.zeros((rows, MAX_PLAYERS - 1, NUM_CARDS), np.uint8)
    out[:, : n - 1] = bits
    return out.reshape(rows, HIDDEN_SIZE)


class PrivilegedCritic(torch.nn.Module):
    """A value network for training only: the observation and the other seats' hands (hidden
    information). Its values give the advantages (lower variance: it knows whose cards win); the
    policy never sees its inputs, and exported checkpoints leave it out."""

    def __init__(self, hidden: tuple[int, ...]) -> None:
        super().__init__()
        self.torso = mlp_torso(OBS_SIZE + HIDDEN_SIZE, hidden)
        self.head = torch.nn.Linear(hidden[-1], 1)

    def forward(self, obs: torch.Tensor, hidden: torch.Tensor, bf16_torso: bool = False) -> torch.Tensor:
        """Values ``[rows]`` for observations ``[rows, OBS_SIZE]`` and other hands ``[rows, HIDDEN_SIZE]``."""
        x = torch.cat([obs, hidden.to(obs.dtype)], dim=-1)
        with torch.autocast(obs.device.type, dtype=torch.bfloat16, enabled=bf16_torso):
            features = self.torso(x)
        return self.head(features.float()).squeeze(-1)
