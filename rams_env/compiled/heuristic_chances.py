"""The heuristic twin, trick chances: ``Situation`` of :mod:`rams_env.agents.heuristic` (the unseen cards,
the opponents, the chance that a card takes a trick), and the layout of the scratch arrays.

A situation is a tuple of ints (the ``S_*`` entries); its tables and memos live in ``work``, at the
regions below, so that nothing allocates.

What it computes is what the Python agent computes, operation for operation; where it computes less,
it is because a value depends on less than the Python agent looks at:

- the chance that a card holds against every opponent (``Situation._top_chance``) depends on the card
  only through its suit, the unseen cards above it (``_higher``) and whether the known card beats it
  (``_beat``), so a situation tabulates it once per suit and count (``_tops``), each opponent's factor
  for all counts at once, and reads it off the table (``suit_top_chance``);
- opponents alike (the same weight and unknown cards, not holding the known card) have the same odds
  and the same factor in a product, computed for the first of them (``_kind``).
"""

from __future__ import annotations

import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from ..rules.cards import HAND_SIZE, KING, NUM_CARDS
from ..rules.config import MAX_PLAYERS
from ..rules.heuristic_tunables import RUFF_CAP, RUFF_PER_VOID, SIDE_TIMING, UNDECIDED_KNOCK
from ..rules.odds import miss_chance as python_miss
from .compiler import jit
from .heuristic_decode import (
    V_DONE,
    V_HAND,
    V_IN_TRICK,
    V_KNOCKED,
    V_KNOWN_SEAT,
    V_OPPONENTS,
    V_TURNED,
    V_UNSEEN,
    popcount,
)
from .layout import SUIT_MASK, above_mask, rank_of, suit_of

# ----------------------------------------------------------------------------- scratch arrays

WORK_SIZE = 448
# The table of top chances (``_tops``): a row per suit (a trump's led in trump, a side card's in its suit)
# and two rows where the known card beats the card (of the trump suit; of the known card's side suit), each
# by the count of unseen cards above the card.
_ROW = 16  # entries of a row: counts 0 to 12, padded
_ROWS = 6
ROW_TRUMP_BEATEN, ROW_SIDE_BEATEN = 4, 5
# Scratch regions of ``work``: a hand's (chance, card) pairs, a knock value's values, the chances of
# the cards in hand (by card), the situation's table of top chances, one opponent's factors in a row of
# it, the opponents' odds, the memo of draw chances, the side cards' draw terms.
W_CHANCE, W_CARD, W_VALUES, W_PLAY, _W_TOPS = 0, 8, 16, 32, 32 + NUM_CARDS
_W_FACTORS = _W_TOPS + _ROWS * _ROW
_W_ODDS = _W_FACTORS + _ROW  # per opponent seat (8 entries each): void chances, ruff chances by suit
_DRAWS = 64  # draw chances memoised per situation: (key, chance) pairs, a slot per key's hash (``draw_chance``)
_W_DRAWS = _W_ODDS + 8 * MAX_PLAYERS
_W_SIDE = _W_DRAWS + 2 * _DRAWS  # the side cards' draw terms (``_side_terms``): 2 + 39 entries
assert _W_SIDE + 2 + NUM_CARDS - 13 <= WORK_SIZE
# ``iwork``: the pool a better-cards bid samples from.
I_POOL = 0


# ----------------------------------------------------------------------------- situations

# A situation (``Situation`` of the Python agent) is a tuple of ints:
(S_TRUMP, S_UNSEEN, S_OPPONENTS, S_KNOWN_SEAT, S_KNOWN, S_KNOCKED, S_POOL, S_UNKNOWN, S_KIND, S_BEATEN) = range(10)
S_COUNT = 10  # four entries: the unseen cards of each suit
# S_UNKNOWN and S_KIND hold a byte per seat: the cards of his hand the player does not know, and what his
# factor in ``hold`` depends on besides the card (``_kind``); S_BEATEN is the mask of the cards the known
# card beats (of its suit, ranked below it).


