"""The rules twin, the deal before the play: bids and their answers, the knock round, buying
(``Game``'s methods of ``rules/game.py`` from ``_bid`` to ``_buy``, in the same order).

``s`` is the state row, ``c`` the config vector (see :mod:`.rules`). Each function assumes its
action legal (see :mod:`.rules`).
"""

from __future__ import annotations

import numpy as np

from ..rules.cards import HAND_SIZE, JACKS_OUT_AT
from .compiler import jit
from .layout import (
    A_ACCEPT,
    A_BETTER,
    A_DRAW,
    A_KNOCK,
    A_NO_BID,
    ACES_HELD,
    ACTIVE,
    ANSWER,
    AT_DEALER,
    BETTER_ANSWER,
    BETTER_DONE,
    BETTER_HAPPENED,
    BETTER_MADE,
    BID,
    BUY,
    BUY_ORDER,
    BUYER_INDEX,
    C_JACKS,
    C_PLAYERS,
    C_SWEDISH,
    C_UNANIMOUS,
    CURRENT,
    DEALER,
    DECK,
    DISCARDS,
    DRAWS,
    FOREHAND,
    GONE,
    HAND,
    JACK_CARDS,
    JACKS,
    KNOCK_PHASE,
    NUM_BUYERS,
    OUT_HIDDEN,
    OUT_PUBLIC,
    PENDING_BID,
    PENDING_DISCARDS,
    PHASE,
    SCORES,
    SWING_ANSWER,
    SWING_DONE,
    SWING_HAPPENED,
    SWING_MADE,
    TAKE_PENDING,
    TALON_POS,
    TALON_START,
    TRICKS_WON,
    TRUMP,
    TURNED,
    TURNED_AT,
    TURNED_PUBLIC,
    card_bit,
    hand_aces,
    suit_of,
)
from .play import start_play
from .queries import active_order, talon_size
from .scoring import end_game, finish_deal, show_jacks, take_trick_point

# ----------------------------------------------------------------------------- bids


@jit
def bid(s: np.ndarray, c: np.ndarray, action: int) -> None:
    if action == A_NO_BID:
        start_knock(s, c)
        return
    if action == A_BETTER:
        s[BETTER_MADE] = 1
    else:
        s[SWING_MADE] = 1
    s[PENDING_BID] = action
    s[PHASE] = ANSWER
    s[CURRENT] = (s[FOREHAND] + 1) % c[C_PLAYERS]


@jit
def answer(s: np.ndarray, c: np.ndarray, action: int) -> None:
    seat, accept = s[CURRENT], action == A_ACCEPT
    better = s[PENDING_BID] == A_BETTER
    s[(BETTER_ANSWER if better else SWING_ANSWER) + seat] = 1 if accept else 0
    if (not better or c[C_UNANIMOUS]) and not accept:
        _resolve_bid(s, c, False)
    elif seat == s[DEALER]:
        _resolve_bid(s, c, True)
    else:
        s[CURRENT] = (seat + 1) % c[C_PLAYERS]


@jit
def _resolve_bid(s: np.ndarray, c: np.ndarray, answered_yes: bool) -> None:
    n, forehand = c[C_PLAYERS], s[FOREHAND]
    if s[PENDING_BID] == A_BETTER:
        if c[C_UNANIMOUS]:
            if answered_yes:
                for i in range(n):
                    _exchange_hand(s, c, (forehand + i) % n)
            s[BETTER_HAPPENED] = answered_yes
        else:
            _exchange_hand(s, c, forehand)
            for i in range(1, n):
                seat = (forehand + i) % n
                if s[BETTER_ANSWER + seat] == 1:
                    _exchange_hand(s, c, seat)
            s[BETTER_HAPPENED] = 1
        s[BETTER_DONE] = 1
    else:
        s[SWING_HAPPENED] = _swing(s, c) if answered_yes else False
        s[SWING_DONE] = 1
    s[PENDING_BID] = 0
    s[PHASE], s[CURRENT] = BID, forehand


@jit
def _exchange_hand(s: np.ndarray, c: np.ndarray, seat: int) -> None:
    hand = s[HAND + seat]
    keep = np.int64(0)
    if seat == s[DEALER] and s[TURNED_AT] == AT_DEALER:
        keep = card_bit(s[TURNED])
    s[OUT_HIDDEN + seat] |= hand & ~keep
    at = s[TALON_START] + s[TALON_POS]
    new = keep
    for k in range(HAND_SIZE):
        new |= card_bit(s[DECK + at + k])
    s[TALON_POS] += HAND_SIZE
    s[HAND + seat] = new


