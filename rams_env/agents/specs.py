"""Agent specs: the one place that reads the names users give agents and turns them into agents.

A spec names an agent (``random``, ``heuristic``, ``search:200``, ``search:key=value,...``, a model of
the zoo, a checkpoint file; :data:`AGENT_SPEC_HELP`), and :func:`agent_source` turns it into an agent
source: either an instance (used as it is for every game: deterministic agents, trained policies) or an
:class:`AgentFactory` (a built-in class with the spec's options) that builds one per game from its seed.

The built-in names' classes are registered in :data:`rams_env.loaders.AGENT_CLASSES`: this package's by
``rams_env.agents``, OpenSpiel's ISMCTS by ``rams_env.integrations``, so that nothing here imports an
integration. :func:`agent_option` reads the agent-valued options of the search (``base``,
``opponent_model``, ``rollout_policy``): ``"heuristic"``, a policy's name or path, or an agent.
"""

from __future__ import annotations

import functools
import inspect
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .. import zoo
from ..keyvalue import parse_pair
from ..loaders import AGENT_CLASSES
from ..rules import RulesConfig

AgentSource = Any
"""An agent (it has ``act``), or a factory called as ``factory(seed=...)`` that builds one per game."""

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
    "name, such as mattmar, for its best model), or the path of a checkpoint file, of an ensemble manifest (.json), "
    "of a Stable-Baselines3 MaskablePPO .zip, an OpenSpiel NFSP policy (.nfsp.pt) or an RLlib checkpoint folder"
)

SPEC_NAMES = {
    "RandomAgent": "random",
    "HeuristicAgent": "heuristic",
    "CompiledHeuristicAgent": "heuristic",
    "SearchAgent": "search",
    "ISMCTSAgent": "ismcts",
    "OracleAgent": "oracle",
}
"""The spec name of each built-in agent class, by class name (tables name agents by it)."""


@dataclass(frozen=True, eq=True)
class AgentFactory:
    """A built-in agent class with a spec's options: ``factory(seed=...)`` builds one agent per game."""

    cls: type
    options: Mapping[str, Any] = field(default_factory=dict)

    __hash__ = None  # type: ignore[assignment]  # the options are a dict

    def __call__(self, seed: int | None = None) -> Any:
        return self.cls(seed=seed, **self.options)

    def with_options(self, **options: Any) -> AgentFactory:
        """The same class with ``options`` set (over the present ones)."""
        return AgentFactory(self.cls, {**self.options, **options})


def is_builtin(spec: str) -> bool:
    """Whether ``spec`` names a built-in agent (``random``, ``search:200``), not a policy file or zoo name."""
    return spec.partition(":")[0] in BUILTIN_AGENTS


def split_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """A built-in spec's name and options: ``search:200`` is ``("search", {"simulations": 200})``."""
    name, _, text = spec.partition(":")
    if not text:
        return name, {}
    if "=" not in text and name in ("search", "oracle", "ismcts"):
        text = f"simulations={text}"
    options: dict[str, Any] = {}
    for item in text.split(","):
        try:
            key, value = parse_pair(item)
        except ValueError:
            raise ValueError(
                f"agent {spec!r}: options must be key=value pairs separated by commas, got {item!r}"
            ) from None
        options[key] = value
    return name, options


