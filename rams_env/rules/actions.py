"""Action ids shared by every variant and seat (docs/contract.md): 0-51 are cards, 52-59 the calls."""

from __future__ import annotations

from enum import IntEnum

from .cards import NUM_CARDS, card_name


class Action(IntEnum):
    """The non-card actions; a card action is the card's index (0-51)."""

    PASS = 52
    KNOCK = 53
    BID_BETTER = 54
    BID_SWING = 55
    NO_BID = 56
    ACCEPT = 57
    REJECT = 58
    DRAW = 59


NUM_ACTIONS = 60


def action_name(action: int) -> str:
    """Readable name of an action id: a card name or the call's name."""
    if isinstance(action, int) and 0 <= action < NUM_CARDS:
        return card_name(action)
    try:
        return Action(action).name
    except ValueError:
        return f"<invalid action {action!r}>"
