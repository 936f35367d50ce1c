"""Potential-based shaping of the win reward by the rams equity model (:mod:`rams_env.equity`).

Each seat's potential is its chance to win the rams from the current deal's start, put on the win
reward's scale: ``(n * equity - 1) / (n - 1)``, the expected win reward of a seat with that chance
(+1 for a lone winner, -1/(n-1) for each of the others). When a deal starts, every seat is paid the
change of its potential; when the episode ends, its potential falls to 0 and the env pays the win
reward. A seat's shaped rewards over a rams therefore add up to its win reward minus its potential
at its first decision, a constant of the start: the optimum is that of ``reward="win"`` (Ng, Harada
and Russell 1999), and every deal's reward says how much that deal moved the seat's chance.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rams_env.equity import equity
from rams_env.rules import RulesConfig


class EquityShaping:
    """The shaping rewards of one batched env's games, step by step (call :meth:`step` after every
    ``env.step``; the env must expose ``scores``, ``dealers`` and ``deal_numbers``)."""

    def __init__(self, config: RulesConfig, env: Any) -> None:
        self.config = config
        self.potential = self._potential(env.scores, env.dealers)
        self.deal = env.deal_numbers

    def _potential(self, scores: np.ndarray, dealers: np.ndarray) -> np.ndarray:
        n = self.config.num_players
        return (n * equity(self.config, scores, dealers) - 1.0) / (n - 1)

    def step(self, env: Any, done: np.ndarray) -> np.ndarray:
        """Each game's and seat's shaping reward (N, n) for the step just taken; ``done`` marks the
        games whose episode it ended (the env has reset them: their new potential is paid to nobody)."""
        deal = env.deal_numbers
        rewards = np.zeros_like(self.potential)
        rewards[done] = -self.potential[done]
        renew = done | (deal != self.deal)
        if renew.any():
            rows = np.flatnonzero(renew)
            fresh = self._potential(env.scores[rows], env.dealers[rows])
            moved = rows[~done[rows]]  # a new deal in the same episode: paid the change
            rewards[moved] = fresh[~done[rows]] - self.potential[moved]
            self.potential[rows] = fresh
        self.deal = deal
        return rewards
