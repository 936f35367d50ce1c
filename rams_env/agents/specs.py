"""Agent specs: the one place that reads the names users give agents and turns them into agents.

A spec names an agent (``random``, ``heuristic``, ``search:200``, ``search:key=value,...``, a model or a
named agent of the zoo (``mattmar-search``), a checkpoint file or folder; :data:`AGENT_SPEC_HELP`).
:func:`resolve` is the one function that reads it: it gives a :class:`ResolvedAgent`, the agent source
and the rules it plays (a trained policy's own, read from its file once). An agent source is either an
instance (used as it is for every game: deterministic agents, trained policies) or an
:class:`AgentFactory` (a built-in class with the spec's options) that builds one per game from its seed;
:func:`agent_source` is ``resolve(...).source``.

The built-in names' classes are registered in :data:`rams_env.loaders.AGENT_CLASSES`: this package's by
``rams_env.agents``, OpenSpiel's ISMCTS by ``rams_env.integrations``, so that nothing here imports an
integration. A named agent of the zoo (:func:`rams_env.zoo.named_agents`) stands for the built-in spec its file
holds, over the zoo's own networks: it resolves as that spec, seeded per game, and plays its networks' rules
(:func:`named_agent`). :func:`agent_option` reads the agent-valued options of the search (``base``,
``opponent_model``, ``rollout_policy``): ``"heuristic"``, a policy's name or path, or an agent.
"""

from __future__ import annotations

import functools
import inspect
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from .. import zoo
from ..keyvalue import parse_pair
from ..loaders import AGENT_CLASSES
from ..rules import RulesConfig

AgentSource = Any
"""An agent (it has ``act``), or a factory called as ``factory(seed=...)`` that builds one per game."""

BUILTIN_AGENTS = ("random", "heuristic", "search", "oracle", "ismcts", "flawed")

AGENT_SPEC_HELP = (
    "an agent: random, heuristic, search (search:200 for 200 simulations, or search:key=value,key=value "
    "for any SearchAgent keyword: search:objective=win plays for the rams, search:rollout_policy=mattmar-4p "
    "rolls out with a policy, search:base=mattmar,phases=knock searches only the knock over a policy, "
    "search:opponent_model=heuristic weighs the knock's worlds by the knocks seen, search:beliefs=mattmar "
    "draws the worlds from the preset's learned beliefs), "
    "oracle (the same search on the true deal: it sees hidden cards, a "
    "reference, not a fair agent; oracle:200 or oracle:key=value,... as for search), ismcts (OpenSpiel's "
    "ISMCTS, the openspiel extra: ismcts:200, or "
    "ismcts:key=value,... for any ISMCTSAgent keyword), flawed (a trained policy with a planted hole, the "
    "calibration target of rams exploit: flawed:flaw=always-knock, never-buy or highest-card, with base=POLICY, "
    "by default the preset's flagship), a model of the zoo by name (mattmar-4p; a preset's "
    "name, such as mattmar, for its best model), or the path of a checkpoint file, of an ensemble manifest (.json), "
    "of a Stable-Baselines3 MaskablePPO .zip, an OpenSpiel NFSP policy (.nfsp.pt) or an RLlib checkpoint folder; "
    "a named agent of the zoo: mattmar-search (and norrlandsknack-search, rams32-search, russian-search) is the "
    "search over the preset's flagship with its learned beliefs and its network's rollouts: slower, and the "
    "strongest agent where measured (its model card)"
)

