"""Imitation of the compiled heuristic (the warm start of the ``quick`` and ``full`` recipes) or of a policy.

Every seat of ``num_games`` batched games is played by ``HeuristicAgent``'s compiled twin (or by a
teacher policy's greedy actions, batched: ``rams exploit``'s copy of its target), and the
network learns, decision by decision, the heuristic's action (cross-entropy over the legal actions)
and the seat's return to the end of the episode (squared error on the value head, so that PPO starts
with a critic of the policy it starts from). The data are made and used in chunks: nothing is stored
beyond one chunk, and a decision of an episode that the chunk did not finish is dropped (its return
is unknown). The compiled heuristic plays hundreds of thousands of decisions a second, so the time
goes to the gradient steps.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch
from tqdm import tqdm

from rams_env.core import Heuristic
from rams_env.envs import BatchedRamsEnv, BatchStep
from rams_env.envs.vector import game_seeds
from rams_env.policy import MaskedCategorical, PolicyNet
from rams_env.rules import RulesConfig
from rams_env.rules.seeding import wrap_seed

from .ppo import minibatches

log = logging.getLogger("rams.train")


@dataclass(frozen=True)
class Chunk:
    """One chunk of labelled decisions: observations (float32), masks (bool), the heuristic's actions
    and each decision's return to the end of its episode (the env's rewards, times the run's scale)."""

    observations: np.ndarray
    masks: np.ndarray
    actions: np.ndarray
    returns: np.ndarray

    def __len__(self) -> int:
        return len(self.actions)


@dataclass(frozen=True)
class ImitationResult:
    """What an imitation warm start did: decisions learnt from, seconds, and the last chunk's
    agreement with the heuristic (share of its decisions with several legal actions where the
    network's most likely action is the heuristic's, measured before that chunk's steps)."""

    decisions: int
    seconds: float
    agreement: float
    value_loss: float


Teacher = Callable[[np.ndarray, np.ndarray], np.ndarray]
"""a policy's actions for a batch of observations (B, OBS_SIZE) and masks (B, 60)"""


class HeuristicLabeller:
    """Batched games in which every seat plays the compiled heuristic (or ``teacher``), yielding labelled
    :class:`Chunk` s."""

    def __init__(
        self,
        config: RulesConfig,
        episode: str,
        reward: str,
        num_games: int,
        seed: int,
        reward_scale: float,
        teacher: Teacher | None = None,
    ) -> None:
        self.teacher = teacher
        self.env = BatchedRamsEnv(num_games, config=config, episode=episode, reward=reward)
        self.config = config
        players = config.num_players
        # one generator per seat of each game, as HeuristicAgent(seed=...) draws its own
        seeds = np.array(game_seeds(wrap_seed(seed + 1), num_games * players), dtype=object)
        self.heuristic = Heuristic(seeds.reshape(num_games, players))
        self.reward_scale = reward_scale
        self.state = self.env.reset(seed=seed)

    def chunk(self, steps: int) -> Chunk:
        """Play ``steps`` decisions in every game; the decisions whose episode ended within them."""
        n, players = self.env.num_games, self.env.num_players
        obs = np.empty((steps, n, self.state.observations.shape[1]), np.float32)
        masks = np.empty((steps, n, self.state.action_masks.shape[1]), bool)
        actions = np.empty((steps, n), np.int64)
        seats = np.empty((steps, n), np.int64)
        rewards = np.empty((steps, n, players), np.float32)
        done = np.empty((steps, n), bool)
        for t in range(steps):
            state = self.state
            obs[t], masks[t], seats[t] = state.observations, state.action_masks, state.seats
            actions[t] = self.actions(state)
            self.state = self.env.step(actions[t])
            rewards[t], done[t] = self.state.rewards, self.state.done
        returns, finished = returns_to_go(rewards, done, seats)
        keep = finished.reshape(-1)
        return Chunk(
            obs.reshape(steps * n, -1)[keep],
            masks.reshape(steps * n, -1)[keep],
            actions.reshape(-1)[keep],
            returns.reshape(-1)[keep] * self.reward_scale,
        )

    def actions(self, state: BatchStep) -> np.ndarray:
        """The heuristic's action in every game of ``state``, each drawn from its seat's generator (or the
        teacher's)."""
        if self.teacher is not None:
            return np.asarray(self.teacher(state.observations, state.action_masks), np.int64)
        return self.heuristic.act_rows(state.observations, state.action_masks, self.config, state.seats)

    def close(self) -> None:
        """Close the env."""
        self.env.close()


