"""TorchRL: ``RamsBatchedEnv``, a batched ``EnvBase`` (``batch_size=[N]``) over the compiled vector env.

One learning seat a game against opponents played inside the step (:class:`RamsVectorEnv`); TorchRL's
collectors reset finished games through its partial resets (``"_reset"``), which the vector env runs as
``reset(options={"reset_mask": ...})`` with its autoreset disabled. The keys: ``"observation"`` (float32,
``(N, OBS_SIZE)``), ``"action_mask"`` (bool, ``(N, 60)``), ``"action"`` (int64 ids), ``"reward"``,
``"done"``, ``"terminated"`` and ``"truncated"`` (``(N, 1)``; ``truncated`` is always False).
:func:`masked_actor` is a policy over those keys that never samples an illegal action, and
:func:`value_module` its critic, both over one project :class:`~rams_env.policy.PolicyNet`. Needs the
``rams_env[torchrl]`` extra.

    from torchrl.collectors import Collector
    env = RamsBatchedEnv(64, opponents="heuristic", episode="rams", reward="win")
    collector = Collector(env, masked_actor(), frames_per_batch=4096, total_frames=-1)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from gymnasium.vector import AutoresetMode
from tensordict import TensorDict, TensorDictBase
from tensordict.nn import TensorDictModule
from torch import nn
from torchrl.data import Binary, Bounded, Categorical, Composite, Unbounded
from torchrl.envs import EnvBase
from torchrl.modules import MaskedCategorical, ProbabilisticActor

from ..envs.gym_vector import RamsVectorEnv
from ..envs.spaces import OBS_HIGH, OBS_LOW
from ..obs.encoding import OBS_SIZE
from ..policy import DEFAULT_HIDDEN, PolicyNet
from ..rules.actions import NUM_ACTIONS
from ..rules.seeding import check_seed


class RamsBatchedEnv(EnvBase):
    """``num_envs`` Rams games as one TorchRL env of batch size ``[num_envs]``; keywords go to
    :class:`RamsVectorEnv` (``variant``, ``num_players``, ``opponents``, ``episode``, ``reward``...)."""

    def __init__(self, num_envs: int = 8, device: str | torch.device = "cpu", **kwargs: Any) -> None:
        if "autoreset_mode" in kwargs or "observation_mode" in kwargs:
            raise ValueError("RamsBatchedEnv runs the vector env with its autoreset disabled and array observations")
        venv = RamsVectorEnv(num_envs, autoreset_mode=AutoresetMode.DISABLED, **kwargs)
        super().__init__(device=device, batch_size=torch.Size([venv.num_envs]))
        self.venv = venv
        n = venv.num_envs
        self.observation_spec = Composite(
            observation=Bounded(OBS_LOW, OBS_HIGH, (n, OBS_SIZE), dtype=torch.float32, device=device),
            action_mask=Binary(n=NUM_ACTIONS, shape=(n, NUM_ACTIONS), dtype=torch.bool, device=device),
            shape=(n,),
            device=device,
        )
        self.action_spec = Categorical(NUM_ACTIONS, shape=(n,), dtype=torch.int64, device=device)
        self.reward_spec = Unbounded(shape=(n, 1), dtype=torch.float32, device=device)
        self.done_spec = done_spec(n, device)
        self._next_seed: int | None = None
        self._no_done = torch.zeros((n, 1), dtype=torch.bool, device=device)

    def _outputs(self, observations: np.ndarray, masks: np.ndarray, **extra: torch.Tensor) -> TensorDict:
        return TensorDict(
            {
                "observation": torch.from_numpy(observations).to(self.device),
                "action_mask": torch.from_numpy(masks.astype(bool)).to(self.device),
                **extra,
            },
            batch_size=self.batch_size,
            device=self.device,
        )

    def _reset(self, tensordict: TensorDictBase | None = None, **kwargs: Any) -> TensorDictBase:
        partial = tensordict is not None and "_reset" in tensordict.keys()  # noqa: SIM118  (a TensorDict, not a dict)
        if partial:
            mask = tensordict.get("_reset").reshape(self.venv.num_envs).cpu().numpy().astype(bool)
            observations, info = self.venv.reset(options={"reset_mask": mask})
        else:
            observations, info = self.venv.reset(seed=self._next_seed)
            self._next_seed = None
        no_done = self._no_done.clone()
        return self._outputs(observations, info["action_mask"], done=no_done, terminated=no_done, truncated=no_done)

    def _step(self, tensordict: TensorDictBase) -> TensorDictBase:
        actions = tensordict.get("action").reshape(self.venv.num_envs).cpu().numpy().astype(np.int64)
        observations, rewards, terminated, truncated, info = self.venv.step(actions)
        column = self.venv.num_envs, 1
        return self._outputs(
            observations,
            info["action_mask"],
            reward=torch.from_numpy(rewards).reshape(column).to(self.device),
            done=torch.from_numpy(terminated | truncated).reshape(column).to(self.device),
            terminated=torch.from_numpy(terminated).reshape(column).to(self.device),
            truncated=torch.from_numpy(truncated).reshape(column).to(self.device),
        )

    def _set_seed(self, seed: int | None) -> None:
        """The seed of the next full reset (the vector env derives one per game from it)."""
        self._next_seed = check_seed(seed)  # TorchRL checks no seed itself: a bad one is refused here, at set_seed


class _Logits(nn.Module):
    """The policy head of a :class:`PolicyNet`."""

    def __init__(self, net: PolicyNet, bf16: bool) -> None:
        super().__init__()
        self.net, self.bf16 = net, bf16

    def forward(self, observation: torch.Tensor) -> torch.Tensor:
        return self.net(observation, bf16_torso=self.bf16)[0]


class _Value(nn.Module):
    """The value head of a :class:`PolicyNet`, with TorchRL's trailing dimension of 1."""

    def __init__(self, net: PolicyNet, bf16: bool) -> None:
        super().__init__()
        self.net, self.bf16 = net, bf16

    def forward(self, observation: torch.Tensor) -> torch.Tensor:
        return self.net(observation, bf16_torso=self.bf16)[1].unsqueeze(-1)


