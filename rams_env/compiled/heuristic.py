"""The heuristic twin: :class:`rams_env.agents.HeuristicAgent`'s decisions, compiled.

It reads the same encoded observation the Python agent reads (so it can know nothing the seat
does not), follows :mod:`rams_env.agents.heuristic` function by function and computes every
probability with the same floating-point operations in the same order, so that it chooses the
same action: ``tests/test_compiled_heuristic.py`` compares the two over whole ramsar of every
preset. Its randomness (the hands sampled to value a better-cards bid) is CPython's
``random.Random.sample`` on the generator of :mod:`.mt`, seeded like ``HeuristicAgent(seed=...)``.

Card sets are 52-bit masks, iterated in ascending card order (the Python agent iterates its
sets sorted for that reason). Nothing here allocates: the caller passes two scratch arrays,
``work`` (float64) and ``iwork`` (int64), each of at least ``WORK_SIZE`` entries.
"""

from __future__ import annotations

import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from ..agents.heuristic import BETTER_SAMPLES, BID_MARGIN, RUFF_PER_VOID, SIDE_TIMING, UNDECIDED_KNOCK
from ..encoding import FIELD, MAX_PLAYERS, SLICES
from ..rules.cards import ACE, KING, NUM_CARDS, deck_cards
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
    ANSWER,
    AT_DEALER,
    BID,
    BUY,
    C_FLIGHT_CAP,
    C_FLIGHT_FINE,
    C_START,
    C_SWEDISH,
    KNOCK_PHASE,
    ON_TABLE,
    PLAY,
    SUIT_MASK,
    _above,
    _ace_value,
    _bit,
    _count,
)
from .mt import mt_randbelow

WORK_SIZE = 128
# Scratch regions of ``work``: a hand's (chance, card) pairs, a knock value's values, the play's chances.
_W_CHANCE, _W_CARD, _W_VALUES, _W_PLAY = 0, 8, 16, 32
# ``iwork``: the pool a better-cards bid samples from.
_I_POOL = 0

_O = {name: where.start for name, where in SLICES.items()}
O_HAND, O_TRUMP, O_TURNED, O_TURNED_AT, O_PHASE = (
    _O[k] for k in ("hand", "trump", "turned_card", "turned_at", "phase")
)
O_DEALER, O_SEATS, O_DECK32, O_BETTER = (_O[k] for k in ("dealer", "seats", "deck32", "better_bid"))
O_KNOCKED, O_PASSED, O_PENDING, O_TAKE = (_O[k] for k in ("knocked", "passed", "pending_discards", "take_pending"))
O_TRICK, O_LEADER, O_PLAYED, O_OUT = (_O[k] for k in ("trick", "trick_leader", "played", "out_of_play"))
O_TRICKS, O_DONE, O_SCORES, O_TALON, O_JACKS = (
    _O[k] for k in ("tricks", "tricks_done", "scores", "talon", "own_jacks")
)
PENDING_SCALE, TRICKS_SCALE, DONE_SCALE, JACKS_SCALE = (
    float(FIELD[k].scale_at()) for k in ("pending_discards", "tricks", "tricks_done", "own_jacks")
)
DECK52 = sum(1 << c for c in deck_cards(52))
DECK32 = sum(1 << c for c in deck_cards(32))
NO_CARD = -1


# ----------------------------------------------------------------------------- the observation
@jit
def _set(obs: np.ndarray, i: int) -> bool:
    return obs[i] > 0.5


@jit
def _cards(obs: np.ndarray, at: int) -> int:
    """The card mask of a 52-entry slice."""
    mask = 0
    for c in range(NUM_CARDS):
        if obs[at + c] > 0.5:
            mask |= _bit(c)
    return mask


@jit
def _one(obs: np.ndarray, at: int, size: int) -> int:
    """The position set in a one-hot slice, -1 if none."""
    for i in range(size):
        if obs[at + i] > 0.5:
            return i
    return -1


@jit
def _count_of(obs: np.ndarray, at: int, scale: float) -> int:
    """A count field read back as the decoder reads it: ``round(value * scale)``."""
    return int(np.rint(np.float64(obs[at]) * scale))


