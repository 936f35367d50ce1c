"""TorchRL: PPO with TorchRL's collector, ``GAE`` and ``ClipPPOLoss`` on the project's TorchRL envs.

With ``opponents=heuristic`` the env is :class:`~rams_env.integrations.torchrl_vector.RamsBatchedEnv`: one
learning seat a game (drawn at each reset) against the compiled heuristic in the other seats, played inside
the compiled step, as the ``sb3`` and ``rllib-heuristic`` pipelines train; GAE runs on the collector's
``[N, T]`` batch as it is. With ``opponents=self-play`` (the default) the env is
:class:`~rams_env.integrations.torchrl_selfplay.RamsSelfPlayEnv` (``num_games`` games of
:class:`~rams_env.envs.BatchedRamsEnv` stepped together, whole ramsar, win reward): every seat's decisions
come out batched and one network plays them all, so this is self-play, not play against heuristics. The
network is the project's :class:`~rams_env.policy.PolicyNet` (its logits and its value, wrapped in
``TensorDictModule`` s by :mod:`rams_env.integrations.torchrl_vector`), so ``save()`` writes a project
checkpoint that ``rams eval`` loads as it is.

Turn-based play and TorchRL: each frame is one game's decision, by the seat to act (``"seat"``), while
every seat's reward comes at every frame (``"reward"``, one column a seat). GAE over the frames as they
are would credit a seat with the other seats' steps, so each batch goes through
:func:`~rams_env.integrations.torchrl_selfplay.seat_decisions`: each seat's own decisions, its reward summed
from one decision to its next (or to the episode's end, then terminal), a seat's last decision of the
batch dropped (its reward is not known yet) and the one before it ending the seat's sequence as truncated.
TorchRL's ``GAE`` and ``ClipPPOLoss`` then run on those decisions unchanged.

``--set KEY=VALUE``: ``opponents`` (``self-play`` or ``heuristic``), ``imitation`` (decisions of the
project's imitation warm start, training/imitation.py,
run by the first ``train_for`` on the same ``PolicyNet``; 0: none), ``num_games``, ``frames_per_batch``,
``epochs``, ``minibatch``, ``lr``, ``gamma``, ``lmbda``, ``clip``, ``ent_coef``, ``vf_coef``, ``max_grad_norm``,
``normalize_advantage``.
"""

from __future__ import annotations

import copy
import statistics
import time
from pathlib import Path
from typing import Any

import torch
from torch import nn
from torchrl.collectors import Collector
from torchrl.objectives import ClipPPOLoss
from torchrl.objectives.value import GAE

from rams_env.agents.neural import PolicyAgent
from rams_env.integrations.torchrl_selfplay import RamsSelfPlayEnv, seat_decisions
from rams_env.integrations.torchrl_vector import RamsBatchedEnv, masked_actor, value_module
from rams_env.obs import OBS_SIZE
from rams_env.policy import PolicyNet, make_checkpoint, save_checkpoint
from rams_env.rules import make_config
from rams_env.rules.actions import NUM_ACTIONS
from rams_env.rules.seeding import wrap_seed
from rams_training.run import uses_bf16

from .harness import Settings, imitate_heuristic
from .schemas import check_options


class TorchRLPPO:
    """TorchRL PPO, in self-play or against heuristics, as a :class:`~benchmarks.learning.harness.Pipeline`."""

    name = "torchrl"

    def __init__(self, settings: Settings, **options: Any) -> None:
        self.options = o = check_options(self.name, options, settings)  # before any work
        self.folder = Path(settings.out) / self.name
        self.config = make_config(settings.variant, settings.num_players)
        torch.manual_seed(settings.seed)  # TorchRL samples actions with torch's global generator
        self.net = PolicyNet(OBS_SIZE, NUM_ACTIONS)
        self.self_play = o["opponents"] == "self-play"
        rules = dict(variant=settings.variant, num_players=settings.num_players, episode="rams", reward="win")
        if self.self_play:
            env = RamsSelfPlayEnv(int(o["num_games"]), **rules)
        else:  # one learning seat a game, drawn at each reset, the compiled heuristics inside the step
            env = RamsBatchedEnv(int(o["num_games"]), opponents="heuristic", learner_seat="random", **rules)
        env.set_seed(wrap_seed(settings.seed))
        self.bf16 = uses_bf16("auto", torch.device("cpu"))  # bf16 hidden layers where native, as rams train
        actor, critic = masked_actor(self.net, bf16=self.bf16), value_module(self.net, bf16=self.bf16)
        self.frames = int(o["frames_per_batch"])
        self.collector = Collector(
            env, actor, frames_per_batch=self.frames, total_frames=-1, auto_register_policy_transforms=False
        )
        self.batches = iter(self.collector)
        self.gae = GAE(gamma=o["gamma"], lmbda=o["lmbda"], value_network=critic)
        self.loss = ClipPPOLoss(
            actor,
            critic,
            clip_epsilon=o["clip"],
            entropy_coeff=o["ent_coef"],
            critic_coeff=o["vf_coef"],
            loss_critic_type="l2",
            normalize_advantage=bool(o["normalize_advantage"]),
        )
        self.loss.set_keys(sample_log_prob="action_log_prob", value="state_value")
        self.optimizer = torch.optim.Adam(self.loss.parameters(), lr=o["lr"], eps=1e-5)
        self.decisions = self.updates = self.env_steps = self.imitated = 0
        self.entropy: dict[str, float] = {}  # the policy's mean entropy over the legal moves: first and last update
        self.settings = settings

    def update(self) -> None:
        """Collect one batch, turn it into the seats' decisions, GAE, PPO epochs."""
        o = self.options
        batch = next(self.batches)
        self.env_steps += batch.numel()
        if self.self_play:
            data = seat_decisions(batch)
            with torch.no_grad():
                self.gae(data)
        else:  # one seat a game: GAE over each game's frames ([N, T], time last), then one row a decision
            with torch.no_grad():
                self.gae(batch)
            data = batch.reshape(-1)
        size = int(o["minibatch"])
        entropies = []
        for _ in range(int(o["epochs"])):
            for rows in torch.randperm(len(data)).split(size):
                losses = self.loss(data[rows])
                entropies.append(float(losses["entropy"]))
                total = losses["loss_objective"] + losses["loss_critic"] + losses["loss_entropy"]
                self.optimizer.zero_grad(set_to_none=True)
                total.backward()
                nn.utils.clip_grad_norm_(self.loss.parameters(), o["max_grad_norm"])
                self.optimizer.step()
        self.collector.update_policy_weights_()
        self.entropy.setdefault("first_update", entropies[0])  # the start's policy, before any step
        per_epoch = len(entropies) // int(o["epochs"])
        self.entropy["last_update"] = statistics.fmean(entropies[-per_epoch:])
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
        """Settings, updates, the env steps collected (each seat's last decision of a batch is dropped), and the
        policy's mean entropy over the legal moves: of the first minibatch, and of the last update's last epoch."""
        return {
            "options": self.options,
            "opponents": self.options["opponents"],
            "imitation_decisions": self.imitated,
            "ppo_decisions": self.decisions,
            "updates": self.updates,
            "bf16": self.bf16,
            "env_steps": self.env_steps,
            "policy_entropy": self.entropy,
        }

    def close(self) -> None:
        """Stop the collector and close its env."""
        self.collector.shutdown()
