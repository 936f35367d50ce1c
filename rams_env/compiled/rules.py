"""The rules twin: :mod:`rams_env.rules` on a state row (:mod:`.layout`), and its entry points.

The twin is cut as the Python engine is, so that a rule review is a side-by-side read:

- this module: a new game, dealing, the next deal, and :func:`apply` (``Game.__init__``,
  ``_start_deal``, ``next_deal`` and ``apply`` of ``rules/game.py``);
- :mod:`.queries`: the talon, the forced knock, the legal actions (``Game``'s queries, ``rules/tricks.py``);
- :mod:`.bid_knock_buy`: bids and answers, the knock round, buying (``Game._bid`` to ``Game._buy``);
- :mod:`.play`: trick play (``Game._start_play``, ``Game._play``, ``tricks.trick_winner``);
- :mod:`.scoring`: how deals, ramsar and matches end (``rules/scoring.py``).

Within each module the functions follow their counterparts in the same order and under the same
names (without the leading underscore where another module calls them); a comment above a function
names its counterpart where the names differ or the twin has none. ``s`` is the state row, ``c``
the config vector. Each function assumes its action legal: the callers check it against
``s[LEGAL]``, which :func:`apply` keeps current.
"""

from __future__ import annotations

import numpy as np

from ..rules.cards import JACK_PAIR_BONUS, NUM_CARDS, SEVEN
from .bid_knock_buy import answer, bid, buy, knock, start_knock
from .compiler import jit
from .layout import (
    ACES,
    ACES_HELD,
    ACTIVE,
    AT_DEALER,
    BETTER_ANSWER,
    BETTER_DONE,
    BETTER_HAPPENED,
    BETTER_MADE,
    BID,
    BLACK_JACKS,
    BUY,
    BUYER_INDEX,
    C_BIDS,
    C_DECK_SIZE,
    C_JACKS,
    C_PLAYERS,
    C_START,
    C_SWEDISH,
    COMPLETED,
    CURRENT,
    DEAL_IN_RAMS,
    DEAL_NUMBER,
    DEALER,
    DEALT_ACE,
    DECK,
    DISCARDS,
    DRAWS,
    FLIGHTS,
    FOREHAND,
    GAME_WINNERS,
    HAND,
    JACK_CARDS,
    JACKS,
    JACKS_SHOWN,
    KNOCK_PHASE,
    LEADER,
    LEGAL,
    NUM_BUYERS,
    NUM_PLAYING,
    ON_TABLE,
    OUT_HIDDEN,
    OUT_PUBLIC,
    PASSED_PREV,
    PENDING_BID,
    PENDING_DISCARDS,
    PHASE,
    PLAY,
    PLAYED,
    QUEEN_DUE,
    RAMS_FLIGHTS,
    RAMS_NUMBER,
    RAMS_OVER,
    RAMS_WINNERS,
    RED_JACKS,
    SCORES,
    SHOWN,
    SHOWN_BY,
    SWING_ANSWER,
    SWING_DONE,
    SWING_HAPPENED,
    SWING_MADE,
    TAKE_PENDING,
    TALON_POS,
    TALON_START,
    TOTALS,
    TRICK_LEN,
    TRICKS_WON,
    TRUMP,
    TURNED,
    TURNED_AT,
    TURNED_PUBLIC,
    P,
    bit_count,
    card_bit,
    rank_of,
    suit_of,
)
from .mt import mt_randbelow, mt_seed
from .play import play
from .queries import legal_set

# ----------------------------------------------------------------------------- dealing


# Game.__init__: the match's scores, flights, totals and counters
@jit
def _open_match(s: np.ndarray, c: np.ndarray) -> None:
    for seat in range(P):
        s[SCORES + seat] = c[C_START]
        s[FLIGHTS + seat] = s[RAMS_FLIGHTS + seat] = s[TOTALS + seat] = s[PASSED_PREV + seat] = 0
    s[RAMS_NUMBER] = s[DEAL_NUMBER] = s[DEAL_IN_RAMS] = s[RAMS_OVER] = 0
    s[GAME_WINNERS] = s[RAMS_WINNERS] = -1


@jit
def new_game(s: np.ndarray, c: np.ndarray, rng: np.ndarray, seed: int) -> None:
    """``Game(config, seed)``: a random dealer, a shuffled deck, start scores; ``rng`` is reseeded."""
    mt_seed(rng, seed)
    dealer = mt_randbelow(rng, c[C_PLAYERS])
    _open_match(s, c)
    _shuffle_and_deal(s, c, rng, dealer)


@jit
def new_game_with(
    s: np.ndarray, c: np.ndarray, rng: np.ndarray, seed: int, dealer: int, scores: np.ndarray, deck: np.ndarray
) -> None:
    """``Game(config, seed, deck=..., dealer=..., scores=...)`` with checked options; ``dealer`` -1,
    an empty ``scores`` or an empty ``deck`` stand for an option not given."""
    mt_seed(rng, seed)
    if dealer < 0:
        dealer = mt_randbelow(rng, c[C_PLAYERS])
    _open_match(s, c)
    for seat in range(scores.size):
        s[SCORES + seat] = scores[seat]
    if deck.size:
        for k in range(deck.size):
            s[DECK + k] = deck[k]
        _start_deal(s, c, dealer)
    else:
        _shuffle_and_deal(s, c, rng, dealer)
    s[LEGAL] = legal_set(s, c)