@jit
def situation(v: tuple, trump: int, hand_size: int, work: np.ndarray) -> tuple:
    """The unseen cards and the opponents (``HeuristicAgent._new_situation``) under ``trump``, each
    opponent holding ``hand_size`` cards (-1: what he holds now); its odds and table of top chances in
    ``work`` (for the situation of play, ``hand_size`` -1, the rows of the suits in hand only: it values
    no other card), its memo of draw chances cleared."""
    unseen = v[V_UNSEEN]
    for i in range(_DRAWS):
        work[_W_DRAWS + 2 * i] = -1.0
    work[_W_SIDE] = -1.0
    unknowns, kinds = 0, 0
    rest = v[V_OPPONENTS]
    while rest:
        r = trailing_zeros(rest)
        rest &= rest - 1
        size = hand_size if hand_size >= 0 else HAND_SIZE - v[V_DONE] - ((v[V_IN_TRICK] >> r) & 1)
        unknown = max(0, size - (1 if r == v[V_KNOWN_SEAT] else 0))
        unknowns |= unknown << (8 * r)
        kinds |= _kind(r, unknown, (v[V_KNOCKED] >> r) & 1, v[V_KNOWN_SEAT]) << (8 * r)
    sit = (
        trump,
        unseen,
        v[V_OPPONENTS],
        v[V_KNOWN_SEAT],
        v[V_TURNED],
        v[V_KNOCKED],
        popcount(unseen),
        unknowns,
        kinds,
        SUIT_MASK[suit_of(v[V_TURNED])] & ~above_mask(suit_of(v[V_TURNED]), rank_of(v[V_TURNED]) - 1)
        if v[V_KNOWN_SEAT] >= 0
        else 0,
        popcount(unseen & SUIT_MASK[0]),
        popcount(unseen & SUIT_MASK[1]),
        popcount(unseen & SUIT_MASK[2]),
        popcount(unseen & SUIT_MASK[3]),
    )
    _odds(sit, work)
    suits = 15
    if hand_size < 0:
        suits = 0
        for suit in range(4):
            if v[V_HAND] & SUIT_MASK[suit]:
                suits |= 1 << suit
    _tops(sit, suits, work)
    return sit


@jit(inline=True)
def _kind(r: int, unknown: int, knocked: int, known_seat: int) -> int:
    """What opponent ``r``'s factor in ``hold`` depends on besides the card: his weight (``knocked``) and
    ``unknown`` cards, or his seat when he holds the known card (his odds depend on it too). Opponents of
    one kind have the same odds (``_odds``) and the same factor."""
    if r == known_seat:
        return 128 + r
    return 2 * unknown + knocked


@jit(inline=True)
def _byte(packed: int, r: int) -> int:
    """Seat ``r``'s byte of ``packed`` (``S_UNKNOWN``, ``S_KIND``)."""
    return (packed >> (8 * r)) & 255


@jit
def _odds(sit: tuple, work: np.ndarray) -> None:
    """Per opponent and suit, what ``_beat`` needs that does not depend on the card (``Situation._odds``):
    the chance he is void in the suit, and void in it holding a trump, at ``work[_W_ODDS:]``."""
    trump, pool, known = sit[S_TRUMP], sit[S_POOL], sit[S_KNOWN]
    last, previous = -1, -1
    rest = sit[S_OPPONENTS]
    while rest:
        r = trailing_zeros(rest)
        rest &= rest - 1
        kind = _byte(sit[S_KIND], r)
        if kind == last:  # the same odds as the opponent before
            for i in range(8):
                work[_W_ODDS + 8 * r + i] = work[_W_ODDS + 8 * previous + i]
            previous = r
            continue
        last, previous = kind, r
        unknown = _byte(sit[S_UNKNOWN], r)
        has_trump = r == sit[S_KNOWN_SEAT] and suit_of(known) == trump
        for suit in range(4):
            void = miss_chance(sit[S_COUNT + suit], unknown, pool)
            trumps = 1.0 if has_trump else 1.0 - miss_chance(sit[S_COUNT + trump], unknown, pool - sit[S_COUNT + suit])
            work[_W_ODDS + 8 * r + suit] = void
            work[_W_ODDS + 8 * r + 4 + suit] = void * trumps


