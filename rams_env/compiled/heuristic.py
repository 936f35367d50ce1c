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
from numba.extending import intrinsic

from ..agents.heuristic import BETTER_SAMPLES, BID_MARGIN, RUFF_PER_VOID, SIDE_TIMING, UNDECIDED_KNOCK
from ..agents.heuristic import miss_chance as python_miss
from ..obs.encoding import FIELD, MAX_PLAYERS, SLICES
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
)
from .mt import mt_randbelow

WORK_SIZE = 448
_MAX_LOWER = 6  # trumps below a trump that the memo distinguishes (a hand holds at most six cards)
_MEMO_SIZE = NUM_CARDS + 13 * (_MAX_LOWER + 1)
# Scratch regions of ``work``: a hand's (chance, card) pairs, a knock value's values, the chances of
# the cards in hand (by card), the situation's memo of trick chances, its opponents' odds.
_W_CHANCE, _W_CARD, _W_VALUES, _W_PLAY, _W_MEMO = 0, 8, 16, 32, 32 + NUM_CARDS
_W_ODDS = _W_MEMO + _MEMO_SIZE  # per opponent seat (8 entries each): void chances, ruff chances by suit
_DRAWS = 32  # draw chances memoised per situation: a count, then (key, chance) pairs
_W_DRAWS = _W_ODDS + 8 * MAX_PLAYERS
_W_SIDE = _W_DRAWS + 1 + 2 * _DRAWS  # the side cards' draw terms (``_side_terms``)
ALL_CARDS = (1 << NUM_CARDS) - 1
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
@intrinsic
def popcount(typingctx, x):
    """The number of set bits of an integer (LLVM's ctpop)."""

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return x(x), codegen


@jit
def _set(obs: np.ndarray, i: int) -> bool:
    return obs[i] > 0.5


@jit
def _cards(obs: np.ndarray, at: int) -> int:
    """The card mask of a 52-entry slice."""
    mask = np.int64(0)
    for c in range(NUM_CARDS):  # branch-free: the compiler vectorises it
        mask |= np.int64(obs[at + c] > 0.5) << np.int64(c)
    return mask


@jit
def _one(obs: np.ndarray, at: int, size: int) -> int:
    """The position set in a one-hot slice, -1 if none."""
    for i in range(size):
        if obs[at + i] > 0.5:
            return i
    return -1


@jit
def _round(x: float) -> int:
    """``round(x)`` for the whole numbers an observation encodes (``value / scale * scale`` is within a
    rounding error of one, never half-way, so rounding half away from zero is the same; and cheaper
    than ``np.rint`` here)."""
    return int(x + 0.5) if x >= 0.0 else -int(0.5 - x)


@jit
def _count_of(obs: np.ndarray, at: int, scale: float) -> int:
    """A count field read back as the decoder reads it: ``round(value * scale)``."""
    return _round(np.float64(obs[at]) * scale)


@jit
def _score(obs: np.ndarray, c: np.ndarray, seat: int) -> int:
    """``round(scores[seat] * start_score)``, as the Python agent reads a score."""
    return _round(np.float64(obs[O_SCORES + seat]) * c[C_START])


# What the agent reads of an observation, decoded once a decision: a tuple of ints.
(V_HAND, V_TRUMP, V_TURNED, V_TURNED_AT, V_DEALER, V_PLAYERS, V_UNSEEN, V_IN_TRICK, V_OPPONENTS) = range(9)
(V_KNOCKED, V_DONE, V_TALON, V_PENDING, V_TAKE, V_JACKS, V_TRICKS, V_SCORE, V_DEALER_SCORE) = range(9, 18)
(V_BETTER_PENDING, V_PHASE, V_KNOWN_SEAT, V_ANY_KNOCKED) = range(18, 22)


