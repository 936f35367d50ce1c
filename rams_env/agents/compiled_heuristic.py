"""``CompiledHeuristicAgent``: :class:`~rams_env.agents.HeuristicAgent`'s decisions from the compiled twin.

The same constructor and the same actions as the Python agent (seed for seed), from the core's
:class:`~rams_env.core.Heuristic`, at a fraction of the cost a decision. The Python agent stays
the readable reference; the batched env plays heuristic seats with the twin inside its compiled
step (``BatchedRamsEnv(heuristic_seats=...)``). :func:`compare_agents` plays the two side by side,
decision by decision (``tests/compiled/test_heuristic.py``, ``benchmarks/heuristic_speed.py --compare``).
"""

from __future__ import annotations

import random
from functools import lru_cache

import numpy as np

from ..core import Heuristic
from ..obs.encoding import SLICES
from ..rules import Game, RulesConfig, make_config
from ..rules.config import PRESETS
from ..rules.episode import next_deal_or_end
from .base import Observation, ObservationAgent, legal_from_mask, observation_vector, observe
from .heuristic import HeuristicAgent

_VARIANTS = tuple(PRESETS)


class CompiledHeuristicAgent(ObservationAgent):
    """``HeuristicAgent(config, seed)``, compiled: the same action for every observation."""

    def __init__(self, config: RulesConfig | None = None, seed: int | None = None) -> None:
        self.config = config
        self._heuristic = Heuristic([seed])

    def seed(self, seed: int | None) -> None:
        """Reseed the generator, as ``HeuristicAgent.rng.seed(seed)`` does."""
        self._heuristic.reseed(seed)

    def act(self, observation: Observation) -> int:
        """A legal action for the observation."""
        legal = legal_from_mask(observation)
        if len(legal) == 1:
            return int(legal[0])
        vector = observation_vector(observation)
        bits = 0
        for a in legal.tolist():
            bits |= 1 << a
        return self._heuristic.act(vector, self._rules(vector), bits)

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


def compare_agents(variant: str, decisions: int, seed: int = 0) -> tuple[int, list[str]]:
    """Whole ramsar at every table size of ``variant`` until ``decisions`` decisions, each decided by
    both agents (seeded alike): the count, and a line for each decision where they differ."""
    rng = random.Random(seed)
    preset = make_config(variant)
    sizes = list(range(preset.min_players, preset.max_players + 1))
    made, differ, game_index = 0, [], 0
    while made < decisions:
        n = sizes[game_index % len(sizes)]
        config = make_config(variant, n)
        scores = [rng.randint(1, config.start_score) for _ in range(n)] if game_index % 2 else None
        game = Game(config, seed=rng.getrandbits(32), scores=scores)
        seeds = [rng.getrandbits(40) for _ in range(n)]
        python = [HeuristicAgent(config, seed=s) for s in seeds]
        compiled = [CompiledHeuristicAgent(config, seed=s) for s in seeds]
        random_seat = rng.randrange(n) if game_index % 3 == 0 else -1
        while True:
            while (seat := game.current) >= 0:
                obs = observe(game, seat)
                expected, got = python[seat].act(obs), compiled[seat].act(obs)
                made += 1
                if expected != got:
                    differ.append(f"{variant} {n}p game {game_index} phase {game.phase.name}: {expected} != {got}")
                action = expected
                if seat == random_seat or rng.random() < 0.05:
                    action = rng.choice(game.legal_actions())
                game.apply(action)
            if next_deal_or_end(game, "rams"):
                break
        game_index += 1
    return made, differ


__all__ = ["CompiledHeuristicAgent", "compare_agents"]
