"""The rules twin, queries: the talon, the forced knock, and the legal actions as a bit mask
(``Game``'s queries in ``rules/game.py``, with ``rules/tricks.py``'s lead and follow rules).

``s`` is the state row, ``c`` the config vector (see :mod:`.rules`).
"""

from __future__ import annotations

import numpy as np

from ..rules.cards import ACE, HAND_SIZE, JACK, KING, QUEEN
from .compiler import jit
from .layout import (
    A_ACCEPT,
    A_BETTER,
    A_DRAW,
    A_KNOCK,
    A_NO_BID,
    A_PASS,
    A_REJECT,
    A_SWING,
    ACTIVE,
    ANSWER,
    BETTER_ANSWER,
    BETTER_MADE,
    BID,
    BUY,
    C_DECK_SIZE,
    C_FORCED_TRUMP,
    C_HONOUR,
    C_KNOCK_AT_ONE,
    C_KNOCK_AT_TWO,
    C_KNOCK_WITH_ACE,
    C_OVERTAKE,
    C_PLAYERS,
    C_SWEDISH,
    C_TRUMP_ACE,
    C_UNANIMOUS,
    CURRENT,
    DEALER,
    DEALT_ACE,
    FOREHAND,
    HAND,
    KNOCK_PHASE,
    PASSED_PREV,
    PENDING_BID,
    PENDING_DISCARDS,
    PHASE,
    PLAY,
    QUEEN_DUE,
    SCORES,
    SUIT_MASK,
    SWING_MADE,
    TAKE_PENDING,
    TALON_POS,
    TALON_START,
    TRICK_CARD,
    TRICK_LEN,
    TRUMP,
    above_mask,
    card_bit,
    rank_of,
    suit_of,
)


@jit
def talon_size(s: np.ndarray, c: np.ndarray) -> int:
    return c[C_DECK_SIZE] - s[TALON_START] - s[TALON_POS]


@jit
def must_knock(s: np.ndarray, c: np.ndarray, seat: int) -> bool:
    score = s[SCORES + seat]
    if c[C_KNOCK_AT_ONE] and score == 1:
        return True
    if c[C_KNOCK_AT_TWO] and score == 2 and s[PASSED_PREV + seat]:
        return True
    return c[C_KNOCK_WITH_ACE] != 0 and s[DEALT_ACE + seat] != 0


# Game._compute_legal, as a bit mask (apply keeps it in s[LEGAL])
@jit
def legal_set(s: np.ndarray, c: np.ndarray) -> int:
    """The legal actions of the player to act, as a ``NUM_ACTIONS``-bit mask (0 when nobody is to act)."""
    phase, seat = s[PHASE], s[CURRENT]
    if phase == PLAY:
        return _legal_play(s, c, seat)
    if phase == BUY:
        hand = s[HAND + seat]
        if s[TAKE_PENDING]:
            return hand
        k, room = s[PENDING_DISCARDS], talon_size(s, c)
        if c[C_SWEDISH] and seat == s[DEALER]:
            out = hand if k < room + 1 and hand else np.int64(0)
            return out | card_bit(A_DRAW) if k >= 1 else out
        out = hand if k < room and hand else np.int64(0)
        return out | card_bit(A_DRAW)
    if phase == KNOCK_PHASE:
        return card_bit(A_KNOCK) if must_knock(s, c, seat) else card_bit(A_PASS) | card_bit(A_KNOCK)
    if phase == BID:
        out = card_bit(A_NO_BID)
        room = talon_size(s, c)
        need = HAND_SIZE * c[C_PLAYERS] if c[C_UNANIMOUS] else HAND_SIZE
        if not s[BETTER_MADE] and room >= need:
            out |= card_bit(A_BETTER)
        if not s[SWING_MADE] and room >= 1:
            out |= card_bit(A_SWING)
        return out
    if phase == ANSWER:
        if s[PENDING_BID] == A_BETTER and not c[C_UNANIMOUS]:
            accepted = 0
            for seat_ in range(c[C_PLAYERS]):
                accepted += s[BETTER_ANSWER + seat_] == 1
            if talon_size(s, c) - HAND_SIZE * (1 + accepted) < HAND_SIZE:
                return card_bit(A_REJECT)
        return card_bit(A_ACCEPT) | card_bit(A_REJECT)
    return np.int64(0)


# Game._legal_play with tricks.py's legal_plays, forced_trump_lead and lead and follow rules
@jit
def _legal_play(s: np.ndarray, c: np.ndarray, seat: int) -> int:
    hand, trump, trick_len = s[HAND + seat], s[TRUMP], s[TRICK_LEN]
    if c[C_HONOUR]:
        if trick_len:
            led_card = s[TRICK_CARD]
            led = suit_of(led_card)
            if led == trump and JACK <= rank_of(led_card) <= KING and hand & card_bit(trump * 13 + ACE):
                return card_bit(trump * 13 + ACE)
            follow = hand & SUIT_MASK[led]
            if follow:
                return follow
            trumps = hand & SUIT_MASK[trump]
            return trumps if trumps else hand
        for rank in (ACE, KING):
            if hand & card_bit(trump * 13 + rank):
                return card_bit(trump * 13 + rank)
        if s[QUEEN_DUE] == seat and hand & card_bit(trump * 13 + QUEEN):
            return card_bit(trump * 13 + QUEEN)
        return hand
    ace = card_bit(trump * 13 + ACE)
    if not trick_len:
        if c[C_TRUMP_ACE] and hand & ace:
            return ace
        if c[C_FORCED_TRUMP]:
            for other in range(c[C_PLAYERS]):
                if other != seat and s[SCORES + other] == 1:
                    trumps = hand & SUIT_MASK[trump]
                    return trumps if trumps else hand
        return hand
    led = suit_of(s[TRICK_CARD])
    if c[C_TRUMP_ACE] and led == trump and hand & ace:
        return ace
    best_trump, best_led = -1, -1
    for k in range(trick_len):
        card = s[TRICK_CARD + k]
        if suit_of(card) == trump:
            best_trump = max(best_trump, rank_of(card))
        if suit_of(card) == led:
            best_led = max(best_led, rank_of(card))
    overtake = c[C_OVERTAKE] != 0
    follow = hand & SUIT_MASK[led]
    if follow:
        if not overtake or (led != trump and best_trump >= 0):
            return follow
        beaters = follow & above_mask(led, best_led)
        return beaters if beaters else follow
    trumps = hand & SUIT_MASK[trump]
    if trumps:
        if overtake and best_trump >= 0:
            over = trumps & above_mask(trump, best_trump)
            return over if over else trumps
        return trumps
    return hand


# Game._order_from_forehand, keeping the active seats
@jit
def active_order(s: np.ndarray, c: np.ndarray, column: int) -> int:
    """Write the active seats from forehand into ``s[column:]``; their number."""
    n, count = c[C_PLAYERS], 0
    for i in range(n):
        seat = (s[FOREHAND] + i) % n
        if s[ACTIVE + seat] == 1:
            s[column + count] = seat
            count += 1
    return count
