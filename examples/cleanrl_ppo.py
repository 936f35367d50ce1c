"""PPO in one file, CleanRL style, on ``gymnasium.make_vec("rams_env/RamsVec-v1")``: masked actions, one learner.

The template most researchers start from (CleanRL's ``ppo.py``), on the compiled vector env: ``num_envs`` games
stepped in one call, the opponents' turns inside it. The masks come in ``infos["action_mask"]``; illegal
actions get a logit of -inf. The vector env runs in same-step autoreset, so the rollout loop is CleanRL's own.
The network is the project's ``PolicyNet``, so that ``--init-from`` can start from a trained policy (a zoo name
or a checkpoint) and ``--save`` writes a checkpoint that ``rams eval`` and ``load_agent`` read. ``--eval-decks``
ends with a duplicate evaluation against the heuristic.

    python examples/cleanrl_ppo.py --total-steps 500000 --episode rams --reward win
    python examples/cleanrl_ppo.py --init-from mattmar-4p-imitation --learning-rate 1e-4 --ent-coef 0.003
"""

from __future__ import annotations

import argparse
import dataclasses
import time
from dataclasses import dataclass

import gymnasium
import numpy as np
import torch
from torch import nn

import rams_env  # registers rams_env/RamsVec-v1
from rams_env.agents import load_agent
from rams_env.agents.neural import PolicyAgent
from rams_env.eval import evaluate
from rams_env.obs import OBS_SIZE
from rams_env.policy import PolicyNet, make_checkpoint, save_checkpoint
from rams_env.rules.actions import NUM_ACTIONS


@dataclass
class Args:
    variant: str = "mattmar"
    """the rules preset"""
    num_players: int = 4
    """players at the table"""
    opponents: str = "heuristic"
    """who plays the other seats: heuristic or random (compiled, inside the step)"""
    episode: str = "rams"
    """deal, rams or match"""
    reward: str = "win"
    """win (+1 shared by the winners at the end) or points (score decreases)"""
    num_envs: int = 256
    """games stepped together"""
    num_steps: int = 32
    """steps per game per rollout (a rollout is num_envs * num_steps decisions)"""
    total_steps: int = 1_000_000
    """learner decisions to train for"""
    learning_rate: float = 3e-4
    """Adam's step size (annealed linearly to 0)"""
    gamma: float = 1.0
    """discount (1: the one reward comes at the end of a rams)"""
    gae_lambda: float = 0.95
    """GAE's lambda"""
    num_minibatches: int = 4
    """minibatches per epoch"""
    update_epochs: int = 3
    """epochs per rollout (the project's own PPO uses 3)"""
    clip_coef: float = 0.2
    """PPO's clip"""
    ent_coef: float = 0.01
    """entropy bonus"""
    vf_coef: float = 0.5
    """value loss weight"""
    max_grad_norm: float = 0.5
    """gradient clipping"""
    hidden: int = 256
    """width of each of the two hidden layers (ignored with --init-from, which brings its own)"""
    init_from: str = ""
    """a trained policy to start from: a zoo name or a checkpoint path"""
    seed: int = 1
    """seeds torch and the games"""
    threads: int = 1
    """torch threads"""
    precision: str = "auto"
    """bf16 (hidden layers under bfloat16 autocast), fp32, or auto: bf16 where the CPU has native bf16"""
    save: str = ""
    """where to write the trained policy as a checkpoint (.pt)"""
    eval_decks: int = 0
    """decks of the final duplicate evaluation against the heuristic (0: none)"""


def parse_args(argv: list[str] | None = None) -> Args:
    """The command line as :class:`Args` (one flag per field, its docstring as help). The example's own
    tiny parser, as CleanRL's files keep theirs (tyro there): the file imports nothing of the training package."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    docs = _field_docs()
    for field in dataclasses.fields(Args):
        parser.add_argument(
            "--" + field.name.replace("_", "-"), type=type(field.default), default=field.default, help=docs[field.name]
        )
    return Args(**vars(parser.parse_args(argv)))


def _field_docs() -> dict[str, str]:
    """Each field's docstring (the string under it in the class body)."""
    import ast
    import inspect
    import itertools

    body = ast.parse(inspect.getsource(Args)).body[0].body
    return {
        a.target.id: b.value.value
        for a, b in itertools.pairwise(body)
        if isinstance(a, ast.AnnAssign) and isinstance(b, ast.Expr)
    }


def uses_bf16(precision: str) -> bool:
    """Whether the hidden layers run under bfloat16 autocast on the CPU: ``auto`` where it has native bf16."""
    if precision != "auto":
        return precision == "bf16"
    return bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())


