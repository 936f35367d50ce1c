"""Stable-Baselines3: sb3-contrib's ``MaskablePPO`` on ``RamsVecEnv``, one learner against three heuristics.

Whole ramsar, win reward (+1 shared by the winners, -1 shared by the others, at the end of the rams),
the learner's seat drawn at each episode, the other seats played by the compiled heuristic inside the
compiled vector env's step (``rams_env.integrations.sb3_vector.RamsVecEnv``: every game steps in one call).
``train_for`` calls ``model.learn(chunk, reset_num_timesteps=False)`` with the
chunk sized by the speed measured so far (at least one rollout a call).

Settings (``--set KEY=VALUE``, :class:`benchmarks.learning.schemas.SB3Settings`): ``imitation`` (decisions of the
project's imitation warm start, training/imitation.py, copied into the model before the first
rollout; 0, the default: MaskablePPO from scratch), ``n_envs`` (games of the ``RamsVecEnv``), the
rest go to ``MaskablePPO``. The network is ReLU 256x256 for the policy and for the value (as the
project's ``PolicyNet``), the shape the ``model.zip`` loader of ``rams eval`` rebuilds. Set instead
of SB3's defaults:

- ``gamma`` 1.0 (SB3: 0.99): the one reward comes at the end of a rams, many of the learner's
  decisions after the first ones, which a discount of 0.99 a decision shrinks (undiscounted, as the
  project's PPO).
- 64 games x 128 steps a rollout (8,192 decisions), minibatches of 1024, 4 epochs (SB3: 1 env x 2048,
  64, 10): SB3's many small gradient steps make the update, not the env, the bottleneck on a CPU.
- ``ent_coef`` 0.01 (SB3: 0.0), the project's first-stage value; with ``imitation``, the ``quick``
  recipe's ``learning_rate=1e-4 ent_coef=0.003`` fit better (they keep the imitated policy).
- checked and fine: the mask reaches the policy (``env_method("action_masks")``), the observation is
  scaled by the encoder, the reward is of order 1, and the vector env pays the rewards that came before
  the learner's first decision with its first step.

The env takes a few percent of the time now (docs/benchmarks.md, speed): SB3's update and its
per-step rollout bookkeeping set the pace.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.vec_env import VecMonitor

from rams_env.integrations.sb3 import MaskablePPOAgent, warm_start
from rams_env.integrations.sb3_vector import RamsVecEnv
from rams_env.obs import OBS_SIZE
from rams_env.policy import PolicyNet
from rams_env.rules.actions import NUM_ACTIONS
from rams_env.rules.seeding import wrap_seed

from .harness import Settings, imitate_heuristic
from .schemas import check_options

NET = dict(net_arch=dict(pi=[256, 256], vf=[256, 256]), activation_fn=torch.nn.ReLU)


class SB3PPO:
    """MaskablePPO against three heuristics as a :class:`~benchmarks.learning.harness.Pipeline`."""

    name = "sb3"

    def __init__(self, settings: Settings, **options: Any) -> None:
        self.options = check_options(self.name, options, settings)  # before any work
        self.folder = Path(settings.out) / self.name
        ppo = {k: v for k, v in self.options.items() if k not in ("n_envs", "imitation")}
        self.env = VecMonitor(  # the episodes' returns and lengths for info()
            RamsVecEnv(
                int(self.options["n_envs"]),
                variant=settings.variant,
                num_players=settings.num_players,
                learner_seat="random",
                opponents="heuristic",
                episode="rams",
                reward="win",
            )
        )
        self.model = MaskablePPO(
            "MlpPolicy", self.env, policy_kwargs=NET, seed=wrap_seed(settings.seed, 32), device="cpu", verbose=0, **ppo
        )
        self.rollout = int(self.options["n_steps"]) * int(self.options["n_envs"])
        self.seconds = 0.0
        self.settings = settings
        self.imitated = 0
        self.imitation_seconds = 0.0

    def imitate(self) -> None:
        """The project's imitation warm start (training/imitation.py) on a ``PolicyNet``, copied into the
        model: its torso into both of SB3's MLPs, its heads into ``action_net`` and ``value_net``."""
        started = time.perf_counter()
        net = PolicyNet(OBS_SIZE, NUM_ACTIONS, tuple(NET["net_arch"]["pi"]))
        self.imitated = imitate_heuristic(net, self.settings, self.options["imitation"])
        warm_start(self.model, net)
        self.imitation_seconds = time.perf_counter() - started

    def train_for(self, seconds: float) -> int:
        """``learn`` in chunks sized by the measured speed until ``seconds`` pass; the decisions so far."""
        started = time.perf_counter()
        if self.options["imitation"] and not self.imitated:
            self.imitate()
        learned = False
        while True:  # at least one rollout a call, so that every point of the curve has PPO in it
            left = seconds - (time.perf_counter() - started)
            if left <= 0 and learned:
                break
            done = self.model.num_timesteps
            speed = done / self.seconds if done else None
            rollouts = 1 if speed is None else max(1, round(speed * left / self.rollout))
            began = time.perf_counter()
            self.model.learn(total_timesteps=rollouts * self.rollout, reset_num_timesteps=False)
            self.seconds += time.perf_counter() - began
            learned = True
        return self.imitated + int(self.model.num_timesteps)

    def agent(self) -> MaskablePPOAgent:
        """The model's greedy legal play."""
        return MaskablePPOAgent(self.model)

    def save(self) -> Path:
        """``model.zip`` (``MaskablePPO.load`` reads it; so does ``rams eval``'s weights-only loader)."""
        path = self.folder / "model.zip"
        self.folder.mkdir(parents=True, exist_ok=True)
        tmp = self.folder / ".model.tmp.zip"
        self.model.save(tmp)
        tmp.replace(path)
        return path

    def info(self) -> dict[str, Any]:
        """The settings, the learner decisions per second while learning, and the training episodes'
        mean return and length (SB3's ``ep_info_buffer``: the last 100 ramsar)."""
        speed = self.model.num_timesteps / self.seconds if self.seconds else None
        episodes = list(self.model.ep_info_buffer or [])
        return {
            "options": self.options,
            "net": "pi 256x256, vf 256x256, ReLU",
            "imitation_decisions": self.imitated,
            "imitation_seconds": self.imitation_seconds,
            "ppo_decisions": int(self.model.num_timesteps),
            "learn_decisions_per_s": speed,
            "recent_episodes": len(episodes),
            "recent_mean_return": float(np.mean([e["r"] for e in episodes])) if episodes else None,
            "recent_mean_length": float(np.mean([e["l"] for e in episodes])) if episodes else None,
        }

    def close(self) -> None:
        """Close the envs."""
        self.env.close()
