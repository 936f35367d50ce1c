"""The heuristic twin: :class:`rams_env.agents.HeuristicAgent`'s decisions, compiled.

It reads the same encoded observation the Python agent reads (so it can know nothing the seat
does not), follows :mod:`rams_env.agents.heuristic` function by function and computes every
probability with the same floating-point operations in the same order, so that it chooses the
same action: ``tests/compiled/test_heuristic.py`` compares the two over whole ramsar of every
preset. Its randomness (the hands sampled to value a better-cards bid) is CPython's
``random.Random.sample`` on the generator of :mod:`.mt`, seeded like ``HeuristicAgent(seed=...)``.

Card sets are 52-bit masks, iterated in ascending card order (the Python agent iterates its
sets sorted for that reason). Nothing here allocates: the caller passes two scratch arrays,
``work`` (float64) and ``iwork`` (int64), each of at least ``WORK_SIZE`` entries.

The twin is cut as the agent is: :mod:`.heuristic_decode` reads the observation (the fields of
``decoding.decode`` the agent uses), :mod:`.heuristic_chances` holds the situations and their trick
chances (``Situation``) with the layout of the scratch arrays, and this module values hands and
makes each phase's decision (``HeuristicAgent``): its entry point is :func:`heuristic_action`, with
``WORK_SIZE``, the size of the scratch arrays a caller allocates.
"""

from __future__ import annotations

import numpy as np
from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros

from ..rules.cards import ACE, HAND_SIZE, KING, NUM_CARDS
from ..rules.config import MAX_PLAYERS
from ..rules.heuristic_tunables import BETTER_SAMPLES, BID_MARGIN, RANK_TIE_BREAK
from .compiler import jit
from .heuristic_chances import (
    I_POOL,
    S_OPPONENTS,
    S_UNSEEN,
    W_CARD,
    W_CHANCE,
    W_PLAY,
    W_VALUES,
    WORK_SIZE,
    draw_chance,
    hand_chances,
    hold,
    situation,
    voids,
)
from .heuristic_decode import (
    O_LEADER,
    O_TRICK,
    V_ANY_KNOCKED,
    V_BETTER_PENDING,
    V_DEALER,
    V_DEALER_SCORE,
    V_HAND,
    V_IN_TRICK,
    V_JACKS,
    V_PENDING,
    V_PHASE,
    V_PLAYERS,
    V_SCORE,
    V_TAKE,
    V_TALON,
    V_TRICKS,
    V_TRUMP,
    V_TURNED,
    V_TURNED_AT,
    V_UNSEEN,
    decode,
    one_hot,
    popcount,
)
from .layout import (
    A_ACCEPT,
    A_BETTER,
    A_DRAW,
    A_KNOCK,
    A_NO_BID,
    A_PASS,
    A_REJECT,
    A_SWING,
    ANSWER,
    AT_DEALER,
    BID,
    BUY,
    C_FLIGHT_CAP,
    C_FLIGHT_FINE,
    C_SWEDISH,
    KNOCK_PHASE,
    ON_TABLE,
    PLAY,
    SUIT_MASK,
    card_bit,
    hand_aces,
    rank_of,
    suit_of,
)
from .mt import mt_next, mt_randbelow

__all__ = ["WORK_SIZE", "heuristic_action"]

ALL_CARDS = (1 << NUM_CARDS) - 1


# ----------------------------------------------------------------------------- hand value


@jit
def _keeps(c: np.ndarray, card: int, hand: int) -> bool:
    """``HeuristicAgent._keeps``."""
    if c[C_SWEDISH]:
        return False
    return rank_of(card) == ACE or popcount(hand & SUIT_MASK[suit_of(card)]) >= 4


@jit
def _flight_stakes(v: tuple, c: np.ndarray, hand: int) -> tuple:
    """``HeuristicAgent._flight_stakes``: (cost of no trick, bonus for one)."""
    if c[C_SWEDISH]:
        score = v[V_SCORE]
        return float(max(0, min(score + c[C_FLIGHT_FINE], c[C_FLIGHT_CAP]) - score)), 0.0
    aces = float(hand_aces(hand))
    cost = float(c[C_FLIGHT_FINE]) if v[V_JACKS] else c[C_FLIGHT_FINE] + aces
    return cost, aces


