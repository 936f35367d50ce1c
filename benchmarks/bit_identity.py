"""Hashes that prove a refactor changes no behaviour: run this in two trees and compare the printouts.

``--part envs``: every output of the batched faces over long seeded random plays (the batched env with no,
one and mixed heuristic seats and a change of seats between episodes; the vector env in its three autoreset
modes with compiled, mixed and outside opponents; batched evaluations of zoo models against heuristics).
``--part training``: weights, optimizer, critic, generator, history and evaluations of tiny fixed-seed
training runs covering each training path. Two trees give the same lines when they behave the same; the
training hashes are only comparable on one machine (fused Adam's last bits follow the CPU).

Run: ``python -m benchmarks.bit_identity --part envs`` in each tree (``PYTHONPATH=<tree>`` for a checkout that
is not the installed one), then ``diff`` the outputs.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass
from typing import Any

import numpy as np

from rams_env.options import arg, options_parser

CASES = [
    ("mattmar", 4, "deal", "points"),
    ("russian", 5, "rams", "win"),
    ("rams32", 3, "match", "points"),
    ("norrlandsknack", 7, "rams", "points"),
    ("russian", 3, "match", "win"),
]


class Hashes:
    """Named running SHA-256 digests of arrays."""

    def __init__(self) -> None:
        self.digests: dict[str, Any] = {}

    def add(self, name: str, *arrays: Any) -> None:
        digest = self.digests.setdefault(name, hashlib.sha256())
        for array in arrays:
            a = np.ascontiguousarray(np.asarray(array))
            digest.update(f"{a.dtype}{a.shape}".encode())
            digest.update(a.tobytes())

    def lines(self) -> list[str]:
        return [f"{name} {self.digests[name].hexdigest()[:16]}" for name in sorted(self.digests)]


def legal_choices(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A random legal action per mask (0 for an all-zero mask)."""
    return np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks], np.int64)


def batched_plays(hashes: Hashes, steps: int) -> None:
    from rams_env.envs import BatchedRamsEnv

    for variant, n, episode, reward in CASES:
        kwargs = dict(variant=variant, num_players=n, episode=episode, reward=reward)
        mixed = np.random.default_rng(0).random((16, n)) < 0.5
        mixed[:, 0] = False
        for seats_name, seats in (("none", None), ("one", np.array([False] + [True] * (n - 1))), ("mixed", mixed)):
            env = BatchedRamsEnv(16, seed=3, heuristic_seats=seats, **kwargs)
            name = f"batched {seats_name} {variant}-{n}-{episode}-{reward}"
            rng, out = np.random.default_rng(1), env.reset(seed=5)
            hashes.add(name, out.observations, out.action_masks, out.seats, out.rewards, out.terminated)
            for t in range(steps):
                if seats_name == "mixed" and t == steps // 3:
                    later = np.random.default_rng(t).random((16, n)) < 0.5
                    later[:, 1] = False
                    env.set_next_heuristic_seats(later)
                out = env.step(legal_choices(out.action_masks, rng))
                hashes.add(name, out.observations, out.action_masks, out.seats, out.rewards, out.terminated, env.scores)
            hashes.add(name, np.array([env.dropped_episodes]))


def vector_plays(hashes: Hashes, steps: int) -> None:
    from rams_env.agents import RandomAgent
    from rams_env.envs import RamsVectorEnv

    for variant, n, episode, reward in CASES:
        kwargs = dict(variant=variant, num_players=n, episode=episode, reward=reward)
        for mode in ("NextStep", "SameStep", "Disabled"):
            for opponents_name in ("heuristic", "mixed", "outside"):
                opponents: Any = {
                    "heuristic": "heuristic",
                    "mixed": ["random"] + ["heuristic"] * (n - 2),
                    "outside": RandomAgent(seed=4),
                }[opponents_name]
                seat = "random" if mode == "SameStep" else 0
                env = RamsVectorEnv(8, autoreset_mode=mode, opponents=opponents, learner_seat=seat, **kwargs)
                name = f"vector {mode} {opponents_name} {variant}-{n}-{episode}-{reward}"
                rng = np.random.default_rng(2)
                obs, info = env.reset(seed=7)
                hashes.add(name, obs, info["action_mask"], info["seat"])
                for t in range(steps):
                    if mode == "Disabled" and t % 40 == 39:
                        obs, info = env.reset(options={"reset_mask": np.arange(8) % 2 == 0})
                        hashes.add(name, obs, info["action_mask"])
                        continue
                    try:
                        obs, rewards, terminated, truncated, info = env.step(legal_choices(info["action_mask"], rng))
                    except RuntimeError:  # Disabled: a game over before its reset
                        obs, info = env.reset(options={"reset_mask": np.ones(8, bool)})
                        continue
                    hashes.add(name, obs, rewards, terminated, truncated, info["action_mask"], info["seat"])
                    hashes.add(name, info["score"], info["tricks"])
                    if "final_obs" in info:
                        hashes.add(name, info["final_obs"], info["_final_obs"])
                hashes.add(name, np.array([env.dropped_episodes]))


