"""Decisions per second through other libraries' own wrappers, beside the project's own PPO in the same run.

Each library runs as the blocks of docs/integrations.md ("Through other libraries' own PettingZoo and Gymnasium
support") set it up, on mattmar at 4 players, one torch thread:

- ``rams``: the project's PPO (``benchmarks.vector_speed.train_rams``: 256 games against heuristics, whole
  ramsar, a 256x256 net, 3 epochs), the peer of every ratio;
- ``tianshou``: the page's masked DQN seat (64 hidden) against Tianshou's masked random seats, trained by
  ``run_training`` on 4 ``DummyVectorEnv`` games with the recipe ``PayEverySeat``; every seat's decisions
  (the closing turns not counted), gradient steps included;
- ``torchrl``: TorchRL's ``Collector`` over its own ``PettingZooWrapper`` with the page's masked MLP (64
  hidden), one game, every seat's decisions, no update;
- ``supersuit``: ``concat_vec_envs_v1`` of 8 games in 2 worker processes, uniformly random legal actions
  from numpy, no network;
- ``cleanrl-sync`` and ``cleanrl-vec``: CleanRL's PPO (:func:`cleanrl_ppo`, the page's ``Agent``, 64 hidden)
  over ``SyncVectorEnv`` of 8 ``Rams-v1`` and over ``make_vec("rams_env/RamsVec-v1", 8)``, random opponents,
  one learning seat's decisions, updates included (32 updates of 8 games x 32 steps).

The sizes differ from library to library (each runs its page's block), so a ratio says how fast a user of
that library gets decisions, not how fast its algorithm is on equal work.

Run: ``python -m benchmarks.outside_libraries [--scale 1.0] [--json out.json]``.
"""

from __future__ import annotations

import json
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from rams_env.options import arg, options_parser

from .vector_speed import cpu_model

PAGE = Path(__file__).resolve().parent.parent / "docs" / "integrations.md"
SECTION = "## Through other libraries' own PettingZoo and Gymnasium support"
ENV = dict(variant="mattmar", num_players=4)


def page_block(marker: str, stop: str | None = None) -> str:
    """The section's Python block holding ``marker``, up to the line ``stop`` (its definitions) if given."""
    text = PAGE.read_text(encoding="utf-8")
    start = text.index("\n" + SECTION + "\n")
    end = text.find("\n## ", start + len(SECTION))
    blocks = re.findall(r"^```python\n(.*?)^```", text[start : None if end < 0 else end], re.DOTALL | re.MULTILINE)
    [code] = [b for b in blocks if marker in b]
    return code if stop is None else code[: code.index(stop)]


def page_names(marker: str, stop: str) -> dict[str, Any]:
    """The names a block of the page defines before ``stop``."""
    names: dict[str, Any] = {"__name__": "outside_libraries_block"}
    exec(compile(page_block(marker, stop), f"docs/integrations.md ({marker})", "exec"), names)
    return names


