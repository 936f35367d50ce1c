"""The frozen target of a run (``TrainArgs.target``, ``rams exploit``): who plays every other seat.

A target is ``heuristic`` (the compiled heuristic, inside the batched env's step), ``random`` (uniform
legal moves) or a policy: a zoo name, a checkpoint or an ensemble manifest, played greedily as
``rams eval`` plays it, its seats batched into one forward pass per step. The searches (``search``,
``oracle``, ``ismcts``) decide from the public history of a :class:`~rams_env.rules.Game`, which the
batched compiled env does not keep, so they are refused by name: a search's exploitability is bounded
by playing other targets' exploiters against it (docs/agents.md, "Exploitability").

Several targets joined by ``+`` (``heuristic+runs/exploit/best.pt``) make a mixture: each episode
draws one of them, uniformly, to play every other seat (one step of PSRO trains against such a pool).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from rams_env import zoo
from rams_env.agents.specs import agent_source, is_builtin, split_spec
from rams_env.envs.seats import Seat
from rams_env.rules import RulesConfig

TARGET_SEPARATOR = "+"
"""joins the specs of a mixture of targets"""
BUILT_IN_TARGETS = ("heuristic", "random")
"""the built-in agents a run can train against inside the batched env's step"""
POLICY_BUILTINS = ("flawed",)
"""the built-in agents that are policies (a trained policy with a planted hole): targets like any policy"""


class TargetError(ValueError):
    """A target that cannot be trained against; the message names it and says what can."""


@dataclass(frozen=True)
class Target:
    """A resolved target: its spec, its kind (``heuristic``, ``random`` or ``policy``) and the agent
    (or per-game factory) that evaluations play."""

    spec: str
    kind: str
    agent: Any

    @property
    def seat(self) -> Seat:
        """Who the target is at the table: the env's heuristic, random play, or its policy (an outside agent)."""
        return Seat(self.kind) if self.kind != "policy" else Seat.of(self.agent)

    def actions(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """A policy target's greedy actions for a batch of its seats' observations."""
        if self.kind != "policy":
            raise TypeError(f"target {self.spec!r} is played by the env ({self.kind}), not by actions()")
        return self.agent.act_batch(observations, masks)  # type: ignore[no-any-return]


def resolve_target(spec: str, config: RulesConfig) -> Target:
    """The target named by ``spec`` for ``config``'s table; :class:`TargetError` before any work if it is bad."""
    if not isinstance(spec, str) or not spec.strip() or spec != spec.strip():
        raise TargetError(f"a target must name an agent (without spaces around it), got {spec!r}")
    if is_builtin(spec) and split_spec(spec)[0] not in POLICY_BUILTINS:
        name, options = split_spec(spec)
        if name not in BUILT_IN_TARGETS:
            raise TargetError(
                f"target {spec!r}: {name} searches from the game's public history, which the batched env does not "
                f"keep, so no run trains against it; targets are {', '.join(BUILT_IN_TARGETS)} or a policy (a zoo "
                f"name, a checkpoint, an ensemble manifest). Bound its exploitability by evaluating exploiters "
                f"against it: rams eval EXPLOITER --baseline {spec} --episode rams"
            )
        if options:
            raise TargetError(f"target {spec!r}: {name} takes no options as a target")
        return Target(spec, name, agent_source(name, config))
    try:
        agent = agent_source(spec, config)
    except ValueError as err:
        raise TargetError(f"target {spec!r}: {err}") from None
    if not callable(getattr(agent, "act_batch", None)):
        raise TargetError(f"target {spec!r} is not a policy that plays batches ({type(agent).__name__})")
    return Target(spec, "policy", agent)


def split_targets(spec: str) -> list[str]:
    """The specs of a mixture joined by ``+`` (an existing file whose name holds a ``+`` is one target)."""
    return [spec] if not isinstance(spec, str) or os.path.exists(spec) else spec.split(TARGET_SEPARATOR)


def resolve_targets(spec: str, config: RulesConfig) -> tuple[Target, ...]:
    """The targets of ``spec``, one or several joined by ``+``; :class:`TargetError` naming a bad one."""
    parts = split_targets(spec)
    if len(parts) > 1 and not all(p.strip() for p in parts):
        raise TargetError(f"target {spec!r}: an empty agent between the {TARGET_SEPARATOR!r} of a mixture")
    return tuple(resolve_target(part, config) for part in parts)


def starting_weights(spec: str, variant: str) -> str:
    """The checkpoint an exploiter of ``spec`` starts from: the target's own weights where it is a policy
    (an ensemble's first member), else the flagship of ``variant`` (its first member for an ensemble)."""
    spec = split_targets(spec)[0]  # a mixture: its first target's
    name = spec
    if is_builtin(spec):
        kind, options = split_spec(spec)
        name = str(options.get("base") or variant) if kind in POLICY_BUILTINS else variant
    path = Path(zoo.locate(name))
    if path.suffix == ".json":  # a manifest: its members' paths are relative to it (checked when it loads)
        members = json.loads(path.read_text())["members"]
        path = path.parent / members[0]["path"]
    return str(path)