@jit(inline=True)
def _weight(sit: tuple, r: int) -> float:
    return 1.0 if (sit[S_KNOCKED] >> r) & 1 else UNDECIDED_KNOCK


_MAX_TAKE = 8
assert HAND_SIZE < _MAX_TAKE  # an opponent's unknown cards, the ``take`` of every look-up in ``_tops``
# miss_chance for every (avoid, take, pool) an opponent meets, computed by the shared function (rules/odds.py).
MISS = np.array(
    [[[python_miss(a, t, p) for p in range(NUM_CARDS + 1)] for t in range(_MAX_TAKE)] for a in range(NUM_CARDS + 1)]
)
# The same numbers by (take, pool, avoid) for the avoids of a row of ``_tops``, so that a row reads them in order.
MISS_ROWS = np.ascontiguousarray(MISS[:_ROW].transpose(1, 2, 0))
miss_loop = jit(python_miss.__wrapped__)  # the same loop compiled, beyond the table


@jit
def miss_chance(avoid: int, take: int, pool: int) -> float:
    """``heuristic.miss_chance`` (a table look-up where the table reaches)."""
    if 0 <= avoid <= NUM_CARDS and 0 <= take < _MAX_TAKE and 0 <= pool <= NUM_CARDS:
        return MISS[avoid, take, pool]
    return miss_loop(avoid, take, pool)


@jit(inline=True)
def _higher(sit: tuple, card: int, lower_trumps: int) -> int:
    """``Situation._higher``."""
    suit = suit_of(card)
    higher = popcount(sit[S_UNSEEN] & above_mask(suit, rank_of(card)))
    return max(0, higher - lower_trumps) if suit == sit[S_TRUMP] else higher


@jit(inline=True)
def _beat(sit: tuple, r: int, card: int, led: int, higher: int, work: np.ndarray) -> float:
    """``Situation._beat``: the chance that opponent ``r`` can beat ``card`` (odds from ``_odds``)."""
    trump, suit = sit[S_TRUMP], suit_of(card)
    known = sit[S_KNOWN]
    if r == sit[S_KNOWN_SEAT] and suit_of(known) == suit and rank_of(known) > rank_of(card):
        return 1.0
    unknown = _byte(sit[S_UNKNOWN], r)
    pool = sit[S_POOL]
    if suit == trump:
        if led == trump:
            return 1.0 - miss_chance(higher, unknown, pool)
        return work[_W_ODDS + 8 * r + led] * (1.0 - miss_chance(higher, unknown, pool - sit[S_COUNT + led]))
    return min(1.0, 1.0 - miss_chance(higher, unknown, pool) + work[_W_ODDS + 8 * r + 4 + suit])


@jit
def hold(sit: tuple, card: int, led: int, players: int, lower_trumps: int, work: np.ndarray) -> float:
    """``Situation._hold``: the chance ``card`` still wins once ``players`` (a seat mask) have played; a
    factor per opponent, in seat order (an opponent of the kind of the one before has his factor)."""
    higher = _higher(sit, card, lower_trumps)
    p = 1.0
    factor, last = 1.0, -1
    rest = players
    while rest:
        r = trailing_zeros(rest)
        rest &= rest - 1
        kind = _byte(sit[S_KIND], r)
        if kind != last:
            factor = 1.0 - _weight(sit, r) * _beat(sit, r, card, led, higher, work)
            last = kind
        p *= factor
    return p


# ----------------------------------------------------------------------------- top chances


@jit
def _tops(sit: tuple, suits: int, work: np.ndarray) -> None:
    """The situation's table of top chances at ``work[_W_TOPS:]``, the rows of the ``suits`` (a mask): ``hold``
    against every opponent of a card led in its suit (a trump in trump), by the row of ``suit_top_chance`` and
    the count of unseen cards above the card (``_higher``), up to the suit's unseen cards. Each entry is the
    product, in seat order, of the opponents' factors (``_factors``)."""
    trump, known = sit[S_TRUMP], sit[S_KNOWN]
    for row in range(_ROWS):
        suit = row
        if row >= 4:  # a beaten row, where the known card beats cards of its suit
            suit = suit_of(known)
            if not sit[S_BEATEN] or (row == ROW_TRUMP_BEATEN) != (suit == trump):
                continue
        if not (suits >> suit) & 1:
            continue
        size = sit[S_COUNT + suit] + 1
        at = _W_TOPS + row * _ROW
        for higher in range(size):
            work[at + higher] = 1.0
        last = -1
        rest = sit[S_OPPONENTS]
        while rest:
            r = trailing_zeros(rest)
            rest &= rest - 1
            kind = _byte(sit[S_KIND], r)
            if kind != last:
                _factors(sit, r, suit, row >= 4, size, work)
                last = kind
            for higher in range(size):
                work[at + higher] *= work[_W_FACTORS + higher]


