"""Agents that play Rams: random, rule-based, search and trained policies (docs/contract.md "Trained agents").

The oracle (:class:`OracleAgent`) is the search on the true deal: it sees hidden cards, a reference only.

Every agent has ``act(observation) -> int``. Each also has ``act_game(game, seat) -> int``, which an
evaluation harness may call with the real :class:`~rams_env.rules.Game`; an agent then uses only
what ``seat`` may know (the search agent needs the public history, which the observation vector
does not hold).

Random, heuristic and search agents need only the engine and numpy. A trained policy needs torch (the
``torch`` extra): :func:`load_agent` imports :mod:`rams_env.agents.neural` on first use, and without
torch raises :class:`MissingExtraError` naming the extra to install.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from .. import zoo
from ..loaders import loader_for, register_agent_class
from ..rules import RulesConfig
from .base import Agent, ObservationAgent, observe
from .compiled_heuristic import CompiledHeuristicAgent
from .flawed import FlawedAgent
from .heuristic import HeuristicAgent
from .oracle import OracleAgent
from .random_agent import RandomAgent
from .search import SearchAgent
from .specs import AgentFactory, ResolvedAgent, agent_source, named_agent, resolve

if TYPE_CHECKING:
    from .neural import PolicyAgent

__all__ = [
    "Agent",
    "CompiledHeuristicAgent",
    "FlawedAgent",
    "HeuristicAgent",
    "MissingExtraError",
    "ObservationAgent",
    "OracleAgent",
    "RandomAgent",
    "SearchAgent",
    "agent_source",
    "load_agent",
]


# The built-in specs' classes ("heuristic" is HeuristicAgent's compiled twin: the same decisions, seed for
# seed, much faster); rams_env.integrations registers "ismcts".
for _name, _cls in (
    ("random", RandomAgent),
    ("heuristic", CompiledHeuristicAgent),
    ("search", SearchAgent),
    ("oracle", OracleAgent),
    ("flawed", FlawedAgent),
):
    register_agent_class(_name, lambda cls=_cls: cls)


class MissingExtraError(ImportError, ValueError):
    """A feature needs an optional dependency that is not installed; the message names the extra.

    An ``ImportError`` (a package is missing) and a ``ValueError``, so that callers which refuse a
    bad agent spec with a message (``rams eval``) report it the same way.
    """


def load_agent(
    path: str | os.PathLike[str],
    expect_config: RulesConfig | None = None,
    greedy: bool = True,
    seed: int | None = None,
) -> PolicyAgent | SearchAgent:
    """The trained policy of a checkpoint file or zoo name, with ``act``, ``act_game``, ``variant``, ``num_players``.

    ``path`` is a checkpoint, an ensemble manifest, a file or folder an integration saves (an RLlib
    checkpoint folder, a Stable-Baselines3 ``.zip``, an OpenSpiel NFSP ``.nfsp.pt``), or a name of the model zoo
    (:mod:`rams_env.zoo`): a model (``"mattmar-4p"``) or a preset, for its flagship (``"mattmar"``).
    A named agent of the zoo (``"mattmar-search"``) gives the agent it names, a :class:`SearchAgent` over the
    zoo's networks seeded with ``seed`` (:func:`rams_env.agents.specs.named_agent`; ``greedy`` has no part).
    An unknown name raises :class:`rams_env.zoo.ZooError` (a ``ValueError``) listing the known ones.

    Raises ``rams_env.policy.CheckpointError`` (a ``ValueError``) for a missing, damaged or foreign
    file, or one trained for rules other than ``expect_config``. Imports torch on first use;
    :class:`MissingExtraError` if torch is not installed.
    """
    if zoo.named_agent(path) is not None:
        return named_agent(str(path), expect_config, seed)
    path = zoo.locate(path)  # a zoo name becomes its file; an old flat path is refused naming the new one
    try:
        from .neural import load_policy_agent
    except ModuleNotFoundError as err:
        if err.name != "torch":
            raise
        loader = loader_for(path)  # an RLlib folder, say
        extra = loader.extra if loader is not None else "torch"
        raise MissingExtraError(
            f"loading the trained policy {str(path)!r} needs torch, which is not installed: "
            f'pip install "rams_env[{extra}]"',
            name="torch",
        ) from None

    return load_policy_agent(path, expect_config=expect_config, greedy=greedy, seed=seed)
