"""Stable-Baselines3: a trained sb3-contrib ``MaskablePPO`` model as a Rams agent.

Training needs no adapter: ``MaskablePPO("MlpPolicy", gymnasium.make("rams_env/Rams-v1", ...))`` finds
the wrapper's ``action_masks()`` method. Needs the ``rams_env[sb3]`` extra.
"""

from __future__ import annotations

import numpy as np
from sb3_contrib import MaskablePPO

from ..agents.base import Observation, ObservationAgent, legal_from_mask, observation_vector
from ..rules.actions import NUM_ACTIONS


class MaskablePPOAgent(ObservationAgent):
    """Plays the most likely legal action of a ``MaskablePPO`` model trained on ``rams_env/Rams-v1``."""

    def __init__(self, model: MaskablePPO) -> None:
        if not isinstance(model, MaskablePPO):
            raise TypeError(f"MaskablePPOAgent needs a sb3_contrib.MaskablePPO model, got {type(model).__name__}")
        self.model = model

    def act(self, observation: Observation) -> int:
        """The model's greedy action among the legal ones of ``observation["action_mask"]``."""
        mask = np.zeros(NUM_ACTIONS, dtype=bool)
        mask[legal_from_mask(observation)] = True
        action, _ = self.model.predict(observation_vector(observation), action_masks=mask, deterministic=True)
        return int(action)
