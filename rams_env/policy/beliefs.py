"""The belief network: from a seat's observation, where each card hidden from it lies, and its files.

:class:`BeliefNet` maps an observation vector (:mod:`rams_env.obs.encoding`) to logits over the places
of :mod:`rams_env.obs.beliefs` (each other hand, the talon, the face-down cards) for every card.
:meth:`BeliefNet.place_probabilities` turns them into probabilities over the places that can hold a
card, given their sizes. The search samples worlds from them (:mod:`rams_env.agents.beliefs`).

File layout (plain data, read with ``torch.load(..., weights_only=True)``)::

    {"format": "rams_env.beliefs", "format_version": 1, "encoder_version": int, "obs_size": int,
     "num_places": int, "variant": str, "network": {"hidden": [int, ...]},
     "model": state_dict (float16), "model_sha256": str, "training": {...}}

Loading never runs code from the file: a damaged, foreign or tampered file is refused by name.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from ..obs.beliefs import NUM_PLACES
from ..obs.encoding import ENCODER_VERSION, OBS_SIZE
from ..rules.cards import NUM_CARDS
from ..rules.config import PRESETS
from .checkpoint import CheckpointError, load_error, model_digest, read_plain, write_atomically
from .network import mlp_torso

BELIEFS_FORMAT = "rams_env.beliefs"
BELIEFS_VERSION = 1
DEFAULT_BELIEF_HIDDEN = (512, 512)


class BeliefNet(nn.Module):
    """An MLP from the observation to place logits ``[..., NUM_CARDS, NUM_PLACES]``."""

    def __init__(self, hidden: Sequence[int] = DEFAULT_BELIEF_HIDDEN) -> None:
        super().__init__()
        self.hidden = tuple(int(h) for h in hidden)
        if not self.hidden or min(self.hidden) < 1:
            raise ValueError(f"BeliefNet needs positive layer widths, got {hidden!r}")
        self.torso = mlp_torso(OBS_SIZE, self.hidden)
        self.head = nn.Linear(self.hidden[-1], NUM_CARDS * NUM_PLACES)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        """Place logits ``[..., NUM_CARDS, NUM_PLACES]`` for observations ``[..., OBS_SIZE]``."""
        return self.head(self.torso(obs)).unflatten(-1, (NUM_CARDS, NUM_PLACES))

    @torch.no_grad()
    def place_probabilities(self, obs: np.ndarray, room: np.ndarray) -> np.ndarray:
        """Per card, the probability of each place that has room (``room > 0``), ``float64[NUM_CARDS, NUM_PLACES]``.

        ``obs``: one observation vector; ``room``: the hidden cards each place holds
        (:func:`rams_env.obs.beliefs.place_room`)."""
        logits = self(torch.as_tensor(obs, dtype=torch.float32))
        logits = logits.masked_fill(~torch.as_tensor(room > 0), -torch.inf)
        return torch.softmax(logits.double(), dim=-1).numpy()


def masked_log_likelihood(logits: torch.Tensor, labels: torch.Tensor, room: torch.Tensor) -> torch.Tensor:
    """The mean log-probability of the true place over the hidden cards (``labels >= 0``) of a batch:
    ``logits [B, NUM_CARDS, NUM_PLACES]``, ``labels [B, NUM_CARDS]``, ``room [B, NUM_PLACES]`` (places
    without room get no probability)."""
    logits = logits.masked_fill((room <= 0).unsqueeze(1), -torch.inf)
    logp = torch.log_softmax(logits, dim=-1)
    hidden = labels >= 0
    picked = logp.gather(-1, labels.clamp(min=0).long().unsqueeze(-1)).squeeze(-1)
    return picked[hidden].mean()


def beliefs_payload(net: BeliefNet, variant: str, **training: Any) -> dict[str, Any]:
    """The file's contents for ``net`` trained for ``variant`` (``training``: plain data on how). The weights
    are stored in float16, half the size (beliefs need no more), and load back into a float32 network."""
    model = {k: v.detach().cpu().to(torch.float16) for k, v in net.state_dict().items()}
    return {
        "format": BELIEFS_FORMAT,
        "format_version": BELIEFS_VERSION,
        "encoder_version": ENCODER_VERSION,
        "obs_size": OBS_SIZE,
        "num_places": NUM_PLACES,
        "variant": variant,
        "network": {"hidden": list(net.hidden)},
        "model": model,
        "model_sha256": model_digest(model),
        "training": dict(training),
    }


def save_beliefs(path: str | os.PathLike[str], net: BeliefNet, variant: str, **training: Any) -> None:
    """Write a belief network atomically (:func:`~rams_env.policy.checkpoint.write_atomically`)."""
    payload = beliefs_payload(net, variant, **training)
    write_atomically(Path(path), lambda f: torch.save(payload, f))


def load_beliefs(path: str | os.PathLike[str], variant: str | None = None) -> BeliefNet:
    """The belief network of a file, checked; :class:`CheckpointError` names what is wrong with a refused one
    (``variant``: the preset it must have been trained for)."""
    where = str(path)
    payload = read_plain(path, "belief network")
    _check_payload(payload, where, variant)
    net = BeliefNet(payload["network"]["hidden"])
    try:
        net.load_state_dict(payload["model"])
    except (RuntimeError, KeyError, TypeError) as err:
        raise CheckpointError(f"{where!r} is damaged: its weights do not fit its network ({load_error(err)})") from None
    net.eval()
    net.variant = payload["variant"]
    return net


def _check_payload(payload: Any, where: str, variant: str | None) -> None:
    if not isinstance(payload, Mapping) or payload.get("format") != BELIEFS_FORMAT:
        raise CheckpointError(f"{where!r} is not a rams_env belief network (no {BELIEFS_FORMAT!r} format marker)")
    expected = {
        "format_version": BELIEFS_VERSION,
        "encoder_version": ENCODER_VERSION,
        "obs_size": OBS_SIZE,
        "num_places": NUM_PLACES,
    }
    for key, ours in expected.items():
        if payload.get(key) != ours:
            raise CheckpointError(f"{where!r} was written for {key}={payload.get(key)!r}; this rams_env has {ours}")
    hidden = payload.get("network", {}).get("hidden") if isinstance(payload.get("network"), Mapping) else None
    if not isinstance(hidden, list) or not hidden or not all(type(h) is int and h > 0 for h in hidden):
        raise CheckpointError(f"{where!r} is damaged: network.hidden is {hidden!r}, not a list of positive ints")
    if not isinstance(payload.get("model"), Mapping):
        raise CheckpointError(f"{where!r} is damaged: 'model' is missing or not a dict")
    try:
        digest = model_digest(payload["model"])
    except TypeError:
        digest = None
    if payload.get("model_sha256") != digest:
        raise CheckpointError(f"{where!r} is damaged: its weights do not match their recorded digest (model_sha256)")
    if payload.get("variant") not in PRESETS:
        raise CheckpointError(f"{where!r} names no known preset (variant={payload.get('variant')!r})")
    if variant is not None and payload["variant"] != variant:
        raise CheckpointError(f"{where!r} was trained for {payload['variant']!r}, not {variant!r}")
