"""The phases of the machine, where the turned card lies, and how an illegal action is refused."""

from __future__ import annotations

import operator
from enum import IntEnum
from typing import Any

from .actions import action_name


class TurnedAt(IntEnum):
    """Where the turned-up card is. ``DEALER`` and ``TABLE`` are the public places, in the order of
    the observation's ``turned_at`` slice; ``GONE``: discarded face down, played or thrown in."""

    DEALER = 0
    TABLE = 1
    GONE = 2

    @property
    def label(self) -> str:
        """The word for it in ``view()["turned_card_at"]`` and in saved states: "dealer", "table", "gone"."""
        return self.name.lower()


class Phase(IntEnum):
    """Phases of the machine. Dealing happens inside the transition into BID or KNOCK."""

    BID = 0
    ANSWER = 1
    KNOCK = 2
    BUY = 3
    PLAY = 4
    DEAL_OVER = 5
    GAME_OVER = 6


PHASE_NAMES = ("bid", "answer", "knock", "buy", "play", "over", "over")


class IllegalActionError(ValueError):
    """An action that is not legal now; the state is left unchanged."""


def illegal_message(action: Any, player: int, phase: int, legal: list[int]) -> str:
    """Why ``action`` is refused: not an int, nobody to act, or not among ``legal`` (every engine
    and env words it this way); the legal actions are named with their ids (``BID_BETTER (54)``),
    which is what a caller passes."""
    try:
        operator.index(action)
    except TypeError:
        return f"action must be an int action id, got {action!r}"
    name = Phase(phase).name
    if not legal:
        return f"no action is legal in phase {name} (nobody is to act); got {action_name(action)}"
    return (
        f"illegal action {action_name(action)} ({action}) by player {player} in phase "
        f"{name}; legal: {', '.join(f'{action_name(a)} ({a})' for a in legal)}"
    )
