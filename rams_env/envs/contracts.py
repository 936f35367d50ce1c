"""The declared contracts of the envs' engines: what an AEC backend offers, and what a batched env does.

pgx declares one ``Env`` (``init``/``step``/``observe``) behind every game; here :class:`Backend` is the
engine behind the AEC env (``CompiledBackend`` or ``ReferenceBackend``) and :class:`BatchedEnv` every
batched env (``BatchedRamsEnv``, ``ReferenceBatchedRamsEnv``, ``SubprocBatchedRamsEnv``). Both are
``typing.Protocol``\\ s: the classes do not inherit them, ``tests/envs/test_contracts.py`` checks that
each one fits.

A batched env resets a game **in the same step** that ends its episode
(:attr:`BatchedEnv.autoreset_mode` is Gymnasium's ``AutoresetMode.SAME_STEP``): the step's
``terminated[i]`` says the action ended game ``i``'s episode, and the observation returned for it is
already the first decision of its next episode. Rams episodes are bounded (every deal ends), so
``truncated`` is always all False; it is there so that code written for envs that truncate reads it.
The one-learner vector env (:class:`~rams_env.envs.gym_vector.RamsVectorEnv`) offers the next-step
mode as well, which RLlib needs.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np
from gymnasium.vector import AutoresetMode

from ..obs.encoding import ObservationEncoder
from ..rules import RulesConfig
from .backends import StepResult

__all__ = ["AutoresetMode", "Backend", "BatchedEnv"]


@runtime_checkable
class Backend(Protocol):
    """The engine of one AEC game: start it, apply actions, answer what the env needs after each."""

    config: RulesConfig
    encoder: ObservationEncoder

    @property
    def game(self) -> Any:
        """The game as a ``Game`` (or a read-only mirror of one), None before ``start``."""
        ...

    def start(self, seed: int, deck: Any = None, dealer: Any = None, scores: Any = None) -> StepResult:
        """A new game (``ValueError`` for bad options): its scores and tricks, and the seat to act."""
        ...

    @property
    def phase(self) -> int:
        """The game's phase (a ``Phase`` value)."""
        ...

    def apply(self, action: Any) -> StepResult | None:
        """Apply an action: ``None`` if it is illegal (see :meth:`illegal`), else what it changed."""
        ...

    def illegal(self, action: Any) -> str:
        """Why the last ``apply`` returned ``None``."""
        ...

    def win_rewards(self) -> list[float]:
        """The ``reward="win"`` rewards of the finished episode, by seat."""
        ...

    def observe(self, seat: int) -> tuple[np.ndarray, np.ndarray]:
        """``seat``'s observation and action mask (fresh arrays)."""
        ...

    def legal(self) -> list[int]:
        """The legal actions of the seat to act."""
        ...


@runtime_checkable
class BatchedEnv(Protocol):
    """``num_games`` games of one configuration stepped together (see the module docstring)."""

    autoreset_mode: AutoresetMode
    config: RulesConfig
    num_games: int
    num_players: int

    @property
    def scores(self) -> np.ndarray:
        """Every game's current scores, shape (num_games, num_players)."""
        ...

    def reset(self, seed: int | None = None) -> Any:
        """Start a fresh episode in every game (seeded per game from ``seed``): a ``BatchStep``."""
        ...

    def reset_games(self, seeds: list[int], out: Any = None) -> Any:
        """Start a fresh episode in every game, game ``i`` seeded like ``env.reset(seed=seeds[i])``."""
        ...

    def step(self, actions: Any, out: Any = None) -> Any:
        """Apply one action per game and return the next decisions (a ``BatchStep``)."""
        ...

    def close(self) -> None:
        """Release what the env holds (worker processes)."""
        ...
