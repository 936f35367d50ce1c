"""The vector env and the libraries on it: decisions per second, against peers measured in the same run.

One thread, mattmar at 4 players, one learning seat against three compiled heuristics, whole ramsar with the
win reward. Two tables:

- **env**: :class:`~rams_env.envs.gym_vector.RamsVectorEnv` ``step`` against ``BatchedRamsEnv`` with the same
  heuristic seats (uniformly random legal learner actions, chosen by the compiled random policy); the ratio
  is the vector env's overhead.
- **training**: learner decisions per second, learner updates included, for the project's own PPO (the
  peer), the CleanRL-style example, SB3's MaskablePPO on ``RamsVecEnv``, TorchRL's PPO (``Collector``, GAE,
  ``ClipPPOLoss``) on ``RamsBatchedEnv`` and RLlib's PPO with one local env runner on the vector entry
  point; then RLlib's PPO in self-play, every seat's decisions counted, on the batched engine's env runner
  (``rllib-selfplay``) and on RLlib's multi-agent runner over one AEC game at a time (``rllib-selfplay-aec``,
  the path it replaces). Every pipeline trains a 256x256 ReLU actor-critic on rollouts of 8192 decisions (256 games x 32
  steps), 3 epochs of minibatches of 2048, after one untimed warm-up update (numba and torch first calls).

Each figure is given per second of wall time and per second of this process's CPU time (the second is less
sensitive to other load on the machine); the load average is printed with them.

Run: ``python -m benchmarks.vector_speed [--updates 3] [--only env,rams,cleanrl,sb3,torchrl,rllib,...]``.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import os
import platform
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from rams_env.options import arg, options_parser

GAMES, STEPS, EPOCHS, MINIBATCH, HIDDEN = 256, 32, 3, 2048, (256, 256)
ROLLOUT = GAMES * STEPS
ENV_KWARGS: dict[str, Any] = dict(variant="mattmar", num_players=4, episode="rams", reward="win")
PIPELINES = ("env", "rams", "cleanrl", "sb3", "torchrl", "rllib", "rllib-selfplay", "rllib-selfplay-aec")


class Clock:
    """Wall and process CPU time of a block."""

    def __enter__(self) -> Clock:
        self.wall, self.cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.wall, self.cpu = time.perf_counter() - self.wall, time.process_time() - self.cpu


def rates(decisions: int, clock: Clock) -> tuple[float, float]:
    return decisions / clock.wall, decisions / clock.cpu


# ----------------------------------------------------------------------------- the env alone
def env_rates(steps: int) -> dict[str, tuple[float, float]]:
    """``BatchedRamsEnv`` (heuristic seats) and ``RamsVectorEnv`` (heuristic opponents), random learner actions."""
    from rams_env.compiled.random_policy import random_legal_actions
    from rams_env.compiled.workspace import mt_state
    from rams_env.envs import BatchedRamsEnv, RamsVectorEnv

    def run(reset: Callable[[], np.ndarray], step: Callable[[np.ndarray], np.ndarray]) -> Clock:
        masks, rng, actions = reset(), mt_state(0), np.zeros(GAMES, np.int64)
        for _ in range(20):  # warm-up
            random_legal_actions(masks, rng, actions)
            masks = step(actions)
        with Clock() as clock:
            for _ in range(steps):
                random_legal_actions(masks, rng, actions)
                masks = step(actions)
        return clock

    def playable(masks: np.ndarray) -> np.ndarray:
        """Next-step autoreset: a finished game's all-zero mask gets action 0 (the env ignores it)."""
        masks[:, 0] |= ~masks.any(axis=1)
        return masks

    batched = BatchedRamsEnv(GAMES, heuristic_seats=np.array([False, True, True, True]), seed=0, **ENV_KWARGS)
    same = RamsVectorEnv(GAMES, opponents="heuristic", autoreset_mode="SameStep", **ENV_KWARGS)
    nxt = RamsVectorEnv(GAMES, opponents="heuristic", **ENV_KWARGS)
    out = {
        "BatchedRamsEnv": run(lambda: batched.reset().action_masks, lambda a: batched.step(a).action_masks),
        "RamsVectorEnv same-step": run(
            lambda: same.reset(seed=0)[1]["action_mask"], lambda a: same.step(a)[4]["action_mask"]
        ),
        "RamsVectorEnv next-step": run(
            lambda: playable(nxt.reset(seed=0)[1]["action_mask"]), lambda a: playable(nxt.step(a)[4]["action_mask"])
        ),
    }
    return {name: rates(GAMES * steps, clock) for name, clock in out.items()}