# Game._shuffled_deck, then Game._start_deal
@jit
def _shuffle_and_deal(s: np.ndarray, c: np.ndarray, rng: np.ndarray, dealer: int) -> None:
    size = 0
    for card in range(NUM_CARDS):
        if c[C_DECK_SIZE] == NUM_CARDS or rank_of(card) >= SEVEN:
            s[DECK + size] = card
            size += 1
    for i in range(size - 1, 0, -1):
        j = mt_randbelow(rng, i + 1)
        s[DECK + i], s[DECK + j] = s[DECK + j], s[DECK + i]
    _start_deal(s, c, dealer)


# Game._start_deal (the deck is in s[DECK:])
@jit
def _start_deal(s: np.ndarray, c: np.ndarray, dealer: int) -> None:
    """Deal the cards in ``s[DECK:]`` (docs/rules.md "Dealing") and open the first phase."""
    n = c[C_PLAYERS]
    s[DEALER] = dealer
    forehand = (dealer + 1) % n
    s[FOREHAND] = forehand
    for seat in range(P):
        s[HAND + seat] = 0
    pos = 0
    for rounds in (3, 2):
        for i in range(n):
            seat = (forehand + i) % n
            for _ in range(rounds):
                s[HAND + seat] |= card_bit(s[DECK + pos])
                pos += 1
        if rounds == 3:
            s[TURNED] = s[DECK + pos]
            pos += 1
    turned = s[TURNED]
    for seat in range(n):
        hand = s[HAND + seat]
        counted = np.int64(0)
        if c[C_JACKS]:
            if hand & BLACK_JACKS == BLACK_JACKS:
                counted |= BLACK_JACKS
            if hand & RED_JACKS == RED_JACKS:
                counted |= RED_JACKS
        s[JACK_CARDS + seat] = counted
        s[JACKS + seat] = JACK_PAIR_BONUS * (bit_count(counted) // 2)
        s[DEALT_ACE + seat] = hand & ACES != 0
        s[OUT_HIDDEN + seat] = 0
        s[PLAYED + seat] = 0
        s[ACTIVE + seat] = -1
        s[DISCARDS + seat] = s[DRAWS + seat] = s[TRICKS_WON + seat] = s[ACES_HELD + seat] = 0
        s[JACKS_SHOWN + seat] = 0
        s[BETTER_ANSWER + seat] = s[SWING_ANSWER + seat] = -1
    s[TRUMP] = suit_of(turned)
    s[TURNED_PUBLIC] = 1
    if c[C_SWEDISH]:
        s[HAND + dealer] |= card_bit(turned)
        s[TURNED_AT] = AT_DEALER
    else:
        s[TURNED_AT] = ON_TABLE
    s[TALON_START], s[TALON_POS] = pos, 0
    s[OUT_PUBLIC] = s[SHOWN] = s[SHOWN_BY] = 0
    s[BETTER_MADE] = s[BETTER_DONE] = s[BETTER_HAPPENED] = 0
    s[SWING_MADE] = s[SWING_DONE] = s[SWING_HAPPENED] = 0
    s[PENDING_BID] = s[PENDING_DISCARDS] = s[TAKE_PENDING] = s[BUYER_INDEX] = s[NUM_BUYERS] = 0
    s[NUM_PLAYING] = s[TRICK_LEN] = s[COMPLETED] = 0
    s[LEADER] = s[QUEEN_DUE] = -1
    if c[C_BIDS]:
        s[PHASE], s[CURRENT] = BID, forehand
    else:
        start_knock(s, c)


@jit
def next_deal(s: np.ndarray, c: np.ndarray, rng: np.ndarray) -> None:
    """``Game.next_deal``: the next deal, of a new rams if the last one ended."""
    n = c[C_PLAYERS]
    if s[RAMS_OVER]:
        s[RAMS_NUMBER] += 1
        s[DEAL_IN_RAMS] = 0
        for seat in range(n):
            s[SCORES + seat] = c[C_START]
            s[RAMS_FLIGHTS + seat] = s[PASSED_PREV + seat] = 0
        s[RAMS_OVER] = 0
    else:
        s[DEAL_IN_RAMS] += 1
        for seat in range(n):
            s[PASSED_PREV + seat] = s[ACTIVE + seat] == 0
    s[DEAL_NUMBER] += 1
    _shuffle_and_deal(s, c, rng, s[FOREHAND])


# ----------------------------------------------------------------------------- applying


@jit
def apply(s: np.ndarray, c: np.ndarray, action: int) -> None:
    """Apply a legal action of the player to act (the caller checked it against ``s[LEGAL]``)."""
    phase = s[PHASE]
    if phase == PLAY:
        play(s, c, action)
    elif phase == BUY:
        buy(s, c, action)
    elif phase == KNOCK_PHASE:
        knock(s, c, action)
    elif phase == BID:
        bid(s, c, action)
    else:
        answer(s, c, action)
    s[LEGAL] = legal_set(s, c)