def cleanrl_ppo(agent: torch.nn.Module, envs: Any, updates: int = 2, steps: int = 32) -> list[float]:
    """CleanRL's ppo.py rollout, GAE and clipped update (gamma 1, lambda 0.95, 2 epochs of 4 minibatches) over
    ``envs`` with the masks of ``infos["action_mask"]`` stored beside the observations; ``agent`` has CleanRL's
    ``get_value`` and ``get_action_and_value(x, mask, action)``. Returns the finished episodes' returns."""
    n = envs.num_envs
    optimizer = torch.optim.Adam(agent.parameters(), lr=2.5e-4, eps=1e-5)
    size, actions_n = envs.single_observation_space.shape[0], envs.single_action_space.n
    obs_b, masks_b = torch.zeros(steps, n, size), torch.zeros(steps, n, actions_n, dtype=torch.bool)
    actions_b, logprobs_b, rewards_b, dones_b, values_b = (torch.zeros(steps, n) for _ in range(5))
    obs, infos = envs.reset(seed=1)
    next_obs, next_mask = torch.as_tensor(obs), torch.as_tensor(infos["action_mask"], dtype=torch.bool)
    next_done, finished = torch.zeros(n), []
    for _ in range(updates):
        for step in range(steps):
            obs_b[step], masks_b[step], dones_b[step] = next_obs, next_mask, next_done
            with torch.no_grad():
                action, logprob, _, value = agent.get_action_and_value(next_obs, next_mask)
            actions_b[step], logprobs_b[step], values_b[step] = action, logprob, value.flatten()
            obs, reward, terminations, truncations, infos = envs.step(action.numpy())
            rewards_b[step] = torch.as_tensor(reward, dtype=torch.float32)
            next_obs, next_mask = torch.as_tensor(obs), torch.as_tensor(infos["action_mask"], dtype=torch.bool)
            next_done = torch.as_tensor(terminations | truncations, dtype=torch.float32)
            finished += reward[terminations].tolist()
        with torch.no_grad():
            next_value = agent.get_value(next_obs).flatten()
            advantages, last = torch.zeros(steps, n), torch.zeros(n)
            for t in reversed(range(steps)):
                not_done = 1.0 - (next_done if t == steps - 1 else dones_b[t + 1])
                following = next_value if t == steps - 1 else values_b[t + 1]
                delta = rewards_b[t] + following * not_done - values_b[t]
                advantages[t] = last = delta + 0.95 * not_done * last
            returns = advantages + values_b
        batch = (obs_b, masks_b, actions_b, logprobs_b, advantages, returns)
        flat = [x.reshape(steps * n, *x.shape[2:]) for x in batch]
        for _ in range(2):
            for idx in torch.randperm(steps * n).chunk(4):
                b_obs, b_mask, b_act, b_logp, b_adv, b_ret = (x[idx] for x in flat)
                _, logprob, entropy, value = agent.get_action_and_value(b_obs, b_mask, b_act.long())
                ratio = (logprob - b_logp).exp()
                b_adv = (b_adv - b_adv.mean()) / (b_adv.std() + 1e-8)
                pg_loss = torch.max(-b_adv * ratio, -b_adv * ratio.clamp(0.8, 1.2)).mean()
                loss = pg_loss - 0.01 * entropy.mean() + 0.5 * ((value.flatten() - b_ret) ** 2).mean()
                optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(agent.parameters(), 0.5)
                optimizer.step()
    return finished


# ----------------------------------------------------------------------------- each library
def speed_rams(scale: float) -> tuple[int, float]:
    from .vector_speed import train_rams

    decisions, clock = train_rams(max(1, round(2 * scale)))
    return decisions, clock.wall


def speed_tianshou(scale: float) -> tuple[int, float]:
    from tianshou.algorithm import DQN, MARLRandomDiscreteMaskedOffPolicyAlgorithm, MultiAgentOffPolicyAlgorithm
    from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
    from tianshou.algorithm.optim import AdamOptimizerFactory
    from tianshou.data import Collector, CollectStats, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv
    from tianshou.trainer import OffPolicyTrainerParams
    from tianshou.utils.net.common import Net

    import rams_env

    recipe, moves = page_names("from tianshou", "\ndef make_env")["PayEverySeat"], [0]

    class Counted(recipe):
        def step(self, action: Any) -> Any:
            moves[0] += not self.closing  # a decision of the game, not a closing turn
            return super().step(action)

    def make_env() -> Any:
        return Counted(rams_env.env(**ENV))

    env = make_env()
    net = Net(
        state_shape=env.observation_space["observation"].shape, action_shape=env.action_space.n, hidden_sizes=[64]
    )
    policy = DiscreteQLearningPolicy(model=net, action_space=env.action_space, eps_training=0.1, eps_inference=0.0)
    dqn = DQN(policy=policy, optim=AdamOptimizerFactory(lr=1e-3), gamma=1.0, n_step_return_horizon=4)
    seats = [dqn] + [MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space) for _ in range(3)]
    algorithm = MultiAgentOffPolicyAlgorithm(algorithms=seats, env=env)
    train_envs = DummyVectorEnv([make_env] * 4)
    train_envs.seed(0)
    training = Collector[CollectStats](algorithm, train_envs, VectorReplayBuffer(20000, 4), exploration_noise=True)
    training.reset()
    training.collect(n_step=256)  # warm-up, as the page's block
    params = OffPolicyTrainerParams(
        training_collector=training,
        test_collector=None,
        max_epochs=1,
        epoch_num_steps=max(40, round(2000 * scale)),
        collection_step_num_env_steps=40,
        batch_size=64,
        update_step_num_gradient_steps_per_sample=0.25,
        show_progress=False,
        verbose=False,
    )
    moves[0] = 0
    started = time.perf_counter()
    algorithm.run_training(params)
    return moves[0], time.perf_counter() - started


