"""The rules twin, scoring: how deals, ramsar and matches score and end (:mod:`rams_env.rules.scoring`).

The functions follow ``rules/scoring.py`` one by one, under the same names; ``s`` is the state row,
``c`` the config vector (see :mod:`.rules`).
"""

from __future__ import annotations

import numpy as np

from ..rules.cards import ALL_JACKS_BONUS, ALL_JACKS_NO_TRICK, FIVE_OF_A_SUIT_BONUS
from .compiler import jit
from .layout import (
    ACES_HELD,
    ACTIVE,
    C_END_AT_ZERO,
    C_FLIGHT_CAP,
    C_FLIGHT_FINE,
    C_PLAYERS,
    C_RAMSAR,
    C_SWEDISH,
    CURRENT,
    DEAL_OVER,
    FLIGHTS,
    GAME_OVER,
    GAME_WINNERS,
    JACK_CARDS,
    JACKS,
    JACKS_SHOWN,
    NUM_PLAYING,
    PHASE,
    PLAY,
    PLAY_ORDER,
    RAMS_FLIGHTS,
    RAMS_NUMBER,
    RAMS_OVER,
    RAMS_WINNERS,
    SCORES,
    SHOWN,
    SHOWN_BY,
    TOTALS,
    TRICKS_WON,
    card_bit,
)


@jit
def take_trick_point(s: np.ndarray, c: np.ndarray, seat: int) -> bool:
    if s[PHASE] != PLAY:
        s[TRICKS_WON + seat] += 1
    s[SCORES + seat] -= 1
    if c[C_END_AT_ZERO] and s[SCORES + seat] == 0:
        end_rams(s, c, card_bit(seat))
        return True
    return False


@jit
def show_jacks(s: np.ndarray, seat: int) -> None:
    if s[JACKS_SHOWN + seat]:
        return
    s[JACKS_SHOWN + seat] = 1
    s[SHOWN] |= s[JACK_CARDS + seat]
    s[SHOWN_BY] |= card_bit(seat)


# finish_deal with score_russian_deal inlined
@jit
def finish_deal(s: np.ndarray, c: np.ndarray) -> None:
    n, fine = c[C_PLAYERS], c[C_FLIGHT_FINE]
    for seat in range(n):
        if c[C_SWEDISH]:
            if s[ACTIVE + seat] == 1 and s[TRICKS_WON + seat] == 0:
                s[SCORES + seat] = min(s[SCORES + seat] + fine, c[C_FLIGHT_CAP])
                s[FLIGHTS + seat] += 1
                s[RAMS_FLIGHTS + seat] += 1
            continue
        bonus = s[JACKS + seat]
        if bonus:
            show_jacks(s, seat)
        if s[ACTIVE + seat] != 1:
            s[SCORES + seat] -= bonus
        elif s[TRICKS_WON + seat]:
            s[SCORES + seat] -= s[TRICKS_WON + seat] + s[ACES_HELD + seat] + bonus
        elif bonus:
            s[SCORES + seat] -= ALL_JACKS_NO_TRICK if bonus == ALL_JACKS_BONUS else 0
        else:
            s[SCORES + seat] += fine + s[ACES_HELD + seat]
            s[FLIGHTS + seat] += 1
            s[RAMS_FLIGHTS + seat] += 1
    _check_zero(s, c)


@jit
def score_flush(s: np.ndarray, c: np.ndarray, holder: int) -> None:
    for k in range(s[NUM_PLAYING]):
        seat = s[PLAY_ORDER + k]
        if seat == holder:
            s[SCORES + seat] -= FIVE_OF_A_SUIT_BONUS + s[ACES_HELD + seat]
        else:
            s[SCORES + seat] += c[C_FLIGHT_FINE] + s[ACES_HELD + seat]
    _check_zero(s, c)


# the common end of finish_deal and score_flush
@jit
def _check_zero(s: np.ndarray, c: np.ndarray) -> None:
    for seat in range(c[C_PLAYERS]):
        if s[SCORES + seat] <= 0:
            end_rams(s, c, _lowest(s, c, SCORES))
            return
    deal_over(s)


# the seats with the lowest value, as finish_deal and end_rams take them
@jit
def _lowest(s: np.ndarray, c: np.ndarray, column: int) -> int:
    """The seats (a mask) with the lowest value in ``s[column:]``."""
    n = c[C_PLAYERS]
    low = s[column]
    for seat in range(1, n):
        low = min(low, s[column + seat])
    seats = np.int64(0)
    for seat in range(n):
        if s[column + seat] == low:
            seats |= card_bit(seat)
    return seats


@jit
def deal_over(s: np.ndarray) -> None:
    s[PHASE], s[CURRENT] = DEAL_OVER, -1


# the rams bookkeeping that end_rams and end_game share
@jit
def _close_rams(s: np.ndarray, c: np.ndarray, winners: int) -> None:
    s[RAMS_OVER] = 1
    s[RAMS_WINNERS] = winners
    for seat in range(c[C_PLAYERS]):
        s[TOTALS + seat] += s[SCORES + seat]


@jit
def end_rams(s: np.ndarray, c: np.ndarray, winners: int) -> None:
    _close_rams(s, c, winners)
    if s[RAMS_NUMBER] + 1 < c[C_RAMSAR]:
        deal_over(s)
    elif c[C_RAMSAR] == 1:
        end_game(s, c, winners)
    else:
        tied = _lowest(s, c, TOTALS)
        fewest = 1 << 40
        for seat in range(c[C_PLAYERS]):
            if tied & card_bit(seat):
                fewest = min(fewest, s[FLIGHTS + seat])
        best = np.int64(0)
        for seat in range(c[C_PLAYERS]):
            if tied & card_bit(seat) and s[FLIGHTS + seat] == fewest:
                best |= card_bit(seat)
        end_game(s, c, best)


@jit
def end_game(s: np.ndarray, c: np.ndarray, winners: int) -> None:
    if not s[RAMS_OVER]:
        _close_rams(s, c, winners)
    s[GAME_WINNERS] = winners
    s[PHASE], s[CURRENT] = GAME_OVER, -1
