"""Decoding an encoded observation back into typed fields: the inverse of :mod:`rams_env.encoding`.

Seats stay relative to the observer, as encoded: relative seat ``r`` is ``r`` places clockwise
(0 is the observer). Per-seat tuples have one entry per seat at the table. Every offset comes
from ``rams_env.encoding.SLICES``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .encoding import FIELD, MAX_PLAYERS, OBS_SIZE, SLICES, config_scale
from .rules import Phase, TurnedAt
from .rules.cards import NUM_CARDS
from .rules.config import PRESETS
from .rules.game import PHASE_NAMES

PHASES = PHASE_NAMES[: Phase.DEAL_OVER + 1]  # the phase slots: "over" ends a deal and the game alike
VARIANTS = tuple(PRESETS)


@dataclass(frozen=True)
class BidInfo:
    """One forehand bid (better cards or swing) as the table saw it."""

    made: bool  # the bid was made this deal
    pending: bool  # answers are still being given
    happened: bool  # better cards: the exchange took place; swing: trump changed
    accepted: tuple[int, ...]  # relative seats that accepted
    rejected: tuple[int, ...]  # relative seats that rejected


@dataclass(frozen=True)
class DecodedObservation:
    """What one observer knows, read back from the observation vector (seats relative to him)."""

    variant: str
    num_players: int
    deck_size: int
    hand: tuple[int, ...]  # own cards, by card index, ascending
    trump: int  # suit index (C D H S)
    turned_card: int  # the card turned up for trump this deal
    turned_at: str | None  # "dealer" or "table" while its place is public, else None
    phase: str  # one of PHASES
    to_act: int | None  # relative seat to act (None once the deal or game is over)
    dealer: int  # relative seat of the dealer
    better: BidInfo
    swing: BidInfo
    knocked: tuple[bool, ...]  # per relative seat (a credited dealer counts)
    passed: tuple[bool, ...]  # per relative seat
    discarded: tuple[int, ...]  # cards discarded, per relative seat
    drawn: tuple[int, ...]  # cards drawn, per relative seat
    pending_discards: int  # discards of the player buying now, not yet replaced
    take_pending: bool  # russian dealer: one more discard, then he takes the turned card
    trick: tuple[tuple[int, int], ...]  # current trick as (relative seat, card) in play order
    trick_leader: int | None  # relative seat that led the current trick
    played: tuple[tuple[int, ...], ...]  # cards of completed tricks, per relative seat
    out_of_play: tuple[int, ...]  # cards known out of play (face up, and own face-down ones)
    shown: tuple[int, ...]  # cards shown (russian jacks, five of a suit, four aces)
    shown_by: tuple[bool, ...]  # per relative seat
    tricks: tuple[int, ...]  # tricks taken this deal, per relative seat
    tricks_done: int  # completed tricks this deal
    scores: tuple[float, ...]  # score / start score, per relative seat (clipped to [-2, 2])
    at_one: tuple[bool, ...]  # live score exactly 1, per relative seat
    flights: tuple[int, ...]  # flights this rams, per relative seat (encoding clips at 10)
    passed_last_deal: tuple[bool, ...]  # per relative seat
    must_knock: bool  # the observer may not pass this deal
    queen_due: bool  # russian: the observer won the last trick with the trump king or ace
    talon: int  # cards left in the talon
    own_jacks: int  # russian jacks write-off of the observer's dealt hand (0, 5 or 10)
    own_aces: int  # russian value of the aces in the observer's hand
    rams_progress: float  # rams number / ramsar per match
    deal_in_rams: int  # deal number within the rams (encoding clips at 20)
    totals: tuple[float, ...]  # match totals / (start score x ramsar), per relative seat
    start_score: int  # the score every rams starts from
    near_zero: tuple[int, ...]  # per relative seat: the score if it is RACE_FLAGS or less (at most 1: 1), else 0
    flight_cost: tuple[int, ...]  # per relative seat: what taking no trick after knocking adds to the score now

    @property
    def forehand(self) -> int:
        """Relative seat of forehand (the dealer's left)."""
        return (self.dealer + 1) % self.num_players

    @property
    def active(self) -> tuple[bool | None, ...]:
        """Per relative seat: True knocked, False passed, None not yet decided."""
        return tuple(True if k else False if p else None for k, p in zip(self.knocked, self.passed, strict=True))

    @property
    def cards_played(self) -> frozenset[int]:
        """Every card played to a trick this deal, completed or current."""
        return frozenset(c for cards in self.played for c in cards) | frozenset(c for _, c in self.trick)


def _ones(vector: np.ndarray, name: str) -> tuple[int, ...]:
    """Positions of the set entries of a one-hot / multi-hot slice."""
    return tuple(int(i) for i in np.flatnonzero(vector[SLICES[name]] > 0.5))


def _one(vector: np.ndarray, name: str) -> int | None:
    ones = _ones(vector, name)
    if len(ones) > 1:
        raise ValueError(f"observation slice {name!r} should be one-hot, has {len(ones)} entries set")
    return ones[0] if ones else None


def _counts(vector: np.ndarray, name: str, n: int, deck_size: int = NUM_CARDS) -> tuple[int, ...]:
    """The first ``n`` numbers of a field, times its scale (``FIELDS``), as ints."""
    scale = config_scale(FIELD[name].scale_at(), {"deck_size": deck_size})
    return tuple(round(float(x) * scale) for x in vector[SLICES[name]][:n])


def _flags(vector: np.ndarray, name: str, n: int) -> tuple[bool, ...]:
    return tuple(bool(x > 0.5) for x in vector[SLICES[name]][:n])


def _bid(vector: np.ndarray, head: str, answers: str) -> BidInfo:
    made, pending, happened = (bool(x > 0.5) for x in vector[SLICES[head]])
    marks = vector[SLICES[answers]]
    return BidInfo(
        made=made,
        pending=pending,
        happened=happened,
        accepted=tuple(int(i) for i in np.flatnonzero(marks[:MAX_PLAYERS] > 0.5)),
        rejected=tuple(int(i) for i in np.flatnonzero(marks[MAX_PLAYERS:] > 0.5)),
    )


def decode(observation_vector: np.ndarray) -> DecodedObservation:
    """Read an encoded observation vector (``observe(agent)["observation"]``) back into fields."""
    vector = np.asarray(observation_vector, dtype=np.float32)
    if vector.shape != (OBS_SIZE,):
        raise ValueError(f"an observation vector has shape ({OBS_SIZE},), got {vector.shape}")
    n = len(_ones(vector, "seats"))
    variant_index, trump, turned, phase = (_one(vector, k) for k in ("variant", "trump", "turned_card", "phase"))
    dealer = _one(vector, "dealer")
    if n < 3 or None in (variant_index, trump, turned, phase, dealer):
        raise ValueError("not an encoded rams_env observation: seats, variant, trump, turned card or phase missing")
    deck_size = 32 if vector[SLICES["deck32"]][0] > 0.5 else NUM_CARDS
    turned_at = _one(vector, "turned_at")
    trick_cards = vector[SLICES["trick"]].reshape(MAX_PLAYERS, NUM_CARDS)
    played_cards = vector[SLICES["played"]].reshape(MAX_PLAYERS, NUM_CARDS)
    leader = _one(vector, "trick_leader")
    by_seat = {r: int(c) for r, c in zip(*np.nonzero(trick_cards > 0.5), strict=True)}
    trick = tuple((r, by_seat[r]) for r in sorted(by_seat, key=lambda r: (r - (leader or 0)) % n))
    progress = vector[SLICES["progress"]]
    return DecodedObservation(
        variant=VARIANTS[variant_index],
        num_players=n,
        deck_size=deck_size,
        hand=_ones(vector, "hand"),
        trump=trump,
        turned_card=turned,
        turned_at=TurnedAt(turned_at).label if turned_at is not None else None,
        phase=PHASES[phase],
        to_act=_one(vector, "to_act"),
        dealer=dealer,
        better=_bid(vector, "better_bid", "better_answers"),
        swing=_bid(vector, "swing_bid", "swing_answers"),
        knocked=_flags(vector, "knocked", n),
        passed=_flags(vector, "passed", n),
        discarded=_counts(vector, "discarded", n),
        drawn=_counts(vector, "drawn", n),
        pending_discards=_counts(vector, "pending_discards", 1)[0],
        take_pending=bool(vector[SLICES["take_pending"]][0] > 0.5),
        trick=trick,
        trick_leader=leader,
        played=tuple(tuple(int(c) for c in np.flatnonzero(played_cards[r] > 0.5)) for r in range(n)),
        out_of_play=_ones(vector, "out_of_play"),
        shown=_ones(vector, "shown"),
        shown_by=_flags(vector, "shown_by", n),
        tricks=_counts(vector, "tricks", n),
        tricks_done=_counts(vector, "tricks_done", 1)[0],
        scores=tuple(float(x) for x in vector[SLICES["scores"]][:n]),
        at_one=_flags(vector, "at_one", n),
        flights=_counts(vector, "flights", n),
        passed_last_deal=_flags(vector, "passed_last_deal", n),
        must_knock=bool(vector[SLICES["must_knock"]][0] > 0.5),
        queen_due=bool(vector[SLICES["queen_due"]][0] > 0.5),
        talon=_counts(vector, "talon", 1, deck_size)[0],
        own_jacks=_counts(vector, "own_jacks", 1)[0],
        own_aces=_counts(vector, "own_aces", 1)[0],
        rams_progress=float(progress[0]),
        deal_in_rams=round(float(progress[1]) * config_scale(FIELD["progress"].scale_at(1), {})),
        totals=tuple(float(x) for x in vector[SLICES["totals"]][:n]),
        start_score=_counts(vector, "start_score", 1)[0],
        near_zero=tuple(_near_zero(flags) for flags in vector[SLICES["score_left"]].reshape(MAX_PLAYERS, -1)[:n]),
        flight_cost=_counts(vector, "flight_cost", n),
    )


def _near_zero(flags: np.ndarray) -> int:
    """The score that the thermometer ``flags`` (score <= 1, <= 2, ...) shows, 0 if above them all."""
    set_ = np.flatnonzero(flags > 0.5)
    return int(set_[0]) + 1 if set_.size else 0
