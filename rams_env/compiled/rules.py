"""The rules twin: :mod:`rams_env.rules.game` on a state row (:mod:`.layout`).

The functions follow ``Game``'s methods in ``rules/game.py`` one by one, in the same order and
under the same names, so that a rule review is a side-by-side read; a comment above a function
names its counterpart where the names differ or the twin has none. ``s`` is the state row, ``c``
the config vector. Each function assumes its action legal: the callers check it against
``s[LEGAL]``, which :func:`apply` keeps current.
"""

from __future__ import annotations

import numpy as np

from ..rules.cards import (
    ACE,
    ALL_JACKS_BONUS,
    ALL_JACKS_NO_TRICK,
    FIVE_OF_A_SUIT_BONUS,
    JACK,
    JACK_PAIR_BONUS,
    JACKS_OUT_AT,
    KING,
    NUM_CARDS,
    QUEEN,
    SEVEN,
)
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
    ACES,
    ACES_HELD,
    ACTIVE,
    ANSWER,
    AT_DEALER,
    BETTER_ANSWER,
    BETTER_DONE,
    BETTER_HAPPENED,
    BETTER_MADE,
    BID,
    BLACK_JACKS,
    BUY,
    BUY_ORDER,
    BUYER_INDEX,
    C_BIDS,
    C_DECK_SIZE,
    C_END_AT_ZERO,
    C_FLIGHT_CAP,
    C_FLIGHT_FINE,
    C_FORCED_TRUMP,
    C_HONOUR,
    C_JACKS,
    C_KNOCK_AT_ONE,
    C_KNOCK_AT_TWO,
    C_KNOCK_WITH_ACE,
    C_OVERTAKE,
    C_PLAYERS,
    C_RAMSAR,
    C_SPECIALS,
    C_START,
    C_SWEDISH,
    C_TRUMP_ACE,
    C_UNANIMOUS,
    COMPLETED,
    CURRENT,
    DEAL_IN_RAMS,
    DEAL_NUMBER,
    DEAL_OVER,
    DEALER,
    DEALT_ACE,
    DECK,
    DISCARDS,
    DRAWS,
    FLIGHTS,
    FOREHAND,
    GAME_OVER,
    GAME_WINNERS,
    GONE,
    HAND,
    JACK_CARDS,
    JACKS,
    JACKS_SHOWN,
    KNOCK_PHASE,
    LEADER,
    LEGAL,
    NEXT_IN_PLAY,
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
    PLAY_ORDER,
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
    SUIT_MASK,
    SWING_ANSWER,
    SWING_DONE,
    SWING_HAPPENED,
    SWING_MADE,
    TAKE_PENDING,
    TALON_POS,
    TALON_START,
    TOTALS,
    TRICK_CARD,
    TRICK_LEN,
    TRICK_SEAT,
    TRICKS_WON,
    TRUMP,
    TURNED,
    TURNED_AT,
    TURNED_PUBLIC,
    P,
    _above,
    _ace_value,
    _bit,
    _count,
)
from .mt import mt_randbelow, mt_seed

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
        if c[C_DECK_SIZE] == NUM_CARDS or card % 13 >= SEVEN:
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
                s[HAND + seat] |= _bit(s[DECK + pos])
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
        s[JACKS + seat] = JACK_PAIR_BONUS * (_count(counted) // 2)
        s[DEALT_ACE + seat] = hand & ACES != 0
        s[OUT_HIDDEN + seat] = 0
        s[PLAYED + seat] = 0
        s[ACTIVE + seat] = -1
        s[DISCARDS + seat] = s[DRAWS + seat] = s[TRICKS_WON + seat] = s[ACES_HELD + seat] = 0
        s[JACKS_SHOWN + seat] = 0
        s[BETTER_ANSWER + seat] = s[SWING_ANSWER + seat] = -1
    s[TRUMP] = turned // 13
    s[TURNED_PUBLIC] = 1
    if c[C_SWEDISH]:
        s[HAND + dealer] |= _bit(turned)
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
        _start_knock(s, c)


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


# ----------------------------------------------------------------------------- queries


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
            return out | _bit(A_DRAW) if k >= 1 else out
        out = hand if k < room and hand else np.int64(0)
        return out | _bit(A_DRAW)
    if phase == KNOCK_PHASE:
        return _bit(A_KNOCK) if must_knock(s, c, seat) else _bit(A_PASS) | _bit(A_KNOCK)
    if phase == BID:
        out = _bit(A_NO_BID)
        room = talon_size(s, c)
        need = 5 * c[C_PLAYERS] if c[C_UNANIMOUS] else 5
        if not s[BETTER_MADE] and room >= need:
            out |= _bit(A_BETTER)
        if not s[SWING_MADE] and room >= 1:
            out |= _bit(A_SWING)
        return out
    if phase == ANSWER:
        if s[PENDING_BID] == A_BETTER and not c[C_UNANIMOUS]:
            accepted = 0
            for seat_ in range(c[C_PLAYERS]):
                accepted += s[BETTER_ANSWER + seat_] == 1
            if talon_size(s, c) - 5 * (1 + accepted) < 5:
                return _bit(A_REJECT)
        return _bit(A_ACCEPT) | _bit(A_REJECT)
    return np.int64(0)


# Game._legal_play with legal_plays, forced_trump_lead and cards' lead/follow rules
@jit
def _legal_play(s: np.ndarray, c: np.ndarray, seat: int) -> int:
    hand, trump, trick_len = s[HAND + seat], s[TRUMP], s[TRICK_LEN]
    if c[C_HONOUR]:
        if trick_len:
            led_card = s[TRICK_CARD]
            led = led_card // 13
            if led == trump and JACK <= led_card % 13 <= KING and hand & _bit(trump * 13 + ACE):
                return _bit(trump * 13 + ACE)
            follow = hand & SUIT_MASK[led]
            if follow:
                return follow
            trumps = hand & SUIT_MASK[trump]
            return trumps if trumps else hand
        for rank in (ACE, KING):
            if hand & _bit(trump * 13 + rank):
                return _bit(trump * 13 + rank)
        if s[QUEEN_DUE] == seat and hand & _bit(trump * 13 + QUEEN):
            return _bit(trump * 13 + QUEEN)
        return hand
    ace = _bit(trump * 13 + ACE)
    if not trick_len:
        if c[C_TRUMP_ACE] and hand & ace:
            return ace
        if c[C_FORCED_TRUMP]:
            for other in range(c[C_PLAYERS]):
                if other != seat and s[SCORES + other] == 1:
                    trumps = hand & SUIT_MASK[trump]
                    return trumps if trumps else hand
        return hand
    led = s[TRICK_CARD] // 13
    if c[C_TRUMP_ACE] and led == trump and hand & ace:
        return ace
    best_trump, best_led = -1, -1
    for k in range(trick_len):
        card = s[TRICK_CARD + k]
        if card // 13 == trump:
            best_trump = max(best_trump, card % 13)
        if card // 13 == led:
            best_led = max(best_led, card % 13)
    overtake = c[C_OVERTAKE] != 0
    follow = hand & SUIT_MASK[led]
    if follow:
        if not overtake or (led != trump and best_trump >= 0):
            return follow
        beaters = follow & _above(led, best_led)
        return beaters if beaters else follow
    trumps = hand & SUIT_MASK[trump]
    if trumps:
        if overtake and best_trump >= 0:
            over = trumps & _above(trump, best_trump)
            return over if over else trumps
        return trumps
    return hand


# ----------------------------------------------------------------------------- applying


@jit
def apply(s: np.ndarray, c: np.ndarray, action: int) -> None:
    """Apply a legal action of the player to act (the caller checked it against ``s[LEGAL]``)."""
    phase = s[PHASE]
    if phase == PLAY:
        _play(s, c, action)
    elif phase == BUY:
        _buy(s, c, action)
    elif phase == KNOCK_PHASE:
        _knock(s, c, action)
    elif phase == BID:
        _bid(s, c, action)
    else:
        _answer(s, c, action)
    s[LEGAL] = legal_set(s, c)


# Game._order_from_forehand, keeping the active seats
@jit
def _active_order(s: np.ndarray, c: np.ndarray, column: int) -> int:
    """Write the active seats from forehand into ``s[column:]``; their number."""
    n, count = c[C_PLAYERS], 0
    for i in range(n):
        seat = (s[FOREHAND] + i) % n
        if s[ACTIVE + seat] == 1:
            s[column + count] = seat
            count += 1
    return count


# ----------------------------------------------------------------------------- bids


@jit
def _bid(s: np.ndarray, c: np.ndarray, action: int) -> None:
    if action == A_NO_BID:
        _start_knock(s, c)
        return
    if action == A_BETTER:
        s[BETTER_MADE] = 1
    else:
        s[SWING_MADE] = 1
    s[PENDING_BID] = action
    s[PHASE] = ANSWER
    s[CURRENT] = (s[FOREHAND] + 1) % c[C_PLAYERS]


@jit
def _answer(s: np.ndarray, c: np.ndarray, action: int) -> None:
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
        keep = _bit(s[TURNED])
    s[OUT_HIDDEN + seat] |= hand & ~keep
    at = s[TALON_START] + s[TALON_POS]
    new = keep
    for k in range(5):
        new |= _bit(s[DECK + at + k])
    s[TALON_POS] += 5
    s[HAND + seat] = new


@jit
def _swing(s: np.ndarray, c: np.ndarray) -> bool:
    on_the_way = np.int64(0)
    while talon_size(s, c) > 0:
        card = s[DECK + s[TALON_START] + s[TALON_POS]]
        s[TALON_POS] += 1
        if card // 13 != s[TRUMP]:
            dealer = s[DEALER]
            s[HAND + dealer] = (s[HAND + dealer] & ~_bit(s[TURNED])) | _bit(card)
            s[OUT_PUBLIC] |= _bit(s[TURNED]) | on_the_way
            s[TURNED], s[TRUMP] = card, card // 13
            return True
        on_the_way |= _bit(card)
    s[OUT_PUBLIC] |= on_the_way
    return False


# ----------------------------------------------------------------------------- knock round


@jit
def _start_knock(s: np.ndarray, c: np.ndarray) -> None:
    n = c[C_PLAYERS]
    s[PHASE], s[CURRENT] = KNOCK_PHASE, s[FOREHAND]
    if c[C_JACKS]:
        for i in range(n):
            seat = (s[FOREHAND] + i) % n
            if s[JACKS + seat] and s[SCORES + seat] <= JACKS_OUT_AT:
                _show_jacks(s, seat)
                _end_game(s, c, _bit(seat))
                return


@jit
def _knock(s: np.ndarray, c: np.ndarray, action: int) -> None:
    n, seat, dealer = c[C_PLAYERS], s[CURRENT], s[DEALER]
    if action == A_KNOCK:
        s[ACTIVE + seat] = 1
    else:
        s[ACTIVE + seat] = 0
        if s[JACKS + seat]:
            _show_jacks(s, seat)
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
        for _ in range(5):
            if _take_trick_point(s, c, dealer):
                return
        _finish_deal(s, c)
    else:
        s[TRICKS_WON + dealer] = 5
        s[ACES_HELD + dealer] = _ace_value(s[HAND + dealer])
        _finish_deal(s, c)


# ----------------------------------------------------------------------------- buying


@jit
def _start_buying(s: np.ndarray, c: np.ndarray) -> None:
    s[NUM_BUYERS] = _active_order(s, c, BUY_ORDER)
    s[BUYER_INDEX] = s[PENDING_DISCARDS] = 0
    s[PHASE], s[CURRENT] = BUY, s[BUY_ORDER]


@jit
def _buy(s: np.ndarray, c: np.ndarray, action: int) -> None:
    seat = s[CURRENT]
    swedish = c[C_SWEDISH] != 0
    if action != A_DRAW:
        card = _bit(action)
        s[HAND + seat] &= ~card
        s[OUT_HIDDEN + seat] |= card
        s[DISCARDS + seat] += 1
        if seat == s[DEALER] and s[TURNED_AT] == AT_DEALER:
            s[TURNED_PUBLIC] = 0
            if action == s[TURNED]:
                s[TURNED_AT] = GONE
        if s[JACK_CARDS + seat] & card:
            _show_jacks(s, seat)
        if s[TAKE_PENDING]:
            s[TAKE_PENDING] = 0
            s[HAND + seat] |= _bit(s[TURNED])
            s[TURNED_AT] = AT_DEALER
            _start_play(s, c)
            return
        s[PENDING_DISCARDS] += 1
        return
    count = s[PENDING_DISCARDS] - (1 if swedish and seat == s[DEALER] else 0)
    at = s[TALON_START] + s[TALON_POS]
    for k in range(count):
        s[HAND + seat] |= _bit(s[DECK + at + k])
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
        _start_play(s, c)


# ----------------------------------------------------------------------------- play


@jit
def _start_play(s: np.ndarray, c: np.ndarray) -> None:
    count = _active_order(s, c, PLAY_ORDER)
    s[NUM_PLAYING] = count
    for k in range(count):
        s[NEXT_IN_PLAY + s[PLAY_ORDER + k]] = s[PLAY_ORDER + (k + 1) % count]
    if c[C_SPECIALS] or c[C_JACKS]:
        for k in range(count):
            seat = s[PLAY_ORDER + k]
            s[ACES_HELD + seat] = _ace_value(s[HAND + seat])
    if c[C_SPECIALS]:
        for k in range(count):
            seat = s[PLAY_ORDER + k]
            if s[HAND + seat] & ACES == ACES:
                s[SHOWN] |= s[HAND + seat]
                s[SHOWN_BY] |= _bit(seat)
                _end_game(s, c, _bit(seat))
                return
        for k in range(count):
            seat = s[PLAY_ORDER + k]
            hand = s[HAND + seat]
            for suit in range(4):
                if hand and hand & SUIT_MASK[suit] == hand:
                    s[SHOWN] |= hand
                    s[SHOWN_BY] |= _bit(seat)
                    _score_flush(s, c, seat)
                    return
    s[PHASE] = PLAY
    s[LEADER] = s[CURRENT] = s[PLAY_ORDER]
    s[TRICK_LEN] = 0


# cards.trick_winner (Game._play calls it)
@jit
def _trick_winner(s: np.ndarray) -> int:
    trump = s[TRUMP]
    led = s[TRICK_CARD] // 13
    best_seat = s[TRICK_SEAT]
    best_key = (s[TRICK_CARD] // 13 == trump) * 100 + s[TRICK_CARD] % 13
    for k in range(1, s[TRICK_LEN]):
        card = s[TRICK_CARD + k]
        suit = card // 13
        if suit != trump and suit != led:
            continue
        key = (suit == trump) * 100 + card % 13
        if key > best_key:
            best_seat, best_key = s[TRICK_SEAT + k], key
    return best_seat


@jit
def _play(s: np.ndarray, c: np.ndarray, card: int) -> None:
    seat = s[CURRENT]
    s[HAND + seat] &= ~_bit(card)
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
        s[PLAYED + s[TRICK_SEAT + j]] |= _bit(s[TRICK_CARD + j])
        if s[TRICK_SEAT + j] == winner:
            won_with = s[TRICK_CARD + j]
    s[TRICK_LEN] = 0
    s[COMPLETED] += 1
    s[TRICKS_WON + winner] += 1
    if c[C_HONOUR]:
        high = won_with // 13 == s[TRUMP] and won_with % 13 >= KING
        s[QUEEN_DUE] = winner if high else -1
    if c[C_SWEDISH] and _take_trick_point(s, c, winner):
        return
    if s[COMPLETED] == 5:
        _finish_deal(s, c)
    else:
        s[LEADER] = s[CURRENT] = winner


@jit
def _take_trick_point(s: np.ndarray, c: np.ndarray, seat: int) -> bool:
    if s[PHASE] != PLAY:
        s[TRICKS_WON + seat] += 1
    s[SCORES + seat] -= 1
    if c[C_END_AT_ZERO] and s[SCORES + seat] == 0:
        _end_rams(s, c, _bit(seat))
        return True
    return False


# ----------------------------------------------------------------------------- scoring


@jit
def _show_jacks(s: np.ndarray, seat: int) -> None:
    if s[JACKS_SHOWN + seat]:
        return
    s[JACKS_SHOWN + seat] = 1
    s[SHOWN] |= s[JACK_CARDS + seat]
    s[SHOWN_BY] |= _bit(seat)


# Game._finish_deal with Game._score_russian_deal inlined
@jit
def _finish_deal(s: np.ndarray, c: np.ndarray) -> None:
    n, fine = c[C_PLAYERS], c[C_FLIGHT_FINE]
    for seat in range(n):
        if c[C_SWEDISH]:
            if s[ACTIVE + seat] == 1 and s[TRICKS_WON + seat] == 0:
                s[SCORES + seat] = min(s[SCORES + seat] + fine, c[C_FLIGHT_CAP])
                s[FLIGHTS + seat] += 1
                s[RAMS_FLIGHTS + seat] += 1
            continue
        bonus = s[JACKS + seat]
        if bonus:
            _show_jacks(s, seat)
        if s[ACTIVE + seat] != 1:
            s[SCORES + seat] -= bonus
        elif s[TRICKS_WON + seat]:
            s[SCORES + seat] -= s[TRICKS_WON + seat] + s[ACES_HELD + seat] + bonus
        elif bonus:
            s[SCORES + seat] -= ALL_JACKS_NO_TRICK if bonus == ALL_JACKS_BONUS else 0
        else:
            s[SCORES + seat] += fine + s[ACES_HELD + seat]
            s[FLIGHTS + seat] += 1
            s[RAMS_FLIGHTS + seat] += 1
    _check_zero(s, c)


@jit
def _score_flush(s: np.ndarray, c: np.ndarray, holder: int) -> None:
    for k in range(s[NUM_PLAYING]):
        seat = s[PLAY_ORDER + k]
        if seat == holder:
            s[SCORES + seat] -= FIVE_OF_A_SUIT_BONUS + s[ACES_HELD + seat]
        else:
            s[SCORES + seat] += c[C_FLIGHT_FINE] + s[ACES_HELD + seat]
    _check_zero(s, c)


# the common end of Game._finish_deal and Game._score_flush
@jit
def _check_zero(s: np.ndarray, c: np.ndarray) -> None:
    for seat in range(c[C_PLAYERS]):
        if s[SCORES + seat] <= 0:
            _end_rams(s, c, _lowest(s, c, SCORES))
            return
    _deal_over(s)


# the seats with the lowest value, as Game._finish_deal and Game._end_rams take them
@jit
def _lowest(s: np.ndarray, c: np.ndarray, column: int) -> int:
    """The seats (a mask) with the lowest value in ``s[column:]``."""
    n = c[C_PLAYERS]
    low = s[column]
    for seat in range(1, n):
        low = min(low, s[column + seat])
    seats = np.int64(0)
    for seat in range(n):
        if s[column + seat] == low:
            seats |= _bit(seat)
    return seats


@jit
def _deal_over(s: np.ndarray) -> None:
    s[PHASE], s[CURRENT] = DEAL_OVER, -1


# the rams bookkeeping that Game._end_rams and Game._end_game share
@jit
def _close_rams(s: np.ndarray, c: np.ndarray, winners: int) -> None:
    s[RAMS_OVER] = 1
    s[RAMS_WINNERS] = winners
    for seat in range(c[C_PLAYERS]):
        s[TOTALS + seat] += s[SCORES + seat]


@jit
def _end_rams(s: np.ndarray, c: np.ndarray, winners: int) -> None:
    _close_rams(s, c, winners)
    if s[RAMS_NUMBER] + 1 < c[C_RAMSAR]:
        _deal_over(s)
    elif c[C_RAMSAR] == 1:
        _end_game(s, c, winners)
    else:
        tied = _lowest(s, c, TOTALS)
        fewest = 1 << 40
        for seat in range(c[C_PLAYERS]):
            if tied & _bit(seat):
                fewest = min(fewest, s[FLIGHTS + seat])
        best = np.int64(0)
        for seat in range(c[C_PLAYERS]):
            if tied & _bit(seat) and s[FLIGHTS + seat] == fewest:
                best |= _bit(seat)
        _end_game(s, c, best)


@jit
def _end_game(s: np.ndarray, c: np.ndarray, winners: int) -> None:
    if not s[RAMS_OVER]:
        _close_rams(s, c, winners)
    s[GAME_WINNERS] = winners
    s[PHASE], s[CURRENT] = GAME_OVER, -1
