"""Pure-Python rules engine for Rams: cards, configuration, the phase machine.

Knows nothing of numpy, gymnasium, pettingzoo or torch.
"""

from __future__ import annotations

from .actions import NUM_ACTIONS, Action, action_name
from .cards import card_index, card_name, deck_cards
from .config import PRESETS, RulesConfig, make_config
from .game import Game, IllegalActionError, Phase, TurnedAt

__all__ = [
    "NUM_ACTIONS",
    "PRESETS",
    "Action",
    "Game",
    "IllegalActionError",
    "Phase",
    "RulesConfig",
    "TurnedAt",
    "action_name",
    "card_index",
    "card_name",
    "deck_cards",
    "make_config",
]
