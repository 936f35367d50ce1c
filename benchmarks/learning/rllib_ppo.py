"""RLlib's PPO on Rams as benchmark pipelines: self-play (``rllib``) and one seat against heuristics
(``rllib-heuristic``), whole ramsar with the win reward by default.

Both train one masked policy (``MaskedPPOModule``) on a private local Ray instance with ``settings.threads``
CPUs, sampling in the driver (no remote env runner) and learning there too. ``rllib`` plays every seat of
``num_envs`` batched games through :func:`rams_env.integrations.rllib_selfplay.selfplay_ppo_config` (before
2026-12-05 one ``RamsMultiAgentEnv`` game at a time through ``ppo_config``); ``rllib-heuristic`` plays the
compiled vector env through :func:`rams_env.integrations.rllib_vector.vector_ppo_config` (``num_envs`` games, RLlib's
``vector_entry_point`` mode), one learning seat a game drawn at each reset and the compiled heuristic in the
other seats (before 2026-12-05 it stepped one ``RamsGymEnv`` at a time). ``save()`` writes
``algo.save_to_path`` and the rules file, which ``rams eval`` and ``load_agent`` read.

``--set KEY=VALUE``: ``imitation`` (decisions of the project's imitation warm start, training/imitation.py,
on a ``PolicyNet`` of the same widths, copied into the module by
:func:`rams_env.integrations.rllib.warm_start` in the first ``train_for``; the module is then a ReLU one,
else RLlib's Tanh), ``hidden``, ``batch``, ``minibatch``, ``epochs``, ``lr``, ``entropy`` (PPO's
``entropy_coeff``), ``gamma``, ``lmbda``, ``clip``, ``grad_clip`` (RLlib's defaults but for ``gamma``),
``num_envs``, ``episode``, ``reward``:
:class:`benchmarks.learning.schemas.RLlibSettings`.
"""

from __future__ import annotations

import copy
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import ray
import torch

from rams_env.integrations.rllib import (
    DEFAULT_ACTIVATION,
    SINGLE_AGENT_POLICY,
    RLlibAgent,
    build_algo,
    init_ray,
    rules_of_env_config,
    save_rules,
    warm_start,
)
from rams_env.integrations.rllib_selfplay import selfplay_ppo_config
from rams_env.integrations.rllib_vector import vector_ppo_config
from rams_env.obs import OBS_SIZE
from rams_env.policy import PolicyNet
from rams_env.rules.actions import NUM_ACTIONS
from rams_env.rules.seeding import wrap_seed

from .harness import imitate_heuristic
from .schemas import check_options

if TYPE_CHECKING:
    from .harness import Settings


