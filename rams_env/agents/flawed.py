"""Agents with a planted hole: a trained policy that always knocks, never buys or plays its highest card.

They are the calibration targets of ``rams exploit`` (docs/agents.md, "Calibration"): a best response
that works must find their holes, winning well above the fair share from them and more as it trains.
Each decides as its ``base`` policy does, except where its flaw applies, which it reads from the mask
and the observation's phase:

- ``always-knock``: KNOCK whenever it may knock (the mask holds KNOCK);
- ``never-buy``: DRAW at once whenever it may buy, keeping the hand it was dealt (the mask holds DRAW);
- ``highest-card``: in the play phase (the observation's phase) the legal card of highest rank, the
  highest suit breaking ties.

The spec is ``flawed:flaw=always-knock`` (the preset's flagship as the base), or with
``base=mattmar-4p`` (any trained policy's spec); the agent is deterministic (its base plays greedily).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..obs.encoding import SLICES
from ..rules import Phase, RulesConfig
from ..rules.actions import NUM_ACTIONS, Action
from ..rules.cards import NUM_CARDS, RANKS
from .base import Observation, ObservationAgent, legal_from_mask, observation_vector

Flaw = Callable[[np.ndarray, np.ndarray], np.ndarray]
"""The flaw's override of a batch: for observations (B, OBS_SIZE) and masks (B, 60), the action it
forces in each row, or -1 where the base policy decides."""
_PLAYING = SLICES["phase"].start + int(Phase.PLAY)  # the observation's flag of the play phase
_CARD_KEY = (np.arange(NUM_CARDS) % len(RANKS)) * 4 + np.arange(NUM_CARDS) // len(RANKS)  # rank, then suit


def _always_knock(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    return np.where(masks[:, Action.KNOCK] != 0, int(Action.KNOCK), -1)


def _never_buy(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    return np.where(masks[:, Action.DRAW] != 0, int(Action.DRAW), -1)


def _highest_card(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    cards = masks[:, :NUM_CARDS] != 0
    playing = (observations[:, _PLAYING] > 0) & cards.any(axis=1)
    best = np.where(cards, _CARD_KEY, -1).argmax(axis=1)
    return np.where(playing, best, -1)


FLAWS: dict[str, Flaw] = {
    "always-knock": _always_knock,
    "never-buy": _never_buy,
    "highest-card": _highest_card,
}
"""every planted hole, by the name a spec gives it"""


class FlawedAgent(ObservationAgent):
    """A trained policy (``base``, a spec; the preset's flagship by default) with the planted hole ``flaw``,
    for ``config`` (the base's own rules when None)."""

    def __init__(self, flaw: str, base: str | None = None, config: RulesConfig | None = None) -> None:
        if flaw not in FLAWS:
            raise TypeError(f"flaw must be one of {', '.join(FLAWS)}, got {flaw!r}")
        from .specs import resolve  # a trained policy: torch, loaded once

        self.flaw = flaw
        self.base_spec = base or (config.variant if config is not None else "mattmar")
        try:
            resolved = resolve(self.base_spec, config)
        except ValueError as err:
            raise TypeError(f"base: {err}") from None
        self.base: Any = resolved.source
        if not resolved.trained or not callable(getattr(self.base, "act_batch", None)):
            raise TypeError(f"base must be a trained policy (a zoo name or a checkpoint), got {self.base_spec!r}")
        config = resolved.rules or config
        assert config is not None  # a trained policy's file records its rules
        self.config = config
        self.variant = config.variant
        self.num_players = config.num_players
        self.table_sizes = (config.num_players,)
        self._override = FLAWS[flaw]

    def act(self, observation: Observation) -> int:
        """The flaw's action where it applies, else the base policy's."""
        legal = legal_from_mask(observation)
        mask = np.zeros((1, NUM_ACTIONS), np.int8)
        mask[0, legal] = 1
        return int(self.act_batch(observation_vector(observation)[None], mask)[0])

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The actions of a batch: observations (B, OBS_SIZE) float32, masks (B, 60)."""
        observations, masks = np.asarray(observations, np.float32), np.asarray(masks)
        forced = self._override(observations, masks)
        actions = np.asarray(self.base.act_batch(observations, masks), np.int64)
        return np.where(forced >= 0, forced, actions)
