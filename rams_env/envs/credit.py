"""Per-seat reward credit in batched self-play, written once for every learner that trains every seat.

In a turn-based game a seat's rewards arrive on other seats' moves too (Rams scores a deal at its end). Each
seat's return belongs to its own decisions: a reward goes to the seat's latest decision of the episode, and
stays owed to it until the seat decides again (the decision is then closed with what it earned) or the
episode ends (every open decision is closed as terminal). A reward before a seat's first decision of an
episode belongs to no decision and is dropped. The training rollout, the TorchRL self-play batches and
RLlib's self-play runner all credit rewards with :class:`SeatCredit`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class Closed(NamedTuple):
    """Decisions closed at once: decision ``ids[k]`` of seat ``seats[k]`` in game ``games[k]`` earned ``earned[k]``."""

    games: np.ndarray
    seats: np.ndarray
    ids: np.ndarray
    earned: np.ndarray


class SeatCredit:
    """Each game's and seat's open decision (an id the caller gives, -1 for none) and the rewards owed to it.

    ``dtype`` is what the rewards add up in, one step at a time (float32 to add as a float32 buffer would).
    """

    def __init__(self, num_games: int, num_players: int, dtype: type = np.float64) -> None:
        self.open = np.full((num_games, num_players), -1, np.int64)
        self.owed = np.zeros((num_games, num_players), dtype)

    def decide(self, games: np.ndarray, seats: np.ndarray, ids: np.ndarray) -> Closed:
        """Seat ``seats[k]`` of game ``games[k]`` makes decision ``ids[k]``: its earlier open decision (if any) is
        closed with what it earned. Returns the decisions closed."""
        previous, earned = self.open[games, seats], self.owed[games, seats]
        had = previous >= 0
        closed = Closed(games[had], seats[had], previous[had], earned[had])
        self.open[games, seats] = ids
        self.owed[games, seats] = 0
        return closed

    def pay(self, rewards: np.ndarray) -> None:
        """Each seat's rewards of a step, shape (num_games, num_players), to its open decision (none: dropped)."""
        self.owed += np.where(self.open >= 0, rewards, 0).astype(self.owed.dtype, copy=False)

    def end(self, games: np.ndarray) -> Closed:
        """The episodes of ``games`` ended: every open decision there is closed (terminal). Returns them."""
        rows = self.open[games]
        game_index, seats = np.nonzero(rows >= 0)
        ended = games[game_index]
        closed = Closed(ended, seats, self.open[ended, seats], self.owed[ended, seats])
        self.open[games] = -1
        self.owed[games] = 0
        return closed


__all__ = ["Closed", "SeatCredit"]