# ----------------------------------------------------------------------------- training pipelines
def train_rams(updates: int) -> tuple[int, Clock]:
    """The project's own PPO (``rams train``'s trainer, the quick recipe's settings against heuristics)."""
    from rams_training.cli import AGAINST_HEURISTICS
    from rams_training.config import TrainArgs
    from rams_training.rollout import episode_rows
    from rams_training.run import Trainer

    settings = dict(AGAINST_HEURISTICS, num_games=GAMES, epochs=EPOCHS, minibatch=MINIBATCH, threads=1)
    settings.update(total_steps=10**12, eval_every=0, progress=False, imitation=0, workers=1)
    args = TrainArgs(**settings, run_dir=tempfile.mkdtemp(prefix="rams-vector-speed-"))
    trainer = Trainer(args)
    try:
        episodes, _ = trainer.collect()
        trainer.update(episode_rows(episodes))
        decisions = 0
        with Clock() as clock:
            for _ in range(updates):
                episodes, _ = trainer.collect()
                batch = episode_rows(episodes)
                trainer.update(batch)
                decisions += len(batch)
    finally:
        trainer.close()
    return decisions, clock


def train_cleanrl(updates: int) -> tuple[int, Clock]:
    """``examples/cleanrl_ppo.py``'s ``train`` (its own defaults: 256 games x 32 steps, 3 epochs, 4 minibatches)."""
    path = Path(__file__).resolve().parent.parent / "examples" / "cleanrl_ppo.py"
    spec = importlib.util.spec_from_file_location("cleanrl_ppo", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up
    spec.loader.exec_module(module)
    module.train(module.Args(total_steps=ROLLOUT, **ENV_KWARGS))  # warm-up
    with Clock() as clock:
        _, speed = module.train(module.Args(total_steps=ROLLOUT * updates, **ENV_KWARGS))
    return int(speed["decisions"]), clock


def train_sb3(updates: int) -> tuple[int, Clock]:
    """sb3-contrib's MaskablePPO on :class:`~rams_env.integrations.sb3_vector.RamsVecEnv`."""
    from sb3_contrib import MaskablePPO

    from rams_env.integrations.sb3_vector import RamsVecEnv

    env = RamsVecEnv(GAMES, opponents="heuristic", learner_seat="random", **ENV_KWARGS)
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=STEPS,
        batch_size=MINIBATCH,
        n_epochs=EPOCHS,
        gamma=1.0,
        policy_kwargs={"net_arch": list(HIDDEN), "activation_fn": torch.nn.ReLU, "share_features_extractor": True},
        seed=0,
        device="cpu",
    )
    model.learn(ROLLOUT)
    with Clock() as clock:
        model.learn(ROLLOUT * updates, reset_num_timesteps=False)
    return ROLLOUT * updates, clock


