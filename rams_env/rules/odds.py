"""Odds of cards drawn from a pool: the probability both heuristics (Python and compiled) compute.

:mod:`rams_env.compiled.heuristic_chances` tabulates :func:`miss_chance` and compiles its loop, so
that the two twins compute the same number from one definition.
"""

from __future__ import annotations

from functools import cache


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
