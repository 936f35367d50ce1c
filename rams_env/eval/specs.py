"""The agent sources an evaluation plays, by spec: :mod:`rams_env.agents.specs` reads the specs; this
module adds how reports label an agent that sees hidden cards.
"""

from __future__ import annotations

from ..agents.oracle import HIDDEN_CARDS_LABEL
from ..agents.specs import (
    AGENT_SPEC_HELP,
    BUILTIN_AGENTS,
    AgentFactory,
    AgentSource,
    agent_source,
    build_agent,
    check_source,
    sees_hidden_cards,
    source_name,
)

__all__ = [
    "AGENT_SPEC_HELP",
    "BUILTIN_AGENTS",
    "AgentFactory",
    "AgentSource",
    "agent_label",
    "agent_source",
    "build_agent",
    "check_source",
    "sees_hidden_cards",
    "source_name",
]


def agent_label(name: str, source: AgentSource) -> str:
    """``name`` as reports show it: marked "(sees hidden cards)" for an agent that does."""
    if sees_hidden_cards(source) and HIDDEN_CARDS_LABEL not in name:
        return f"{name} ({HIDDEN_CARDS_LABEL})"
    return name
