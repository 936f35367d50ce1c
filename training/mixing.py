"""Opponent mixing: who plays the seats around the learner, drawn per episode by one :class:`OpponentMix`.

Each episode of a game is self-play (the learner in every seat), or the learner in one random seat
against the others played by one opponent: a snapshot of the pool, the heuristic, random legal moves or
one of the run's targets. What plays is an :class:`Opponent` kind, and which pool snapshot or target a
separate index (:class:`Draw`): kinds and indices never share one integer space.

The draws come from the run's ``random.Random`` (saved by every checkpoint) in a fixed order, so a run
and its resumed copy draw the same opponents.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum

import numpy as np

from .config import OpponentArgs, heuristic_fraction_at
from .opponent_pool import OpponentPool
from .targets import Target


class Opponent(IntEnum):
    """What plays a game's seats other than the learner's (with :attr:`Draw.index` for POOL and TARGET)."""

    SELF_PLAY = 0
    """no opponent: the learner plays every seat"""
    HEURISTIC = 1
    """HeuristicAgent (or its compiled twin) plays every seat but the learner's"""
    RANDOM = 2
    """random legal moves in every seat but the learner's"""
    POOL = 3
    """pool snapshot ``index`` plays every seat but the learner's"""
    TARGET = 4
    """the run's policy target ``index`` (``TrainArgs.target``, training/targets.py) plays every seat but the
    learner's (a heuristic or random target plays as HEURISTIC or RANDOM)"""
    RANDOM_AFTER_QUOTA = 5
    """the game has finished its episodes of this update: random legal moves in every seat, nothing recorded"""


NO_INDEX = -1
"""the :attr:`Draw.index` of an opponent that is neither a pool snapshot nor a target"""
EVERY_SEAT = -1
"""the :attr:`Draw.seat` of self-play: the learner plays every seat"""


@dataclass(frozen=True)
class Draw:
    """One episode's opponent: its kind, which snapshot or target (``NO_INDEX`` for the others) and the
    learner's seat (``EVERY_SEAT`` in self-play)."""

    opponent: Opponent
    index: int
    seat: int


def target_draw(targets: Sequence[Target], k: int, seat: int) -> Draw:
    """Target ``k`` in the other seats: the env's heuristic, random moves, or the policy target ``k``."""
    kind = targets[k].kind
    if kind == "heuristic":
        return Draw(Opponent.HEURISTIC, NO_INDEX, seat)
    if kind == "random":
        return Draw(Opponent.RANDOM, NO_INDEX, seat)
    return Draw(Opponent.TARGET, k, seat)


class OpponentMix:
    """Draws each episode's :class:`Draw` from the shares of ``args`` (or the run's ``targets``, one of which
    plays every episode), the ``pool``'s snapshots and ``rng``."""

    def __init__(
        self, args: OpponentArgs, pool: OpponentPool, rng: random.Random, targets: Sequence[Target] = ()
    ) -> None:
        self.args, self.pool, self.rng, self.targets = args, pool, rng, tuple(targets)

    def draw(self, players: int, steps: int) -> Draw:
        """A new episode's opponent at a table of ``players`` after ``steps`` learner decisions (the stage's
        share of heuristics, training/config.py "Stages")."""
        rng = self.rng
        if self.targets:
            k = rng.randrange(len(self.targets)) if len(self.targets) > 1 else 0
            return target_draw(self.targets, k, rng.randrange(players))
        heuristic = heuristic_fraction_at(self.args, steps)
        draw = rng.random() if heuristic or self.args.random_fraction else 1.0  # none spent without them
        if draw < heuristic + self.args.random_fraction:
            kind = Opponent.HEURISTIC if draw < heuristic else Opponent.RANDOM
            return Draw(kind, NO_INDEX, rng.randrange(players))
        if len(self.pool) and rng.random() < self.args.pool_fraction:
            index = rng.randrange(len(self.pool))
            return Draw(Opponent.POOL, index, rng.randrange(players))
        return Draw(Opponent.SELF_PLAY, NO_INDEX, EVERY_SEAT)


def heuristic_seats(opponent: np.ndarray, learner_seat: np.ndarray, players: int) -> np.ndarray:
    """Per game, the seats the env's heuristic plays: all but the learner's where the opponent is the heuristic."""
    seats = np.arange(players)[None, :] != learner_seat[:, None]
    return seats & (opponent == Opponent.HEURISTIC)[:, None]