def train_torchrl(updates: int) -> tuple[int, Clock]:
    """TorchRL's PPO on :class:`~rams_env.integrations.torchrl_vector.RamsBatchedEnv` (one shared PolicyNet)."""
    from torch import nn
    from torchrl.collectors import Collector
    from torchrl.objectives import ClipPPOLoss
    from torchrl.objectives.value import GAE

    from rams_env.integrations.torchrl_vector import RamsBatchedEnv, masked_actor, value_module
    from rams_env.obs import OBS_SIZE
    from rams_env.policy import PolicyNet
    from rams_env.rules.actions import NUM_ACTIONS

    env = RamsBatchedEnv(GAMES, opponents="heuristic", learner_seat="random", **ENV_KWARGS)
    env.set_seed(0)
    from rams_training.run import uses_bf16

    net = PolicyNet(OBS_SIZE, NUM_ACTIONS, HIDDEN)
    bf16 = uses_bf16("auto", torch.device("cpu"))  # as rams train and the example do where the CPU has native bf16
    actor, critic = masked_actor(net, bf16=bf16), value_module(net, bf16=bf16)
    collector = Collector(env, actor, frames_per_batch=ROLLOUT, total_frames=-1, auto_register_policy_transforms=False)
    gae = GAE(gamma=1.0, lmbda=0.95, value_network=critic)
    loss = ClipPPOLoss(actor, critic, entropy_coeff=0.01, critic_coeff=0.5, loss_critic_type="l2")
    loss.set_keys(sample_log_prob="action_log_prob", value="state_value")
    optimizer = torch.optim.Adam(net.parameters(), lr=3e-4, eps=1e-5)
    batches = iter(collector)

    def update() -> None:
        batch = next(batches).reshape(-1)
        with torch.no_grad():
            gae(batch)
        for _ in range(EPOCHS):
            for rows in torch.randperm(len(batch)).split(MINIBATCH):
                losses = loss(batch[rows])
                total = losses["loss_objective"] + losses["loss_critic"] + losses["loss_entropy"]
                optimizer.zero_grad(set_to_none=True)
                total.backward()
                nn.utils.clip_grad_norm_(net.parameters(), 0.5)
                optimizer.step()

    update()
    with Clock() as clock:
        for _ in range(updates):
            update()
    collector.shutdown()
    return ROLLOUT * updates, clock


def train_rllib(updates: int) -> tuple[int, Clock]:
    """RLlib's PPO, one local env runner on the vector entry point, the learner in the same process."""
    from rams_env.integrations.rllib import init_ray
    from rams_env.integrations.rllib_vector import vector_ppo_config

    init_ray(num_cpus=1)
    config = (
        vector_ppo_config(
            dict(ENV_KWARGS, opponents="heuristic", learner_seat="random"),
            num_envs_per_env_runner=GAMES,
            hidden=HIDDEN,
            activation="relu",
        )
        .env_runners(num_env_runners=0, rollout_fragment_length=STEPS)
        .learners(num_learners=0)
        .training(train_batch_size_per_learner=ROLLOUT, minibatch_size=MINIBATCH, num_epochs=EPOCHS, gamma=1.0)
    )
    return _time_rllib(config, updates)


def _time_rllib(config: Any, updates: int) -> tuple[int, Clock]:
    """Build ``config``'s algorithm, train once untimed, then ``updates`` timed iterations; stops Ray."""
    import ray

    from rams_env.integrations.rllib import build_algo

    algo = build_algo(config)
    try:
        algo.train()
        sampled = 0
        with Clock() as clock:
            for _ in range(updates):
                sampled += int(algo.train()["env_runners"]["num_env_steps_sampled"])
    finally:
        algo.stop()
        ray.shutdown()
    return sampled, clock


def train_rllib_selfplay(updates: int, batched: bool = True) -> tuple[int, Clock]:
    """RLlib's PPO in self-play (every seat the one module, each seat's decisions counted), one local env runner:
    ``BatchedSelfPlayEnvRunner`` on the batched engine, or (``batched=False``) RLlib's multi-agent env runner
    over ``RamsMultiAgentEnv``, one AEC game at a time (``ppo_config``), the path it replaces."""
    from rams_env.integrations.rllib import init_ray, ppo_config
    from rams_env.integrations.rllib_selfplay import selfplay_ppo_config

    init_ray(num_cpus=1)
    if batched:
        config = selfplay_ppo_config(ENV_KWARGS, num_envs_per_env_runner=GAMES, hidden=HIDDEN, activation="relu")
        config = config.env_runners(num_env_runners=0, rollout_fragment_length=STEPS)
    else:
        config = ppo_config(ENV_KWARGS, hidden=HIDDEN, activation="relu")
        config = config.env_runners(num_env_runners=0, rollout_fragment_length="auto")
    config = config.learners(num_learners=0).training(
        train_batch_size_per_learner=ROLLOUT, minibatch_size=MINIBATCH, num_epochs=EPOCHS, gamma=1.0
    )
    return _time_rllib(config, updates)


