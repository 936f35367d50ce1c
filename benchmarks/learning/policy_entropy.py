"""``python -m benchmarks.learning.policy_entropy POLICY``: how far a saved policy is from uniform play.

The mean, over the learner's decisions in seeded games against three compiled heuristics, of the
entropy of the policy's distribution over the legal moves, beside uniform play's on the same
decisions. The learner's seat plays uniformly at random while the states are drawn, so that every
policy is measured on the same decisions. A policy whose learning never moved it stays at the uniform
figure; a trained one is far below it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass

import gymnasium as gym
import numpy as np
import torch

import rams_env  # registers the env ids; make_config
from rams_env.agents import load_agent
from rams_env.agents.neural import PolicyAgent
from rams_env.apps.cli.options import RulesOptions
from rams_env.options import REQUIRED, SEED, arg, options_parser

Logits = Callable[[np.ndarray, np.ndarray], torch.Tensor]


@dataclass(frozen=True)
class Entropies:
    """The policy's and uniform play's mean entropy (nats) over the same decisions."""

    policy: float
    uniform: float
    decisions: int


def logits_of(agent: object) -> Logits:
    """``(observations, masks) -> logits`` of a project policy (a checkpoint or an ensemble), an RLlib module or
    a saved MaskablePPO; ``TypeError`` for an agent that exposes no distribution."""
    if isinstance(agent, PolicyAgent):
        return lambda obs, _mask: agent.logits(torch.from_numpy(obs)).float()
    module = getattr(agent, "module", None)
    if module is not None and hasattr(module, "forward_inference"):
        from ray.rllib.core.columns import Columns

        def rllib_logits(obs: np.ndarray, mask: np.ndarray) -> torch.Tensor:
            batch = {"observation": torch.from_numpy(obs), "action_mask": torch.from_numpy(mask)}
            return module.forward_inference({Columns.OBS: batch})[Columns.ACTION_DIST_INPUTS].float()

        return rllib_logits
    if isinstance(getattr(agent, "net", None), torch.nn.Module):  # a saved MaskablePPO's policy MLP (SB3PolicyAgent)
        return lambda obs, _mask: agent.net(torch.from_numpy(obs)).float()
    raise TypeError(
        f"{type(agent).__name__} exposes no action distribution (a checkpoint, an RLlib module or an SB3 model does)"
    )


def masked_entropy(logits: torch.Tensor, mask: np.ndarray) -> torch.Tensor:
    """Each row's entropy over its legal moves (nats)."""
    legal = torch.from_numpy(mask != 0)
    log_p = torch.log_softmax(logits.masked_fill(~legal, float("-inf")), dim=-1)
    return -(log_p.exp() * log_p.masked_fill(~legal, 0.0)).sum(-1)


def mean_entropies(
    logits: Logits, variant: str = "mattmar", num_players: int = 4, games: int = 64, steps: int = 50, seed: int = 5
) -> Entropies:
    """The mean entropies over ``games * steps`` decisions of the learner in seeded games against heuristics."""
    env = gym.make_vec(
        "rams_env/RamsVec-v1", num_envs=games, variant=variant, num_players=num_players, opponents="heuristic"
    )
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    policy, uniform = [], []
    with torch.no_grad():
        for _ in range(steps):
            mask = np.asarray(info["action_mask"], dtype=np.int8)
            live = mask.any(-1)  # a game that ended last step has no decision here (next-step autoreset)
            policy.append(masked_entropy(logits(np.asarray(obs[live], np.float32), mask[live]), mask[live]))
            uniform.append(torch.log(torch.from_numpy(mask[live].sum(-1)).double()))
            actions = np.array([rng.choice(np.flatnonzero(row)) if row.any() else 0 for row in mask])
            obs, _, _, _, info = env.step(actions)
    env.close()
    policy_all, uniform_all = torch.cat(policy), torch.cat(uniform)
    return Entropies(float(policy_all.mean()), float(uniform_all.mean()), len(policy_all))


@dataclass(kw_only=True)
class PolicyEntropyArgs:
    """The options of ``python -m benchmarks.learning.policy_entropy`` but the rules' (:class:`RulesOptions`)."""

    policy: str = arg(
        REQUIRED, "a checkpoint, an ensemble manifest, a zoo name, a folder RLlib saved or an SB3 .zip", positional=True
    )
    games: int = arg(64, "games stepped together", low=1)
    steps: int = arg(50, "learner decisions per game", low=1)
    seed: int = arg(5, "seed of the deals and the random play", check=SEED)


def main(argv: list[str] | None = None) -> None:
    parser = options_parser(
        __doc__,
        (RulesOptions, ["variant", "num_players"]),
        PolicyEntropyArgs,
        prog="python -m benchmarks.learning.policy_entropy",
        validate=True,
    )
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    agent = load_agent(args.policy, expect_config=rams_env.make_config(args.variant, args.num_players))
    found = mean_entropies(logits_of(agent), args.variant, args.num_players, args.games, args.steps, args.seed)
    print(json.dumps({"checkpoint": args.policy, **asdict(found)}))


if __name__ == "__main__":
    main()