@jit
def _factors(sit: tuple, r: int, suit: int, beaten: bool, size: int, work: np.ndarray) -> None:
    """Opponent ``r``'s factor ``1 - weight * _beat`` for the cards of ``suit`` led in their suit, by the count
    of unseen cards above them (``size`` counts), at ``work[_W_FACTORS:]``; ``beaten``: where the known card
    beats them."""
    w = _weight(sit, r)
    if beaten and r == sit[S_KNOWN_SEAT]:
        for higher in range(size):
            work[_W_FACTORS + higher] = 1.0 - w * 1.0
        return
    misses = MISS_ROWS[_byte(sit[S_UNKNOWN], r), sit[S_POOL]]  # miss_chance(higher, unknown, pool) by higher
    if suit == sit[S_TRUMP]:
        for higher in range(size):
            work[_W_FACTORS + higher] = 1.0 - w * (1.0 - misses[higher])
    else:
        ruffs = work[_W_ODDS + 8 * r + 4 + suit]
        for higher in range(size):
            work[_W_FACTORS + higher] = 1.0 - w * min(1.0, 1.0 - misses[higher] + ruffs)


@jit(inline=True)
def suit_top_chance(sit: tuple, suit: int, rank: int, lower_trumps: int, work: np.ndarray) -> float:
    """``Situation._top_chance`` of the card of ``suit`` and ``rank`` (a trump that plays ``lower_trumps`` first,
    or a side card, ``lower_trumps`` -1, led in its suit): the table's entry in the suit's row (the beaten row
    where the known card beats it) at its ``_higher``."""
    trump = sit[S_TRUMP]
    higher = popcount((sit[S_UNSEEN] >> (13 * suit)) & 0x1FFF & ~((2 << rank) - 1))
    row = suit
    if suit == trump:
        higher = max(0, higher - lower_trumps)
        if (sit[S_BEATEN] >> (13 * suit + rank)) & 1:
            row = ROW_TRUMP_BEATEN
    elif (sit[S_BEATEN] >> (13 * suit + rank)) & 1:
        row = ROW_SIDE_BEATEN
    return work[_W_TOPS + row * _ROW + higher]


# ----------------------------------------------------------------------------- card and draw chances


@jit
def voids(sit: tuple, hand: int, floor: int) -> int:
    """``Situation._voids``: side suits without a card of rank ``floor`` or higher."""
    held = 0
    for suit in range(4):
        if suit != sit[S_TRUMP] and hand & above_mask(suit, floor - 1):
            held += 1
    return 3 - held


@jit(inline=True)
def ruff_of(void_suits: int) -> float:
    """What ``void_suits`` add to a trump's trick chance (``Situation.card_chance``)."""
    return min(RUFF_CAP, RUFF_PER_VOID * void_suits)


@jit(inline=True)
def chance_of(top: float, trump: bool, ruff: float) -> float:
    """``Situation.card_chance`` from the card's ``suit_top_chance``: a trump's with its ``ruff_of``, a side card's."""
    if trump:
        return 1.0 - (1.0 - top) * (1.0 - ruff)
    return SIDE_TIMING * top


