"""TorchRL: PPO with TorchRL's collector, ``GAE`` and ``ClipPPOLoss`` on the project's TorchRL env, in self-play.

The env is ``rams_env.integrations.torchrl.make_env`` (TorchRL's ``PettingZooWrapper`` over the AEC env,
whole ramsar, win reward): every seat is in one group and one network plays them all, so this is
self-play, not play against heuristics (the wrapper has no opponents to plug in). The network is the
project's :class:`~rams_env.policy.PolicyNet` (its logits and its value, wrapped in
``TensorDictModule`` s), so ``save()`` writes a project checkpoint that ``rams eval`` loads as it is.

Turn-based play and TorchRL: the collector's frames are env steps, one seat acting in each
(``("agents", "mask")``), while every seat's reward comes at every step. GAE over the frames as they are
would credit a seat with the other seats' steps. So each batch is turned into each seat's own
decisions: the seat's reward summed from its decision to its next one (or to the episode's end, which
then is terminal), the next observation being the one at its next decision. A seat's last decision of
the batch, whose reward is not yet known, is dropped; the one before it ends the seat's sequence as
truncated (``done`` without ``terminated``), so that GAE bootstraps there and does not run into the
next seat's sequence. TorchRL's ``GAE`` and ``ClipPPOLoss`` then run on those decisions unchanged.

``--set KEY=VALUE``: ``imitation`` (decisions of the project's imitation warm start, training/imitation.py,
run by the first ``train_for`` on the same ``PolicyNet``; 0: none), ``frames_per_batch``, ``epochs``,
``minibatch``, ``lr``, ``gamma``, ``lmbda``, ``clip``, ``ent_coef``, ``vf_coef``, ``max_grad_norm``.
"""

from __future__ import annotations

import copy
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tensordict import TensorDict
from tensordict.nn import TensorDictModule
from torch import nn
from torchrl.collectors import Collector
from torchrl.modules import MaskedCategorical, ProbabilisticActor
from torchrl.objectives import ClipPPOLoss
from torchrl.objectives.value import GAE

from rams_env.agents.neural import PolicyAgent
from rams_env.integrations.torchrl import (
    ACTING_KEY,
    ACTION_KEY,
    ACTION_MASK_KEY,
    GROUP,
    LOG_PROB_KEY,
    LOGITS_KEY,
    OBSERVATION_KEY,
    make_env,
)
from rams_env.obs import OBS_SIZE
from rams_env.policy import PolicyNet, make_checkpoint, save_checkpoint
from rams_env.rules import make_config
from rams_env.rules.actions import NUM_ACTIONS
from rams_env.rules.seeding import wrap_seed

from .harness import Settings, imitate_heuristic
from .schemas import check_options


class Logits(nn.Module):
    """The policy head of a :class:`PolicyNet`."""

    def __init__(self, net: PolicyNet) -> None:
        super().__init__()
        self.net = net

    def forward(self, observation: torch.Tensor) -> torch.Tensor:
        return self.net(observation)[0]


class Value(nn.Module):
    """The value head of a :class:`PolicyNet`, with a trailing dimension of 1 (TorchRL's value shape)."""

    def __init__(self, net: PolicyNet) -> None:
        super().__init__()
        self.net = net

    def forward(self, observation: torch.Tensor) -> torch.Tensor:
        return self.net(observation)[1].unsqueeze(-1)


def masked_actor(net: PolicyNet, observation: Any, mask: Any, logits: Any, action: Any, log_prob: Any) -> Any:
    """A ``ProbabilisticActor`` sampling ``net``'s masked categorical, reading and writing the given keys."""
    module = TensorDictModule(Logits(net), in_keys=[observation], out_keys=[logits])
    return ProbabilisticActor(
        module,
        in_keys={"logits": logits, "mask": mask},
        out_keys=[action],
        distribution_class=MaskedCategorical,
        return_log_prob=True,
        log_prob_key=log_prob,
    )


def seat_decisions(batch: TensorDict, frames: int) -> TensorDict:
    """Each seat's own decisions of a collector batch (module docstring), one seat's sequence after another.

    Keys: ``observation``, ``action_mask``, ``action``, ``action_log_prob``, and under ``next``:
    ``observation``, ``reward``, ``done``, ``terminated`` (GAE's and ClipPPOLoss's inputs).
    """
    acting = batch[ACTING_KEY].numpy()  # [T, seats]
    obs, masks = batch[OBSERVATION_KEY], batch[ACTION_MASK_KEY]
    actions, log_probs = batch[ACTION_KEY], batch[LOG_PROB_KEY]
    rewards = batch["next", GROUP, "reward"].squeeze(-1).numpy().astype(np.float64)
    done = batch["next", "done"].reshape(frames).numpy()
    end_at = np.full(frames + 1, frames, np.int64)  # the first step at or after t that ends an episode
    for t in range(frames - 1, -1, -1):
        end_at[t] = t if done[t] else end_at[t + 1]
    totals = np.vstack([np.zeros((1, rewards.shape[1])), np.cumsum(rewards, axis=0)])  # sums of rewards[a:b]
    steps, seats, nexts, reward, terminal, truncated = [], [], [], [], [], []
    for seat in range(acting.shape[1]):
        times = np.flatnonzero(acting[:, seat])
        for i, t in enumerate(times):
            following = times[i + 1] if i + 1 < len(times) else frames
            end = end_at[t]
            if end < following:  # the episode ends before the seat's next decision
                stop, nxt, ends = end + 1, t, True
            elif i + 1 < len(times):
                stop, nxt, ends = following, following, False
            else:
                continue  # the batch stops before this decision's reward is known
            steps.append(t)
            seats.append(seat)
            nexts.append(nxt)
            reward.append(totals[stop, seat] - totals[t, seat])
            terminal.append(ends)
            truncated.append(False)
        if truncated and not terminal[-1] and seats[-1] == seat:
            truncated[-1] = True  # the seat's sequence stops here: bootstrap, and keep GAE from the next seat
    t_idx, s_idx, n_idx = (torch.as_tensor(np.asarray(x, np.int64)) for x in (steps, seats, nexts))
    terminated = torch.as_tensor(np.asarray(terminal, bool)).unsqueeze(-1)
    cut = torch.as_tensor(np.asarray(truncated, bool)).unsqueeze(-1)
    return TensorDict(
        {
            "observation": obs[t_idx, s_idx],
            "action_mask": masks[t_idx, s_idx],
            "action": actions[t_idx, s_idx],
            "action_log_prob": log_probs[t_idx, s_idx],
            "next": {
                "observation": obs[n_idx, s_idx],
                "reward": torch.as_tensor(np.asarray(reward, np.float32)).unsqueeze(-1),
                "done": terminated | cut,
                "terminated": terminated,
            },
        },
        batch_size=[len(steps)],
    )


