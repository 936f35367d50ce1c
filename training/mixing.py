"""Opponent mixing: who plays each seat of an episode, drawn per episode by one :class:`OpponentMix` as a row of
:class:`~rams_env.envs.seats.Seat`.

Each episode of a game is self-play (the learner in every seat), or the learner in one random seat against
the others played by one opponent: a snapshot of the pool (:class:`Snapshot`), the heuristic, random legal
moves or one of the run's targets (:attr:`~rams_training.targets.Target.seat`).

The draws come from the run's ``random.Random`` (saved by every checkpoint) in a fixed order, so a run
and its resumed copy draw the same opponents.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from rams_env.envs.seats import HEURISTIC_SEAT, LEARNER_SEAT, RANDOM_SEAT, Seat
from rams_env.policy import PolicyNet

from .config import OpponentArgs, heuristic_fraction_at
from .opponent_pool import OpponentPool
from .targets import Target

Policy = Callable[[PolicyNet, np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray, np.ndarray]]
"""how a network acts: (network, observations, masks) -> (actions, log-probabilities, values)"""


@dataclass(frozen=True)
class Snapshot:
    """Pool snapshot ``index`` as a seat's agent: the run's ``policy`` acting with its weights."""

    pool: OpponentPool
    index: int
    policy: Policy

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The snapshot's actions for a batch of its seats' observations."""
        return self.policy(self.pool.network(self.index), observations, masks)[0]


def against(opponent: Seat, learner: int, players: int) -> tuple[Seat, ...]:
    """A row of ``players`` seats: the learner in seat ``learner``, ``opponent`` in every other."""
    return tuple(LEARNER_SEAT if seat == learner else opponent for seat in range(players))


class OpponentMix:
    """Draws each episode's row of seats from the shares of ``args`` (or the run's ``targets``, one of which
    plays every episode), the ``pool``'s snapshots (played by ``policy``) and ``rng``."""

    def __init__(
        self,
        args: OpponentArgs,
        pool: OpponentPool,
        rng: random.Random,
        targets: Sequence[Target] = (),
        *,
        policy: Policy,
    ) -> None:
        self.args, self.pool, self.rng, self.targets, self.policy = args, pool, rng, tuple(targets), policy

    @property
    def heuristic(self) -> bool:
        """Whether a draw may seat the heuristic."""
        return self.args.heuristic_fraction > 0 or HEURISTIC_SEAT in (t.seat for t in self.targets)

    def draw(self, players: int, steps: int) -> tuple[Seat, ...]:
        """A new episode's seats at a table of ``players`` after ``steps`` learner decisions (the stage's
        share of heuristics, training/config.py "Stages")."""
        rng = self.rng
        if self.targets:
            k = rng.randrange(len(self.targets)) if len(self.targets) > 1 else 0
            return against(self.targets[k].seat, rng.randrange(players), players)
        heuristic = heuristic_fraction_at(self.args, steps)
        draw = rng.random() if heuristic or self.args.random_fraction else 1.0  # none spent without them
        if draw < heuristic + self.args.random_fraction:
            return against(HEURISTIC_SEAT if draw < heuristic else RANDOM_SEAT, rng.randrange(players), players)
        if len(self.pool) and rng.random() < self.args.pool_fraction:
            snapshot = Seat.of(Snapshot(self.pool, rng.randrange(len(self.pool)), self.policy))
            return against(snapshot, rng.randrange(players), players)
        return (LEARNER_SEAT,) * players