@jit
def _hand_value(v: tuple, c: np.ndarray, sit: tuple, hand: int, extra: bool, work: np.ndarray) -> float:
    """``HeuristicAgent._hand_value``: the knock value of ``hand`` after buying, in situation ``sit``
    (every opponent with five cards)."""
    if not c[C_SWEDISH] and v[V_DEALER] == 0 and v[V_TURNED_AT] == ON_TABLE:
        hand |= card_bit(v[V_TURNED])
    # (chance, card) of every card, sorted ascending; the lowest dropped down to five
    hand_chances(sit, hand, True, work)
    size = 0
    rest = hand
    while rest:
        card = trailing_zeros(rest)
        rest &= rest - 1
        _insert_ascending(work, size, work[W_PLAY + card], card)
        size += 1
    first = max(0, size - HAND_SIZE)
    average = draw_chance(sit, hand, voids(sit, hand, KING), work)
    room = max(0, v[V_TALON] - 3 * popcount(sit[S_OPPONENTS]))
    # The values (sorted descending at W_VALUES): the kept chances at least the average (the top of the
    # ascending chances), the draws, the chances kept below the average (``_keeps``), the extra, zeros.
    count = 0
    i = size - 1
    while i >= first and work[W_CHANCE + i] >= average:
        work[W_VALUES + count] = work[W_CHANCE + i]
        count += 1
        i -= 1
    low = 0
    while i >= first:
        if _keeps(c, int(work[W_CARD + i]), hand):
            work[W_VALUES + 8 + low] = work[W_CHANCE + i]
            low += 1
        i -= 1
    for _ in range(min(HAND_SIZE - count - low, room)):
        work[W_VALUES + count] = average
        count += 1
    for k in range(low):
        work[W_VALUES + count] = work[W_VALUES + 8 + k]
        count += 1
    if extra:
        _insert_descending(work, count, 0.5)
        count += 1
    while count < HAND_SIZE:
        work[W_VALUES + count] = 0.0
        count += 1
    cost, bonus = _flight_stakes(v, c, hand)
    total = 0.0
    zero = 1.0
    for i in range(HAND_SIZE):
        total += work[W_VALUES + i]
    for i in range(HAND_SIZE):
        zero *= 1.0 - work[W_VALUES + i]
    expected = min(float(HAND_SIZE), total)
    return expected + bonus * (1.0 - zero) - cost * zero


@jit(inline=True)
def _insert_ascending(work: np.ndarray, size: int, chance: float, card: int) -> None:
    """Insert (``chance``, ``card``) into the ``size`` pairs at ``W_CHANCE``/``W_CARD``, kept in ascending order."""
    i = size
    while i > 0 and (
        work[W_CHANCE + i - 1] > chance or (work[W_CHANCE + i - 1] == chance and work[W_CARD + i - 1] > card)
    ):
        work[W_CHANCE + i] = work[W_CHANCE + i - 1]
        work[W_CARD + i] = work[W_CARD + i - 1]
        i -= 1
    work[W_CHANCE + i] = chance
    work[W_CARD + i] = card


@jit(inline=True)
def _insert_descending(work: np.ndarray, count: int, value: float) -> None:
    """Insert ``value`` into the ``count`` values at ``W_VALUES``, kept in descending order."""
    i = count
    while i > 0 and work[W_VALUES + i - 1] < value:
        work[W_VALUES + i] = work[W_VALUES + i - 1]
        i -= 1
    work[W_VALUES + i] = value


# ----------------------------------------------------------------------------- decisions


@jit
def _knock(v: tuple, c: np.ndarray, work: np.ndarray) -> int:
    """``HeuristicAgent._knock_value`` > 0: knock, else pass."""
    hand = v[V_HAND]
    if not c[C_SWEDISH]:
        suits, aces = 0, 0
        for suit in range(4):
            if hand & SUIT_MASK[suit]:
                suits += 1
            if hand & card_bit(suit * 13 + ACE):
                aces += 1
        if aces == 4 or suits == 1:
            return A_KNOCK
    sit = situation(v, v[V_TRUMP], HAND_SIZE, work)
    value = _hand_value(v, c, sit, hand, False, work)
    n = v[V_PLAYERS]
    if (v[V_DEALER] - 1) % n == 0 and not v[V_ANY_KNOCKED] and c[C_SWEDISH] and v[V_DEALER_SCORE] <= HAND_SIZE:
        value += 1.0
    return A_KNOCK if value > 0.0 else A_PASS


@jit
def _sample(mt: np.ndarray, iwork: np.ndarray, pool_size: int, k: int) -> int:
    """``random.Random.sample(pool, k)`` of the ``pool_size`` cards at ``iwork[I_POOL:]``, as a card
    mask (CPython's algorithm: a partial shuffle of a copy for small pools, else rejection)."""
    chosen = 0
    if pool_size <= 21:  # CPython's setsize for k <= 5
        copy = I_POOL + NUM_CARDS
        for i in range(pool_size):
            iwork[copy + i] = iwork[I_POOL + i]
        for i in range(k):
            j = mt_randbelow(mt, pool_size - i)
            chosen |= card_bit(iwork[copy + j])
            iwork[copy + j] = iwork[copy + pool_size - i - 1]
        return chosen
    shift = 32 - _bit_length(pool_size)  # mt_randbelow(mt, pool_size), its getrandbits' width found once
    selected = 0
    for _ in range(k):
        j = mt_next(mt) >> shift
        while j >= pool_size or (selected >> j) & 1:
            j = mt_next(mt) >> shift
        selected |= card_bit(j)
        chosen |= card_bit(iwork[I_POOL + j])
    return chosen


