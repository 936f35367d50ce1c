"""Decoding an encoded observation back into typed fields: the inverse of :mod:`rams_env.obs.encoding`.

Seats stay relative to the observer, as encoded: relative seat ``r`` is ``r`` places clockwise
(0 is the observer). Per-seat tuples have one entry per seat at the table. Every offset comes
from ``rams_env.obs.encoding.SLICES``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from ..rules import Phase, TurnedAt
from ..rules.cards import NUM_CARDS
from ..rules.config import MAX_PLAYERS, PRESETS
from ..rules.phases import PHASE_NAMES
from .encoding import FIELD, OBS_SIZE, SLICES, config_scale

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


class _Reader:
    """An observation vector and, per field, the positions set in it (those > 0.5), read at once."""

    def __init__(self, vector: np.ndarray) -> None:
        self.vector = vector
        self.set: dict[str, list[int]] = {}  # per field with entries set: their positions, ascending
        for i in np.flatnonzero(vector > 0.5).tolist():
            name, position = _POSITIONS[i]
            self.set.setdefault(name, []).append(position)

    def ones(self, name: str) -> tuple[int, ...]:
        """Positions of the set entries of a one-hot / multi-hot slice."""
        return tuple(self.set.get(name, ()))

    def one(self, name: str) -> int | None:
        """The position set in a one-hot slice (None if none; ``ValueError`` if several)."""
        ones = self.ones(name)
        if len(ones) > 1:
            raise ValueError(f"observation slice {name!r} should be one-hot, has {len(ones)} entries set")
        return ones[0] if ones else None

    def by_seat(self, name: str) -> list[list[int]]:
        """Per relative seat, the positions set in its part of a field of equal parts per seat."""
        where = SLICES[name]
        width = (where.stop - where.start) // MAX_PLAYERS
        seats: list[list[int]] = [[] for _ in range(MAX_PLAYERS)]
        for i in self.set.get(name, ()):
            seats[i // width].append(i % width)
        return seats

    def numbers(self, name: str) -> list[float]:
        """The numbers of a field, as Python floats."""
        return self.vector[SLICES[name]].tolist()

    def counts(self, name: str, n: int, deck_size: int = NUM_CARDS) -> tuple[int, ...]:
        """The first ``n`` numbers of a field, times its scale (``FIELDS``), as ints."""
        scale = _scale(name, deck_size)
        return tuple(round(x * scale) for x in self.numbers(name)[:n])

    def flags(self, name: str, n: int) -> tuple[bool, ...]:
        """The first ``n`` entries of a field: set or not."""
        ones = self.set.get(name, ())
        return tuple(i in ones for i in range(n))

    def flag(self, name: str) -> bool:
        """The first entry of a field is set."""
        return 0 in self.set.get(name, ())

    def bid(self, head: str, answers: str) -> BidInfo:
        """One forehand bid, from its three flags and its answers field."""
        made, pending, happened = self.flags(head, 3)
        marks = self.ones(answers)
        return BidInfo(
            made=made,
            pending=pending,
            happened=happened,
            accepted=tuple(i for i in marks if i < MAX_PLAYERS),
            rejected=tuple(i - MAX_PLAYERS for i in marks if i >= MAX_PLAYERS),
        )


def _positions() -> list[tuple[str, int]]:
    """Per entry of the vector: its field and its position in it."""
    positions = [("", 0)] * OBS_SIZE
    for name, where in SLICES.items():
        for i in range(where.start, where.stop):
            positions[i] = (name, i - where.start)
    return positions


_POSITIONS = _positions()


@cache
def _scale(name: str, deck_size: int) -> float:
    """The scale of field ``name`` (its first entry) under ``deck_size``."""
    return config_scale(FIELD[name].scale_at(), {"deck_size": deck_size})


def decode(observation_vector: np.ndarray) -> DecodedObservation:
    """Read an encoded observation vector (``observe(agent)["observation"]``) back into fields."""
    vector = np.asarray(observation_vector, dtype=np.float32)
    if vector.shape != (OBS_SIZE,):
        raise ValueError(f"an observation vector has shape ({OBS_SIZE},), got {vector.shape}")
    read = _Reader(vector)
    n = len(read.ones("seats"))
    variant_index, trump, turned, phase = (read.one(k) for k in ("variant", "trump", "turned_card", "phase"))
    dealer = read.one("dealer")
    if n < 3 or None in (variant_index, trump, turned, phase, dealer):
        raise ValueError("not an encoded rams_env observation: seats, variant, trump, turned card or phase missing")
    if variant_index >= len(VARIANTS):
        raise ValueError(f"the observation names preset slot {variant_index}, which no preset of this rams_env holds")
    deck_size = 32 if read.flag("deck32") else NUM_CARDS
    turned_at = read.one("turned_at")
    leader = read.one("trick_leader")
    by_seat = {r: cards[-1] for r, cards in enumerate(read.by_seat("trick")) if cards}
    trick = tuple((r, by_seat[r]) for r in sorted(by_seat, key=lambda r: (r - (leader or 0)) % n))
    progress = read.numbers("progress")
    return DecodedObservation(
        variant=VARIANTS[variant_index],
        num_players=n,
        deck_size=deck_size,
        hand=read.ones("hand"),
        trump=trump,
        turned_card=turned,
        turned_at=TurnedAt(turned_at).label if turned_at is not None else None,
        phase=PHASES[phase],
        to_act=read.one("to_act"),
        dealer=dealer,
        better=read.bid("better_bid", "better_answers"),
        swing=read.bid("swing_bid", "swing_answers"),
        knocked=read.flags("knocked", n),
        passed=read.flags("passed", n),
        discarded=read.counts("discarded", n),
        drawn=read.counts("drawn", n),
        pending_discards=read.counts("pending_discards", 1)[0],
        take_pending=read.flag("take_pending"),
        trick=trick,
        trick_leader=leader,
        played=tuple(tuple(cards) for cards in read.by_seat("played")[:n]),
        out_of_play=read.ones("out_of_play"),
        shown=read.ones("shown"),
        shown_by=read.flags("shown_by", n),
        tricks=read.counts("tricks", n),
        tricks_done=read.counts("tricks_done", 1)[0],
        scores=tuple(read.numbers("scores")[:n]),
        at_one=read.flags("at_one", n),
        flights=read.counts("flights", n),
        passed_last_deal=read.flags("passed_last_deal", n),
        must_knock=read.flag("must_knock"),
        queen_due=read.flag("queen_due"),
        talon=read.counts("talon", 1, deck_size)[0],
        own_jacks=read.counts("own_jacks", 1)[0],
        own_aces=read.counts("own_aces", 1)[0],
        rams_progress=progress[0],
        deal_in_rams=round(progress[1] * config_scale(FIELD["progress"].scale_at(1), {})),
        totals=tuple(read.numbers("totals")[:n]),
        start_score=read.counts("start_score", 1)[0],
        near_zero=tuple(_near_zero(flags) for flags in read.by_seat("score_left")[:n]),
        flight_cost=read.counts("flight_cost", n),
    )


def _near_zero(set_: list[int]) -> int:
    """The score that the thermometer flags (score <= 1, <= 2, ...) show, 0 if above them all;
    ``set_``: the positions of the flags that are set."""
    return set_[0] + 1 if set_ else 0