@jit
def _view(obs: np.ndarray, c: np.ndarray) -> tuple:
    """The decoded observation: cards, seats and counts (``decoding.decode``, the fields the agent uses)."""
    n = 0
    for r in range(MAX_PLAYERS):
        if _set(obs, O_SEATS + r):
            n += 1
    hand = _cards(obs, O_HAND)
    seen = hand | _cards(obs, O_OUT)
    in_trick = 0
    for r in range(n):
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
    deck32 = _set(obs, O_DECK32)
    deck = DECK32 if deck32 else DECK52
    opponents, knocked, any_knocked = 0, 0, 0
    for r in range(n):
        if _set(obs, O_KNOCKED + r):
            any_knocked = 1
            knocked |= _bit(r)
        if r > 0 and not _set(obs, O_PASSED + r) and (_set(obs, O_KNOCKED + r) or UNDECIDED_KNOCK > 0.0):
            opponents |= _bit(r)
    return (
        hand,
        _one(obs, O_TRUMP, 4),
        turned,
        turned_at,
        dealer,
        n,
        deck & ~seen,
        in_trick,
        opponents,
        knocked,
        _count_of(obs, O_DONE, DONE_SCALE),
        _count_of(obs, O_TALON, 32.0 if deck32 else 52.0),
        _count_of(obs, O_PENDING, PENDING_SCALE),
        1 if _set(obs, O_TAKE) else 0,
        _count_of(obs, O_JACKS, JACKS_SCALE),
        _count_of(obs, O_TRICKS, TRICKS_SCALE),
        _score(obs, c, 0),
        _score(obs, c, dealer),
        1 if _set(obs, O_BETTER + 1) else 0,
        _one(obs, O_PHASE, 6),
        known_seat,
        any_knocked,
    )


# ----------------------------------------------------------------------------- situations
# A situation (``Situation`` of the Python agent) is a tuple of ints:
(S_TRUMP, S_UNSEEN, S_OPPONENTS, S_SIZE, S_DONE, S_IN_TRICK, S_KNOWN_SEAT, S_KNOWN, S_KNOCKED, S_POOL) = range(10)
S_COUNT = 10  # four entries: the unseen cards of each suit


@jit
def _situation(v: tuple, trump: int, hand_size: int, work: np.ndarray) -> tuple:
    """The unseen cards and the opponents (``HeuristicAgent._new_situation``) under ``trump``, each
    opponent holding ``hand_size`` cards (-1: what he holds now); clears the chance memo in ``work``."""
    unseen = v[V_UNSEEN]
    for i in range(_W_MEMO, _W_MEMO + _MEMO_SIZE):
        work[i] = -1.0
    work[_W_DRAWS] = 0.0
    work[_W_SIDE] = -1.0
    sit = (
        trump,
        unseen,
        v[V_OPPONENTS],
        hand_size,
        v[V_DONE],
        v[V_IN_TRICK],
        v[V_KNOWN_SEAT],
        v[V_TURNED],
        v[V_KNOCKED],
        popcount(unseen),
        popcount(unseen & SUIT_MASK[0]),
        popcount(unseen & SUIT_MASK[1]),
        popcount(unseen & SUIT_MASK[2]),
        popcount(unseen & SUIT_MASK[3]),
    )
    _odds(sit, work)
    return sit


@jit
def _odds(sit: tuple, work: np.ndarray) -> None:
    """Per opponent and suit, what ``_beat`` needs that does not depend on the card (``Situation._odds``):
    the chance he is void in the suit, and void in it holding a trump, at ``work[_W_ODDS:]``."""
    trump, pool, known = sit[S_TRUMP], sit[S_POOL], sit[S_KNOWN]
    rest = sit[S_OPPONENTS]
    while rest:
        r = trailing_zeros(rest)
        rest &= rest - 1
        unknown = _unknown(sit, r)
        has_trump = r == sit[S_KNOWN_SEAT] and known // 13 == trump
        for suit in range(4):
            void = miss_chance(sit[S_COUNT + suit], unknown, pool)
            trumps = 1.0 if has_trump else 1.0 - miss_chance(sit[S_COUNT + trump], unknown, pool - sit[S_COUNT + suit])
            work[_W_ODDS + 8 * r + suit] = void
            work[_W_ODDS + 8 * r + 4 + suit] = void * trumps


@jit
def _weight(sit: tuple, r: int) -> float:
    return 1.0 if (sit[S_KNOCKED] >> r) & 1 else UNDECIDED_KNOCK


_MAX_TAKE = 8
# miss_chance for every (avoid, take, pool) an opponent meets, computed by the Python agent's own function.
MISS = np.array(
    [[[python_miss(a, t, p) for p in range(NUM_CARDS + 1)] for t in range(_MAX_TAKE)] for a in range(NUM_CARDS + 1)]
)
miss_loop = jit(python_miss.__wrapped__)  # the same loop compiled, beyond the table