@jit(inline=True)
def _bit_length(n: int) -> int:
    """``int.bit_length`` of a positive ``n``."""
    return 64 - leading_zeros(n)


@jit
def _better_value(v: tuple, c: np.ndarray, sit: tuple, mt: np.ndarray, work: np.ndarray, iwork: np.ndarray) -> float:
    """``HeuristicAgent._better_value``: the mean knock value of new hands sampled from the unseen cards, in
    ``sit``, the situation under the trump (with its memo in ``work``)."""
    size = 0
    rest = sit[S_UNSEEN]
    while rest:
        iwork[I_POOL + size] = trailing_zeros(rest)
        rest &= rest - 1
        size += 1
    keep = card_bit(v[V_TURNED]) if v[V_DEALER] == 0 and v[V_TURNED_AT] == AT_DEALER else 0
    total = 0.0
    for _ in range(BETTER_SAMPLES):
        hand = _sample(mt, iwork, size, HAND_SIZE) | keep
        total += max(0.0, _hand_value(v, c, sit, hand, False, work))
    return total / BETTER_SAMPLES


@jit
def _swing_value(v: tuple, c: np.ndarray, work: np.ndarray) -> float:
    """``HeuristicAgent._swing_value``: the mean knock value under another trump suit."""
    trump = v[V_TRUMP]
    hand = v[V_HAND]
    dealer = v[V_DEALER]
    if dealer == 0 and v[V_TURNED_AT] == AT_DEALER:
        hand &= ~card_bit(v[V_TURNED])
    unseen = v[V_UNSEEN]
    weights = 0
    for suit in range(4):
        if suit != trump:
            weights += popcount(unseen & SUIT_MASK[suit])
    if not weights:
        return 0.0
    total = 0.0
    for suit in range(4):
        weight = 0 if suit == trump else popcount(unseen & SUIT_MASK[suit])
        if weight:
            sit = situation(v, suit, HAND_SIZE, work)
            total += weight * max(0.0, _hand_value(v, c, sit, hand, dealer == 0, work))
    return total / weights


@jit
def _current_value(v: tuple, c: np.ndarray, sit: tuple, work: np.ndarray) -> float:
    """The knock value (0 when it would pass) of the hand in hand, in ``sit``."""
    return max(0.0, _hand_value(v, c, sit, v[V_HAND], False, work))


@jit
def _bid(v: tuple, c: np.ndarray, legal: int, mt: np.ndarray, work: np.ndarray, iwork: np.ndarray) -> int:
    """``HeuristicAgent._bid``: the first of no bid, better cards, swing with the highest value."""
    sit = situation(v, v[V_TRUMP], HAND_SIZE, work)  # the Python agent's memoised situation: built once
    best, action = _current_value(v, c, sit, work) + BID_MARGIN, A_NO_BID
    if (legal >> A_BETTER) & 1:
        value = _better_value(v, c, sit, mt, work, iwork)
        if value > best:
            best, action = value, A_BETTER
    if (legal >> A_SWING) & 1:
        value = _swing_value(v, c, work)
        if value > best:
            best, action = value, A_SWING
    return action


@jit
def _answer(v: tuple, c: np.ndarray, legal: int, mt: np.ndarray, work: np.ndarray, iwork: np.ndarray) -> int:
    """``HeuristicAgent._answer``."""
    sit = situation(v, v[V_TRUMP], HAND_SIZE, work)
    current = _current_value(v, c, sit, work)
    new = _better_value(v, c, sit, mt, work, iwork) if v[V_BETTER_PENDING] else _swing_value(v, c, work)
    return A_ACCEPT if (legal >> A_ACCEPT) & 1 and new > current + BID_MARGIN else A_REJECT