def returns_to_go(rewards: np.ndarray, done: np.ndarray, seats: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each decision's return to its episode's end, and whether that end lies within the chunk.

    ``rewards[t, g, s]`` is seat ``s``'s reward from game ``g``'s decision ``t``, ``done[t, g]`` says
    that decision ended the episode, ``seats[t, g]`` who made it (undiscounted, as the recipes train).
    """
    steps, n, _ = rewards.shape
    totals = np.zeros(rewards.shape[1:], np.float64)
    ended = np.zeros(n, bool)
    returns = np.empty((steps, n), np.float32)
    finished = np.empty((steps, n), bool)
    games = np.arange(n)
    for t in range(steps - 1, -1, -1):
        totals[done[t]] = 0.0
        ended |= done[t]
        totals += rewards[t]
        returns[t] = totals[games, seats[t]]
        finished[t] = ended
    return returns, finished


def imitate(
    net: PolicyNet,
    config: RulesConfig,
    *,
    episode: str,
    reward: str,
    reward_scale: float,
    decisions: int,
    seed: int,
    lr: float = 1e-3,
    vf_coef: float = 0.5,
    num_games: int = 256,
    chunk_steps: int = 512,
    minibatch: int = 1024,
    device: torch.device | None = None,
    bf16: bool = False,
    progress: bool = True,
    teacher: Teacher | None = None,
    smoothing: float = 0.0,
) -> ImitationResult:
    """Fit ``net`` to ``decisions`` of the compiled heuristic's play, or ``teacher``'s (each seen once); in place.
    ``smoothing`` spreads that share of each label over the legal actions, so that the copy still tries
    what its teacher never does (the exploration a best response needs to leave the teacher's holes)."""
    device = device or torch.device("cpu")
    generator = torch.Generator().manual_seed(seed)
    optimizer = torch.optim.Adam(net.parameters(), lr=lr, eps=1e-5)
    labeller = HeuristicLabeller(config, episode, reward, num_games, seed, reward_scale, teacher)
    started, seen, agreement, value_loss = time.perf_counter(), 0, 0.0, 0.0
    whom = "the heuristic" if teacher is None else "the target"
    bar = tqdm(total=decisions, unit="decision", desc=f"imitating {whom}", disable=not progress)
    try:
        while seen < decisions:
            chunk = labeller.chunk(chunk_steps)
            agreement, value_loss = fit_chunk(
                net, optimizer, chunk, generator, vf_coef, minibatch, device, bf16, smoothing
            )
            seen += len(chunk)
            bar.update(min(len(chunk), bar.total - bar.n))
    finally:
        bar.close()
        labeller.close()
    seconds = time.perf_counter() - started
    log.info("imitated %d decisions of %s in %.0f s (agreement %.3f)", seen, whom, seconds, agreement)
    return ImitationResult(seen, seconds, agreement, value_loss)


def fit_chunk(
    net: PolicyNet,
    optimizer: torch.optim.Optimizer,
    chunk: Chunk,
    generator: torch.Generator,
    vf_coef: float,
    minibatch: int,
    device: torch.device,
    bf16: bool,
    smoothing: float = 0.0,
) -> tuple[float, float]:
    """One pass over ``chunk``: the agreement before each step, and the mean value loss; ``smoothing`` of
    each label is spread evenly over the legal actions (label smoothing)."""
    obs = torch.from_numpy(chunk.observations)
    masks = torch.from_numpy(chunk.masks)
    actions = torch.from_numpy(chunk.actions)
    returns = torch.from_numpy(chunk.returns)
    choices = masks.sum(1) > 1
    agree = counted = 0
    value_losses = []
    for rows in minibatches(len(chunk), minibatch, generator, torch.device("cpu")):
        logits, values = net(obs[rows].to(device), bf16_torso=bf16)
        legal, target = masks[rows].to(device), actions[rows].to(device)
        dist = MaskedCategorical(logits, legal)
        with torch.no_grad():
            several = choices[rows].to(device)
            agree += int((dist.mode() == target)[several].sum())
            counted += int(several.sum())
        policy_loss = -dist.log_prob(target).mean()
        if smoothing:
            log_probs = dist.log_probs.masked_fill(legal == 0, 0.0)
            spread = -(log_probs.sum(-1) / legal.sum(-1)).mean()  # cross-entropy with the uniform legal policy
            policy_loss = (1 - smoothing) * policy_loss + smoothing * spread
        value_loss = (values - returns[rows].to(device)).pow(2).mean()
        optimizer.zero_grad(set_to_none=True)
        (policy_loss + vf_coef * value_loss).backward()
        optimizer.step()
        value_losses.append(float(value_loss.detach()))
    return agree / max(counted, 1), float(np.mean(value_losses)) if value_losses else 0.0