@jit
def miss_chance(avoid: int, take: int, pool: int) -> float:
    """``heuristic.miss_chance`` (a table look-up where the table reaches)."""
    if 0 <= avoid <= NUM_CARDS and 0 <= take < _MAX_TAKE and 0 <= pool <= NUM_CARDS:
        return MISS[avoid, take, pool]
    return miss_loop(avoid, take, pool)


@jit
def _unknown(sit: tuple, r: int) -> int:
    """Cards of opponent ``r`` that the player does not know."""
    size = sit[S_SIZE] if sit[S_SIZE] >= 0 else 5 - sit[S_DONE] - ((sit[S_IN_TRICK] >> r) & 1)
    return max(0, size - (1 if r == sit[S_KNOWN_SEAT] else 0))


@jit
def _higher(sit: tuple, card: int, lower_trumps: int) -> int:
    """``Situation._higher``."""
    suit = card // 13
    higher = popcount(sit[S_UNSEEN] & _above(suit, card % 13))
    return max(0, higher - lower_trumps) if suit == sit[S_TRUMP] else higher


@jit
def _beat(sit: tuple, r: int, card: int, led: int, higher: int, work: np.ndarray) -> float:
    """``Situation._beat``: the chance that opponent ``r`` can beat ``card`` (odds from ``_odds``)."""
    trump, suit = sit[S_TRUMP], card // 13
    known = sit[S_KNOWN]
    if r == sit[S_KNOWN_SEAT] and known // 13 == suit and known % 13 > card % 13:
        return 1.0
    unknown = _unknown(sit, r)
    pool = sit[S_POOL]
    if suit == trump:
        if led == trump:
            return 1.0 - miss_chance(higher, unknown, pool)
        return work[_W_ODDS + 8 * r + led] * (1.0 - miss_chance(higher, unknown, pool - sit[S_COUNT + led]))
    return min(1.0, 1.0 - miss_chance(higher, unknown, pool) + work[_W_ODDS + 8 * r + 4 + suit])


@jit
def _hold(sit: tuple, card: int, led: int, players: int, lower_trumps: int, work: np.ndarray) -> float:
    """``Situation._hold``: the chance ``card`` still wins once ``players`` (a seat mask) have played."""
    higher = _higher(sit, card, lower_trumps)
    p = 1.0
    rest = players
    while rest:
        r = trailing_zeros(rest)
        rest &= rest - 1
        p *= 1.0 - _weight(sit, r) * _beat(sit, r, card, led, higher, work)
    return p