class TorchRLPPO:
    """TorchRL PPO in self-play as a :class:`~benchmarks.learning.harness.Pipeline`."""

    name = "torchrl"

    def __init__(self, settings: Settings, **options: Any) -> None:
        self.options = o = check_options(self.name, options, settings)  # before any work
        self.folder = Path(settings.out) / self.name
        self.config = make_config(settings.variant, settings.num_players)
        torch.manual_seed(settings.seed)  # TorchRL samples actions with torch's global generator
        self.net = PolicyNet(OBS_SIZE, NUM_ACTIONS)
        env = make_env(
            seed=wrap_seed(settings.seed, 32),
            variant=settings.variant,
            num_players=settings.num_players,
            episode="rams",
            reward="win",
        )
        policy = masked_actor(self.net, OBSERVATION_KEY, ACTION_MASK_KEY, LOGITS_KEY, ACTION_KEY, LOG_PROB_KEY)
        self.frames = int(o["frames_per_batch"])
        self.collector = Collector(
            env, policy, frames_per_batch=self.frames, total_frames=-1, auto_register_policy_transforms=False
        )
        self.batches = iter(self.collector)
        actor = masked_actor(self.net, "observation", "action_mask", "logits", "action", "action_log_prob")
        critic = TensorDictModule(Value(self.net), in_keys=["observation"], out_keys=["state_value"])
        self.gae = GAE(gamma=o["gamma"], lmbda=o["lmbda"], value_network=critic)
        self.loss = ClipPPOLoss(
            actor,
            critic,
            clip_epsilon=o["clip"],
            entropy_coeff=o["ent_coef"],
            critic_coeff=o["vf_coef"],
            loss_critic_type="l2",
        )
        self.loss.set_keys(sample_log_prob="action_log_prob", value="state_value")
        self.optimizer = torch.optim.Adam(self.loss.parameters(), lr=o["lr"], eps=1e-5)
        self.decisions = self.updates = self.env_steps = self.imitated = 0
        self.settings = settings

    def update(self) -> None:
        """Collect one batch, turn it into the seats' decisions, GAE, PPO epochs."""
        o = self.options
        batch = next(self.batches)
        self.env_steps += batch.numel()
        data = seat_decisions(batch, batch.numel())
        with torch.no_grad():
            self.gae(data)
        size = int(o["minibatch"])
        for _ in range(int(o["epochs"])):
            for rows in torch.randperm(len(data)).split(size):
                losses = self.loss(data[rows])
                total = losses["loss_objective"] + losses["loss_critic"] + losses["loss_entropy"]
                self.optimizer.zero_grad(set_to_none=True)
                total.backward()
                nn.utils.clip_grad_norm_(self.loss.parameters(), o["max_grad_norm"])
                self.optimizer.step()
        self.collector.update_policy_weights_()
        self.decisions += len(data)
        self.updates += 1

    def train_for(self, seconds: float) -> int:
        """Updates until ``seconds`` pass (at least one); the decisions trained on so far (imitated, and the
        seats' decisions of the updates)."""
        started = time.perf_counter()
        if self.options["imitation"] and not self.imitated:
            self.imitated = imitate_heuristic(self.net, self.settings, self.options["imitation"])
            self.collector.update_policy_weights_()
        while True:
            self.update()
            if time.perf_counter() - started >= seconds:
                return self.imitated + self.decisions

    def agent(self) -> PolicyAgent:
        """The network, greedy (a copy)."""
        return PolicyAgent(copy.deepcopy(self.net).eval(), self.config, greedy=True)

    def save(self) -> Path:
        """The network as a project checkpoint, ``policy.pt``."""
        path = self.folder / "policy.pt"
        save_checkpoint(path, make_checkpoint(self.net, self.config, trained_by="benchmarks.learning torchrl"))
        return path

    def info(self) -> dict[str, Any]:
        """Settings, updates, and the env steps collected (each seat's last decision of a batch is dropped)."""
        return {
            "options": self.options,
            "opponents": "self-play",
            "imitation_decisions": self.imitated,
            "ppo_decisions": self.decisions,
            "updates": self.updates,
            "env_steps": self.env_steps,
        }

    def close(self) -> None:
        """Stop the collector and close its env."""
        self.collector.shutdown()