def evaluations(hashes: Hashes) -> None:
    import torch

    torch.set_num_threads(1)
    from rams_env.agents import load_agent
    from rams_env.agents.specs import agent_source
    from rams_env.eval import evaluate
    from rams_env.rules import make_config

    for variant, episode in (("mattmar", "rams"), ("russian", "deal"), ("rams32", "rams")):
        config = make_config(variant, 4)
        result = evaluate(
            {"a": load_agent(variant)},
            agent_source("heuristic"),
            config,
            decks=12,
            seed=3,
            episode=episode,
            progress=False,
            batched=True,
        )
        hashes.add(f"evaluation {variant} {episode}", np.frombuffer(json.dumps(result.to_dict()).encode(), np.uint8))


TRAINING_BASE = dict(
    total_steps=600,
    num_games=6,
    episodes_per_game=1,
    hidden=(16,),
    minibatch=64,
    epochs=2,
    eval_every=2,
    eval_decks=2,
    snapshot_every=1,
    checkpoint_every=1,
    progress=False,
    threads=1,
    precision="fp32",
    seed=5,
)
TRAINING_CASES: dict[str, dict[str, Any]] = {
    "ppo_pool": dict(pool_fraction=0.5),
    "dmc": dict(algorithm="dmc", pool_fraction=0.5, epsilon=0.1),
    "critic_shaping": dict(
        episode="rams",
        reward="win",
        points_weight=1.0,
        privileged_critic=True,
        critic_warmup=1,
        heuristic_fraction=0.5,
        random_fraction=0.2,
        heuristic_after=100,
        late_lr=1e-4,
    ),
    "python_heuristic": dict(heuristic_fraction=0.6, compiled_heuristic=False, random_fraction=0.2),
    "equity": dict(episode="rams", reward="win", equity_shaping=True, pool_fraction=0.3),
    "sizes": dict(table_sizes=(3,), pool_fraction=0.4),
    "target_mix": dict(target="heuristic+random", episode="rams", reward="win"),
    "imitation": dict(imitation=1500, heuristic_fraction=1.0, episode="rams", reward="win"),
}


def training_runs(hashes: Hashes) -> None:
    import torch

    torch.set_num_threads(1)
    from rams_env.policy.checkpoint import read_plain
    from rams_training.config import TrainArgs
    from rams_training.run import Trainer

    for name, case in TRAINING_CASES.items():
        folder = tempfile.mkdtemp(prefix=f"bit-{name}-")
        Trainer(TrainArgs(**{**TRAINING_BASE, **case, "run_dir": folder})).run()
        payload = read_plain(os.path.join(folder, "latest.pt"), "training checkpoint")
        for key in ("model", "optimizer", "critic"):
            state = payload.get(key) or {}
            for part, value in sorted(_flat(state, key)):
                hashes.add(f"training {name} {key}", np.frombuffer(part.encode(), np.uint8), value)
        history = [{k: v for k, v in r.items() if not k.endswith(("_s", "per_s"))} for r in payload["history"]]
        hashes.add(f"training {name} history", np.frombuffer(json.dumps(history, sort_keys=True).encode(), np.uint8))


def _flat(state: Any, prefix: str) -> list[tuple[str, np.ndarray]]:
    """Every tensor or number of a nested state, by its path."""
    import torch

    if isinstance(state, torch.Tensor):
        return [(prefix, state.detach().cpu().contiguous().numpy())]
    if isinstance(state, dict):
        return [item for key in sorted(state, key=str) for item in _flat(state[key], f"{prefix}.{key}")]
    if isinstance(state, (list, tuple)):
        return [item for k, value in enumerate(state) for item in _flat(value, f"{prefix}.{k}")]
    return [(prefix, np.frombuffer(repr(state).encode(), np.uint8))]


@dataclass(kw_only=True)
class BitArgs:
    """The options of ``python -m benchmarks.bit_identity``."""

    part: str = arg("envs", "what to hash", choices=("envs", "training"))
    steps: int = arg(300, "steps of each env play", low=1)


def main(argv: list[str] | None = None) -> None:
    args = options_parser(__doc__.splitlines()[0], BitArgs, validate=True).parse_args(argv)
    hashes = Hashes()
    if args.part == "envs":
        batched_plays(hashes, args.steps)
        vector_plays(hashes, args.steps)
        evaluations(hashes)
    else:
        training_runs(hashes)
    print("\n".join(hashes.lines()))


if __name__ == "__main__":
    main()
