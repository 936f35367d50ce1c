"""Whole ramsar (and the rest of matches) with every seat played by the heuristic twin, for the equity model.

One compiled call plays ``seeds.size`` ramsar one after another, each from ``Game(config,
seeds[k], scores=start_scores[k])`` (a random dealer) with seat ``i``'s heuristic seeded
``hseeds[k, i]``, and records at every deal start the scores and the dealer, then the rams's
winners. Nothing is allocated: the caller passes a :class:`~.workspace.Workspace` and the records
(:func:`ramsar_records`; see ``rams_env.equity.simulate_ramsar``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .compiler import jit
from .drivers import next_deal_or_end
from .encode import encode
from .heuristic import heuristic_action
from .layout import (
    C_PLAYERS,
    CURRENT,
    DEAL_OVER,
    DEALER,
    FLIGHTS,
    GAME_WINNERS,
    LEGAL,
    PHASE,
    RAMS_NUMBER,
    RAMS_WINNERS,
    SCORES,
    TOTALS,
)
from .mt import mt_seed
from .rules import apply, new_game_with
from .workspace import Workspace


class RamsarRecords(NamedTuple):
    """What :func:`play_ramsar` records: at every deal start the ``scores`` (M, n), the ``dealer`` (M,)
    and its ``rams`` (M,); per rams ``k`` the seat mask of its ``winners[k]``."""

    scores: np.ndarray
    dealer: np.ndarray
    rams: np.ndarray
    winners: np.ndarray


def ramsar_records(deal_starts: int, ramsar: int, num_players: int) -> RamsarRecords:
    """Empty records for ``ramsar`` ramsar with room for ``deal_starts`` deal starts."""
    return RamsarRecords(
        np.zeros((deal_starts, num_players), np.int64),
        np.zeros(deal_starts, np.int64),
        np.zeros(deal_starts, np.int64),
        np.zeros(ramsar, np.int64),
    )


@jit
def play_ramsar(
    ws: Workspace, c: np.ndarray, seeds: np.ndarray, hseeds: np.ndarray, start_scores: np.ndarray, out: RamsarRecords
) -> int:
    """Play rams ``k`` for every ``k`` of ``seeds`` (``c`` must end an episode with the rams) and
    return the number of deal starts recorded in ``out``, or -1 if they did not fit (then the
    records are incomplete)."""
    s, rng, hrngs, deck, obs, work, iwork = ws
    rec_scores, rec_dealer, rec_rams, winners = out
    n = c[C_PLAYERS]
    count = 0
    capacity = rec_dealer.size
    for k in range(seeds.size):
        for seat in range(n):
            mt_seed(hrngs[seat], hseeds[k, seat])
        new_game_with(s, c, rng, seeds[k], -1, start_scores[k], deck)
        while True:
            if count >= capacity:
                return -1
            for seat in range(n):
                rec_scores[count, seat] = s[SCORES + seat]
            rec_dealer[count] = s[DEALER]
            rec_rams[count] = k
            count += 1
            while s[PHASE] < DEAL_OVER and s[CURRENT] >= 0:
                seat = s[CURRENT]
                encode(s, c, seat, obs)
                apply(s, c, heuristic_action(obs, c, s[LEGAL], hrngs[seat], work, iwork))
            if next_deal_or_end(s, c, rng):
                break
        winners[k] = s[RAMS_WINNERS]
    return count


@jit
def play_matches(
    ws: Workspace,
    c: np.ndarray,
    seeds: np.ndarray,
    hseeds: np.ndarray,
    dealer: int,
    scores: np.ndarray,
    totals: np.ndarray,
    flights: np.ndarray,
    rams_number: int,
    winners: np.ndarray,
) -> None:
    """Play the rest of a match ``seeds.size`` times (``c`` must end an episode with the match), each
    from a deal dealt by ``dealer`` with ``scores`` in rams ``rams_number`` (0-based) and the earlier
    ramsar's ``totals`` and ``flights``, every seat the heuristic; ``winners[k]``: the match's winners."""
    s, rng, hrngs, deck, obs, work, iwork = ws
    n = c[C_PLAYERS]
    for k in range(seeds.size):
        for seat in range(n):
            mt_seed(hrngs[seat], hseeds[k, seat])
        new_game_with(s, c, rng, seeds[k], dealer, scores, deck)
        s[RAMS_NUMBER] = rams_number
        for seat in range(n):
            s[TOTALS + seat] = totals[seat]
            s[FLIGHTS + seat] = flights[seat]
        while True:
            while s[PHASE] < DEAL_OVER and s[CURRENT] >= 0:
                seat = s[CURRENT]
                encode(s, c, seat, obs)
                apply(s, c, heuristic_action(obs, c, s[LEGAL], hrngs[seat], work, iwork))
            if next_deal_or_end(s, c, rng):
                break
        winners[k] = s[GAME_WINNERS]
