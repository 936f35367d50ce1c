"""Learned beliefs: worlds for the search drawn from a belief network's view of where the hidden cards lie.

A belief network (:class:`rams_env.policy.beliefs.BeliefNet`) reads a seat's observation and gives, for
every card hidden from it, the probability of each place (each other hand, the talon, the face-down
cards). :class:`LearnedBeliefs` turns one forward pass per decision into a sampler of worlds: the deal
sampler's placement (:class:`~rams_env.agents.deal_sampler.DealSampler`), with every hard constraint
it knows (voids shown in play, the turned card, shown cards, russian combinations), drawing each
card's place from the network instead of its fixed weighting.

``SearchAgent(beliefs=...)`` takes a :class:`LearnedBeliefs`, a :class:`BeliefNet`, the path of a belief
file, or a zoo name: a preset (``"mattmar"``) for its shipped network, or a belief model's name
(``"mattmar-beliefs"``). Needs torch.
"""

from __future__ import annotations

import functools
import os
import random
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import zoo
from ..obs.beliefs import place_room
from ..rules import Game
from .base import observe
from .deal_sampler import DealSampler


class LearnedBeliefs:
    """Worlds for ``seat`` drawn from a belief network (module docstring)."""

    def __init__(self, net: Any) -> None:
        self.net = net
        self.variant: str | None = getattr(net, "variant", None)

    def probabilities(self, game: Game, seat: int) -> np.ndarray:
        """The network's probability of each place for each card, ``[NUM_CARDS, NUM_PLACES]`` (only the
        rows of cards hidden from ``seat`` mean anything)."""
        if self.variant is not None and game.config.variant != self.variant:
            raise ValueError(
                f"the belief network was trained for {self.variant!r}, the game is {game.config.variant!r}"
            )
        return self.net.place_probabilities(observe(game, seat)["observation"], place_room(game, seat))

    def sampler(self, game: Game, seat: int) -> DealSampler:
        """The deal sampler of ``seat`` weighted by the network (its ``sample(rng)`` draws a world)."""
        return DealSampler(game, seat, beliefs=self.probabilities(game, seat))

    def worlds(self, game: Game, seat: int) -> Callable[[random.Random], Game]:
        """What draws the worlds searched for ``seat``: ``worlds(game, seat)(rng)`` is one world."""
        return self.sampler(game, seat).sample


def load_beliefs_option(value: Any, name: str = "beliefs") -> LearnedBeliefs | None:
    """The learned beliefs an option names: None, a :class:`LearnedBeliefs`, a network, a file or a zoo name."""
    if value is None or isinstance(value, LearnedBeliefs):
        return value
    if hasattr(value, "place_probabilities"):
        return LearnedBeliefs(value)
    if isinstance(value, (str, os.PathLike)):
        path = value if os.path.exists(value) else zoo.resolve_beliefs(str(value)).path
        return LearnedBeliefs(_loaded(os.path.abspath(path), os.path.getmtime(path)))
    raise ValueError(
        f"{name} must be None, a belief network, the path of a belief file or a zoo name, got {type(value).__name__}"
    )


@functools.lru_cache(maxsize=8)
def _loaded(path: str, mtime: float) -> Any:
    """A belief file's network, read once per process and file version (the network is only read)."""
    from ..policy.beliefs import load_beliefs  # torch: only learned beliefs need it

    return load_beliefs(path)
