"""Where the cards hidden from a seat lie: the places a belief network predicts, and the true ones.

A card hidden from the observer lies in one of ``NUM_PLACES`` places, relative to the observer as the
observation is (:mod:`rams_env.obs.encoding`):

- place ``r - 1`` for ``r`` in 1..P-1: the hand of relative seat ``r`` (``r`` places clockwise);
- ``TALON_PLACE``: the undrawn talon;
- ``FACE_DOWN_PLACE``: any player's face-down cards (thrown in, passed, bought away).

:func:`hidden_places` gives the true place of every hidden card of a game (the labels a belief
network learns), :func:`place_room` the number of hidden cards each place holds (what the seat knows
of their sizes). The cards hidden from a seat are those the deal sampler re-deals
(:class:`rams_env.agents.deal_sampler.DealSampler`): every card but the seat's own, those played, the
face-up ones and the turned card on the table.
"""

from __future__ import annotations

import numpy as np

from ..rules import Game, TurnedAt
from ..rules.cards import NUM_CARDS
from ..rules.config import MAX_PLAYERS

TALON_PLACE = MAX_PLAYERS - 1
FACE_DOWN_PLACE = MAX_PLAYERS
NUM_PLACES = MAX_PLAYERS + 1
NOT_HIDDEN = -1  # the label of a card the seat sees (its own, played, face up) or not in the deck


def known_cards(game: Game, seat: int) -> set[int]:
    """The cards whose place ``seat`` sees: its hand and face-down cards, face-up cards, cards played,
    the turned card on the table."""
    known = set(game.hands[seat]) | set(game.out_hidden[seat]) | set(game.out_public)
    for cards, _ in game.completed:
        known.update(c for _, c in cards)
    known.update(c for _, c in game.trick)
    if game.turned_at == TurnedAt.TABLE:
        known.add(game.turned)
    return known


def place_of_seat(game: Game, seat: int, other: int) -> int:
    """The place of ``other``'s hand as ``seat`` sees it (relative seat minus one)."""
    return (other - seat) % game.n - 1


def hidden_places(game: Game, seat: int) -> np.ndarray:
    """The true place of every card hidden from ``seat`` (``int8[NUM_CARDS]``, ``NOT_HIDDEN`` elsewhere)."""
    labels = np.full(NUM_CARDS, NOT_HIDDEN, dtype=np.int8)
    for j in range(game.n):
        if j != seat:
            labels[list(game.hands[j])] = place_of_seat(game, seat, j)
            labels[list(game.out_hidden[j])] = FACE_DOWN_PLACE
    labels[list(game.talon[game.talon_pos :])] = TALON_PLACE
    labels[list(known_cards(game, seat))] = NOT_HIDDEN
    return labels


def place_room(game: Game, seat: int) -> np.ndarray:
    """How many hidden cards each place holds, as ``seat`` knows (``int16[NUM_PLACES]``)."""
    room = np.zeros(NUM_PLACES, dtype=np.int16)
    for j in range(game.n):
        if j != seat:
            room[place_of_seat(game, seat, j)] = len(game.hands[j])
            room[FACE_DOWN_PLACE] += len(game.out_hidden[j])
    room[TALON_PLACE] = game.talon_size
    return room