@jit
def _buy(v: tuple, c: np.ndarray, legal: int, work: np.ndarray) -> int:
    """``HeuristicAgent._buy``: discard the worst card while it is worth less than a draw."""
    hand = v[V_HAND]
    cards = legal & ALL_CARDS
    if not cards:
        return A_DRAW
    sit = situation(v, v[V_TRUMP], HAND_SIZE, work)
    hand_chances(sit, hand, True, work)
    if v[V_TAKE]:
        return _min_card(cards, work, c, hand, False)
    pending = v[V_PENDING]
    if not c[C_SWEDISH]:
        longest = 0
        for suit in range(4):
            longest = max(longest, popcount(hand & SUIT_MASK[suit]))
        if longest == HAND_SIZE:
            return A_DRAW
        if longest == 4 and pending == 0:
            rest = hand
            while rest:
                odd = trailing_zeros(rest)
                rest &= rest - 1
                if popcount(hand & SUIT_MASK[suit_of(odd)]) == 1:
                    if rank_of(odd) != ACE and (cards >> odd) & 1:
                        return odd
                    break
    worst = _min_card(cards, work, c, hand, True)
    must = c[C_SWEDISH] and v[V_DEALER] == 0 and pending == 0
    if must or (
        work[W_PLAY + worst] < draw_chance(sit, hand, voids(sit, hand, KING), work) and not _keeps(c, worst, hand)
    ):
        return worst
    return A_DRAW if (legal >> A_DRAW) & 1 else worst


@jit
def _min_card(cards: int, work: np.ndarray, c: np.ndarray, hand: int, with_keeps: bool) -> int:
    """The first card of ``cards`` with the least (keeps, chance, rank); chances at ``work[W_PLAY + card]``."""
    best = -1
    rest = cards
    while rest:
        card = trailing_zeros(rest)
        rest &= rest - 1
        if best < 0:
            best = card
            continue
        if with_keeps:
            kc, kb = _keeps(c, card, hand), _keeps(c, best, hand)
            if kc != kb:
                if kb:
                    best = card
                continue
        pc, pb = work[W_PLAY + card], work[W_PLAY + best]
        if pc != pb:
            if pc < pb:
                best = card
            continue
        if rank_of(card) < rank_of(best):
            best = card
    return best


@jit
def _beats(card: int, best: int, led: int, trump: int) -> bool:
    suit, best_suit = suit_of(card), suit_of(best)
    if suit == best_suit:
        return rank_of(card) > rank_of(best)
    return suit == trump


@jit
def _play(obs: np.ndarray, v: tuple, c: np.ndarray, legal: int, work: np.ndarray) -> int:
    """``HeuristicAgent._play`` and ``choose_play``."""
    hand = v[V_HAND]
    trump = v[V_TRUMP]
    n = v[V_PLAYERS]
    stake = 0.0
    if v[V_TRICKS] == 0:
        cost, bonus = _flight_stakes(v, c, hand)
        stake = cost + bonus
    sit = situation(v, trump, -1, work)
    total = hand_chances(sit, hand, False, work)
    # the trick so far, in play order from its leader
    leader = max(0, one_hot(obs, O_LEADER, MAX_PLAYERS))
    led, best, after = -1, -1, sit[S_OPPONENTS]
    for k in range(n):
        r = (leader + k) % n
        if not (v[V_IN_TRICK] >> r) & 1:
            continue
        card = one_hot(obs, O_TRICK + r * NUM_CARDS, NUM_CARDS)
        if led < 0:
            led, best = suit_of(card), card
        elif _beats(card, best, led, trump):
            best = card
        after &= ~card_bit(r)
    choice, top = -1, 0.0
    rest = legal & ALL_CARDS
    while rest:
        card = trailing_zeros(rest)
        rest &= rest - 1
        suit = led if led >= 0 else suit_of(card)
        win = 0.0
        if best < 0 or _beats(card, best, led, trump):
            win = hold(sit, card, suit, after, 0, work)
        value = win + total - work[W_PLAY + card]
        if stake:
            others = 1.0
            others_rest = hand & ~card_bit(card)
            while others_rest:
                other = trailing_zeros(others_rest)
                others_rest &= others_rest - 1
                others *= 1.0 - work[W_PLAY + other]
            value += stake * (1.0 - (1.0 - win) * others)
        value = value - RANK_TIE_BREAK * rank_of(card)
        if choice < 0 or value > top:
            choice, top = card, value
    return choice


@jit
def heuristic_action(
    obs: np.ndarray, c: np.ndarray, legal: int, mt: np.ndarray, work: np.ndarray, iwork: np.ndarray
) -> int:
    """``HeuristicAgent(config, seed).act``: the action for observation ``obs`` (float32, encoded by
    the rules of config vector ``c``) with legal actions ``legal`` (bit ``a`` set for action ``a``);
    ``mt`` is the agent's generator (:mod:`.mt`)."""
    if legal & (legal - 1) == 0:
        return trailing_zeros(legal)
    v = decode(obs, c)
    phase = v[V_PHASE]
    if phase == PLAY:
        return _play(obs, v, c, legal, work)
    if phase == BUY:
        return _buy(v, c, legal, work)
    if phase == KNOCK_PHASE:
        return _knock(v, c, work)
    if phase == BID:
        return _bid(v, c, legal, mt, work, iwork)
    if phase == ANSWER:
        return _answer(v, c, legal, mt, work, iwork)
    return -1