@jit
def _score(obs: np.ndarray, c: np.ndarray, seat: int) -> int:
    """``round(scores[seat] * start_score)``, as the Python agent reads a score."""
    return int(np.rint(np.float64(obs[O_SCORES + seat]) * c[C_START]))


# ----------------------------------------------------------------------------- situations
# A situation (``Situation`` of the Python agent) is a tuple of ints:
# (trump, unseen mask, active opponents mask, hand size or -1, tricks done, seats in the trick,
#  seat whose card is known or -1, that card, seats that knocked).
@jit
def _situation(obs: np.ndarray, n: int, trump: int, hand_size: int) -> tuple:
    """The unseen cards and the opponents (``HeuristicAgent._new_situation``)."""
    hand = _cards(obs, O_HAND)
    seen = hand | _cards(obs, O_OUT)
    in_trick = 0
    for r in range(MAX_PLAYERS):
        seen |= _cards(obs, O_PLAYED + r * NUM_CARDS)
        trick = _cards(obs, O_TRICK + r * NUM_CARDS)
        if trick:
            seen |= trick
            in_trick |= _bit(r)
    turned = _one(obs, O_TURNED, NUM_CARDS)
    turned_at = _one(obs, O_TURNED_AT, 2)
    dealer = _one(obs, O_DEALER, MAX_PLAYERS)
    known_seat = -1
    if turned_at == ON_TABLE:
        seen |= _bit(turned)
    elif turned_at == AT_DEALER and dealer != 0:
        seen |= _bit(turned)
        known_seat = dealer
    deck = DECK32 if _set(obs, O_DECK32) else DECK52
    opponents, knocked = 0, 0
    for r in range(1, n):
        if _set(obs, O_PASSED + r):
            continue
        if _set(obs, O_KNOCKED + r):
            knocked |= _bit(r)
        if _set(obs, O_KNOCKED + r) or UNDECIDED_KNOCK > 0.0:
            opponents |= _bit(r)
    done = _count_of(obs, O_DONE, DONE_SCALE)
    return (trump, deck & ~seen, opponents, hand_size, done, in_trick, known_seat, turned, knocked)


@jit
def _weight(sit: tuple, r: int) -> float:
    return 1.0 if (sit[8] >> r) & 1 else UNDECIDED_KNOCK


@jit
def miss_chance(avoid: int, take: int, pool: int) -> float:
    """``heuristic.miss_chance``."""
    if take <= 0 or avoid <= 0:
        return 1.0
    if pool - avoid < take:
        return 0.0
    p = 1.0
    for i in range(take):
        p *= (pool - avoid - i) / (pool - i)
    return p


@jit
def _suit_count(sit: tuple, suit: int) -> int:
    return _count(sit[1] & SUIT_MASK[suit])


@jit
def _unknown(sit: tuple, r: int) -> int:
    """Cards of opponent ``r`` that the player does not know."""
    size = sit[3] if sit[3] >= 0 else 5 - sit[4] - ((sit[5] >> r) & 1)
    return max(0, size - (1 if r == sit[6] else 0))


@jit
def _higher(sit: tuple, card: int, lower_trumps: int) -> int:
    """``Situation._higher``."""
    suit = card // 13
    higher = _count(sit[1] & _above(suit, card % 13))
    return max(0, higher - lower_trumps) if suit == sit[0] else higher


@jit
def _beat(sit: tuple, r: int, card: int, led: int, higher: int) -> float:
    """``Situation._beat``: the chance that opponent ``r`` can beat ``card``."""
    trump, suit = sit[0], card // 13
    if r == sit[6] and sit[7] // 13 == suit and sit[7] % 13 > card % 13:
        return 1.0
    unknown = _unknown(sit, r)
    pool = _count(sit[1])
    if suit == trump:
        if led == trump:
            return 1.0 - miss_chance(higher, unknown, pool)
        void = miss_chance(_suit_count(sit, led), unknown, pool)
        return void * (1.0 - miss_chance(higher, unknown, pool - _suit_count(sit, led)))
    void = miss_chance(_suit_count(sit, suit), unknown, pool)
    if r == sit[6] and sit[7] // 13 == trump:
        trumps = 1.0
    else:
        trumps = 1.0 - miss_chance(_suit_count(sit, trump), unknown, pool - _suit_count(sit, suit))
    return min(1.0, 1.0 - miss_chance(higher, unknown, pool) + void * trumps)