@jit
def hand_chances(sit: tuple, hand: int, planning: bool, work: np.ndarray) -> float:
    """``Situation.card_chance`` of every card of ``hand`` at ``work[W_PLAY + card]``, and their sum in card
    order; the hand's voids and each trump's lower trumps are counted once for all its cards."""
    trump = sit[S_TRUMP]
    ruff = ruff_of(voids(sit, hand, KING if planning else 0))  # a trump's
    total = 0.0
    lower = 0  # the hand's trumps so far: those below the card when it is a trump
    for suit in range(4):
        ranks = (hand >> (13 * suit)) & 0x1FFF
        while ranks:
            rank = trailing_zeros(ranks)
            ranks &= ranks - 1
            is_trump = suit == trump
            chance = chance_of(suit_top_chance(sit, suit, rank, lower if is_trump else -1, work), is_trump, ruff)
            if is_trump:
                lower += 1
            work[W_PLAY + 13 * suit + rank] = chance
            total += chance
    return total


@jit
def draw_chance(sit: tuple, hand: int, void_suits: int, work: np.ndarray) -> float:
    """``Situation.draw_chance``: the average planning chance of an unseen card, summed in card order;
    memoised, as in Python, on what it depends on: the hand's trumps and its ``void_suits`` to come
    (``voids(sit, hand, KING)``)."""
    unseen = sit[S_UNSEEN]
    if unseen == 0:
        return 0.0
    trump = sit[S_TRUMP]
    trumps = (hand & SUIT_MASK[trump]) >> (13 * trump)
    key = (trumps << 2) | void_suits
    at = _W_DRAWS + 2 * (((key * 0x9E3779B1) >> 12) & (_DRAWS - 1))  # the key's slot: a collision forgets
    if work[at] == key:
        return work[at + 1]
    chance = _draw_chance(sit, trumps, void_suits, work)
    work[at] = key
    work[at + 1] = chance
    return chance


@jit
def _draw_chance(sit: tuple, trumps: int, void_suits: int, work: np.ndarray) -> float:
    """``draw_chance`` computed, for a hand holding the trumps of rank mask ``trumps``: the side suits' terms,
    the same for every hand, come from ``_side_terms``; a trump's is ``chance_of`` its ``suit_top_chance``."""
    if work[_W_SIDE] < 0.0:
        _side_terms(sit, work)
    ruff = ruff_of(void_suits)
    trump = sit[S_TRUMP]
    total = work[_W_SIDE + 1]  # the suits below trump, summed in card order
    ranks = (sit[S_UNSEEN] >> (13 * trump)) & 0x1FFF  # the unseen trumps, by rank
    above = popcount(ranks)
    while ranks:
        rank = trailing_zeros(ranks)
        ranks &= ranks - 1
        above -= 1  # the unseen trumps above this one
        lower = popcount(trumps & ((1 << rank) - 1))
        beaten = (sit[S_BEATEN] >> (13 * trump + rank)) & 1
        top = work[_W_TOPS + (ROW_TRUMP_BEATEN if beaten else trump) * _ROW + max(0, above - lower)]
        total += chance_of(top, True, ruff)  # suit_top_chance(sit, trump, rank, lower, work)
    for k in range(int(work[_W_SIDE])):  # the suits above trump, card by card
        total += work[_W_SIDE + 2 + k]
    return total / sit[S_POOL]


@jit
def _side_terms(sit: tuple, work: np.ndarray) -> None:
    """Once a situation (``work[_W_SIDE]`` -1 until then), at ``work[_W_SIDE:]``: the count of unseen cards
    in the suits above trump, the sum in card order of the side terms below trump, then the terms above it,
    in card order. Each term is ``chance_of`` the card's ``suit_top_chance``; the unseen cards of a suit are
    taken in order, so that the unseen cards above one (``_higher``) are counted down."""
    trump = sit[S_TRUMP]
    total = 0.0
    count = 0
    for suit in range(4):
        if suit == trump:
            continue
        cards = sit[S_UNSEEN] & SUIT_MASK[suit]
        higher = sit[S_COUNT + suit]
        while cards:
            card = trailing_zeros(cards)
            cards &= cards - 1
            higher -= 1
            row = ROW_SIDE_BEATEN if (sit[S_BEATEN] >> card) & 1 else suit
            term = chance_of(work[_W_TOPS + row * _ROW + higher], False, 0.0)  # suit_top_chance(sit, suit, rank, -1)
            if suit < trump:
                total += term
            else:
                work[_W_SIDE + 2 + count] = term
                count += 1
    work[_W_SIDE + 1] = total
    work[_W_SIDE] = count
