"""TorchRL: Rams through TorchRL's own ``PettingZooWrapper`` (masks on), and a masked policy for every seat.

TorchRL wraps the AEC env as it is; ``make_env`` only chooses the settings: ``use_mask=True`` (required for
AEC envs; ``(GROUP, "mask")`` marks the seat to act), categorical actions, and every seat in one group so
that one network serves all seats. The seat to act gets the env's action mask at ``(GROUP, "action_mask")``;
TorchRL sets the other seats' masks to all True, so a masked distribution never sees an empty mask.
Needs the ``rams_env[torchrl]`` extra.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tensordict.nn import TensorDictModule
from torch import nn
from torchrl.envs import PettingZooWrapper
from torchrl.envs.utils import MarlGroupMapType
from torchrl.modules import MaskedCategorical, ProbabilisticActor

from ..envs.aec import env as rams_aec_env

GROUP = "agents"
OBSERVATION_KEY = (GROUP, "observation", "observation")  # the env's observation dict holds "observation"
ACTION_MASK_KEY = (GROUP, "action_mask")
ACTING_KEY = (GROUP, "mask")  # True for the seat whose action the env uses
ACTION_KEY = (GROUP, "action")
LOGITS_KEY = (GROUP, "logits")
LOG_PROB_KEY = (GROUP, "action_log_prob")


def make_env(seed: int | None = None, **env_kwargs: Any) -> PettingZooWrapper:
    """``rams_env.env(**env_kwargs)`` in TorchRL's ``PettingZooWrapper``; ``seed`` seeds its first reset."""
    return PettingZooWrapper(
        env=rams_aec_env(**env_kwargs),
        use_mask=True,
        categorical_actions=True,
        group_map=MarlGroupMapType.ALL_IN_ONE_GROUP,
        seed=seed,
    )


def masked_policy(env: PettingZooWrapper, hidden: Sequence[int] = (64,)) -> ProbabilisticActor:
    """An MLP policy shared by every seat, sampling from a categorical restricted to the action mask."""
    hidden = [int(h) for h in hidden]
    if not hidden or min(hidden) < 1:
        raise ValueError(f"hidden must be positive layer widths, got {hidden}")
    if GROUP not in env.group_map:
        raise ValueError(f"the env must put every seat in the group {GROUP!r} (see make_env), got {env.group_map}")
    layers: list[nn.Module] = []
    width = env.observation_spec[OBSERVATION_KEY].shape[-1]
    for h in hidden:
        layers += [nn.Linear(width, h), nn.Tanh()]
        width = h
    layers.append(nn.Linear(width, env.full_action_spec[ACTION_KEY].space.n))
    logits = TensorDictModule(nn.Sequential(*layers), in_keys=[OBSERVATION_KEY], out_keys=[LOGITS_KEY])
    return masked_sampler(logits)


def masked_sampler(logits: TensorDictModule) -> ProbabilisticActor:
    """A module writing the seats' logits, as an actor sampling from them restricted to the action mask."""
    return ProbabilisticActor(
        logits,
        in_keys={"logits": LOGITS_KEY, "mask": ACTION_MASK_KEY},
        out_keys=[ACTION_KEY],
        distribution_class=MaskedCategorical,
        return_log_prob=True,
        log_prob_key=LOG_PROB_KEY,
    )
