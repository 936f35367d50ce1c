"""The rules twin, trick play: the play starts, cards are played, tricks are won (``Game._start_play``
and ``Game._play`` of ``rules/game.py``, ``trick_winner`` of ``rules/tricks.py``).

``s`` is the state row, ``c`` the config vector (see :mod:`.rules`).
"""

from __future__ import annotations

import numpy as np

from ..rules.cards import HAND_SIZE, KING
from .compiler import jit
from .layout import (
    ACES,
    ACES_HELD,
    AT_DEALER,
    C_HONOUR,
    C_JACKS,
    C_SPECIALS,
    C_SWEDISH,
    COMPLETED,
    CURRENT,
    GONE,
    HAND,
    LEADER,
    NEXT_IN_PLAY,
    NUM_PLAYING,
    PHASE,
    PLAY,
    PLAY_ORDER,
    PLAYED,
    QUEEN_DUE,
    SHOWN,
    SHOWN_BY,
    SUIT_MASK,
    TRICK_CARD,
    TRICK_LEN,
    TRICK_SEAT,
    TRICKS_WON,
    TRUMP,
    TURNED,
    TURNED_AT,
    TURNED_PUBLIC,
    card_bit,
    hand_aces,
    rank_of,
    suit_of,
)
from .queries import active_order
from .scoring import end_game, finish_deal, score_flush, take_trick_point


@jit
def start_play(s: np.ndarray, c: np.ndarray) -> None:
    count = active_order(s, c, PLAY_ORDER)
    s[NUM_PLAYING] = count
    for k in range(count):
        s[NEXT_IN_PLAY + s[PLAY_ORDER + k]] = s[PLAY_ORDER + (k + 1) % count]
    if c[C_SPECIALS] or c[C_JACKS]:
        for k in range(count):
            seat = s[PLAY_ORDER + k]
            s[ACES_HELD + seat] = hand_aces(s[HAND + seat])
    if c[C_SPECIALS]:
        for k in range(count):
            seat = s[PLAY_ORDER + k]
            if s[HAND + seat] & ACES == ACES:
                s[SHOWN] |= s[HAND + seat]
                s[SHOWN_BY] |= card_bit(seat)
                end_game(s, c, card_bit(seat))
                return
        for k in range(count):
            seat = s[PLAY_ORDER + k]
            hand = s[HAND + seat]
            for suit in range(4):
                if hand and hand & SUIT_MASK[suit] == hand:
                    s[SHOWN] |= hand
                    s[SHOWN_BY] |= card_bit(seat)
                    score_flush(s, c, seat)
                    return
    s[PHASE] = PLAY
    s[LEADER] = s[CURRENT] = s[PLAY_ORDER]
    s[TRICK_LEN] = 0


# tricks.trick_winner (Game._play calls it)
@jit
def _trick_winner(s: np.ndarray) -> int:
    trump = s[TRUMP]
    led = suit_of(s[TRICK_CARD])
    best_seat = s[TRICK_SEAT]
    best_key = (suit_of(s[TRICK_CARD]) == trump) * 100 + rank_of(s[TRICK_CARD])
    for k in range(1, s[TRICK_LEN]):
        card = s[TRICK_CARD + k]
        suit = suit_of(card)
        if suit != trump and suit != led:
            continue
        key = (suit == trump) * 100 + rank_of(card)
        if key > best_key:
            best_seat, best_key = s[TRICK_SEAT + k], key
    return best_seat


@jit
def play(s: np.ndarray, c: np.ndarray, card: int) -> None:
    seat = s[CURRENT]
    s[HAND + seat] &= ~card_bit(card)
    k = s[TRICK_LEN]
    s[TRICK_SEAT + k], s[TRICK_CARD + k] = seat, card
    s[TRICK_LEN] = k + 1
    if card == s[TURNED] and s[TURNED_AT] == AT_DEALER:
        s[TURNED_AT], s[TURNED_PUBLIC] = GONE, 0
    if k + 1 < s[NUM_PLAYING]:
        s[CURRENT] = s[NEXT_IN_PLAY + seat]
        return
    winner = _trick_winner(s)
    won_with = -1
    for j in range(k + 1):
        s[PLAYED + s[TRICK_SEAT + j]] |= card_bit(s[TRICK_CARD + j])
        if s[TRICK_SEAT + j] == winner:
            won_with = s[TRICK_CARD + j]
    s[TRICK_LEN] = 0
    s[COMPLETED] += 1
    s[TRICKS_WON + winner] += 1
    if c[C_HONOUR]:
        high = suit_of(won_with) == s[TRUMP] and rank_of(won_with) >= KING
        s[QUEEN_DUE] = winner if high else -1
    if c[C_SWEDISH] and take_trick_point(s, c, winner):
        return
    if s[COMPLETED] == HAND_SIZE:  # every card of the hands played
        finish_deal(s, c)
    else:
        s[LEADER] = s[CURRENT] = winner
