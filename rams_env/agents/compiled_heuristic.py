"""``CompiledHeuristicAgent``: :class:`~rams_env.agents.HeuristicAgent`'s decisions from the compiled twin.

The same constructor and the same actions as the Python agent (seed for seed), from
:mod:`rams_env.compiled.heuristic`, at a fraction of the cost a decision. The Python agent stays
the readable reference; the batched env plays heuristic seats with the twin inside its compiled
step (``BatchedRamsEnv(heuristic_seats=...)``).
"""

from __future__ import annotations

import random
from functools import lru_cache

import numpy as np

from ..obs.encoding import SLICES
from ..rules import RulesConfig, make_config
from ..rules.config import PRESETS
from .base import Observation, ObservationAgent, legal_from_mask, observation_vector

_VARIANTS = tuple(PRESETS)


def mt_state(seed: int | np.integer | None) -> np.ndarray:
    """The compiled generator's state for ``random.Random(seed)`` (``seed`` below 2**64 in size;
    None: a fresh seed from the operating system)."""
    from .. import compiled

    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int | np.integer)):
        raise TypeError(f"seed must be an int (Python or numpy) or None, got {seed!r}")
    value = random.SystemRandom().getrandbits(64) if seed is None else abs(int(seed))
    if value >= 2**64:
        raise ValueError(f"seed must be below 2**64 in size for the compiled generator, got {seed!r}")
    state = np.zeros(625, np.int64)
    compiled.mt_seed(state, np.uint64(value).astype(np.int64))  # the words of seeds from 2**63 on
    return state


@lru_cache(maxsize=64)
def _config_vector(config: RulesConfig) -> np.ndarray:
    from .. import compiled

    return compiled.config_array(config, "deal", "points")


class CompiledHeuristicAgent(ObservationAgent):
    """``HeuristicAgent(config, seed)``, compiled: the same action for every observation."""

    def __init__(self, config: RulesConfig | None = None, seed: int | None = None) -> None:
        from ..compiled import heuristic

        self.config = config
        self.mt = mt_state(seed)
        self._work = np.zeros(heuristic.WORK_SIZE, np.float64)
        self._iwork = np.zeros(heuristic.WORK_SIZE, np.int64)
        self._act = heuristic.heuristic_action

    def seed(self, seed: int | None) -> None:
        """Reseed the generator, as ``HeuristicAgent.rng.seed(seed)`` does."""
        self.mt = mt_state(seed)

    def act(self, observation: Observation) -> int:
        """A legal action for the observation."""
        legal = legal_from_mask(observation)
        if len(legal) == 1:
            return int(legal[0])
        vector = observation_vector(observation)
        bits = 0
        for a in legal.tolist():
            bits |= 1 << a
        return int(self._act(vector, _config_vector(self._rules(vector)), bits, self.mt, self._work, self._iwork))

    def _rules(self, vector: np.ndarray) -> RulesConfig:
        """The agent's rules, checked against the table it observes."""
        variant = _VARIANTS[int(np.argmax(vector[SLICES["variant"]]))]
        players = int((vector[SLICES["seats"]] > 0.5).sum())
        config = self.config
        if config is None:
            return _preset(variant, players)
        if (config.variant, config.num_players) != (variant, players):
            raise ValueError(
                f"CompiledHeuristicAgent was built for {config.variant} with {config.num_players} players, "
                f"but observes {variant} with {players}"
            )
        return config


@lru_cache(maxsize=64)
def _preset(variant: str, num_players: int) -> RulesConfig:
    return make_config(variant, num_players)


__all__ = ["CompiledHeuristicAgent", "mt_state"]
