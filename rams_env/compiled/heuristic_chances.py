"""The heuristic twin, trick chances: ``Situation`` of :mod:`rams_env.agents.heuristic` (the unseen cards,
the opponents, the chance that a card takes a trick), and the layout of the scratch arrays.

A situation is a tuple of ints (the ``S_*`` entries); its memos live in ``work``, at the regions
below, so that nothing allocates.
"""

from __future__ import annotations

import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from ..rules.cards import HAND_SIZE, KING, NUM_CARDS
from ..rules.config import MAX_PLAYERS
from ..rules.heuristic_tunables import RUFF_CAP, RUFF_PER_VOID, SIDE_TIMING, UNDECIDED_KNOCK
from ..rules.odds import miss_chance as python_miss
from .compiler import jit
from .heuristic_decode import V_DONE, V_IN_TRICK, V_KNOCKED, V_KNOWN_SEAT, V_OPPONENTS, V_TURNED, V_UNSEEN, popcount
from .layout import SUIT_MASK, above_mask, rank_of, suit_of

# ----------------------------------------------------------------------------- scratch arrays

WORK_SIZE = 448
_MAX_LOWER = 6  # trumps below a trump that the memo distinguishes (a hand holds at most six cards)
_MEMO_SIZE = NUM_CARDS + 13 * (_MAX_LOWER + 1)
# Scratch regions of ``work``: a hand's (chance, card) pairs, a knock value's values, the chances of
# the cards in hand (by card), the situation's memo of trick chances, its opponents' odds.
W_CHANCE, W_CARD, W_VALUES, W_PLAY, _W_MEMO = 0, 8, 16, 32, 32 + NUM_CARDS
_W_ODDS = _W_MEMO + _MEMO_SIZE  # per opponent seat (8 entries each): void chances, ruff chances by suit
_DRAWS = 32  # draw chances memoised per situation: a count, then (key, chance) pairs
_W_DRAWS = _W_ODDS + 8 * MAX_PLAYERS
_W_SIDE = _W_DRAWS + 1 + 2 * _DRAWS  # the side cards' draw terms (``_side_terms``)
# ``iwork``: the pool a better-cards bid samples from.
I_POOL = 0


# ----------------------------------------------------------------------------- situations

# A situation (``Situation`` of the Python agent) is a tuple of ints:
(S_TRUMP, S_UNSEEN, S_OPPONENTS, S_SIZE, S_DONE, S_IN_TRICK, S_KNOWN_SEAT, S_KNOWN, S_KNOCKED, S_POOL) = range(10)
S_COUNT = 10  # four entries: the unseen cards of each suit


@jit
def situation(v: tuple, trump: int, hand_size: int, work: np.ndarray) -> tuple:
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
        has_trump = r == sit[S_KNOWN_SEAT] and suit_of(known) == trump
        for suit in range(4):
            void = miss_chance(sit[S_COUNT + suit], unknown, pool)
            trumps = 1.0 if has_trump else 1.0 - miss_chance(sit[S_COUNT + trump], unknown, pool - sit[S_COUNT + suit])
            work[_W_ODDS + 8 * r + suit] = void
            work[_W_ODDS + 8 * r + 4 + suit] = void * trumps


@jit
def _weight(sit: tuple, r: int) -> float:
    return 1.0 if (sit[S_KNOCKED] >> r) & 1 else UNDECIDED_KNOCK


_MAX_TAKE = 8
# miss_chance for every (avoid, take, pool) an opponent meets, computed by the shared function (rules/odds.py).
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
    size = sit[S_SIZE] if sit[S_SIZE] >= 0 else HAND_SIZE - sit[S_DONE] - ((sit[S_IN_TRICK] >> r) & 1)
    return max(0, size - (1 if r == sit[S_KNOWN_SEAT] else 0))


@jit
def _higher(sit: tuple, card: int, lower_trumps: int) -> int:
    """``Situation._higher``."""
    suit = suit_of(card)
    higher = popcount(sit[S_UNSEEN] & above_mask(suit, rank_of(card)))
    return max(0, higher - lower_trumps) if suit == sit[S_TRUMP] else higher


@jit
def _beat(sit: tuple, r: int, card: int, led: int, higher: int, work: np.ndarray) -> float:
    """``Situation._beat``: the chance that opponent ``r`` can beat ``card`` (odds from ``_odds``)."""
    trump, suit = sit[S_TRUMP], suit_of(card)
    known = sit[S_KNOWN]
    if r == sit[S_KNOWN_SEAT] and suit_of(known) == suit and rank_of(known) > rank_of(card):
        return 1.0
    unknown = _unknown(sit, r)
    pool = sit[S_POOL]
    if suit == trump:
        if led == trump:
            return 1.0 - miss_chance(higher, unknown, pool)
        return work[_W_ODDS + 8 * r + led] * (1.0 - miss_chance(higher, unknown, pool - sit[S_COUNT + led]))
    return min(1.0, 1.0 - miss_chance(higher, unknown, pool) + work[_W_ODDS + 8 * r + 4 + suit])


@jit
def hold(sit: tuple, card: int, led: int, players: int, lower_trumps: int, work: np.ndarray) -> float:
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
    """``Situation._top_chance``: ``hold`` against every opponent, memoised in ``work`` for the
    situation (a side card by card, ``lower_trumps`` -1; a trump by rank and ``lower_trumps``)."""
    if lower_trumps < 0:
        at = _W_MEMO + card
        if work[at] < 0.0:
            work[at] = hold(sit, card, suit_of(card), sit[S_OPPONENTS], 0, work)
        return work[at]
    lower = min(lower_trumps, _MAX_LOWER)
    at = _W_MEMO + NUM_CARDS + rank_of(card) * (_MAX_LOWER + 1) + lower
    if lower != lower_trumps:
        return hold(sit, card, sit[S_TRUMP], sit[S_OPPONENTS], lower_trumps, work)
    if work[at] < 0.0:
        work[at] = hold(sit, card, sit[S_TRUMP], sit[S_OPPONENTS], lower, work)
    return work[at]


@jit
def _voids(sit: tuple, hand: int, floor: int) -> int:
    """``Situation._voids``: side suits without a card of rank ``floor`` or higher."""
    held = 0
    for suit in range(4):
        if suit != sit[S_TRUMP] and hand & above_mask(suit, floor - 1):
            held += 1
    return 3 - held


@jit
def _lower_trumps(sit: tuple, hand: int, rank: int) -> int:
    """Trumps of ``hand`` ranked below ``rank``."""
    trump = sit[S_TRUMP]
    return popcount(hand & SUIT_MASK[trump] & ~above_mask(trump, rank - 1))


@jit
def card_chance(sit: tuple, card: int, hand: int, planning: bool, work: np.ndarray) -> float:
    """``Situation.card_chance``."""
    if suit_of(card) == sit[S_TRUMP]:
        top = _top_chance(sit, card, _lower_trumps(sit, hand, rank_of(card)), work)
        ruff = min(RUFF_CAP, RUFF_PER_VOID * _voids(sit, hand, KING if planning else 0))
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
    ruff = min(RUFF_CAP, RUFF_PER_VOID * voids)
    total = work[_W_SIDE + 1]  # the suits below trump, summed in card order
    rest = sit[S_UNSEEN] & SUIT_MASK[trump]
    while rest:
        card = trailing_zeros(rest)
        rest &= rest - 1
        top = _top_chance(sit, card, _lower_trumps(sit, hand, rank_of(card)), work)
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