@jit
def _swing(s: np.ndarray, c: np.ndarray) -> bool:
    on_the_way = np.int64(0)
    while talon_size(s, c) > 0:
        card = s[DECK + s[TALON_START] + s[TALON_POS]]
        s[TALON_POS] += 1
        if suit_of(card) != s[TRUMP]:
            dealer = s[DEALER]
            s[HAND + dealer] = (s[HAND + dealer] & ~card_bit(s[TURNED])) | card_bit(card)
            s[OUT_PUBLIC] |= card_bit(s[TURNED]) | on_the_way
            s[TURNED], s[TRUMP] = card, suit_of(card)
            return True
        on_the_way |= card_bit(card)
    s[OUT_PUBLIC] |= on_the_way
    return False


# ----------------------------------------------------------------------------- knock round


@jit
def start_knock(s: np.ndarray, c: np.ndarray) -> None:
    n = c[C_PLAYERS]
    s[PHASE], s[CURRENT] = KNOCK_PHASE, s[FOREHAND]
    if c[C_JACKS]:
        for i in range(n):
            seat = (s[FOREHAND] + i) % n
            if s[JACKS + seat] and s[SCORES + seat] <= JACKS_OUT_AT:
                show_jacks(s, seat)
                end_game(s, c, card_bit(seat))
                return


@jit
def knock(s: np.ndarray, c: np.ndarray, action: int) -> None:
    n, seat, dealer = c[C_PLAYERS], s[CURRENT], s[DEALER]
    if action == A_KNOCK:
        s[ACTIVE + seat] = 1
    else:
        s[ACTIVE + seat] = 0
        if s[JACKS + seat]:
            show_jacks(s, seat)
        if seat == dealer and s[TURNED_AT] == AT_DEALER:
            s[TURNED_AT], s[TURNED_PUBLIC] = GONE, 0
        s[OUT_HIDDEN + seat] |= s[HAND + seat]
        s[HAND + seat] = 0
    nxt = (seat + 1) % n
    if seat == dealer:
        _start_buying(s, c)
        return
    if nxt == dealer:
        anyone = False
        for other in range(n):
            anyone |= s[ACTIVE + other] == 1
        if not anyone:
            _free_five(s, c)
            return
    s[CURRENT] = nxt


@jit
def _free_five(s: np.ndarray, c: np.ndarray) -> None:
    dealer = s[DEALER]
    s[ACTIVE + dealer] = 1
    if c[C_SWEDISH]:
        for _ in range(HAND_SIZE):  # a trick per card of a hand
            if take_trick_point(s, c, dealer):
                return
        finish_deal(s, c)
    else:
        s[TRICKS_WON + dealer] = HAND_SIZE
        s[ACES_HELD + dealer] = hand_aces(s[HAND + dealer])
        finish_deal(s, c)


# ----------------------------------------------------------------------------- buying


@jit
def _start_buying(s: np.ndarray, c: np.ndarray) -> None:
    s[NUM_BUYERS] = active_order(s, c, BUY_ORDER)
    s[BUYER_INDEX] = s[PENDING_DISCARDS] = 0
    s[PHASE], s[CURRENT] = BUY, s[BUY_ORDER]


@jit
def buy(s: np.ndarray, c: np.ndarray, action: int) -> None:
    seat = s[CURRENT]
    swedish = c[C_SWEDISH] != 0
    if action != A_DRAW:
        card = card_bit(action)
        s[HAND + seat] &= ~card
        s[OUT_HIDDEN + seat] |= card
        s[DISCARDS + seat] += 1
        if seat == s[DEALER] and s[TURNED_AT] == AT_DEALER:
            s[TURNED_PUBLIC] = 0
            if action == s[TURNED]:
                s[TURNED_AT] = GONE
        if s[JACK_CARDS + seat] & card:
            show_jacks(s, seat)
        if s[TAKE_PENDING]:
            s[TAKE_PENDING] = 0
            s[HAND + seat] |= card_bit(s[TURNED])
            s[TURNED_AT] = AT_DEALER
            start_play(s, c)
            return
        s[PENDING_DISCARDS] += 1
        return
    count = s[PENDING_DISCARDS] - (1 if swedish and seat == s[DEALER] else 0)
    at = s[TALON_START] + s[TALON_POS]
    for k in range(count):
        s[HAND + seat] |= card_bit(s[DECK + at + k])
    s[TALON_POS] += count
    s[DRAWS + seat] = count
    s[PENDING_DISCARDS] = 0
    if seat == s[DEALER] and not swedish:
        s[TAKE_PENDING] = 1
        return
    s[BUYER_INDEX] += 1
    if s[BUYER_INDEX] < s[NUM_BUYERS]:
        s[CURRENT] = s[BUY_ORDER + s[BUYER_INDEX]]
    else:
        start_play(s, c)
