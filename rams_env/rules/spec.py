"""The shared spec: facts the twins must agree on, each written once.

The Python engine (:mod:`rams_env.rules`) and its compiled twin (:mod:`rams_env.compiled`), and the
Python heuristic (:mod:`rams_env.agents.heuristic`) and its compiled twin
(:mod:`rams_env.compiled.heuristic`), read these; neither twin keeps a copy (``hearts.h`` holds the
constants of every file of OpenSpiel's hearts the same way). The card and deck sizes are in
:mod:`.cards`, the action ids in :mod:`.actions`, the episode kinds in :mod:`.episode`.

Seeds follow one rule, Gymnasium's (``gymnasium.utils.seeding.np_random``): a non-negative int or
None, here also below 2**64 (the compiled generator is seeded from two 32-bit words).
:func:`check_seed` is the one check, :class:`SeedError` its one error, wherever a seed enters.
"""

from __future__ import annotations

import operator
from functools import cache
from typing import Any

MT_STATE_SIZE = 625  # words of a Mersenne Twister state (random.Random's): 624 and the position

# The heuristic's tunables (agents/heuristic.py and its compiled twin).
UNDECIDED_KNOCK = 1.0  # weight of an opponent still to decide whether to knock (1: as if he knocked)
SIDE_TIMING = 0.85  # a side card must wait for its suit to be led (or for the lead)
RUFF_PER_VOID = 0.12  # extra trick chance of a trump per side suit the hand is void in
RUFF_CAP = 0.45  # the most that voids add to a trump's trick chance
BID_MARGIN = 0.3  # a bid or acceptance must promise this much more than the hand in hand
BETTER_SAMPLES = 24  # new hands sampled to value a better-cards bid
RANK_TIE_BREAK = 0.001  # per rank, taken off a card's play value: of equal values, the lower card


@cache
def miss_chance(avoid: int, take: int, pool: int) -> float:
    """Probability that ``take`` cards drawn from ``pool`` include none of ``avoid`` given cards."""
    if take <= 0 or avoid <= 0:
        return 1.0
    if pool - avoid < take:
        return 0.0
    p = 1.0
    for i in range(take):
        p *= (pool - avoid - i) / (pool - i)
    return p


SEED_LIMIT = 2**64  # seeds are below this


class SeedError(TypeError, ValueError):
    """A seed that is not a non-negative int below 2**64 (nor None where None is taken).

    Both a ``TypeError`` and a ``ValueError``, so that callers catching either (as Gymnasium's and
    numpy's seed checks raise one or the other) catch it.
    """


def seed_error(seed: Any, what: str = "seed") -> SeedError:
    """The one message of a bad seed."""
    return SeedError(f"{what} must be a non-negative int below 2**64, got {seed!r}")


def check_seed(seed: Any, what: str = "seed") -> int | None:
    """``seed`` as a Python int (numpy integers taken, bools refused), or None; else :class:`SeedError`."""
    if seed is None:
        return None
    if isinstance(seed, bool):
        raise seed_error(seed, what)
    try:
        value = operator.index(seed)
    except TypeError:
        raise seed_error(seed, what) from None
    if not 0 <= value < SEED_LIMIT:
        raise seed_error(seed, what)
    return value


def require_seed(seed: Any, what: str = "seed") -> int:
    """:func:`check_seed` where a seed must be given (None refused with the same message)."""
    value = check_seed(seed, what)
    if value is None:
        raise seed_error(seed, what)
    return value


def wrap_seed(value: int, bits: int = 64) -> int:
    """A seed derived by arithmetic (``seed * 1000 + k``) kept in range: ``value`` modulo ``2**bits``, so
    that every seed :func:`check_seed` takes works, and the seeds that already fit keep their value
    (``bits=32`` for libraries that seed numpy's legacy generator, which takes 32 bits)."""
    return int(value) % (1 << bits)
