"""The encoder twin: ``ObservationEncoder.encode`` (:mod:`rams_env.obs.encoding`) from a state row,
written from scratch at every decision, and the action mask."""

from __future__ import annotations

import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from ..obs.encoding import (
    ACES_SCALE,
    DEAL_CLIP,
    DEAL_SCALE,
    DISCARDED_SCALE,
    DRAWN_SCALE,
    FIELDS,
    FLIGHT_COST_SCALE,
    FLIGHTS_CLIP,
    FLIGHTS_SCALE,
    JACKS_SCALE,
    PENDING_SCALE,
    RACE_FLAGS,
    SCORES_CLIP,
    SLICES,
    START_SCALE,
    TOTALS_CLIP,
    TRICKS_DONE_SCALE,
    TRICKS_SCALE,
)
from ..rules.actions import NUM_ACTIONS
from ..rules.cards import NUM_CARDS
from .compiler import jit
from .layout import (
    ACTIVE,
    BETTER_ANSWER,
    BETTER_DONE,
    BETTER_HAPPENED,
    BETTER_MADE,
    C_DECK_SIZE,
    C_FLIGHT_CAP,
    C_FLIGHT_FINE,
    C_PLAYERS,
    C_RAMS_SCALE,
    C_SCORES_SCALE,
    C_SPECIALS,
    C_START,
    C_SWEDISH,
    C_TALON_SCALE,
    C_TOTALS_SCALE,
    C_VARIANT,
    COMPLETED,
    CURRENT,
    DEAL_IN_RAMS,
    DEAL_OVER,
    DEALER,
    DISCARDS,
    DRAWS,
    HAND,
    JACKS,
    KNOCK_PHASE,
    LEGAL,
    OUT_HIDDEN,
    OUT_PUBLIC,
    PASSED_PREV,
    PENDING_DISCARDS,
    PHASE,
    PLAY,
    PLAYED,
    QUEEN_DUE,
    RAMS_FLIGHTS,
    RAMS_NUMBER,
    SCORES,
    SHOWN,
    SHOWN_BY,
    SWING_ANSWER,
    SWING_DONE,
    SWING_HAPPENED,
    SWING_MADE,
    TAKE_PENDING,
    TOTALS,
    TRICK_CARD,
    TRICK_LEN,
    TRICK_SEAT,
    TRICKS_WON,
    TRUMP,
    TURNED,
    TURNED_AT,
    TURNED_PUBLIC,
    P,
    card_bit,
    hand_aces,
)
from .queries import must_knock, talon_size

# ----------------------------------------------------------------------------- observation offsets
_O = {name: s.start for name, s in SLICES.items()}
O_HAND, O_TRUMP, O_TURNED, O_TURNED_AT, O_PHASE = (
    _O[k] for k in ("hand", "trump", "turned_card", "turned_at", "phase")
)
O_TO_ACT, O_DEALER, O_SEATS, O_VARIANT, O_DECK32 = (_O[k] for k in ("to_act", "dealer", "seats", "variant", "deck32"))
O_BETTER_BID, O_SWING_BID, O_BETTER_ANSWERS, O_SWING_ANSWERS = (
    _O[k] for k in ("better_bid", "swing_bid", "better_answers", "swing_answers")
)
O_KNOCKED, O_PASSED, O_DISCARDED, O_DRAWN, O_PENDING = (
    _O[k] for k in ("knocked", "passed", "discarded", "drawn", "pending_discards")
)
O_TAKE_PENDING, O_TRICK, O_TRICK_LEADER, O_PLAYED, O_OUT = (
    _O[k] for k in ("take_pending", "trick", "trick_leader", "played", "out_of_play")
)
O_SHOWN, O_SHOWN_BY, O_TRICKS, O_TRICKS_DONE, O_SCORES = (
    _O[k] for k in ("shown", "shown_by", "tricks", "tricks_done", "scores")
)
O_AT_ONE, O_FLIGHTS, O_PASSED_LAST, O_MUST_KNOCK, O_QUEEN_DUE = (
    _O[k] for k in ("at_one", "flights", "passed_last_deal", "must_knock", "queen_due")
)
O_TALON, O_OWN_JACKS, O_OWN_ACES, O_PROGRESS, O_TOTALS = (
    _O[k] for k in ("talon", "own_jacks", "own_aces", "progress", "totals")
)
O_START, O_SCORE_LEFT, O_FLIGHT_COST = (_O[k] for k in ("start_score", "score_left", "flight_cost"))
OBS_SIZE = sum(size for _, size, _ in FIELDS)


@jit
def _put_cards(out: np.ndarray, at: int, cards: int) -> None:
    while cards:
        out[at + trailing_zeros(cards)] = 1.0
        cards &= cards - 1


@jit
def _clip(x: float, bound: float) -> float:
    return -bound if x < -bound else bound if x > bound else x


@jit
def _encode_bid(out: np.ndarray, at: int, made: int, done: int, happened: int) -> None:
    if made:
        out[at] = 1.0
        if not done:
            out[at + 1] = 1.0
        elif happened:
            out[at + 2] = 1.0