def speed_torchrl(scale: float) -> tuple[int, float]:
    from torchrl.collectors import Collector

    names = page_names("from torchrl.envs import PettingZooWrapper", "\nwith torch.no_grad():")
    frames = max(100, round(2000 * scale) // 100 * 100)
    collector = Collector(names["env"], names["policy"], frames_per_batch=100, total_frames=frames)
    started, seen = time.perf_counter(), 0
    for batch in collector:
        seen += batch.numel()
    seconds = time.perf_counter() - started
    collector.shutdown()
    return seen, seconds


def speed_supersuit(scale: float) -> tuple[int, float]:
    import supersuit as ss
    from pettingzoo.utils.conversions import turn_based_aec_to_parallel

    import rams_env

    parallel = turn_based_aec_to_parallel(rams_env.env(**ENV))
    envs = ss.concat_vec_envs_v1(ss.pettingzoo_env_to_vec_env_v1(parallel), 8, num_cpus=2, base_class="gymnasium")
    obs, _ = envs.reset(seed=0)
    rng, decisions = np.random.default_rng(0), 0
    started = time.perf_counter()
    for _ in range(max(10, round(2000 * scale))):
        masks = obs["action_mask"]
        decisions += int(masks.any(axis=1).sum())  # the seats to act (one a game, none in a finished game)
        obs, *_ = envs.step(np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks]))
    seconds = time.perf_counter() - started
    envs.close()
    return decisions, seconds


def speed_cleanrl(scale: float, face: str) -> tuple[int, float]:
    names = page_names("class Agent(nn.Module)", "\nfor envs in ")
    envs = names["sync_envs" if face == "sync" else "vector_envs"]
    (names["vector_envs" if face == "sync" else "sync_envs"]).close()
    updates, steps = max(1, round(32 * scale)), 32
    agent = names["Agent"](envs)
    cleanrl_ppo(agent, envs, updates=1, steps=steps)  # warm-up
    started = time.perf_counter()
    cleanrl_ppo(agent, envs, updates=updates, steps=steps)
    seconds = time.perf_counter() - started
    envs.close()
    return updates * steps * envs.num_envs, seconds


RUNS = {
    "rams": speed_rams,
    "tianshou": speed_tianshou,
    "torchrl": speed_torchrl,
    "supersuit": speed_supersuit,
    "cleanrl-sync": lambda scale: speed_cleanrl(scale, "sync"),
    "cleanrl-vec": lambda scale: speed_cleanrl(scale, "vec"),
}


@dataclass(kw_only=True)
class OutsideLibrariesArgs:
    """The options of ``python -m benchmarks.outside_libraries``."""

    scale: float = arg(1.0, "work per library, relative to the default", low=0, open_low=True)
    only: tuple[str, ...] = arg((), "these libraries (rams always runs)", nargs="*", choices=sorted(RUNS))
    json: str | None = arg(None, "also write the results here")


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = options_parser(__doc__.splitlines()[0], OutsideLibrariesArgs, validate=True)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    chosen = ["rams", *[name for name in RUNS if name != "rams" and (not args.only or name in args.only)]]
    results: dict[str, Any] = {"load_before": os.getloadavg(), "cpus": os.cpu_count(), "machine": cpu_model()}
    rows = {}
    for name in chosen:
        decisions, seconds = RUNS[name](args.scale)
        rows[name] = {"decisions": decisions, "seconds": seconds, "per_second": decisions / seconds}
    results["load_after"] = os.getloadavg()
    results["rows"] = rows
    peer = rows["rams"]["per_second"]
    print(f"load average before {results['load_before'][0]:.2f}, after {results['load_after'][0]:.2f}")
    for name, row in rows.items():
        print(
            f"{name:13s} {row['per_second']:9,.0f} decisions/s  ratio {row['per_second'] / peer:5.2f}  "
            f"({row['decisions']} in {row['seconds']:.1f} s)"
        )
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    return results


if __name__ == "__main__":
    main()
