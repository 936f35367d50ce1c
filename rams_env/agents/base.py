"""What every agent offers, and the observation of a seat built straight from a game."""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Mapping
from functools import lru_cache
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ..obs.encoding import OBS_SIZE, ObservationEncoder, action_mask
from ..rules import Game, RulesConfig
from ..rules.actions import NUM_ACTIONS
from ..rules.seeding import check_seed

Observation = Mapping[str, np.ndarray]


@runtime_checkable
class Agent(Protocol):
    """A player: ``act(observation) -> int`` returns a legal action (docs/contract.md).

    Agents may also offer ``act_game(game, seat) -> int``, which the evaluation harness calls when
    present; an agent must use only what ``seat`` may know of ``game``.
    """

    def act(self, observation: Observation) -> int:
        """A legal action for the observation ``{"observation": ..., "action_mask": ...}``."""
        ...


@lru_cache(maxsize=64)
def _encoder(config: RulesConfig) -> ObservationEncoder:
    return ObservationEncoder(config)


def seeded_rng(seed: int | np.integer | None) -> random.Random:
    """``random.Random(seed)`` for an agent (``seed`` as :func:`~rams_env.rules.seeding.check_seed` takes it)."""
    return random.Random(check_seed(seed))


def observe(game: Game, seat: int) -> dict[str, np.ndarray]:
    """The observation ``seat`` gets of ``game``, as the environment's ``observe()`` gives it."""
    return {"observation": _encoder(game.config).encode(game, seat), "action_mask": action_mask(game, seat)}


def legal_from_mask(observation: Any) -> np.ndarray:
    """The legal action ids of an observation dict; a clear ``ValueError`` for anything else."""
    if not isinstance(observation, Mapping) or "action_mask" not in observation:
        raise ValueError(
            'an agent needs the observation dict {"observation": ..., "action_mask": ...}, '
            f"got {type(observation).__name__}"
        )
    mask = np.asarray(observation["action_mask"])
    if mask.shape != (NUM_ACTIONS,):
        raise ValueError(f"action_mask must have shape ({NUM_ACTIONS},), got {mask.shape}")
    legal = np.flatnonzero(mask)
    if legal.size == 0:
        raise ValueError("the action mask allows no action: this agent is not to act")
    return legal


def observation_vector(observation: Observation) -> np.ndarray:
    """The encoded vector of an observation dict, checked for its size."""
    if not isinstance(observation, Mapping) or "observation" not in observation:
        raise ValueError('an agent needs the observation dict {"observation": ..., "action_mask": ...}')
    vector = np.asarray(observation["observation"], dtype=np.float32)
    if vector.shape != (OBS_SIZE,):
        raise ValueError(f"observation must have shape ({OBS_SIZE},), got {vector.shape}")
    return vector


class ObservationAgent(ABC):
    """Base of agents that decide from the encoded observation alone; ``act_game`` encodes it."""

    @abstractmethod
    def act(self, observation: Observation) -> int:
        """A legal action for the observation."""

    def act_game(self, game: Game, seat: int) -> int:
        """Act on ``seat``'s observation of ``game`` (the seat must be the one to act)."""
        if game.current_player != seat:
            raise ValueError(f"seat {seat} is not to act (current player: {game.current_player})")
        return self.act(observe(game, seat))


def game_behind(env: Any, observation: Observation, agent: str) -> Game:
    """The game of ``env`` whose player to act sees ``observation``, for an agent that searches the
    game's public history (``agent`` names it in the errors): a ``ValueError`` without an env, without
    a player to act, or when the observation is another player's. The compiled env's live view is
    cloned into a real :class:`Game`."""
    legal = legal_from_mask(observation)
    if env is None:
        raise ValueError(
            f"{agent}.act(observation) needs the game's public history: build it with "
            f"{agent}(env=your_env) or call act_game(game, seat)"
        )
    game = getattr(env.unwrapped, "game", None)
    if game is not None and not isinstance(game, Game) and hasattr(game, "clone"):
        game = game.clone()  # the compiled env's live view (a GameMirror): search on a real Game
    if not isinstance(game, Game) or game.current_player < 0:
        raise ValueError(f"{agent}: the env has no game with a player to act (call env.reset() first)")
    if sorted(int(a) for a in legal) != game.legal_actions():
        raise ValueError(f"{agent}: the observation does not belong to the env's player to act")
    return game