@jit
def _hold(sit: tuple, card: int, led: int, players: int, lower_trumps: int) -> float:
    """``Situation._hold``: the chance ``card`` still wins once ``players`` (a seat mask) have played."""
    higher = _higher(sit, card, lower_trumps)
    p = 1.0
    for r in range(1, MAX_PLAYERS):
        if (players >> r) & 1:
            p *= 1.0 - _weight(sit, r) * _beat(sit, r, card, led, higher)
    return p


@jit
def _voids(sit: tuple, hand: int, floor: int) -> int:
    """``Situation._voids``: side suits without a card of rank ``floor`` or higher."""
    held = 0
    for suit in range(4):
        if suit != sit[0] and hand & _above(suit, floor - 1):
            held += 1
    return 3 - held


@jit
def _lower_trumps(sit: tuple, hand: int, rank: int) -> int:
    """Trumps of ``hand`` ranked below ``rank``."""
    trump = sit[0]
    return _count(hand & SUIT_MASK[trump] & ~_above(trump, rank - 1))


@jit
def card_chance(sit: tuple, card: int, hand: int, planning: bool) -> float:
    """``Situation.card_chance``."""
    trump, suit = sit[0], card // 13
    if suit == trump:
        top = _hold(sit, card, trump, sit[2], _lower_trumps(sit, hand, card % 13))
        ruff = min(0.45, RUFF_PER_VOID * _voids(sit, hand, KING if planning else 0))
        return 1.0 - (1.0 - top) * (1.0 - ruff)
    return SIDE_TIMING * _hold(sit, card, suit, sit[2], 0)


