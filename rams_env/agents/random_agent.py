"""Uniformly random legal play."""

from __future__ import annotations

import numpy as np

from .base import Observation, ObservationAgent, legal_from_mask, seeded_rng


class RandomAgent(ObservationAgent):
    """Picks uniformly among the legal actions of ``observation["action_mask"]``."""

    def __init__(self, seed: int | np.integer | None = None) -> None:
        self.rng = seeded_rng(seed)

    def seed(self, seed: int | np.integer | None) -> None:
        """Reseed the choice: the same seed, the same actions from here on (``reset(seed=...)`` of the
        Gymnasium wrapper calls it)."""
        self.rng = seeded_rng(seed)

    def act(self, observation: Observation) -> int:
        """A uniformly random legal action."""
        legal = legal_from_mask(observation)
        return int(legal[self.rng.randrange(legal.size)])
