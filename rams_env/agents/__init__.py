"""Agents that play Rams: random, rule-based, search and trained policies (CONTRACT.md "Agents").

Every agent has ``act(observation) -> int``. Each also has ``act_game(game, seat) -> int``, which an
evaluation harness may call with the real :class:`~rams_env.rules.Game`; an agent then uses only
what ``seat`` may know (the search agent needs the public history, which the observation vector
does not hold).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ..rules import RulesConfig
from .base import Agent, ObservationAgent, observe
from .heuristic import HeuristicAgent
from .random_agent import RandomAgent
from .search import SearchAgent

if TYPE_CHECKING:
    from ..policy import PolicyAgent

__all__ = ["Agent", "HeuristicAgent", "ObservationAgent", "RandomAgent", "SearchAgent", "load_agent", "observe"]


def load_agent(
    path: str | os.PathLike[str],
    expect_config: RulesConfig | None = None,
    greedy: bool = True,
    seed: int | None = None,
) -> PolicyAgent:
    """The trained policy of a checkpoint file, with ``act``, ``act_game``, ``variant``, ``num_players``.

    Raises ``rams_env.policy.CheckpointError`` (a ``ValueError``) for a missing, damaged or foreign
    file, or one trained for rules other than ``expect_config``. Imports torch on first use.
    """
    from ..policy import load_policy_agent

    return load_policy_agent(path, expect_config=expect_config, greedy=greedy, seed=seed)