def masked_actor(net: PolicyNet | None = None, hidden: Sequence[int] = DEFAULT_HIDDEN, bf16: bool = False) -> Any:
    """A policy over :class:`RamsBatchedEnv`'s keys: ``net``'s logits (a new :class:`PolicyNet` of ``hidden``
    if None) sampled by ``MaskedCategorical`` under ``"action_mask"``; writes ``"action"`` and
    ``"action_log_prob"``. ``bf16`` runs the hidden layers under bfloat16 autocast."""
    net = net if net is not None else PolicyNet(OBS_SIZE, NUM_ACTIONS, hidden)
    module = TensorDictModule(_Logits(net, bf16), in_keys=["observation"], out_keys=["logits"])
    return ProbabilisticActor(
        module,
        in_keys={"logits": "logits", "mask": "action_mask"},
        out_keys=["action"],
        distribution_class=MaskedCategorical,
        return_log_prob=True,
        log_prob_key="action_log_prob",
    )


def value_module(net: PolicyNet, bf16: bool = False) -> TensorDictModule:
    """``net``'s value head as TorchRL's critic: ``"observation"`` to ``"state_value"`` (the torso shared with
    :func:`masked_actor` of the same net)."""
    return TensorDictModule(_Value(net, bf16), in_keys=["observation"], out_keys=["state_value"])


def done_spec(n: int, device: Any) -> Composite:
    """The done, terminated and truncated flags of ``n`` games, one column each."""
    keys = ("done", "terminated", "truncated")
    flag = {key: Categorical(2, shape=(n, 1), dtype=torch.bool, device=device) for key in keys}
    return Composite(**flag, shape=(n,), device=device)