def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``logits`` with illegal actions at -inf (a row with no legal action, a finished game's, left as is)."""
    mask = mask.bool()
    return torch.where(mask | ~mask.any(dim=-1, keepdim=True), logits, torch.finfo(logits.dtype).min)


def train(args: Args) -> tuple[PolicyNet, dict[str, float]]:
    """PPO for ``args.total_steps`` learner decisions; returns the network and the run's speed."""
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    torch.distributions.Distribution.set_default_validate_args(False)  # the masks are checked by the env
    config = rams_env.make_config(args.variant, args.num_players)
    envs = gymnasium.make_vec(
        "rams_env/RamsVec-v1",
        num_envs=args.num_envs,
        variant=args.variant,
        num_players=args.num_players,
        opponents=args.opponents,
        learner_seat="random",
        episode=args.episode,
        reward=args.reward,
        autoreset_mode="SameStep",
        illegal_action="raise",
    )
    if args.init_from:
        agent: PolicyNet = load_agent(args.init_from, expect_config=config).net.train()
    else:
        agent = PolicyNet(OBS_SIZE, NUM_ACTIONS, (args.hidden, args.hidden))
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)
    bf16 = uses_bf16(args.precision)

    shape = (args.num_steps, args.num_envs)
    obs = torch.zeros((*shape, OBS_SIZE))
    masks = torch.zeros((*shape, NUM_ACTIONS), dtype=torch.bool)
    actions = torch.zeros(shape, dtype=torch.long)
    logprobs, rewards, dones, values = (torch.zeros(shape) for _ in range(4))
    batch_size = args.num_envs * args.num_steps
    minibatch_size = batch_size // args.num_minibatches
    num_updates = max(1, args.total_steps // batch_size)

    next_obs_np, info = envs.reset(seed=args.seed)
    next_obs, next_mask = torch.from_numpy(next_obs_np), torch.from_numpy(info["action_mask"]).bool()
    next_done = torch.zeros(args.num_envs)
    start, returns_seen, rollout_seconds = time.perf_counter(), [], 0.0
    for update in range(1, num_updates + 1):
        rollout_start = time.perf_counter()
        optimizer.param_groups[0]["lr"] = (1.0 - (update - 1.0) / num_updates) * args.learning_rate
        for step in range(args.num_steps):
            obs[step], masks[step], dones[step] = next_obs, next_mask, next_done
            with torch.no_grad():
                logits, value = agent(next_obs, bf16_torso=bf16)
                dist = torch.distributions.Categorical(logits=masked_logits(logits, next_mask))
                action = dist.sample()
            actions[step], logprobs[step], values[step] = action, dist.log_prob(action), value
            next_obs_np, reward, terminated, truncated, info = envs.step(action.numpy())
            rewards[step] = torch.from_numpy(reward)
            next_obs, next_mask = torch.from_numpy(next_obs_np), torch.from_numpy(info["action_mask"]).bool()
            next_done = torch.from_numpy(terminated | truncated).float()
            returns_seen.extend(reward[terminated].tolist())

        rollout_seconds += time.perf_counter() - rollout_start
        with torch.no_grad():  # GAE, as CleanRL computes it
            next_value = agent(next_obs, bf16_torso=bf16)[1]
            advantages = torch.zeros_like(rewards)
            last = torch.zeros(args.num_envs)
            for t in reversed(range(args.num_steps)):
                not_done = 1.0 - (next_done if t == args.num_steps - 1 else dones[t + 1])
                following = next_value if t == args.num_steps - 1 else values[t + 1]
                delta = rewards[t] + args.gamma * following * not_done - values[t]
                advantages[t] = last = delta + args.gamma * args.gae_lambda * not_done * last
            targets = advantages + values

        b_obs, b_masks, b_actions = obs.reshape(-1, OBS_SIZE), masks.reshape(-1, NUM_ACTIONS), actions.reshape(-1)
        b_logprobs, b_adv, b_targets = logprobs.reshape(-1), advantages.reshape(-1), targets.reshape(-1)
        for _ in range(args.update_epochs):
            order = torch.randperm(batch_size)
            for lo in range(0, batch_size, minibatch_size):
                idx = order[lo : lo + minibatch_size]
                logits, value = agent(b_obs[idx], bf16_torso=bf16)
                dist = torch.distributions.Categorical(logits=masked_logits(logits, b_masks[idx]))
                ratio = (dist.log_prob(b_actions[idx]) - b_logprobs[idx]).exp()
                adv = b_adv[idx]
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                pg_loss = torch.max(-adv * ratio, -adv * ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef)).mean()
                v_loss = 0.5 * ((value - b_targets[idx]) ** 2).mean()
                loss = pg_loss - args.ent_coef * dist.entropy().mean() + args.vf_coef * v_loss
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()
        if update % 10 == 0 or update == num_updates:
            rate = update * batch_size / (time.perf_counter() - start)
            recent = np.mean(returns_seen[-500:]) if returns_seen else float("nan")
            share = rollout_seconds / (time.perf_counter() - start)
            print(
                f"update {update}/{num_updates}: {update * batch_size} decisions, {rate:,.0f}/s "
                f"({share:.0%} in the rollouts), return {recent:+.3f}"
            )
    seconds = time.perf_counter() - start
    speed = {"decisions": num_updates * batch_size, "seconds": seconds, "rollout_seconds": rollout_seconds}
    return agent.eval(), speed


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    net, speed = train(args)
    print(f"trained {speed['decisions']} decisions in {speed['seconds']:.1f} s")
    config = rams_env.make_config(args.variant, args.num_players)
    if args.save:
        save_checkpoint(args.save, make_checkpoint(net, config))
        print(f"saved {args.save}")
    if args.eval_decks:
        episode = "rams" if args.episode != "deal" else "deal"
        result = evaluate(
            {"cleanrl_ppo": PolicyAgent(net, config)},
            "heuristic",
            config,
            decks=args.eval_decks,
            episode=episode,
            progress=False,
        )
        print(result.table())


if __name__ == "__main__":
    main()
