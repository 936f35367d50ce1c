"""Learning algorithms behind one small protocol, and the registry that turns ``--algorithm NAME`` into one.

The :class:`~rams_training.run.Trainer` owns a run (its games, opponents, checkpoints, evaluations) and
asks its algorithm for three things: how the network acts while the episodes are collected (:meth:`act`),
how it learns from them (:meth:`update`), and what of it a checkpoint keeps (:meth:`state_dict`). The
policy is a :class:`~rams_env.policy.PolicyNet` whatever the algorithm, so its snapshots, checkpoints and
evaluations need nothing from it. A new algorithm is one module: a class with :data:`Algorithm`'s members,
decorated with ``@register_algorithm("name")``, and ``rams train --algorithm name`` trains with it
(docs/extending.md, "A new training algorithm"). PPO (training/ppo.py) and Deep Monte-Carlo
(training/dmc.py) are registered the same way.
"""

from __future__ import annotations

import importlib
import importlib.metadata
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, TypeVar

import numpy as np
import torch

from rams_env.obs import OBS_SIZE
from rams_env.policy import CheckpointError, PolicyNet
from rams_env.rules.actions import NUM_ACTIONS

from .critic import PrivilegedCritic

if TYPE_CHECKING:
    from .config import LearnArgs
    from .rollout import Rollout

BUILT_IN = ("rams_training.ppo", "rams_training.dmc")
"""the modules of the built-in algorithms, imported (and so registered) at the first look-up"""
ENTRY_POINTS = "rams_training.algorithms"
"""the entry-point group of other packages' algorithms: each names a module that registers one, imported
with the built-in ones, so that ``rams train --algorithm NAME`` finds an installed package's algorithm"""
LOSSES = ("policy_loss", "value_loss", "entropy", "approx_kl", "clip_fraction")
"""what :meth:`Algorithm.update` may report (the columns of progress.csv); ``value_loss`` and ``entropy`` it must"""


@dataclass(frozen=True)
class Context:
    """What an algorithm is built with besides its hyper-parameters: the run's seed, device, precision and
    the torch generator of every draw it makes (which each checkpoint saves)."""

    seed: int
    device: torch.device
    bf16: bool
    generator: torch.Generator


@dataclass(frozen=True)
class Stage:
    """The values of the current stage of the run (training/config.py, "Stages") that an update reads."""

    ent_coef: float
    warming: bool
    """the run's first ``critic_warmup`` updates: only the privileged critic learns"""


class Algorithm(Protocol):
    """What the training loop calls on a learning algorithm (built as ``cls(learn, context)``)."""

    privileged_critic: ClassVar[bool]
    """whether it can learn from the privileged critic's values (``--privileged-critic``)"""
    net: PolicyNet
    """the policy it trains: what is snapshot, evaluated and checkpointed"""
    optimizer: torch.optim.Optimizer
    """its optimizer, to which the Trainer gives each stage's learning rate"""
    critic: PrivilegedCritic | None
    """the privileged critic, where the run has one"""
    gae: tuple[float, float]
    """(gamma, lambda) of the advantages and returns that collection computes for :meth:`update`"""

    def act(self, net: PolicyNet, obs: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Actions of ``net`` (the learner's, or a pool snapshot's) for a batch, their log-probabilities and values."""
        ...

    def update(self, rollout: Rollout, rows: np.ndarray, stage: Stage) -> dict[str, float]:
        """Learn from ``rows`` of ``rollout`` (advantages and returns done); the mean losses (by LOSSES name)."""
        ...

    def state_dict(self) -> dict[str, Any]:
        """The training state a checkpoint keeps beside the network (``optimizer``, ``critic``: plain data)."""
        ...

    def load_state_dict(self, state: dict[str, Any], source: str) -> None:
        """Continue from a checkpoint's ``state`` (``source`` names it in a :class:`CheckpointError`)."""
        ...


ALGORITHMS: dict[str, type[Algorithm]] = {}
"""the registered algorithms, by name (the built-in ones once :func:`algorithm_class` has run)"""

A = TypeVar("A")


def register_algorithm(name: str) -> Callable[[type[A]], type[A]]:
    """A class decorator: ``rams train --algorithm name`` trains with the class (a name is taken once)."""

    def register(cls: type[A]) -> type[A]:
        if name in ALGORITHMS and ALGORITHMS[name] is not cls:
            raise ValueError(f"algorithm {name!r} is already registered ({ALGORITHMS[name].__qualname__})")
        ALGORITHMS[name] = cls  # type: ignore[assignment]
        return cls

    return register


def algorithm_class(name: str) -> type[Algorithm]:
    """The algorithm registered as ``name``: the one place a name becomes a class; ``ValueError`` names the known."""
    load_algorithms()
    if name not in ALGORITHMS:
        raise ValueError(f"algorithm must be one of {', '.join(ALGORITHMS)}, got {name!r}")
    return ALGORITHMS[name]


def load_algorithms() -> None:
    """Import the modules that register the built-in algorithms and those of installed packages."""
    for module in BUILT_IN:
        importlib.import_module(module)
    for entry in importlib.metadata.entry_points(group=ENTRY_POINTS):
        importlib.import_module(entry.value)


def build_algorithm(learn: LearnArgs, context: Context) -> Algorithm:
    """The algorithm ``learn.algorithm`` names, built with its hyper-parameters."""
    return algorithm_class(learn.algorithm)(learn, context)  # type: ignore[call-arg]


# ------------------------------------------------------------------------------- shared pieces
def build_networks(
    learn: LearnArgs, context: Context, critic: bool
) -> tuple[PolicyNet, PrivilegedCritic | None, torch.optim.Optimizer]:
    """The policy network (and the privileged critic) with seeded initial weights, and Adam over them."""
    with torch.random.fork_rng(devices=[]):  # seeded initial weights, the global generator left alone
        torch.manual_seed(context.seed)
        net = PolicyNet(OBS_SIZE, NUM_ACTIONS, learn.hidden).to(context.device)
        value_net = PrivilegedCritic(learn.hidden).to(context.device) if critic else None
    parameters = [*net.parameters(), *(value_net.parameters() if value_net else ())]
    # The fused kernel is much faster on the CPU than the default loop over tensors (docs/performance.md);
    # the same algorithm, rounded differently in the last bits.
    fused = context.device.type in ("cpu", "cuda")
    optimizer = torch.optim.Adam(parameters, lr=learn.lr, eps=1e-5, fused=fused)
    return net, value_net, optimizer


class OptimizerState:
    """The checkpoint part of an algorithm that trains ``net`` (and ``critic``) with one ``optimizer``."""

    optimizer: torch.optim.Optimizer
    critic: PrivilegedCritic | None

    def state_dict(self) -> dict[str, Any]:
        """``optimizer`` (and ``critic``, where there is one)."""
        state: dict[str, Any] = {"optimizer": self.optimizer.state_dict()}
        if self.critic is not None:
            state["critic"] = self.critic.state_dict()
        return state

    def load_state_dict(self, state: dict[str, Any], source: str) -> None:
        """The critic's weights and the optimizer's state of a checkpoint."""
        if self.critic is not None:
            if "critic" not in state:
                raise CheckpointError(f"{source}: the run has a privileged critic, the checkpoint holds none")
            self.critic.load_state_dict(state["critic"])
        self.optimizer.load_state_dict(state["optimizer"])
