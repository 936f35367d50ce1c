"""Train OpenSpiel's NFSP (its PyTorch version) on Rams as an OpenSpiel game, then evaluate it with ``rams eval``.

Run: ``python examples/openspiel_nfsp.py [--minutes 3] [--variant mattmar] [--players 4] [--decks 50]``
(needs ``pip install "rams_env[openspiel,torch]"``). The game is ``python_rams`` (one deal per episode, points as
rewards) played through OpenSpiel's ``rl_environment``; every seat has its own NFSP agent, as in OpenSpiel's
NFSP examples. The input is the information state tensor, which is the project's observation encoding (seats
relative to the player), so after training seat 0's average policy plays any seat. Its network is an MLP
like the project's ``PolicyNet`` torso and policy head, so it is saved as a rams_env checkpoint (``--out``;
the value head, which NFSP lacks, is zero) and evaluated by ``rams eval`` in duplicate deals against
``--baselines``, as any shipped policy: greedy over the legal actions, which is NFSP's greedy choice too.
A few minutes on a CPU learn little (a start, not a strong player); the point is the path end to end.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pyspiel
import torch
from open_spiel.python import rl_environment
from open_spiel.python.pytorch import nfsp

from rams_env.agents.base import Observation, ObservationAgent, legal_from_mask, observation_vector
from rams_env.apps.cli import main as rams
from rams_env.eval import AGENT_SPEC_HELP
from rams_env.integrations import openspiel as rams_openspiel
from rams_env.policy import PolicyNet, make_checkpoint, save_checkpoint
from rams_env.rules import RulesConfig, make_config


class NFSPAgent(ObservationAgent):
    """The greedy legal action of an NFSP agent's average policy, asked through NFSP itself (the saved
    checkpoint plays the same actions; the example's test checks it)."""

    def __init__(self, agent: nfsp.NFSP) -> None:
        self.agent = agent

    def act(self, observation: Observation) -> int:
        """The most probable legal action of the average policy."""
        legal = [int(a) for a in legal_from_mask(observation)]
        if len(legal) == 1:
            return legal[0]
        me = self.agent.player_id
        seats = me + 1
        observations = {
            "info_state": [observation_vector(observation)] * seats,
            "legal_actions": [legal] * seats,
            "current_player": me,
        }
        step = rl_environment.TimeStep(observations=observations, rewards=None, discounts=None, step_type=None)
        with self.agent.temp_mode_as(nfsp.MODE.AVERAGE_POLICY), torch.no_grad():
            probs = self.agent.step(step, is_evaluation=True).probs
        return max(legal, key=lambda a: probs[a])


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line (small defaults: a few minutes of training, a quick evaluation)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="mattmar", help="rules preset")
    parser.add_argument("--players", type=int, default=4, help="number of players")
    parser.add_argument("--minutes", type=float, default=3.0, help="training time")
    parser.add_argument("--hidden", type=int, nargs="+", default=[128], help="hidden layer sizes of both networks")
    parser.add_argument("--decks", type=int, default=50, help="decks of each duplicate evaluation")
    parser.add_argument("--baselines", nargs="+", default=["random", "heuristic"], help=AGENT_SPEC_HELP)
    parser.add_argument("--seed", type=int, default=0, help="seed of training and evaluation")
    parser.add_argument("--out", default="runs/nfsp.pt", help="where the average policy is saved as a checkpoint")
    args = parser.parse_args(argv)
    if args.minutes <= 0 or args.decks < 1 or args.players < 3:
        parser.error("--minutes and --decks must be positive, --players at least 3")
    return args


def train(args: argparse.Namespace) -> list[nfsp.NFSP]:
    """NFSP self-play for ``args.minutes``: one agent per seat, one deal per episode."""
    torch.set_num_threads(1)
    np.random.seed(args.seed)
    game = pyspiel.load_game(rams_openspiel.SHORT_NAME, {"variant": args.variant, "players": args.players})
    env = rl_environment.Environment(game, seed=args.seed)
    size = env.observation_spec()["info_state"][0]
    actions = env.action_spec()["num_actions"]
    agents = [
        nfsp.NFSP(
            seat,
            size,
            actions,
            args.hidden,
            reservoir_buffer_capacity=200_000,
            anticipatory_param=0.1,
            batch_size=128,
            rl_learning_rate=0.01,
            sl_learning_rate=0.01,
            min_buffer_size_to_learn=1000,
            learn_every=64,
            optimizer_str="sgd",
            replay_buffer_capacity=100_000,
            epsilon_start=0.06,
            epsilon_end=0.001,
            epsilon_decay_duration=1_000_000,
            seed=args.seed + seat,
        )
        for seat in range(args.players)
    ]
    start, episodes, returns = time.perf_counter(), 0, []
    report = start
    while time.perf_counter() - start < args.minutes * 60:
        step = env.reset()
        points = np.zeros(args.players)
        while not step.last():
            seat = step.observations["current_player"]
            step = env.step([agents[seat].step(step).action])
            points += step.rewards  # every seat's reward for this action (a trick, a deal's scoring)
        for agent in agents:  # every agent sees the end of the episode (its last reward)
            agent.step(step)
        episodes += 1
        returns.append(points)
        if time.perf_counter() - report > 20:
            report = time.perf_counter()
            mean = np.mean(returns[-500:], axis=0)
            print(f"{report - start:6.0f} s  {episodes} deals  mean points per seat (last 500): {np.round(mean, 2)}")
    print(f"trained {episodes} deals in {time.perf_counter() - start:.0f} s")
    return agents


def save_average_policy(agent: nfsp.NFSP, config: RulesConfig, path: str) -> Path:
    """Save ``agent``'s average-policy MLP as a rams_env checkpoint: its hidden layers become the
    ``PolicyNet`` torso, its output layer the policy head; the value head is zero (NFSP has none)."""
    layers = [m for m in agent._avg_network.modules() if isinstance(m, torch.nn.Linear)]
    net = PolicyNet(layers[0].in_features, layers[-1].out_features, [m.out_features for m in layers[:-1]])
    torso = [m for m in net.torso if isinstance(m, torch.nn.Linear)]
    with torch.no_grad():
        for target, source in zip([*torso, net.policy_head], layers, strict=True):
            target.weight.copy_(source.weight)
            target.bias.copy_(source.bias)
        net.value_head.weight.zero_()
        net.value_head.bias.zero_()
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    save_checkpoint(out, make_checkpoint(net, config, trainer="OpenSpiel NFSP, average policy of seat 0"))
    return out


def main(argv: list[str] | None = None) -> None:
    """Train, save seat 0's average policy as a checkpoint and evaluate it with ``rams eval``."""
    args = parse_args(argv)
    agents = train(args)
    config = make_config(args.variant, args.players)
    path = save_average_policy(agents[0], config, args.out)
    print(f"average policy saved as {path}")
    for baseline in args.baselines:
        command = ["eval", str(path), "--baseline", baseline, "--variant", args.variant, "--num-players"]
        command += [str(args.players), "--decks", str(args.decks), "--seed", str(args.seed), "--no-progress"]
        print("rams " + " ".join(command), flush=True)
        if rams(command):
            raise SystemExit(f"rams eval failed against {baseline}")


if __name__ == "__main__":
    main()