SPEC_NAMES = {
    "RandomAgent": "random",
    "HeuristicAgent": "heuristic",
    "CompiledHeuristicAgent": "heuristic",
    "SearchAgent": "search",
    "ISMCTSAgent": "ismcts",
    "OracleAgent": "oracle",
    "FlawedAgent": "flawed",
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


def is_policy(spec: str) -> bool:
    """Whether ``spec`` names a trained policy (a checkpoint or ensemble file, a saved folder (RLlib's), a zoo
    model) or a named agent of the zoo over trained policies: an agent whose files fix the rules it plays."""
    if is_builtin(spec):
        return False
    return os.path.isfile(spec) or os.path.isdir(spec) or (zoo.is_name(spec) and spec in zoo.known_names())


@dataclass(frozen=True)
class ResolvedAgent:
    """An agent spec resolved (:func:`resolve`): the agent source, and the rules it plays."""

    spec: str
    source: AgentSource
    rules: RulesConfig | None
    """The rules it plays: those it was resolved for; a trained policy's own where none were given (None
    for a built-in agent resolved without rules, and for a policy whose file records none)."""
    trained: bool = False
    """Whether it is a trained policy, whose file fixes the rules it may play."""
    table_sizes: tuple[int, ...] = ()
    """The table sizes a trained policy was trained for (empty for a built-in agent: any)."""

    def at(self, config: RulesConfig) -> ResolvedAgent:
        """The same agent for the rules ``config``: a built-in agent made for them, a trained policy checked
        against them and set to play them (its file is not read again); ``ValueError`` if it cannot play them."""
        if not self.trained:
            return resolve(self.spec, config)
        if self.rules is None or config == self.rules:  # a file that records no rules plays those asked for
            return replace(self, rules=config)
        from ..policy import RulesMismatchError, config_at_size, rules_mismatch  # torch: a policy is loaded

        tables = [config_at_size(self.rules, n) for n in self.table_sizes or (self.rules.num_players,)]
        if config not in tables:
            same_size = [c for c in tables if c.num_players == config.num_players]
            raise RulesMismatchError(rules_mismatch(self.spec, same_size[0] if same_size else self.rules, config))
        return replace(self, source=self.source.for_table(config), rules=config)


def resolve(spec: str, config: RulesConfig | None = None) -> ResolvedAgent:
    """The agent named by ``spec`` (see ``AGENT_SPEC_HELP``) and the rules it plays; ``ValueError`` if bad.

    A built-in class whose constructor takes ``seed`` becomes an :class:`AgentFactory`, so that the
    evaluation seeds it per game; one that takes ``config`` gets ``config``. A trained policy is loaded
    once (greedy), checked against ``config`` when given; without ``config`` it plays its own rules
    (:attr:`ResolvedAgent.rules`), and :meth:`ResolvedAgent.at` sets it to others without reading it again.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"an agent spec must be a non-empty string, got {spec!r}")
    named = zoo.named_agent(spec)
    if named is not None:
        return _resolve_named(named, config)
    if is_policy(spec):
        from . import load_agent  # torch: only a policy needs it

        agent = load_agent(spec, expect_config=config)
        rules = getattr(agent, "config", None)
        sizes = tuple(getattr(agent, "table_sizes", () if rules is None else (rules.num_players,)))
        return ResolvedAgent(spec, agent, rules, trained=True, table_sizes=sizes)
    if not is_builtin(spec):
        raise ValueError(_unknown(spec))
    return ResolvedAgent(spec, _builtin_source(spec, config), config)


NETWORK_OPTIONS = ("base", "rollout_policy", "opponent_model")  # a search's options that may name a zoo policy


def _resolve_named(model: zoo.ZooModel, config: RulesConfig | None) -> ResolvedAgent:
    """A named agent of the zoo: the built-in spec its file holds, with the rules of the networks it names
    (loaded once per process: :func:`loaded_policy`); ``ValueError`` for a bad file or other rules."""
    spec = zoo.agent_spec(model)
    where = f"named agent {model.name!r} ({model.path})"
    if not is_builtin(spec):
        raise zoo.ZooError(f"{where}: {spec!r} is not a built-in agent spec (random, heuristic, search:...)")
    _, options = split_spec(spec)
    rules: RulesConfig | None = None
    for key, value in options.items():
        if key not in (*NETWORK_OPTIONS, "beliefs") or value in ("heuristic", None):
            continue
        if not (isinstance(value, str) and zoo.is_name(value)) or zoo.named_agent(value) is not None:
            raise zoo.ZooError(f"{where}: {key}={value!r} must name a network of the zoo, not a path or a named agent")
        if key == "beliefs":
            zoo.resolve_beliefs(value)
            continue
        own = loaded_policy(value).config
        if rules is not None and own != rules:
            raise zoo.ZooError(f"{where}: {key}={value!r} plays other rules than its other networks")
        rules = own
    if rules is None:  # no policy: it plays any rules, as its spec does
        return replace(resolve(spec, config), spec=model.name)
    source = _builtin_source(spec, rules)
    named = ResolvedAgent(model.name, source, rules, trained=True, table_sizes=(rules.num_players,))
    return named if config is None else named.at(config)


def named_agent(name: str, config: RulesConfig | None = None, seed: int | None = None) -> Any:
    """The agent of a named agent of the zoo (``"mattmar-search"``, or the path of its ``.agent.json``), seeded
    with ``seed``; checked against ``config`` when given (``rams_env.policy.RulesMismatchError`` if it plays
    other rules)."""
    model = zoo.named_agent(name)
    if model is None:
        raise zoo.ZooError(f"{name!r} is not a named agent; the zoo's are: {', '.join(zoo.named_agents()) or 'none'}")
    return build_agent(_resolve_named(model, config).source, seed)


def agent_source(spec: str, config: RulesConfig | None = None) -> AgentSource:
    """The agent (or per-game factory) named by ``spec``: ``resolve(spec, config).source``."""
    return resolve(spec, config).source


def _builtin_source(spec: str, config: RulesConfig | None) -> AgentSource:
    """The agent or factory of a built-in spec (``search:200``) for ``config``; ``ValueError`` if bad."""
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


def _unknown(spec: str) -> str:
    """Why ``spec``, neither a built-in agent nor a trained policy, names no agent."""
    moved = zoo.moved_to(spec)
    if moved is not None:
        return f"agent {spec!r}: {moved}"
    if os.sep in spec or "." in spec:
        return f"agent {spec!r}: no checkpoint file at that path"
    names = ", ".join(zoo.known_names()) or f"none: no model zoo found (set {zoo.ZOO_ENV})"
    return f"unknown agent {spec!r}; expected {AGENT_SPEC_HELP}. Zoo names: {names}"


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


HIDDEN_CARDS_LABEL = "sees hidden cards"


def agent_label(name: str, source: AgentSource) -> str:
    """``name`` as reports show it: marked "(sees hidden cards)" for an agent that does."""
    if sees_hidden_cards(source) and HIDDEN_CARDS_LABEL not in name:
        return f"{name} ({HIDDEN_CARDS_LABEL})"
    return name


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
