"""The heuristic twin, reading the observation: the fields the Python agent decodes
(``decoding.decode``), as a tuple of ints (the ``V_*`` entries) read off the encoded vector."""

from __future__ import annotations

import numpy as np
from numba.extending import intrinsic

from ..obs.encoding import FIELD, SLICES
from ..rules.cards import NUM_CARDS, deck_cards
from ..rules.config import MAX_PLAYERS
from ..rules.heuristic_tunables import UNDECIDED_KNOCK
from .compiler import jit
from .layout import AT_DEALER, C_START, ON_TABLE, card_bit

# ----------------------------------------------------------------------------- offsets and scales

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


# ----------------------------------------------------------------------------- reading the observation


@intrinsic
def popcount(typingctx, x):
    """The number of set bits of an integer (LLVM's ctpop)."""

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return x(x), codegen


@jit
def _set(obs: np.ndarray, i: int) -> bool:
    return obs[i] > 0.5


@jit(inline=True)
def _cards(obs: np.ndarray, at: int) -> int:
    """The card mask of a 52-entry slice."""
    mask = np.int64(0)
    for c in range(NUM_CARDS):  # branch-free: the compiler vectorises it
        mask |= np.int64(obs[at + c] > 0.5) << np.int64(c)
    return mask


@jit
def one_hot(obs: np.ndarray, at: int, size: int) -> int:
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
def decode(obs: np.ndarray, c: np.ndarray) -> tuple:
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
            in_trick |= card_bit(r)
    turned = one_hot(obs, O_TURNED, NUM_CARDS)
    turned_at = one_hot(obs, O_TURNED_AT, 2)
    dealer = one_hot(obs, O_DEALER, MAX_PLAYERS)
    known_seat = -1
    if turned_at == ON_TABLE:
        seen |= card_bit(turned)
    elif turned_at == AT_DEALER and dealer != 0:
        seen |= card_bit(turned)
        known_seat = dealer
    deck32 = _set(obs, O_DECK32)
    deck = DECK32 if deck32 else DECK52
    opponents, knocked, any_knocked = 0, 0, 0
    for r in range(n):
        if _set(obs, O_KNOCKED + r):
            any_knocked = 1
            knocked |= card_bit(r)
        if r > 0 and not _set(obs, O_PASSED + r) and (_set(obs, O_KNOCKED + r) or UNDECIDED_KNOCK > 0.0):
            opponents |= card_bit(r)
    return (
        hand,
        one_hot(obs, O_TRUMP, 4),
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
        one_hot(obs, O_PHASE, 6),
        known_seat,
        any_knocked,
    )