@jit
def draw_chance(sit: tuple, hand: int) -> float:
    """``Situation.draw_chance``: the average planning chance of an unseen card, summed in card order."""
    unseen = sit[1]
    if unseen == 0:
        return 0.0
    trump = sit[0]
    ruff = min(0.45, RUFF_PER_VOID * _voids(sit, hand, KING))
    total = 0.0
    rest = unseen
    while rest:
        card = trailing_zeros(rest)
        rest &= rest - 1
        if card // 13 == trump:
            top = _hold(sit, card, trump, sit[2], _lower_trumps(sit, hand, card % 13))
            total += 1.0 - (1.0 - top) * (1.0 - ruff)
        else:
            total += SIDE_TIMING * _hold(sit, card, card // 13, sit[2], 0)
    return total / _count(unseen)


@jit
def zero_chance_of(work: np.ndarray, at: int, size: int) -> float:
    """``heuristic.zero_chance`` of ``work[at:at + size]``."""
    p = 1.0
    for i in range(size):
        p *= 1.0 - work[at + i]
    return p


# ----------------------------------------------------------------------------- hand value
@jit
def _keeps(c: np.ndarray, card: int, hand: int) -> bool:
    """``HeuristicAgent._keeps``."""
    if c[C_SWEDISH]:
        return False
    return card % 13 == ACE or _count(hand & SUIT_MASK[card // 13]) >= 4


@jit
def _flight_stakes(obs: np.ndarray, c: np.ndarray, hand: int) -> tuple:
    """``HeuristicAgent._flight_stakes``: (cost of no trick, bonus for one)."""
    if c[C_SWEDISH]:
        score = _score(obs, c, 0)
        return float(max(0, min(score + c[C_FLIGHT_FINE], c[C_FLIGHT_CAP]) - score)), 0.0
    aces = float(_ace_value(hand))
    jacks = _count_of(obs, O_JACKS, JACKS_SCALE)
    cost = float(c[C_FLIGHT_FINE]) if jacks else c[C_FLIGHT_FINE] + aces
    return cost, aces


@jit
def _hand_value(obs: np.ndarray, c: np.ndarray, n: int, hand: int, trump: int, extra: bool, work: np.ndarray) -> float:
    """``HeuristicAgent._hand_value``: the knock value of ``hand`` after buying."""
    sit = _situation(obs, n, trump, 5)
    dealer = _one(obs, O_DEALER, MAX_PLAYERS)
    if not c[C_SWEDISH] and dealer == 0 and _one(obs, O_TURNED_AT, 2) == ON_TABLE:
        hand |= _bit(_one(obs, O_TURNED, NUM_CARDS))
    # (chance, card) of every card, sorted ascending; the lowest dropped down to five
    size = 0
    rest = hand
    while rest:
        card = trailing_zeros(rest)
        rest &= rest - 1
        p = card_chance(sit, card, hand, True)
        i = size
        while i > 0 and (
            work[_W_CHANCE + i - 1] > p or (work[_W_CHANCE + i - 1] == p and work[_W_CARD + i - 1] > card)
        ):
            work[_W_CHANCE + i] = work[_W_CHANCE + i - 1]
            work[_W_CARD + i] = work[_W_CARD + i - 1]
            i -= 1
        work[_W_CHANCE + i] = p
        work[_W_CARD + i] = card
        size += 1
    first = max(0, size - 5)
    average = draw_chance(sit, hand)
    room = max(0, _count_of(obs, O_TALON, 32.0 if _set(obs, O_DECK32) else 52.0) - 3 * _count(sit[2]))
    count = 0
    for i in range(first, size):
        p = work[_W_CHANCE + i]
        if p >= average or _keeps(c, int(work[_W_CARD + i]), hand):
            _insert_descending(work, count, p)
            count += 1
    draws = min(5 - count, room)
    for _ in range(draws):
        _insert_descending(work, count, average)
        count += 1
    if extra:
        _insert_descending(work, count, 0.5)
        count += 1
    while count < 5:
        _insert_descending(work, count, 0.0)
        count += 1
    cost, bonus = _flight_stakes(obs, c, hand)
    total = 0.0
    for i in range(5):
        total += work[_W_VALUES + i]
    expected = min(5.0, total)
    zero = zero_chance_of(work, _W_VALUES, 5)
    return expected + bonus * (1.0 - zero) - cost * zero


@jit
def _insert_descending(work: np.ndarray, count: int, value: float) -> None:
    """Insert ``value`` into the ``count`` values at ``_W_VALUES``, kept in descending order."""
    i = count
    while i > 0 and work[_W_VALUES + i - 1] < value:
        work[_W_VALUES + i] = work[_W_VALUES + i - 1]
        i -= 1
    work[_W_VALUES + i] = value


# ----------------------------------------------------------------------------- decisions
@jit
def _knock(obs: np.ndarray, c: np.ndarray, n: int, work: np.ndarray) -> int:
    """``HeuristicAgent._knock_value`` > 0: knock, else pass."""
    hand = _cards(obs, O_HAND)
    if not c[C_SWEDISH]:
        suits = 0
        for suit in range(4):
            if hand & SUIT_MASK[suit]:
                suits += 1
        aces = 0
        for suit in range(4):
            if hand & _bit(suit * 13 + ACE):
                aces += 1
        if aces == 4 or suits == 1:
            return A_KNOCK
    value = _hand_value(obs, c, n, hand, _one(obs, O_TRUMP, 4), False, work)
    dealer = _one(obs, O_DEALER, MAX_PLAYERS)
    anyone_knocked = False
    for r in range(n):
        anyone_knocked |= _set(obs, O_KNOCKED + r)
    if (dealer - 1) % n == 0 and not anyone_knocked and c[C_SWEDISH] and _score(obs, c, dealer) <= 5:
        value += 1.0
    return A_KNOCK if value > 0.0 else A_PASS


@jit
def _sample(mt: np.ndarray, iwork: np.ndarray, pool_size: int, k: int) -> int:
    """``random.Random.sample(pool, k)`` of the ``pool_size`` cards at ``iwork[_I_POOL:]``, as a card
    mask (CPython's algorithm: a partial shuffle of a copy for small pools, else rejection)."""
    chosen = 0
    if pool_size <= 21:  # CPython: setsize 21 for k <= 5
        copy = _I_POOL + NUM_CARDS
        for i in range(pool_size):
            iwork[copy + i] = iwork[_I_POOL + i]
        for i in range(k):
            j = mt_randbelow(mt, pool_size - i)
            chosen |= _bit(iwork[copy + j])
            iwork[copy + j] = iwork[copy + pool_size - i - 1]
        return chosen
    selected = 0
    for _ in range(k):
        j = mt_randbelow(mt, pool_size)
        while (selected >> j) & 1:
            j = mt_randbelow(mt, pool_size)
        selected |= _bit(j)
        chosen |= _bit(iwork[_I_POOL + j])
    return chosen


@jit
def _better_value(obs: np.ndarray, c: np.ndarray, n: int, mt: np.ndarray, work: np.ndarray, iwork: np.ndarray) -> float:
    """``HeuristicAgent._better_value``: the mean knock value of new hands sampled from the unseen cards."""
    trump = _one(obs, O_TRUMP, 4)
    sit = _situation(obs, n, trump, 5)
    size = 0
    rest = sit[1]
    while rest:
        iwork[_I_POOL + size] = trailing_zeros(rest)
        rest &= rest - 1
        size += 1
    keep = 0
    if _one(obs, O_DEALER, MAX_PLAYERS) == 0 and _one(obs, O_TURNED_AT, 2) == AT_DEALER:
        keep = _bit(_one(obs, O_TURNED, NUM_CARDS))
    total = 0.0
    for _ in range(BETTER_SAMPLES):
        hand = _sample(mt, iwork, size, 5) | keep
        total += max(0.0, _hand_value(obs, c, n, hand, trump, False, work))
    return total / BETTER_SAMPLES


@jit
def _swing_value(obs: np.ndarray, c: np.ndarray, n: int, work: np.ndarray) -> float:
    """``HeuristicAgent._swing_value``: the mean knock value under another trump suit."""
    trump = _one(obs, O_TRUMP, 4)
    sit = _situation(obs, n, trump, 5)
    hand = _cards(obs, O_HAND)
    dealer = _one(obs, O_DEALER, MAX_PLAYERS)
    if dealer == 0 and _one(obs, O_TURNED_AT, 2) == AT_DEALER:
        hand &= ~_bit(_one(obs, O_TURNED, NUM_CARDS))
    weights = 0
    for suit in range(4):
        if suit != trump:
            weights += _suit_count(sit, suit)
    if not weights:
        return 0.0
    total = 0.0
    for suit in range(4):
        weight = 0 if suit == trump else _suit_count(sit, suit)
        if weight:
            total += weight * max(0.0, _hand_value(obs, c, n, hand, suit, dealer == 0, work))
    return total / weights


@jit
def _current_value(obs: np.ndarray, c: np.ndarray, n: int, work: np.ndarray) -> float:
    return max(0.0, _hand_value(obs, c, n, _cards(obs, O_HAND), _one(obs, O_TRUMP, 4), False, work))


@jit
def _bid(obs, c, n, legal, mt, work, iwork) -> int:
    """``HeuristicAgent._bid``: the first of no bid, better cards, swing with the highest value."""
    best, action = _current_value(obs, c, n, work) + BID_MARGIN, A_NO_BID
    if (legal >> A_BETTER) & 1:
        value = _better_value(obs, c, n, mt, work, iwork)
        if value > best:
            best, action = value, A_BETTER
    if (legal >> A_SWING) & 1:
        value = _swing_value(obs, c, n, work)
        if value > best:
            best, action = value, A_SWING
    return action


@jit
def _answer(obs, c, n, legal, mt, work, iwork) -> int:
    """``HeuristicAgent._answer``."""
    current = _current_value(obs, c, n, work)
    new = _better_value(obs, c, n, mt, work, iwork) if _set(obs, O_BETTER + 1) else _swing_value(obs, c, n, work)
    return A_ACCEPT if (legal >> A_ACCEPT) & 1 and new > current + BID_MARGIN else A_REJECT


@jit
def _buy(obs: np.ndarray, c: np.ndarray, n: int, legal: int, work: np.ndarray) -> int:
    """``HeuristicAgent._buy``: discard the worst card while it is worth less than a draw."""
    hand = _cards(obs, O_HAND)
    cards = legal & ((np.int64(1) << np.int64(NUM_CARDS)) - 1)
    if not cards:
        return A_DRAW
    sit = _situation(obs, n, _one(obs, O_TRUMP, 4), 5)
    for card in range(NUM_CARDS):  # the hand's chances, by card
        if (hand >> card) & 1:
            work[card] = card_chance(sit, card, hand, True)
    if _set(obs, O_TAKE):
        return _min_card(cards, work, c, hand, False)
    pending = _count_of(obs, O_PENDING, PENDING_SCALE)
    if not c[C_SWEDISH]:
        longest = 0
        for suit in range(4):
            longest = max(longest, _count(hand & SUIT_MASK[suit]))
        if longest == 5:
            return A_DRAW
        if longest == 4 and pending == 0:
            rest = hand
            while rest:
                odd = trailing_zeros(rest)
                rest &= rest - 1
                if _count(hand & SUIT_MASK[odd // 13]) == 1:
                    if odd % 13 != ACE and (cards >> odd) & 1:
                        return odd
                    break
    worst = _min_card(cards, work, c, hand, True)
    must = c[C_SWEDISH] and _one(obs, O_DEALER, MAX_PLAYERS) == 0 and pending == 0
    if must or (work[worst] < draw_chance(sit, hand) and not _keeps(c, worst, hand)):
        return worst
    return A_DRAW if (legal >> A_DRAW) & 1 else worst


@jit
def _min_card(cards: int, chances: np.ndarray, c: np.ndarray, hand: int, with_keeps: bool) -> int:
    """The first card of ``cards`` with the least (keeps, chance, rank)."""
    best = -1
    rest = cards
    while rest:
        card = trailing_zeros(rest)
        rest &= rest - 1
        if best < 0:
            best = card
            continue
        kc, kb = (_keeps(c, card, hand), _keeps(c, best, hand)) if with_keeps else (False, False)
        if kc != kb:
            if kc < kb:
                best = card
            continue
        if chances[card] != chances[best]:
            if chances[card] < chances[best]:
                best = card
            continue
        if card % 13 < best % 13:
            best = card
    return best


@jit
def _beats(card: int, best: int, led: int, trump: int) -> bool:
    suit, best_suit = card // 13, best // 13
    if suit == best_suit:
        return card % 13 > best % 13
    return suit == trump


@jit
def _play(obs: np.ndarray, c: np.ndarray, n: int, legal: int, work: np.ndarray) -> int:
    """``HeuristicAgent._play`` and ``choose_play``."""
    hand = _cards(obs, O_HAND)
    trump = _one(obs, O_TRUMP, 4)
    stake = 0.0
    if _count_of(obs, O_TRICKS, TRICKS_SCALE) == 0:
        cost, bonus = _flight_stakes(obs, c, hand)
        stake = cost + bonus
    sit = _situation(obs, n, trump, -1)
    total = 0.0
    rest = hand
    while rest:
        card = trailing_zeros(rest)
        rest &= rest - 1
        work[card] = card_chance(sit, card, hand, False)
        total += work[card]
    # the trick so far, in play order from its leader
    leader = max(0, _one(obs, O_LEADER, MAX_PLAYERS))
    led, best, after = -1, -1, sit[2]
    for k in range(n):
        r = (leader + k) % n
        card = _one(obs, O_TRICK + r * NUM_CARDS, NUM_CARDS)
        if card < 0:
            continue
        if led < 0:
            led, best = card // 13, card
        elif _beats(card, best, led, trump):
            best = card
        after &= ~_bit(r)
    choice, top = -1, 0.0
    rest = legal & ((np.int64(1) << np.int64(NUM_CARDS)) - 1)
    while rest:
        card = trailing_zeros(rest)
        rest &= rest - 1
        suit = led if led >= 0 else card // 13
        win = 0.0
        if best < 0 or _beats(card, best, led, trump):
            win = _hold(sit, card, suit, after, 0)
        value = win + total - work[card]
        if stake:
            others = 1.0
            others_rest = hand & ~_bit(card)
            while others_rest:
                other = trailing_zeros(others_rest)
                others_rest &= others_rest - 1
                others *= 1.0 - work[other]
            value += stake * (1.0 - (1.0 - win) * others)
        value = value - 0.001 * (card % 13)
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
    n = 0
    for r in range(MAX_PLAYERS):
        if _set(obs, O_SEATS + r):
            n += 1
    phase = _one(obs, O_PHASE, 6)
    if phase == PLAY:
        return _play(obs, c, n, legal, work)
    if phase == BUY:
        return _buy(obs, c, n, legal, work)
    if phase == KNOCK_PHASE:
        return _knock(obs, c, n, work)
    if phase == BID:
        return _bid(obs, c, n, legal, mt, work, iwork)
    if phase == ANSWER:
        return _answer(obs, c, n, legal, mt, work, iwork)
    return -1
