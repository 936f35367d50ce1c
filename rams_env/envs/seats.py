"""Who plays a seat: one small type, :class:`Seat`, that every face, the evaluation and training accept.

A seat is played by the ``learner`` (the caller's decisions come out of ``step``), the ``heuristic`` or
``random`` legal play (inside the compiled step on the batched faces), or an outside ``agent`` (any object
with ``act(observation)`` or ``act_batch(observations, masks)``, or a callable ``observation -> action``).
:func:`as_seats` reads a row of them (a ``Seat``, a name or an agent each), and :func:`core_role` is the one
place where a seat becomes a role of the compiled core.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

KINDS = ("learner", "heuristic", "random", "agent")


@dataclass(frozen=True)
class Seat:
    """Who plays one seat: ``Seat("heuristic")``, ``Seat("learner")``, ``Seat("random")`` or ``Seat.of(agent)``."""

    kind: str  # one of KINDS
    agent: Any = None  # the outside agent of an "agent" seat

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"a seat is one of {list(KINDS)}, got {self.kind!r}")
        if (self.kind == "agent") != (self.agent is not None):
            raise ValueError("an 'agent' seat needs its agent, and only an 'agent' seat has one")

    @classmethod
    def of(cls, value: Any) -> Seat:
        """``value`` as a seat: a ``Seat``, a name of :data:`KINDS` but ``"agent"``, or an agent or callable."""
        if isinstance(value, Seat):
            return value
        if isinstance(value, str):
            if value in KINDS[:3]:
                return cls(value)
            raise ValueError(
                f"a seat's name is one of {list(KINDS[:3])}, got {value!r} (load other agents first, "
                "e.g. rams_env.agents.load_agent, and give the agent)"
            )
        if callable(getattr(value, "act", None)) or callable(getattr(value, "act_batch", None)) or callable(value):
            return cls("agent", value)
        raise TypeError(
            f"a seat is a Seat, one of {list(KINDS[:3])}, or an agent with act(observation) or "
            f"act_batch(observations, masks), got {type(value).__name__}"
        )

    @property
    def name(self) -> str:
        """The seat's name as the faces' older keywords take it: its kind, or the agent itself."""
        return self.agent if self.kind == "agent" else self.kind


LEARNER_SEAT, HEURISTIC_SEAT, RANDOM_SEAT = Seat("learner"), Seat("heuristic"), Seat("random")


def core_role(seat: Seat) -> int:
    """The compiled core's role of a seat (:data:`rams_env.core.ROLES`, loaded on first use, as the batched faces
    load it)."""
    from ..core import role_of

    return role_of(seat)


def as_seats(seats: Any, num_players: int) -> tuple[Seat, ...]:
    """One :class:`Seat` a seat, in seat order, from a sequence of ``num_players`` seats, names or agents."""
    if isinstance(seats, (str, bytes)) or not isinstance(seats, Sequence):
        raise TypeError(f"seats: give one seat per seat of the table, in seat order, got {type(seats).__name__}")
    if len(seats) != num_players:
        raise ValueError(f"seats: give {num_players} (one per seat), got {len(seats)}")
    return tuple(Seat.of(seat) for seat in seats)


def learner_and_opponents(seats: Any, num_players: int) -> tuple[int, list[Any]]:
    """The one learner's seat and the other seats' opponents (names or agents, in seat order), as the
    single-seat and vector envs take them."""
    row = as_seats(seats, num_players)
    learners = [i for i, seat in enumerate(row) if seat.kind == "learner"]
    if len(learners) != 1:
        raise ValueError(f"seats: this face has exactly one learner seat, got {len(learners)} in {_names(row)}")
    return learners[0], [seat.name for seat in row if seat.kind != "learner"]


def seats_in_place_of(learner_seat: Any, opponents: Any, seats: Any, num_players: int) -> tuple[int, list[Any]]:
    """``learner_and_opponents(seats)`` for a face whose older ``learner_seat``/``opponents`` were left at their
    defaults (``learner_seat=0``, no or ``"random"`` opponents); both given is a ``ValueError``."""
    if not (learner_seat == 0 and not isinstance(learner_seat, bool)) or opponents not in (None, "random"):
        raise ValueError("seats= replaces learner_seat= and opponents=: give seats alone")
    return learner_and_opponents(seats, num_players)


def heuristic_seat_mask(seats: Any, num_players: int) -> np.ndarray:
    """The batched env's ``heuristic_seats`` of a row of seats (or of one row a game): True where the heuristic
    plays; every other seat must be a learner."""
    rows = seats if len(seats) and not isinstance(seats[0], (Seat, str)) and isinstance(seats[0], Sequence) else [seats]
    mask = np.zeros((len(rows), num_players), bool)
    for g, row in enumerate(rows):
        for i, seat in enumerate(as_seats(row, num_players)):
            if seat.kind not in ("learner", "heuristic"):
                raise ValueError(
                    f"seats: the batched env's seats are 'learner' or 'heuristic', got {seat.kind!r} at seat {i}"
                )
            mask[g, i] = seat.kind == "heuristic"
    return mask[0] if rows is not seats else mask


def derive_seed(*words: int) -> int:
    """The one seed formula: a 63-bit seed derived reproducibly from non-negative integers (numpy
    ``SeedSequence(words)``); each use adds a tag word of its own, so that no two uses share numbers."""
    for w in words:
        if isinstance(w, bool) or not isinstance(w, (int, np.integer)) or w < 0:
            raise ValueError(f"seeds must be non-negative ints, got {w!r}")
    return int(np.random.SeedSequence([int(w) for w in words]).generate_state(1, np.uint64)[0] >> np.uint64(1))


def caller_seats(seats: Any, num_players: int) -> tuple[Seat, ...]:
    """A row of seats as the batched env takes it: the heuristic's stay, and the caller plays every other seat
    (learner, random or agent) through ``step``, as the env's learner."""
    return tuple(seat if seat.kind == "heuristic" else LEARNER_SEAT for seat in as_seats(seats, num_players))


def _names(row: Sequence[Seat]) -> list[str]:
    return [seat.kind for seat in row]


__all__ = [
    "KINDS",
    "Seat",
    "as_seats",
    "caller_seats",
    "core_role",
    "derive_seed",
    "heuristic_seat_mask",
    "learner_and_opponents",
    "seats_in_place_of",
]