@jit
def encode(s: np.ndarray, c: np.ndarray, seat: int, out: np.ndarray) -> None:
    """``ObservationEncoder.encode(game, seat)`` into ``out`` (float32, zeroed here)."""
    out[:] = 0.0
    n = c[C_PLAYERS]
    phase = s[PHASE]
    _put_cards(out, O_HAND, s[HAND + seat])
    out[O_TRUMP + s[TRUMP]] = 1.0
    out[O_TURNED + s[TURNED]] = 1.0
    if s[TURNED_PUBLIC]:
        out[O_TURNED_AT + s[TURNED_AT]] = 1.0  # AT_DEALER or ON_TABLE while public
    if phase <= PLAY:
        out[O_PHASE + phase] = 1.0
        out[O_TO_ACT + (s[CURRENT] - seat) % n] = 1.0
    else:
        out[O_PHASE + DEAL_OVER] = 1.0  # "over", for the end of a deal and of the game
    out[O_DEALER + (s[DEALER] - seat) % n] = 1.0
    for r in range(n):
        out[O_SEATS + r] = 1.0
    out[O_VARIANT + c[C_VARIANT]] = 1.0
    if c[C_DECK_SIZE] == 32:
        out[O_DECK32] = 1.0
    _encode_bid(out, O_BETTER_BID, s[BETTER_MADE], s[BETTER_DONE], s[BETTER_HAPPENED])
    _encode_bid(out, O_SWING_BID, s[SWING_MADE], s[SWING_DONE], s[SWING_HAPPENED])
    for other in range(n):
        r = (other - seat) % n
        if s[BETTER_ANSWER + other] >= 0:
            out[O_BETTER_ANSWERS + r + (0 if s[BETTER_ANSWER + other] else P)] = 1.0
        if s[SWING_ANSWER + other] >= 0:
            out[O_SWING_ANSWERS + r + (0 if s[SWING_ANSWER + other] else P)] = 1.0
        if s[ACTIVE + other] == 1:
            out[O_KNOCKED + r] = 1.0
        elif s[ACTIVE + other] == 0:
            out[O_PASSED + r] = 1.0
        _put_cards(out, O_PLAYED + NUM_CARDS * r, s[PLAYED + other])
        if s[SHOWN_BY] & card_bit(other):
            out[O_SHOWN_BY + r] = 1.0
        if s[SCORES + other] == 1:
            out[O_AT_ONE + r] = 1.0
        if s[PASSED_PREV + other]:
            out[O_PASSED_LAST + r] = 1.0
        out[O_DISCARDED + r] = s[DISCARDS + other] / DISCARDED_SCALE
        out[O_DRAWN + r] = s[DRAWS + other] / DRAWN_SCALE
        out[O_TRICKS + r] = s[TRICKS_WON + other] / TRICKS_SCALE
        out[O_SCORES + r] = _clip(s[SCORES + other] / float(c[C_SCORES_SCALE]), SCORES_CLIP)
        out[O_FLIGHTS + r] = _clip(s[RAMS_FLIGHTS + other] / FLIGHTS_SCALE, FLIGHTS_CLIP)
        out[O_TOTALS + r] = _clip(s[TOTALS + other] / float(c[C_TOTALS_SCALE]), TOTALS_CLIP)
        score = s[SCORES + other]
        for k in range(RACE_FLAGS):
            if score <= k + 1:
                out[O_SCORE_LEFT + RACE_FLAGS * r + k] = 1.0
        cost = min(c[C_FLIGHT_FINE], c[C_FLIGHT_CAP] - score) if c[C_SWEDISH] else c[C_FLIGHT_FINE]
        out[O_FLIGHT_COST + r] = max(0, cost) / FLIGHT_COST_SCALE
    out[O_START] = c[C_START] / START_SCALE
    if s[TAKE_PENDING]:
        out[O_TAKE_PENDING] = 1.0
    for k in range(s[TRICK_LEN]):
        out[O_TRICK + NUM_CARDS * ((s[TRICK_SEAT + k] - seat) % n) + s[TRICK_CARD + k]] = 1.0
    if s[TRICK_LEN]:
        out[O_TRICK_LEADER + (s[TRICK_SEAT] - seat) % n] = 1.0
    _put_cards(out, O_OUT, s[OUT_PUBLIC] | s[OUT_HIDDEN + seat])
    _put_cards(out, O_SHOWN, s[SHOWN])
    if phase == KNOCK_PHASE and s[CURRENT] == seat and must_knock(s, c, seat):
        out[O_MUST_KNOCK] = 1.0
    if s[QUEEN_DUE] == seat:
        out[O_QUEEN_DUE] = 1.0
    out[O_PENDING] = s[PENDING_DISCARDS] / PENDING_SCALE
    out[O_TRICKS_DONE] = s[COMPLETED] / TRICKS_DONE_SCALE
    out[O_TALON] = talon_size(s, c) / float(c[C_TALON_SCALE])
    out[O_OWN_JACKS] = s[JACKS + seat] / JACKS_SCALE
    if c[C_SPECIALS]:
        out[O_OWN_ACES] = hand_aces(s[HAND + seat]) / ACES_SCALE
    out[O_PROGRESS] = s[RAMS_NUMBER] / float(c[C_RAMS_SCALE])
    out[O_PROGRESS + 1] = _clip(s[DEAL_IN_RAMS] / DEAL_SCALE, DEAL_CLIP)


def legal_actions(s: np.ndarray) -> list[int]:
    """The legal action ids of a game's state row, ascending (for messages and ``legal_actions()``)."""
    legal = int(s[LEGAL])
    return [a for a in range(NUM_ACTIONS) if (legal >> a) & 1]


@jit
def write_mask(s: np.ndarray, seat: int, out: np.ndarray) -> None:
    """The int8 action mask of ``seat`` (all zeros unless it is to act)."""
    legal = s[LEGAL] if s[CURRENT] == seat else np.int64(0)
    for a in range(NUM_ACTIONS):
        out[a] = (legal >> a) & 1


@jit
def observe(s: np.ndarray, c: np.ndarray, seat: int, observation: np.ndarray, mask: np.ndarray) -> None:
    """``seat``'s observation and action mask, written into the given arrays."""
    encode(s, c, seat, observation)
    write_mask(s, seat, mask)