def agent_source(spec: str, config: RulesConfig | None = None) -> AgentSource:
    """The agent (or per-game factory) named by ``spec`` (see ``AGENT_SPEC_HELP``); ``ValueError`` if bad.

    A class whose constructor takes ``seed`` becomes an :class:`AgentFactory`, so that the evaluation
    seeds it per game; one that takes ``config`` gets ``config``; a checkpoint is loaded once (greedy),
    checked against ``config`` when given.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"an agent spec must be a non-empty string, got {spec!r}")
    if not is_builtin(spec):
        return _policy_source(spec, config)
    name, options = split_spec(spec)
    if name not in AGENT_CLASSES:
        raise ValueError(f"agent {spec!r}: no agent class is registered for {name!r}")
    try:
        cls = AGENT_CLASSES[name]()
    except ValueError as err:  # an optional library missing: the message names the extra
        raise ValueError(f"agent {spec!r} {err}") from None
    if "seed" in options:
        raise ValueError(f"agent {spec!r}: the seed is set per game by the evaluation, not in the spec")
    parameters = inspect.signature(cls).parameters
    if config is not None and "config" in parameters and "config" not in options:
        options["config"] = config
    try:
        source = AgentFactory(cls, options) if "seed" in parameters else cls(**options)
        build_agent(source, 0)  # reject bad keywords now, not in the middle of an evaluation
    except TypeError as err:
        raise ValueError(f"agent {spec!r}: {err}") from None
    return source


def _policy_source(spec: str, config: RulesConfig | None) -> AgentSource:
    """The trained policy of a checkpoint path or zoo name ``spec``; ``ValueError`` saying what is wrong."""
    if os.path.isfile(spec) or (zoo.is_name(spec) and spec in zoo.known_names()):
        from . import load_agent  # torch: only a policy needs it

        return load_agent(spec, expect_config=config)
    moved = zoo.moved_to(spec)
    if moved is not None:
        raise ValueError(f"agent {spec!r}: {moved}")
    if os.sep in spec or "." in spec:
        raise ValueError(f"agent {spec!r}: no checkpoint file at that path")
    names = ", ".join(zoo.known_names()) or f"none: no model zoo found (set {zoo.ZOO_ENV})"
    raise ValueError(f"unknown agent {spec!r}; expected {AGENT_SPEC_HELP}. Zoo names: {names}")


@functools.lru_cache(maxsize=8)
def loaded_policy(name: str) -> Any:
    """A zoo policy or checkpoint, loaded once per process (a greedy policy keeps no state)."""
    from . import load_agent  # torch: only a policy needs it

    return load_agent(name)


def agent_option(value: Any, name: str, method: str, keep: tuple[Any, ...]) -> Any:
    """An agent-valued option ``name`` of an agent: a value of ``keep`` (``"heuristic"``, None) as given,
    a zoo name or checkpoint path loaded as a policy, or an agent with ``method`` (``act_game``)."""
    if any(value == kept if isinstance(kept, str) else value is kept for kept in keep):
        return value
    if isinstance(value, str):
        value = loaded_policy(value)
    if not callable(getattr(value, method, None)):
        allowed = ", ".join(str(kept) for kept in keep)
        raise ValueError(f"{name} must be {allowed}, a policy's name or path, or an agent with {method}, got {value!r}")
    return value


def agent_class(source: AgentSource) -> type:
    """The class of the agents ``source`` plays: a factory's class, a class itself, or an agent's type."""
    if isinstance(source, AgentFactory):
        return source.cls
    if isinstance(source, functools.partial):  # a factory of the caller's
        return agent_class(source.func)
    return source if inspect.isclass(source) else type(source)


def source_name(source: AgentSource) -> str:
    """A short name of an agent or factory for tables: its spec for the built-in agents (``random``,
    ``heuristic``, ``search``), else its class's name."""
    name = agent_class(source).__name__
    return SPEC_NAMES.get(name, name)


def sees_hidden_cards(source: AgentSource) -> bool:
    """Whether the agent (or factory) of ``source`` sees cards hidden from its seat (the oracle)."""
    target = agent_class(source) if is_factory(source) else source
    return bool(getattr(target, "sees_hidden_cards", False))


def is_factory(source: Any) -> bool:
    """Whether ``source`` builds agents (a class or a callable without ``act``) rather than being one."""
    return isinstance(source, type) or not hasattr(source, "act")


def check_source(name: str, source: Any) -> None:
    """``TypeError`` unless ``source`` is an agent (it has ``act``) or a callable factory."""
    if is_factory(source) and not callable(source):
        raise TypeError(f"agent {name!r} is neither an agent (with act) nor a factory: {source!r}")


def build_agent(source: AgentSource, seed: int) -> Any:
    """The agent of ``source`` for one game: the instance itself, or ``source(seed=seed)``."""
    if not is_factory(source):
        return source
    agent = source(seed=seed)
    if not hasattr(agent, "act"):
        raise TypeError(f"agent factory {source!r} returned {agent!r}, which has no act(observation)")
    return agent