class RLlibPipeline:
    """PPO self-play on the batched engine: every seat plays the one module."""

    name = "rllib"
    heuristic_opponents = False

    def __init__(self, settings: Settings, **options: Any) -> None:
        o = check_options(self.name, options, settings)  # before any work: RLlibSettings
        episode, reward, hidden, imitation = o["episode"], o["reward"], o["hidden"], o["imitation"]
        self.settings = settings
        torch.set_num_threads(max(1, int(settings.threads)))
        self.env_config = {
            "variant": settings.variant,
            "num_players": settings.num_players,
            "episode": episode,
            "reward": reward,
        }
        self.rules = rules_of_env_config(self.env_config)
        self.hidden, self.imitation, self.imitated = tuple(int(h) for h in hidden), int(imitation), 0
        activation = "relu" if self.imitation else DEFAULT_ACTIVATION  # a PolicyNet's, to copy it in
        if self.heuristic_opponents:  # the compiled vector env, the heuristics inside its step
            vector_config = dict(self.env_config, opponents="heuristic", learner_seat="random")
            config = vector_ppo_config(vector_config, o["num_envs"], hidden=self.hidden, activation=activation)
        else:  # every seat of the batched games, one module (rams_env.integrations.rllib_selfplay)
            config = selfplay_ppo_config(self.env_config, o["num_envs"], hidden=self.hidden, activation=activation)
        self.policy = SINGLE_AGENT_POLICY  # both are single-agent configs
        config = (
            config.env_runners(num_env_runners=0, rollout_fragment_length="auto")
            .learners(num_learners=0)
            .training(
                train_batch_size_per_learner=o["batch"],
                minibatch_size=o["minibatch"],
                num_epochs=o["epochs"],
                lr=o["lr"],
                entropy_coeff=o["entropy"],
                gamma=o["gamma"],
                lambda_=o["lmbda"],
                clip_param=o["clip"],
                grad_clip=o["grad_clip"] or None,
            )
            .debugging(seed=wrap_seed(settings.seed, 32), log_level="ERROR")
        )
        self.own_ray = not ray.is_initialized()
        if self.own_ray:
            init_ray(num_cpus=max(1, int(settings.threads)), log_to_driver=False)  # no remote actors
        self.algo = build_algo(config)
        self.decisions, self.iterations, self.seconds = 0, 0, 0.0
        self.entropy: dict[str, float] = {}  # the policy's, in the first and the last iteration

    def train_for(self, seconds: float) -> int:
        """The imitation warm start (once, if asked for), then ``algo.train()`` until ``seconds`` have passed
        (the last iteration finishes); the decisions so far, imitated and sampled."""
        start = time.perf_counter()
        if self.imitation and not self.imitated:
            net = PolicyNet(OBS_SIZE, NUM_ACTIONS, self.hidden)
            self.imitated = imitate_heuristic(net, self.settings, self.imitation)
            warm_start(self.algo, net, self.policy)
        while True:
            result = self.algo.train()
            self.iterations += 1
            # One env step is one decision of the learning policy: a seat's in self-play, the learner's here.
            self.decisions = self.imitated + int(result["env_runners"]["num_env_steps_sampled_lifetime"])
            entropy = float(result["learners"][self.policy]["entropy"])  # the mean over the iteration's minibatches
            self.entropy.setdefault("first_update", entropy)
            self.entropy["last_update"] = entropy
            if time.perf_counter() - start >= seconds:
                break
        self.seconds += time.perf_counter() - start
        if self.settings.progress:
            rate = self.decisions / max(self.seconds, 1e-9)
            print(f"{self.name}: {self.iterations} iterations, {self.decisions} decisions ({rate:.0f}/s)", flush=True)
        return self.decisions

    def agent(self) -> RLlibAgent:
        """The greedy legal play of the shared policy's current weights (a copy: training goes on apart)."""
        return copy.deepcopy(RLlibAgent(self.algo.get_module(self.policy), self.rules))

    def save(self) -> Path:
        """``algo.save_to_path`` into ``out/name/checkpoint`` with the rules file; ``rams eval PATH`` loads it."""
        path = (Path(self.settings.out) / self.name / "checkpoint").resolve()
        path.parent.mkdir(parents=True, exist_ok=True)
        saved = Path(self.algo.save_to_path(str(path)))
        save_rules(saved, self.env_config)
        return saved

    def info(self) -> dict[str, Any]:
        """The decisions by kind, the iterations of ``algo.train()``, and the policy's mean entropy over the
        legal moves in the first and the last iteration (RLlib's learner statistic of the masked logits)."""
        return {
            "imitation_decisions": self.imitated,
            "ppo_decisions": self.decisions - self.imitated,
            "iterations": self.iterations,
            "activation": self.algo.get_module(self.policy).activation,
            "policy_entropy": self.entropy,
        }

    def close(self) -> None:
        """Stop the algorithm, and Ray if this pipeline started it."""
        self.algo.stop()
        if self.own_ray:
            ray.shutdown()


class RLlibHeuristicPipeline(RLlibPipeline):
    """PPO for one seat (drawn at each reset) against the compiled heuristic in the others, on the vector env."""

    name = "rllib-heuristic"
    heuristic_opponents = True
