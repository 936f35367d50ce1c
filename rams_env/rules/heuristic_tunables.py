"""The rule-based heuristic's tunables, written once for its two twins.

:mod:`rams_env.agents.heuristic` (Python) and :mod:`rams_env.compiled.heuristic` (its numba twin)
read these; neither keeps a copy (``hearts.h`` holds the constants of every file of OpenSpiel's
hearts the same way). The probability they share is :func:`rams_env.rules.odds.miss_chance`.
"""

from __future__ import annotations

UNDECIDED_KNOCK = 1.0  # weight of an opponent still to decide whether to knock (1: as if he knocked)
SIDE_TIMING = 0.85  # a side card must wait for its suit to be led (or for the lead)
RUFF_PER_VOID = 0.12  # extra trick chance of a trump per side suit the hand is void in
RUFF_CAP = 0.45  # the most that voids add to a trump's trick chance
BID_MARGIN = 0.3  # a bid or acceptance must promise this much more than the hand in hand
BETTER_SAMPLES = 24  # new hands sampled to value a better-cards bid
RANK_TIE_BREAK = 0.001  # per rank, taken off a card's play value: of equal values, the lower card
