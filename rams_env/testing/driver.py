"""The driver protocol: the one shape in which :func:`~rams_env.testing.check_env` plays a face that hands out
every seat's decisions. The AEC env, the batched envs, RLlib's multi-agent env and TorchRL's self-play env
each have a driver (:mod:`rams_env.testing.drivers`); a face that ``check_env`` does not know is checked
through a driver its author writes: ``check_env(env, driver=MyDriver)`` (docs/extending.md, "Checking your
own face")."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

if TYPE_CHECKING:
    from ..rules import RulesConfig


@dataclass
class Decisions:
    """The decision due in each game: the seat to act, its observation and its action mask."""

    seats: np.ndarray  # (N,)
    observations: np.ndarray  # (N, OBS_SIZE)
    masks: np.ndarray  # (N, NUM_ACTIONS)


@dataclass
class Outcome:
    """What one step of every game gave."""

    rewards: np.ndarray  # (N, num_players): each seat's reward
    terminated: np.ndarray  # (N,) bool
    truncated: np.ndarray  # (N,) bool
    decisions: Decisions  # the decisions now due (after an episode's end: the next episode's first)


@runtime_checkable
class Driver(Protocol):
    """A face as ``check_env`` plays it: ``num_games`` games, each with one decision due at a time.

    - ``env``: the env checked (the copy checks deep-copy and pickle it); ``config``: its rules;
    - ``reset(seed)``: the env reset with ``seed`` as the face takes seeds (a bad seed must raise), and the
      decisions due; ``step(actions)``: one action per game, for its seat to act, and the :class:`Outcome`;
      a game whose episode ended shows its next episode's first decision (same-step autoreset), and an
      episode that ends before any decision is skipped (as ``BatchedRamsEnv`` does);
    - ``game_seeds(seed)``: the seed each game's first episode is dealt from after ``reset(seed)``, as
      ``rams_env.env(engine="reference").reset(seed=...)`` deals it (one game: ``[seed]``);
    - ``heuristic_seats()``: None, or which seats of each game (``(num_games, num_players)`` bools) the face
      plays itself with rams_env's heuristic, seeded as ``BatchedRamsEnv(heuristic_seats=...)`` seeds it;
    - ``rebind(env)``: a driver of ``env``, a copy of this driver's env, in this driver's state.
    """

    env: Any
    num_games: int
    config: RulesConfig

    def reset(self, seed: Any) -> Decisions: ...

    def step(self, actions: np.ndarray) -> Outcome: ...

    def game_seeds(self, seed: int) -> list[int]: ...

    def heuristic_seats(self) -> np.ndarray | None: ...

    def rebind(self, env: Any) -> Driver: ...


DRIVER_ATTRIBUTES: tuple[str, ...] = tuple(Driver.__annotations__)
DRIVER_METHODS: tuple[str, ...] = tuple(
    name for name, value in vars(Driver).items() if callable(value) and not name.startswith("_")
)


def missing_members(driver: Any) -> list[str]:
    """The members of :class:`Driver` that ``driver`` lacks (a method it has must be callable)."""
    return [name for name in DRIVER_ATTRIBUTES if not hasattr(driver, name)] + [
        name for name in DRIVER_METHODS if not callable(getattr(driver, name, None))
    ]
