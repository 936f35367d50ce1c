"""The observation and action spaces of every face, defined once.

A seat's observation is the encoder's flat vector (:data:`~rams_env.obs.encoding.OBS_SIZE` floats, within
:data:`OBS_LOW`..:data:`OBS_HIGH`), with an int8 mask of the legal actions beside it; an action is one of
:data:`~rams_env.rules.actions.NUM_ACTIONS` ids. The AEC env and RLlib's module read the two as a dict,
the Gymnasium env the vector alone (the mask in its info); batched faces stack them. Library adapters
whose specs are not Gymnasium's (TorchRL) build theirs from these bounds.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces
from gymnasium.vector.utils import batch_space

from ..obs.encoding import OBS_SIZE
from ..rules.actions import NUM_ACTIONS

OBS_LOW, OBS_HIGH = -2.0, 2.0  # every observation value lies in this range


def observation_space() -> spaces.Box:
    """One seat's observation vector."""
    return spaces.Box(OBS_LOW, OBS_HIGH, (OBS_SIZE,), np.float32)


def mask_space() -> spaces.Box:
    """One seat's action mask (1: legal)."""
    return spaces.Box(0, 1, (NUM_ACTIONS,), np.int8)


def dict_observation_space() -> spaces.Dict:
    """The observation with its mask, ``{"observation", "action_mask"}`` (as PettingZoo's classic card envs give)."""
    return spaces.Dict({"observation": observation_space(), "action_mask": mask_space()})


def action_space() -> spaces.Discrete:
    """One seat's action id."""
    return spaces.Discrete(NUM_ACTIONS)


def batched(space: spaces.Space, num_envs: int) -> spaces.Space:
    """``space`` stacked for ``num_envs`` games (a vector env's ``observation_space``, ``action_space``)."""
    return batch_space(space, num_envs)


__all__ = [
    "OBS_HIGH",
    "OBS_LOW",
    "action_space",
    "batched",
    "dict_observation_space",
    "mask_space",
    "observation_space",
]
