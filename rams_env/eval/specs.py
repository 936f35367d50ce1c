"""Agents by name, and the agent sources an evaluation plays.

A spec names an agent (``random``, ``heuristic``, ``search:200``, a model of the zoo, a checkpoint
file; :data:`AGENT_SPEC_HELP`), and :func:`agent_source` turns it into an agent source: either an
instance (used as it is for every game: deterministic agents) or a factory called with ``seed=``
for every game (``RandomAgent``, ``functools.partial(SearchAgent, simulations=200)``), which
:func:`build_agent` calls.
"""

from __future__ import annotations

import functools
import inspect
import os
from typing import Any

from .. import zoo
from ..keyvalue import parse_pair
from ..rules import RulesConfig

# An agent (it has ``act``), or a factory called as ``factory(seed=...)`` that builds one per game.
AgentSource = Any


BUILTIN_AGENTS = ("random", "heuristic", "search", "oracle", "ismcts")


AGENT_SPEC_HELP = (
    "an agent: random, heuristic, search (search:200 for 200 simulations, or search:key=value,key=value "
    "for any SearchAgent keyword: search:objective=win plays for the rams, search:rollout_policy=mattmar-4p "
    "rolls out with a policy, search:base=mattmar,phases=knock searches only the knock over a policy, "
    "search:opponent_model=heuristic weighs the knock's worlds by the knocks seen), "
    "oracle (the same search on the true deal: it sees hidden cards, a "
    "reference, not a fair agent; oracle:200 or oracle:key=value,... as for search), ismcts (OpenSpiel's "
    "ISMCTS, the openspiel extra: ismcts:200, or "
    "ismcts:key=value,... for any ISMCTSAgent keyword), a model of the zoo by name (mattmar-4p; a preset's "
    "name, such as mattmar, for its best model), or the path of a checkpoint file or of an ensemble manifest (.json)"
)


def agent_source(spec: str, config: RulesConfig | None = None) -> AgentSource:
    """The agent (or per-game factory) named by ``spec`` (see ``AGENT_SPEC_HELP``); ``ValueError`` if bad.

    A class whose constructor takes ``seed`` becomes a factory, so that the evaluation seeds it per
    game; one that takes ``config`` gets ``config``; a checkpoint is loaded once (greedy), checked
    against ``config`` when given.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"an agent spec must be a non-empty string, got {spec!r}")
    name, _, rest = spec.partition(":")
    if name not in BUILTIN_AGENTS:
        if os.path.isfile(spec) or (zoo.is_name(spec) and spec in zoo.known_names()):
            from ..agents import load_agent

            return load_agent(spec, expect_config=config)
        moved = zoo.moved_to(spec)
        if moved is not None:
            raise ValueError(f"agent {spec!r}: {moved}")
        if os.sep in spec or "." in spec:
            raise ValueError(f"agent {spec!r}: no checkpoint file at that path")
        names = ", ".join(zoo.known_names()) or f"none: no model zoo found (set {zoo.ZOO_ENV})"
        raise ValueError(f"unknown agent {spec!r}; expected {AGENT_SPEC_HELP}. Zoo names: {names}")
    if name == "ismcts":  # OpenSpiel's ISMCTS: rams_env.integrations.openspiel (the [openspiel] extra)
        try:
            from ..integrations import openspiel as agents
        except ImportError as err:
            raise ValueError(f"agent {spec!r} needs OpenSpiel: pip install 'rams_env[openspiel]' ({err})") from None
    else:
        from .. import agents

    # "heuristic" is HeuristicAgent's compiled twin: the same decisions, seed for seed, much faster.
    agent_classes = {
        "random": "RandomAgent",
        "heuristic": "CompiledHeuristicAgent",
        "search": "SearchAgent",
        "oracle": "OracleAgent",
    }
    cls = agent_classes.get(name, "ISMCTSAgent")
    if not hasattr(agents, cls):
        raise ValueError(f"agent {spec!r}: rams_env.agents has no {cls} yet")
    factory = getattr(agents, cls)
    options = _spec_options(spec, rest, "simulations" if name in ("search", "oracle", "ismcts") else None)
    if "seed" in options:
        raise ValueError(f"agent {spec!r}: the seed is set per game by the evaluation, not in the spec")
    parameters = inspect.signature(factory).parameters
    if config is not None and "config" in parameters and "config" not in options:
        options["config"] = config
    seeded = "seed" in parameters
    try:
        source = functools.partial(factory, **options) if seeded else factory(**options)
        build_agent(source, 0)  # reject bad keywords now, not in the middle of an evaluation
    except TypeError as err:
        raise ValueError(f"agent {spec!r}: {err}") from None
    return source


def sees_hidden_cards(source: AgentSource) -> bool:
    """Whether the agent (or factory) of ``source`` sees cards hidden from its seat (the oracle)."""
    target = source.func if isinstance(source, functools.partial) else source
    return bool(getattr(target, "sees_hidden_cards", False))


def agent_label(name: str, source: AgentSource) -> str:
    """``name`` as reports show it: marked "(sees hidden cards)" for an agent that does."""
    from ..agents.oracle import HIDDEN_CARDS_LABEL

    if sees_hidden_cards(source) and HIDDEN_CARDS_LABEL not in name:
        return f"{name} ({HIDDEN_CARDS_LABEL})"
    return name


def source_name(source: AgentSource) -> str:
    """A short name of an agent or factory for tables: its spec for the built-in agents (``random``,
    ``heuristic``, ``search``), else its class's name."""
    target = source.func if isinstance(source, functools.partial) else source
    cls = target if inspect.isclass(target) else type(target)
    specs = {"RandomAgent": "random", "HeuristicAgent": "heuristic", "CompiledHeuristicAgent": "heuristic"}
    specs |= {"SearchAgent": "search", "ISMCTSAgent": "ismcts", "OracleAgent": "oracle"}
    return specs.get(cls.__name__, cls.__name__)


def _spec_options(spec: str, text: str, positional: str | None) -> dict[str, Any]:
    if not text:
        return {}
    if "=" not in text and positional is not None:
        text = f"{positional}={text}"
    options: dict[str, Any] = {}
    for item in text.split(","):
        try:
            key, value = parse_pair(item)
        except ValueError:
            raise ValueError(
                f"agent {spec!r}: options must be key=value pairs separated by commas, got {item!r}"
            ) from None
        options[key] = value
    return options


def _is_factory(source: Any) -> bool:
    return isinstance(source, type) or not hasattr(source, "act")


def check_source(name: str, source: Any) -> None:
    """``TypeError`` unless ``source`` is an agent (it has ``act``) or a callable factory."""
    if not _is_factory(source):
        return
    if not callable(source):
        raise TypeError(f"agent {name!r} is neither an agent (with act) nor a factory: {source!r}")


def build_agent(source: AgentSource, seed: int) -> Any:
    """The agent of ``source`` for one game: the instance itself, or ``source(seed=seed)``."""
    if not _is_factory(source):
        return source
    agent = source(seed=seed)
    if not hasattr(agent, "act"):
        raise TypeError(f"agent factory {source!r} returned {agent!r}, which has no act(observation)")
    return agent