TRAINERS: dict[str, Callable[[int], tuple[int, Clock]]] = {
    "rams": train_rams,
    "cleanrl": train_cleanrl,
    "sb3": train_sb3,
    "torchrl": train_torchrl,
    "rllib": train_rllib,
    "rllib-selfplay": train_rllib_selfplay,
    "rllib-selfplay-aec": lambda updates: train_rllib_selfplay(updates, batched=False),
}


@dataclass(kw_only=True)
class VectorSpeedArgs:
    """The options of ``python -m benchmarks.vector_speed``."""

    updates: int = arg(3, "timed updates per training pipeline", low=1)
    env_steps: int = arg(400, "timed steps of each env", low=1)
    only: str = arg(",".join(PIPELINES), f"comma-separated subset of {PIPELINES}")
    json: str | None = arg(None, "also write the figures, the command and the versions here")


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = options_parser(__doc__.splitlines()[0], VectorSpeedArgs, validate=True)
    args = parser.parse_args(argv)
    chosen = [name.strip() for name in args.only.split(",") if name.strip()]
    unknown = sorted(set(chosen) - set(PIPELINES))
    if unknown:
        parser.error(f"--only: unknown {unknown}; choose from {PIPELINES}")
    torch.set_num_threads(1)
    load_before = os.getloadavg()[0]
    print(f"one thread; load average before: {load_before:.2f}")
    results: dict[str, Any] = {}
    if "env" in chosen:
        env = env_rates(args.env_steps)
        base = env["BatchedRamsEnv"]
        print("env step, decisions/s (wall | CPU), ratio to BatchedRamsEnv (wall | CPU):")
        for name, (wall, cpu) in env.items():
            print(f"  {name:24s} {wall:>10,.0f} | {cpu:>10,.0f}   {wall / base[0]:.2f} | {cpu / base[1]:.2f}")
        results["env"] = env
    peer = None
    for name in [n for n in TRAINERS if n in chosen]:
        decisions, clock = TRAINERS[name](args.updates)
        wall, cpu = rates(decisions, clock)
        peer = peer or ((wall, cpu) if name == "rams" else None)
        ratio = f"   {wall / peer[0]:.2f} | {cpu / peer[1]:.2f} of rams" if peer else ""
        print(f"train {name:18s} {wall:>10,.0f} | {cpu:>10,.0f} decisions/s (wall | CPU){ratio}", flush=True)
        results[name] = (wall, cpu)
    load_after = os.getloadavg()[0]
    print(f"load average after: {load_after:.2f}")
    if args.json:
        record = {
            "command": "python -m benchmarks.vector_speed " + " ".join(argv if argv is not None else sys.argv[1:]),
            "load_average": [load_before, load_after],
            "versions": {
                name: _version(name)
                for name in ("rams_env", "torch", "stable_baselines3", "sb3_contrib", "torchrl", "ray", "numba")
            },
            "cpu": cpu_model(),
            "native_bf16": _native_bf16(),
            "results": {name: {"wall": wall, "cpu": cpu} for name, (wall, cpu) in _flat(results).items()},
        }
        Path(args.json).write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    return results


def _flat(results: dict[str, Any]) -> dict[str, tuple[float, float]]:
    """The env's rows and the pipelines' as one mapping of name to (wall, CPU) rates."""
    flat = {f"env {name}": value for name, value in results.get("env", {}).items()}
    flat.update({f"train {name}": value for name, value in results.items() if name != "env"})
    return flat


def cpu_model() -> str:
    """The processor's model name (``/proc/cpuinfo`` on Linux), else what ``platform`` knows."""
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _native_bf16() -> bool:
    """Whether the hidden layers run in bf16 here (``rams train``'s ``precision=auto``): the figures depend on it."""
    from rams_training.run import uses_bf16

    return uses_bf16("auto", torch.device("cpu"))


def _version(name: str) -> str | None:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


if __name__ == "__main__":
    main()