@jit
def _top_chance(sit: tuple, card: int, lower_trumps: int, work: np.ndarray) -> float:
    """``Situation._top_chance``: ``_hold`` against every opponent, memoised in ``work`` for the
    situation (a side card by card, ``lower_trumps`` -1; a trump by rank and ``lower_trumps``)."""
    if lower_trumps < 0:
        at = _W_MEMO + card
        if work[at] < 0.0:
            work[at] = _hold(sit, card, card // 13, sit[S_OPPONENTS], 0, work)
        return work[at]
    lower = min(lower_trumps, _MAX_LOWER)
    at = _W_MEMO + NUM_CARDS + (card % 13) * (_MAX_LOWER + 1) + lower
    if lower != lower_trumps:
        return _hold(sit, card, sit[S_TRUMP], sit[S_OPPONENTS], lower_trumps, work)
    if work[at] < 0.0:
        work[at] = _hold(sit, card, sit[S_TRUMP], sit[S_OPPONENTS], lower, work)
    return work[at]


@jit
def _voids(sit: tuple, hand: int, floor: int) -> int:
    """``Situation._voids``: side suits without a card of rank ``floor`` or higher."""
    held = 0
    for suit in range(4):
        if suit != sit[S_TRUMP] and hand & _above(suit, floor - 1):
            held += 1
    return 3 - held


@jit
def _lower_trumps(sit: tuple, hand: int, rank: int) -> int:
    """Trumps of ``hand`` ranked below ``rank``."""
    trump = sit[S_TRUMP]
    return popcount(hand & SUIT_MASK[trump] & ~_above(trump, rank - 1))


@jit
def card_chance(sit: tuple, card: int, hand: int, planning: bool, work: np.ndarray) -> float:
    """``Situation.card_chance``."""
    if card // 13 == sit[S_TRUMP]:
        top = _top_chance(sit, card, _lower_trumps(sit, hand, card % 13), work)
        ruff = min(0.45, RUFF_PER_VOID * _voids(sit, hand, KING if planning else 0))
        return 1.0 - (1.0 - top) * (1.0 - ruff)
    return SIDE_TIMING * _top_chance(sit, card, -1, work)


@jit
def draw_chance(sit: tuple, hand: int, work: np.ndarray) -> float:
    """``Situation.draw_chance``: the average planning chance of an unseen card, summed in card order;
    memoised, as in Python, on what it depends on: the hand's trumps and its voids to come."""
    unseen = sit[S_UNSEEN]
    if unseen == 0:
        return 0.0
    trump = sit[S_TRUMP]
    voids = _voids(sit, hand, KING)
    key = float((((hand & SUIT_MASK[trump]) >> (13 * trump)) << 2) | voids)
    count = int(work[_W_DRAWS])
    for i in range(count):
        if work[_W_DRAWS + 1 + 2 * i] == key:
            return work[_W_DRAWS + 2 + 2 * i]
    chance = _draw_chance(sit, hand, voids, work)
    if count < _DRAWS:
        work[_W_DRAWS + 1 + 2 * count] = key
        work[_W_DRAWS + 2 + 2 * count] = chance
        work[_W_DRAWS] = count + 1
    return chance


@jit
def _draw_chance(sit: tuple, hand: int, voids: int, work: np.ndarray) -> float:
    """``draw_chance`` computed: the side suits' terms, the same for every hand, come from ``_side_terms``."""
    _side_terms(sit, work)
    trump = sit[S_TRUMP]
    ruff = min(0.45, RUFF_PER_VOID * voids)
    total = work[_W_SIDE + 1]  # the suits below trump, summed in card order
    rest = sit[S_UNSEEN] & SUIT_MASK[trump]
    while rest:
        card = trailing_zeros(rest)
        rest &= rest - 1
        top = _top_chance(sit, card, _lower_trumps(sit, hand, card % 13), work)
        total += 1.0 - (1.0 - top) * (1.0 - ruff)
    for k in range(int(work[_W_SIDE])):  # the suits above trump, card by card
        total += work[_W_SIDE + 2 + k]
    return total / sit[S_POOL]


@jit
def _side_terms(sit: tuple, work: np.ndarray) -> None:
    """Once a situation, at ``work[_W_SIDE:]``: the count of unseen cards in the suits above trump, the
    sum in card order of the side terms below trump, then the terms above it, in card order."""
    if work[_W_SIDE] >= 0.0:
        return
    trump = sit[S_TRUMP]
    below = sit[S_UNSEEN] & ((np.int64(1) << np.int64(13 * trump)) - 1)
    above = sit[S_UNSEEN] & ~((np.int64(1) << np.int64(13 * trump + 13)) - 1)
    total = 0.0
    while below:
        card = trailing_zeros(below)
        below &= below - 1
        total += SIDE_TIMING * _top_chance(sit, card, -1, work)
    count = 0
    while above:
        card = trailing_zeros(above)
        above &= above - 1
        work[_W_SIDE + 2 + count] = SIDE_TIMING * _top_chance(sit, card, -1, work)
        count += 1
    work[_W_SIDE + 1] = total
    work[_W_SIDE] = count


# ----------------------------------------------------------------------------- hand value
@jit
def _keeps(c: np.ndarray, card: int, hand: int) -> bool:
    """``HeuristicAgent._keeps``."""
    if c[C_SWEDISH]:
        return False
    return card % 13 == ACE or popcount(hand & SUIT_MASK[card // 13]) >= 4


@jit
def _flight_stakes(v: tuple, c: np.ndarray, hand: int) -> tuple:
    """``HeuristicAgent._flight_stakes``: (cost of no trick, bonus for one)."""
    if c[C_SWEDISH]:
        score = v[V_SCORE]
        return float(max(0, min(score + c[C_FLIGHT_FINE], c[C_FLIGHT_CAP]) - score)), 0.0
    aces = float(_ace_value(hand))
    cost = float(c[C_FLIGHT_FINE]) if v[V_JACKS] else c[C_FLIGHT_FINE] + aces
    return cost, aces


@jit
def _hand_value(v: tuple, c: np.ndarray, sit: tuple, hand: int, extra: bool, work: np.ndarray) -> float:
    """``HeuristicAgent._hand_value``: the knock value of ``hand`` after buying, in situation ``sit``
    (every opponent with five cards)."""
    if not c[C_SWEDISH] and v[V_DEALER] == 0 and v[V_TURNED_AT] == ON_TABLE:
        hand |= _bit(v[V_TURNED])
    # (chance, card) of every card, sorted ascending; the lowest dropped down to five
    size = 0
    rest = hand
    while rest:
        card = trailing_zeros(rest)
        rest &= rest - 1
        p = card_chance(sit, card, hand, True, work)
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
    average = draw_chance(sit, hand, work)
    room = max(0, v[V_TALON] - 3 * popcount(sit[S_OPPONENTS]))
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
    cost, bonus = _flight_stakes(v, c, hand)
    total = 0.0
    zero = 1.0
    for i in range(5):
        total += work[_W_VALUES + i]
    for i in range(5):
        zero *= 1.0 - work[_W_VALUES + i]
    expected = min(5.0, total)
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
def _knock(v: tuple, c: np.ndarray, work: np.ndarray) -> int:
    """``HeuristicAgent._knock_value`` > 0: knock, else pass."""
    hand = v[V_HAND]
    if not c[C_SWEDISH]:
        suits, aces = 0, 0
        for suit in range(4):
            if hand & SUIT_MASK[suit]:
                suits += 1
            if hand & _bit(suit * 13 + ACE):
                aces += 1
        if aces == 4 or suits == 1:
            return A_KNOCK
    sit = _situation(v, v[V_TRUMP], 5, work)
    value = _hand_value(v, c, sit, hand, False, work)
    n = v[V_PLAYERS]
    if (v[V_DEALER] - 1) % n == 0 and not v[V_ANY_KNOCKED] and c[C_SWEDISH] and v[V_DEALER_SCORE] <= 5:
        value += 1.0
    return A_KNOCK if value > 0.0 else A_PASS


@jit
def _sample(mt: np.ndarray, iwork: np.ndarray, pool_size: int, k: int) -> int:
    """``random.Random.sample(pool, k)`` of the ``pool_size`` cards at ``iwork[_I_POOL:]``, as a card
    mask (CPython's algorithm: a partial shuffle of a copy for small pools, else rejection)."""
    chosen = 0
    if pool_size <= 21:  # CPython's setsize for k <= 5
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
def _better_value(v: tuple, c: np.ndarray, mt: np.ndarray, work: np.ndarray, iwork: np.ndarray) -> float:
    """``HeuristicAgent._better_value``: the mean knock value of new hands sampled from the unseen cards."""
    sit = _situation(v, v[V_TRUMP], 5, work)
    size = 0
    rest = sit[S_UNSEEN]
    while rest:
        iwork[_I_POOL + size] = trailing_zeros(rest)
        rest &= rest - 1
        size += 1
    keep = _bit(v[V_TURNED]) if v[V_DEALER] == 0 and v[V_TURNED_AT] == AT_DEALER else 0
    total = 0.0
    for _ in range(BETTER_SAMPLES):
        hand = _sample(mt, iwork, size, 5) | keep
        total += max(0.0, _hand_value(v, c, sit, hand, False, work))
    return total / BETTER_SAMPLES


@jit
def _swing_value(v: tuple, c: np.ndarray, work: np.ndarray) -> float:
    """``HeuristicAgent._swing_value``: the mean knock value under another trump suit."""
    trump = v[V_TRUMP]
    hand = v[V_HAND]
    dealer = v[V_DEALER]
    if dealer == 0 and v[V_TURNED_AT] == AT_DEALER:
        hand &= ~_bit(v[V_TURNED])
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
            sit = _situation(v, suit, 5, work)
            total += weight * max(0.0, _hand_value(v, c, sit, hand, dealer == 0, work))
    return total / weights


@jit
def _current_value(v: tuple, c: np.ndarray, work: np.ndarray) -> float:
    sit = _situation(v, v[V_TRUMP], 5, work)
    return max(0.0, _hand_value(v, c, sit, v[V_HAND], False, work))


@jit
def _bid(v: tuple, c: np.ndarray, legal: int, mt: np.ndarray, work: np.ndarray, iwork: np.ndarray) -> int:
    """``HeuristicAgent._bid``: the first of no bid, better cards, swing with the highest value."""
    best, action = _current_value(v, c, work) + BID_MARGIN, A_NO_BID
    if (legal >> A_BETTER) & 1:
        value = _better_value(v, c, mt, work, iwork)
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
    current = _current_value(v, c, work)
    new = _better_value(v, c, mt, work, iwork) if v[V_BETTER_PENDING] else _swing_value(v, c, work)
    return A_ACCEPT if (legal >> A_ACCEPT) & 1 and new > current + BID_MARGIN else A_REJECT


@jit
def _buy(v: tuple, c: np.ndarray, legal: int, work: np.ndarray) -> int:
    """``HeuristicAgent._buy``: discard the worst card while it is worth less than a draw."""
    hand = v[V_HAND]
    cards = legal & ALL_CARDS
    if not cards:
        return A_DRAW
    sit = _situation(v, v[V_TRUMP], 5, work)
    rest = hand
    while rest:  # the hand's chances, by card
        card = trailing_zeros(rest)
        rest &= rest - 1
        work[_W_PLAY + card] = card_chance(sit, card, hand, True, work)
    if v[V_TAKE]:
        return _min_card(cards, work, c, hand, False)
    pending = v[V_PENDING]
    if not c[C_SWEDISH]:
        longest = 0
        for suit in range(4):
            longest = max(longest, popcount(hand & SUIT_MASK[suit]))
        if longest == 5:
            return A_DRAW
        if longest == 4 and pending == 0:
            rest = hand
            while rest:
                odd = trailing_zeros(rest)
                rest &= rest - 1
                if popcount(hand & SUIT_MASK[odd // 13]) == 1:
                    if odd % 13 != ACE and (cards >> odd) & 1:
                        return odd
                    break
    worst = _min_card(cards, work, c, hand, True)
    must = c[C_SWEDISH] and v[V_DEALER] == 0 and pending == 0
    if must or (work[_W_PLAY + worst] < draw_chance(sit, hand, work) and not _keeps(c, worst, hand)):
        return worst
    return A_DRAW if (legal >> A_DRAW) & 1 else worst


@jit
def _min_card(cards: int, work: np.ndarray, c: np.ndarray, hand: int, with_keeps: bool) -> int:
    """The first card of ``cards`` with the least (keeps, chance, rank); chances at ``work[_W_PLAY + card]``."""
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
        pc, pb = work[_W_PLAY + card], work[_W_PLAY + best]
        if pc != pb:
            if pc < pb:
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
def _play(obs: np.ndarray, v: tuple, c: np.ndarray, legal: int, work: np.ndarray) -> int:
    """``HeuristicAgent._play`` and ``choose_play``."""
    hand = v[V_HAND]
    trump = v[V_TRUMP]
    n = v[V_PLAYERS]
    stake = 0.0
    if v[V_TRICKS] == 0:
        cost, bonus = _flight_stakes(v, c, hand)
        stake = cost + bonus
    sit = _situation(v, trump, -1, work)
    total = 0.0
    rest = hand
    while rest:
        card = trailing_zeros(rest)
        rest &= rest - 1
        work[_W_PLAY + card] = card_chance(sit, card, hand, False, work)
        total += work[_W_PLAY + card]
    # the trick so far, in play order from its leader
    leader = max(0, _one(obs, O_LEADER, MAX_PLAYERS))
    led, best, after = -1, -1, sit[S_OPPONENTS]
    for k in range(n):
        r = (leader + k) % n
        if not (v[V_IN_TRICK] >> r) & 1:
            continue
        card = _one(obs, O_TRICK + r * NUM_CARDS, NUM_CARDS)
        if led < 0:
            led, best = card // 13, card
        elif _beats(card, best, led, trump):
            best = card
        after &= ~_bit(r)
    choice, top = -1, 0.0
    rest = legal & ALL_CARDS
    while rest:
        card = trailing_zeros(rest)
        rest &= rest - 1
        suit = led if led >= 0 else card // 13
        win = 0.0
        if best < 0 or _beats(card, best, led, trump):
            win = _hold(sit, card, suit, after, 0, work)
        value = win + total - work[_W_PLAY + card]
        if stake:
            others = 1.0
            others_rest = hand & ~_bit(card)
            while others_rest:
                other = trailing_zeros(others_rest)
                others_rest &= others_rest - 1
                others *= 1.0 - work[_W_PLAY + other]
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
    v = _view(obs, c)
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
