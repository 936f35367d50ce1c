"""PPO self-play for Rams: one network for every seat, masked logits, GAE, an opponent pool.

One update: the batched env is reset from ``(seed, update)``; every game plays episodes until it
has finished ``episodes_per_game`` of them (a game past its quota keeps stepping with random
actions whose samples are dropped, so that every sample belongs to a complete episode). Most games
are pure self-play (every seat is the learner); in a ``pool_fraction`` of the episodes one random
seat is the learner and the others play a frozen snapshot from the opponent pool, and in a
``heuristic_fraction`` (0 by default) they play ``HeuristicAgent``, in a ``random_fraction`` (0 by
default) uniformly random legal moves. Each learner
decision becomes a sample; a seat's reward is what it earns between its decision and its next one
(PPO targets use each acting player's own rewards), and GAE runs along each seat's own chain of
decisions. Because each update starts from a fresh seeded env and the checkpoint holds every random
generator, a resumed run makes exactly the update the uninterrupted run would have made.
"""

from __future__ import annotations

import ast
import copy
import csv
import dataclasses
import fcntl
import inspect
import itertools
import json
import logging
import math
import os
import random
import time
from collections.abc import Iterator
from dataclasses import dataclass
from enum import IntEnum
from pathlib import Path
from typing import Any

import numba
import numpy as np
import torch
from tqdm import tqdm

from rams_env.agents import RandomAgent
from rams_env.agents.neural import PolicyAgent
from rams_env.envs import BatchedRamsEnv, SubprocBatchedRamsEnv, check_episode
from rams_env.eval import agent_source, derive_seed, evaluate
from rams_env.obs import MAX_PLAYERS, OBS_SIZE
from rams_env.policy import (
    CheckpointError,
    MaskedCategorical,
    PolicyNet,
    checkpoint_config,
    load_checkpoint,
    make_checkpoint,
    mlp_torso,
    network_from_checkpoint,
    save_checkpoint,
)
from rams_env.rules import RulesConfig, make_config
from rams_env.rules.actions import NUM_ACTIONS
from rams_env.rules.cards import NUM_CARDS

from .heuristic_pool import HeuristicPool
from .opponent_pool import OpponentPool
from .shaping import EquityShaping

log = logging.getLogger("rams.train")


@dataclass
class TrainArgs:
    """Arguments of a self-play training run (saved with the run, printed at its start)."""

    variant: str = "mattmar"
    """rules preset: mattmar, norrlandsknack, rams32 or russian"""
    num_players: int = 4
    """players at the table"""
    table_sizes: tuple[int, ...] = ()
    """more table sizes for the same network: update k plays size (num_players, *table_sizes)[k % count]"""
    episode: str = "deal"
    """episode kind: deal, rams or match"""
    reward: str = "points"
    """points (score decreases per deal) or win (+1/-1 at the end of a rams or match)"""
    algorithm: str = "ppo"
    """ppo (clipped policy gradient, GAE advantages from the value head) or dmc (Deep Monte-Carlo as in
    DouZero: the action head learns each action's Monte-Carlo return and is played epsilon-greedily)"""
    epsilon: float = 0.01
    """dmc: share of the decisions played uniformly at random among the legal ones (exploration)"""
    total_steps: int = 200_000
    """learner decisions to train on (the run stops after the update that passes it)"""
    num_games: int = 128
    """games stepped together by the batched env"""
    workers: int = 1
    """env processes (1 steps the compiled env in this process: fastest on 2 cores, measured)"""
    episodes_per_game: int = 2
    """complete episodes each game contributes to one update"""
    hidden: tuple[int, ...] = (256, 256)
    """hidden layer widths of the policy/value MLP"""
    lr: float = 3e-4
    """Adam learning rate"""
    gamma: float = 1.0
    """discount per decision of a seat"""
    gae_lambda: float = 0.95
    """GAE lambda"""
    clip: float = 0.2
    """PPO ratio clip"""
    epochs: int = 3
    """passes over each update's samples"""
    minibatch: int = 1024
    """samples per gradient step"""
    ent_coef: float = 0.01
    """entropy bonus (entropy over legal actions only)"""
    vf_coef: float = 0.5
    """value loss weight"""
    max_grad_norm: float = 0.5
    """gradient clipping"""
    reward_scale: float | None = None
    """rewards are multiplied by this before training; default 1 for win, 2 / start score for points"""
    points_weight: float = 0.0
    """with reward=win: add this x (score decrease / start score) at every scoring step, a shaping of the race"""
    equity_shaping: bool = False
    """with reward=win and episode=rams: each deal also pays the change of the learner's chance to win the
    rams (rams_env.equity), a potential-based shaping that keeps the win reward's optimum (training/shaping.py)"""
    pool_fraction: float = 0.2
    """share of episodes in which the learner plays one seat against a pool snapshot"""
    heuristic_fraction: float = 0.0
    """share of episodes in which the learner plays one seat against HeuristicAgent in the others"""
    heuristic_after: int = 0
    """learner decisions of self-play before heuristic_fraction applies (0: from the start)"""
    compiled_heuristic: bool = True
    """heuristic opponents played by the compiled twin inside the batched env's step (false: HeuristicAgent
    in Python, through heuristic_processes); the same decisions, in another order of the run's draws"""
    heuristic_processes: int = 1
    """with compiled_heuristic false: processes that play the heuristic opponents' decisions, this one and
    the rest as helpers (the games depend on the number)"""
    random_fraction: float = 0.0
    """share of episodes in which the learner plays one seat against random legal moves in the others"""
    late_lr: float | None = None
    """learning rate from heuristic_after on (unset: lr), the second stage of a two-stage run"""
    late_ent_coef: float | None = None
    """entropy bonus from heuristic_after on (unset: ent_coef)"""
    late_points_weight: float | None = None
    """points_weight from heuristic_after on (unset: points_weight; 0 ends the run on the pure win reward)"""
    privileged_critic: bool = False
    """advantages from a separate value network that also sees the other hands (training only)"""
    critic_warmup: int = 0
    """first updates of the run that train only the privileged critic (the policy left as it is)"""
    pool_size: int = 8
    """snapshots kept in the opponent pool (oldest dropped)"""
    snapshot_every: int = 10
    """updates between snapshots added to the pool"""
    eval_every: int = 10
    """updates between evaluations (0: only at the end)"""
    eval_decks: int = 100
    """decks of each periodic duplicate evaluation (a fixed deal set)"""
    eval_seed: int = 20261129
    """seed of the evaluation deal set"""
    checkpoint_every: int = 5
    """updates between checkpoints"""
    keep_last: int = 3
    """rolling checkpoints kept (plus the best by evaluation)"""
    run_dir: str = "runs/quick"
    """folder of the run: checkpoints, pool, logs, plots"""
    resume: bool = False
    """continue the run in run_dir from its latest checkpoint"""
    init_from: str = ""
    """checkpoint whose weights start the run (any preset; an older encoder whose layout is a prefix of this one)"""
    seed: int = 0
    """seed of everything random in the run"""
    device: str = "cpu"
    """torch device for the network (cuda where torch sees a GPU)"""
    threads: int = 0
    """torch CPU threads; 0: the cores left by the env worker processes (at least 1)"""
    precision: str = "auto"
    """bf16: hidden layers under bfloat16 autocast (heads, weights float32); fp32; auto: bf16 where it is fast"""
    progress: bool = True
    """show a progress bar"""

    def __post_init__(self) -> None:
        """Check every argument before any work starts; ``ValueError`` names the first bad one."""
        positive = ("total_steps", "num_games", "workers", "heuristic_processes", "episodes_per_game", "epochs")
        positive += ("minibatch", "pool_size", "checkpoint_every", "keep_last", "eval_decks")
        for name in positive:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        for name in ("eval_every", "snapshot_every", "threads", "heuristic_after", "critic_warmup"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"{name} must be an integer >= 0 (0: {_ZERO_MEANS[name]}), got {value!r}")
        for name in ("pool_fraction", "heuristic_fraction", "random_fraction", "gamma", "gae_lambda", "epsilon"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"{name} must lie in [0, 1], got {getattr(self, name)!r}")
        if self.heuristic_fraction + self.random_fraction > 1.0:
            raise ValueError(
                f"heuristic_fraction + random_fraction must be at most 1, got "
                f"{self.heuristic_fraction!r} + {self.random_fraction!r}"
            )
        for name in ("lr", "clip"):
            if not getattr(self, name) > 0.0:
                raise ValueError(f"{name} must be positive, got {getattr(self, name)!r}")
        if self.late_lr is not None and not self.late_lr > 0.0:
            raise ValueError(f"late_lr must be positive (or unset for lr), got {self.late_lr!r}")
        for name in ("ent_coef", "vf_coef", "max_grad_norm", "points_weight", "late_ent_coef", "late_points_weight"):
            value = getattr(self, name)
            if value is not None and not value >= 0.0:
                raise ValueError(f"{name} must be >= 0, got {value!r}")
        if self.reward_scale is not None and not self.reward_scale > 0.0:
            raise ValueError(f"reward_scale must be positive (or unset for the default), got {self.reward_scale!r}")
        if not self.hidden or min(self.hidden) < 1:
            raise ValueError(f"hidden must be positive layer widths, got {self.hidden!r}")
        try:
            torch.device(self.device)
        except RuntimeError as err:
            raise ValueError(f"device {self.device!r} is not a torch device ({err})") from None
        for n in (self.num_players, *self.table_sizes):
            make_config(self.variant, n)  # ValueError naming a bad variant or player count
        if len(set(self.sizes)) != len(self.sizes):
            raise ValueError(f"table_sizes must be distinct and differ from num_players, got {self.sizes!r}")
        check_episode(self.episode, self.reward)
        if self.equity_shaping and (self.reward, self.episode) != ("win", "rams"):
            raise ValueError(
                "equity_shaping shapes the win reward of whole ramsar: it needs reward=win and episode=rams "
                f"(got reward={self.reward}, episode={self.episode}; the model gives a rams' equity, not a match's)"
            )
        if self.algorithm not in ALGORITHMS:
            raise ValueError(f"algorithm must be one of {', '.join(ALGORITHMS)}, got {self.algorithm!r}")
        if self.algorithm == "dmc" and self.privileged_critic:
            raise ValueError("privileged_critic gives PPO its advantages: dmc learns from Monte-Carlo returns alone")
        if self.critic_warmup and not self.privileged_critic:
            raise ValueError("critic_warmup trains the privileged critic: it needs privileged_critic")
        if self.precision not in PRECISIONS:
            raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}, got {self.precision!r}")

    @property
    def sizes(self) -> tuple[int, ...]:
        """Every table size the run trains for, ``num_players`` first."""
        return (self.num_players, *self.table_sizes)


_ZERO_MEANS = {
    "eval_every": "only at the end",
    "snapshot_every": "no pool",
    "threads": "automatic",
    "heuristic_after": "from the start",
    "critic_warmup": "none",
}


PRECISIONS = ("auto", "bf16", "fp32")
ALGORITHMS = ("ppo", "dmc")


def uses_bf16(precision: str, device: torch.device) -> bool:
    """Whether a run with ``precision`` on ``device`` computes its hidden layers in bfloat16.

    ``auto`` takes bf16 where it is fast: a CUDA device that supports it, or a CPU with native bf16
    instructions (AVX-512 BF16 or AMX; emulated bf16 is slower than fp32). On this project's 2-core
    machine (AVX-512 BF16) a 1024-sample gradient step of the default network took 18.0 ms in fp32
    and 5.1 ms in bf16.
    """
    if precision != "auto":
        return precision == "bf16"
    if device.type == "cuda":
        return torch.cuda.is_bf16_supported()
    return device.type == "cpu" and bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())


def torch_threads(workers: int) -> int:
    """Torch threads beside ``workers`` env processes: the cores they leave free, at least 1.

    Measured on 2 cores (mattmar, 256 games): 1 process + 2 threads 18,000 samples/s, 2 processes
    + 1 thread 11,300/s, 1 + 1 12,000/s; 2 threads beside 2 processes was 8 times slower.
    """
    cores = os.cpu_count() or 1
    return max(1, cores - (workers if workers > 1 else 0))


def field_help(cls: type) -> dict[str, str]:
    """The docstring under each field of a dataclass (read from its source, the CleanRL way)."""
    tree = ast.parse(inspect.getsource(cls))
    body = tree.body[0].body  # type: ignore[attr-defined]
    helps = {}
    for node, nxt in itertools.pairwise(body):
        documented = isinstance(nxt, ast.Expr) and isinstance(nxt.value, ast.Constant)
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and documented:
            helps[node.target.id] = str(nxt.value.value)  # type: ignore[attr-defined]
    return helps


class RunLock:
    """An exclusive lock on a run folder while a :class:`Trainer` uses it.

    ``flock`` on ``<run_dir>/.lock``: the operating system drops it when the holding process ends,
    however it ends, so a lock file left by a killed run never blocks the next one.
    """

    def __init__(self, folder: Path) -> None:
        self.path = Path(folder) / ".lock"
        self._file = self.path.open("a+")
        try:
            fcntl.flock(self._file, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._file.seek(0)
            holder = self._file.read().strip() or "another process"
            self._file.close()
            raise FileExistsError(
                f"{folder} is in use by a training run that is still going ({holder}); "
                "wait for it to end or pick another run_dir"
            ) from None
        self._file.seek(0)
        self._file.truncate()
        self._file.write(f"pid {os.getpid()}")
        self._file.flush()

    def release(self) -> None:
        """Give the folder back (idempotent)."""
        if not self._file.closed:
            fcntl.flock(self._file, fcntl.LOCK_UN)
            self._file.close()


# ------------------------------------------------------------------------------- samples
HIDDEN_SIZE = (MAX_PLAYERS - 1) * NUM_CARDS
"""the other seats' hands as card flags, padded to 7 seats like the observation"""


class Rollout:
    """One update's learner decisions, one row each: what PPO needs, and the reward the deciding seat
    earned until its next decision.

    The arrays are kept and reused from update to update, growing when an update needs more rows:
    stacking a fresh copy of every observation each update cost more than a tenth of an update, most
    of it in first touches of new memory. Rows stay valid until the next ``clear``.
    """

    def __init__(self, hidden: bool) -> None:
        self.size = 0
        self.obs = np.zeros((0, OBS_SIZE), np.float32)
        self.mask = np.zeros((0, NUM_ACTIONS), np.int8)
        self.hidden = np.zeros((0, HIDDEN_SIZE), np.uint8) if hidden else None  # the other hands
        self.action = np.zeros(0, np.int64)
        self.log_prob = np.zeros(0, np.float32)
        self.value = np.zeros(0, np.float64)
        self.seat = np.zeros(0, np.int64)
        self.episode = np.zeros(0, np.int64)  # an id unique within the update
        self.reward = np.zeros(0, np.float64)
        self.advantage = np.zeros(0, np.float64)
        self.ret = np.zeros(0, np.float64)
        self._columns = tuple(name for name, value in vars(self).items() if isinstance(value, np.ndarray))
        self._given = frozenset(self._columns) - {"reward", "advantage", "ret"}  # what add() takes

    def clear(self) -> None:
        self.size = 0

    def add(self, **columns: np.ndarray | None) -> np.ndarray:
        """Append one step's decisions: a value for every column but the three filled in later (reward,
        advantage and ret start at 0); returns their row indices."""
        names = self._columns
        given = {name: value for name, value in columns.items() if value is not None}
        if given.keys() != self._given:
            missing, unknown = sorted(self._given - given.keys()), sorted(given.keys() - self._given)
            raise ValueError(f"Rollout.add needs {missing}, got unknown {unknown}")
        start, end = self.size, self.size + len(given["obs"])
        if end > len(self.obs):
            capacity = max(end, 2 * len(self.obs), 4096)
            for name in names:
                old = getattr(self, name)
                grown = np.zeros((capacity, *old.shape[1:]), old.dtype)
                grown[:start] = old[:start]
                setattr(self, name, grown)
        for name in names:
            getattr(self, name)[start:end] = given.get(name, 0)
        self.size = end
        return np.arange(start, end)


@numba.njit(cache=True)
def gae(
    rows: np.ndarray,
    seat: np.ndarray,
    reward: np.ndarray,
    value: np.ndarray,
    advantage: np.ndarray,
    ret: np.ndarray,
    gamma: float,
    lam: float,
) -> None:
    """GAE for one episode's decisions ``rows`` (in play order) along each seat's own chain of
    decisions; a seat's last decision is terminal. Writes ``advantage`` and ``ret`` at those rows."""
    next_value = np.zeros(MAX_PLAYERS)
    running = np.zeros(MAX_PLAYERS)
    for k in range(len(rows) - 1, -1, -1):
        r, s = rows[k], seat[rows[k]]
        delta = reward[r] + gamma * next_value[s] - value[r]
        running[s] = delta + gamma * lam * running[s]
        advantage[r] = running[s]
        ret[r] = running[s] + value[r]
        next_value[s] = value[r]


def epsilon_greedy_entropy(legal_counts: np.ndarray, epsilon: float) -> float:
    """Mean entropy of epsilon-greedy play over decisions with ``legal_counts`` legal actions: the greedy
    action has 1 - epsilon + epsilon / k, each other epsilon / k."""
    k = np.maximum(np.asarray(legal_counts, np.float64), 1.0)
    greedy, other = 1.0 - epsilon + epsilon / k, epsilon / k
    terms = -greedy * np.log(greedy) - (k - 1) * np.where(other > 0, other * np.log(np.maximum(other, 1e-300)), 0.0)
    return float(terms.mean()) if len(k) else 0.0


def other_hands(hands: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """Per row: the hands of the other seats, in seat order after ``seats[row]``, as card flags
    (uint8, ``HIDDEN_SIZE``; padded like the observation). ``hands``: (rows, num_players) card masks."""
    rows, n = hands.shape
    order = (seats[:, None] + np.arange(1, n)[None, :]) % n
    others = np.take_along_axis(hands, order, axis=1)
    bits = (others[:, :, None] >> np.arange(NUM_CARDS)[None, None, :]) & 1
    out = np.zeros((rows, MAX_PLAYERS - 1, NUM_CARDS), np.uint8)
    out[:, : n - 1] = bits
    return out.reshape(rows, HIDDEN_SIZE)


class PrivilegedCritic(torch.nn.Module):
    """A value network for training only: the observation and the other seats' hands (hidden
    information). Its values give the advantages (lower variance: it knows whose cards win); the
    policy never sees its inputs, and exported checkpoints leave it out."""

    def __init__(self, hidden: tuple[int, ...]) -> None:
        super().__init__()
        self.torso = mlp_torso(OBS_SIZE + HIDDEN_SIZE, hidden)
        self.head = torch.nn.Linear(hidden[-1], 1)

    def forward(self, obs: torch.Tensor, hidden: torch.Tensor, bf16_torso: bool = False) -> torch.Tensor:
        """Values ``[rows]`` for observations ``[rows, OBS_SIZE]`` and other hands ``[rows, HIDDEN_SIZE]``."""
        x = torch.cat([obs, hidden.to(obs.dtype)], dim=-1)
        with torch.autocast(obs.device.type, dtype=torch.bfloat16, enabled=bf16_torso):
            features = self.torso(x)
        return self.head(features.float()).squeeze(-1)


@dataclass
class Episode:
    """One finished episode of game ``game`` of the batched env: its learner decisions, as rows of the
    trainer's ``rollout`` in play order."""

    game: int
    rows: np.ndarray


def episode_rows(episodes: list[Episode]) -> np.ndarray:
    """The rollout rows of ``episodes``, one after the other: the batch of an update."""
    return np.concatenate([e.rows for e in episodes]) if episodes else np.zeros(0, np.int64)


class Opponent(IntEnum):
    """Who makes a game's decisions other than the learner's, unless a pool snapshot does.

    A game's opponent is one of the first two or the index (>= 0) of the pool snapshot that plays
    the other seats; the last one is what every seat of a game gets once its quota of episodes is done.
    """

    SELF_PLAY = -1
    """no opponent: the learner plays every seat"""
    HEURISTIC = -2
    """HeuristicAgent plays every seat but the learner's"""
    RANDOM_AFTER_QUOTA = -3
    """the game has finished its episodes of this update: random legal moves in every seat, nothing recorded"""
    RANDOM = -4
    """random legal moves in every seat but the learner's"""


def heuristic_seats(opponent: np.ndarray, learner_seat: np.ndarray, players: int) -> np.ndarray:
    """Per game, the seats the env's heuristic plays: all but the learner's where the opponent is the heuristic."""
    seats = np.arange(players)[None, :] != learner_seat[:, None]
    return seats & (opponent == Opponent.HEURISTIC)[:, None]


# ------------------------------------------------------------------------------- trainer
@dataclass
class Table:
    """One table size of a run: its rules, its batched env and its heuristic opponents."""

    config: RulesConfig
    env: Any
    heuristic: HeuristicPool


class Trainer:
    """A self-play run (PPO or Deep Monte-Carlo) in ``args.run_dir`` (new, or resumed from its latest checkpoint)."""

    def __init__(self, args: TrainArgs) -> None:
        self.args = args
        self.config = make_config(args.variant, args.num_players)
        default_scale = 1.0 if args.reward == "win" else 2.0 / self.config.start_score
        self.reward_scale = default_scale if args.reward_scale is None else args.reward_scale
        for name in ("points_weight", "late_points_weight"):
            if getattr(args, name) and args.reward != "win":
                raise ValueError(f"{name} shapes the win reward: it needs reward=win")
            if getattr(args, name) and args.workers > 1:
                raise ValueError(f"{name} reads the in-process env's scores: it needs workers=1")
        if args.equity_shaping and args.workers > 1:
            raise ValueError("equity_shaping reads the in-process env's scores: it needs workers=1")
        if args.privileged_critic and args.workers > 1:
            raise ValueError("privileged_critic reads the in-process env's hands: it needs workers=1")
        self.run_dir = Path(args.run_dir)
        # Heuristic opponents inside the compiled step: the env returns only the learner's decisions there.
        self.versus = args.compiled_heuristic and args.heuristic_fraction > 0
        self.device = torch.device(args.device)
        self.bf16 = uses_bf16(args.precision, self.device)
        torch.set_num_threads(args.threads or torch_threads(args.workers))
        with torch.random.fork_rng(devices=[]):  # seeded initial weights, the global generator left alone
            torch.manual_seed(args.seed)
            self.net = PolicyNet(OBS_SIZE, NUM_ACTIONS, args.hidden).to(self.device)
            self.critic = PrivilegedCritic(args.hidden).to(self.device) if args.privileged_critic else None
        self.rollout = Rollout(hidden=self.critic is not None)
        parameters = [*self.net.parameters(), *(self.critic.parameters() if self.critic else ())]
        # The fused kernel makes a step 4x faster on the CPU than the default loop over tensors (about a
        # tenth of a self-play update, measured); the same algorithm, rounded differently in the last bits.
        fused = self.device.type in ("cpu", "cuda")
        self.optimizer = torch.optim.Adam(parameters, lr=args.lr, eps=1e-5, fused=fused)
        self.pool = OpponentPool(self.run_dir / "pool", args.pool_size, self.config, self.device)
        self.steps = self.updates = self.episodes = 0
        self.best_score = -math.inf
        self.history: list[dict[str, Any]] = []
        self._pool_refs: dict[str, list[str]] = {}  # checkpoint file -> the pool snapshots it names
        self.torch_gen = torch.Generator().manual_seed(args.seed)
        self.rng = random.Random(args.seed)
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self._lock = RunLock(self.run_dir)
        try:
            if args.resume:
                self._resume()
            elif any((self.run_dir / name).exists() for name in ("latest.pt", "args.json", "progress.csv")):
                raise FileExistsError(
                    f"{self.run_dir} already holds a run; pass --resume to continue it or pick a new run_dir"
                )
            elif args.init_from:
                self._warm_start(args.init_from)
            (self.run_dir / "args.json").write_text(json.dumps(dataclasses.asdict(args), indent=2) + "\n")
            self.tables: list[Table] = []
            for n in args.sizes:
                config = make_config(args.variant, n)
                env_kwargs = dict(variant=args.variant, num_players=n, episode=args.episode, reward=args.reward)
                if self.versus:
                    env_kwargs["heuristic_seats"] = np.zeros(n, bool)
                if args.workers > 1:
                    env: Any = SubprocBatchedRamsEnv(args.num_games, workers=args.workers, **env_kwargs)
                else:
                    env = BatchedRamsEnv(args.num_games, **env_kwargs)
                processes = 1 if self.versus else args.heuristic_processes
                self.tables.append(Table(config, env, HeuristicPool(config, processes)))
        except BaseException:
            for table in getattr(self, "tables", []):
                table.env.close()
                table.heuristic.close()
            self._lock.release()
            raise

    @property
    def table(self) -> Table:
        """The table size the next update plays (they take turns, update by update)."""
        return self.tables[self.updates % len(self.tables)]

    @property
    def env(self) -> Any:
        """The batched env of the next update."""
        return self.table.env

    @property
    def heuristic(self) -> HeuristicPool:
        """The heuristic opponents of the next update."""
        return self.table.heuristic

    def close(self) -> None:
        """Close the envs and give the run folder back (``run`` does this when it ends)."""
        for table in self.tables:
            table.env.close()
            table.heuristic.close()
        self._lock.release()

    # ---------------------------------------------------------------- checkpoints
    def _payload(self) -> dict[str, Any]:
        return make_checkpoint(
            self.net,
            self.config,
            optimizer=self.optimizer.state_dict(),
            counters={"steps": self.steps, "updates": self.updates, "episodes": self.episodes},
            best_score=self.best_score,
            rng={"torch": self.torch_gen.get_state(), "python": self.rng.getstate()},
            pool=self.pool.references(),
            args={k: list(v) if isinstance(v, tuple) else v for k, v in dataclasses.asdict(self.args).items()},
            history=self.history,
            **({"critic": self.critic.state_dict()} if self.critic else {}),
            **({"table_sizes": list(self.args.sizes)} if self.args.table_sizes else {}),
        )

    def save(self, best: bool = False) -> Path:
        """Write the rolling checkpoint of this update (and ``latest.pt``, ``best.pt``) atomically."""
        payload = self._payload()
        path = self.run_dir / f"checkpoint_{self.updates:06d}.pt"
        written = [path, self.run_dir / "latest.pt"] + ([self.run_dir / "best.pt"] if best else [])
        for target in written:
            save_checkpoint(target, payload)
            self._pool_refs[target.name] = list(payload["pool"])
        rolling = sorted(self.run_dir.glob("checkpoint_*.pt"))
        for old in rolling[: -self.args.keep_last]:
            old.unlink()
            self._pool_refs.pop(old.name, None)
        self.pool.prune({name for names in self._pool_refs.values() for name in names})
        return path

    def _resume(self) -> None:
        """Continue from the newest intact checkpoint, saying what was skipped; clear a killed run's debris."""
        for debris in self.run_dir.glob(".*.tmp"):
            debris.unlink()
            log.info("removed %s (left by an interrupted write)", debris.name)
        candidates = [self.run_dir / "latest.pt", *sorted(self.run_dir.glob("checkpoint_*.pt"), reverse=True)]
        payload, path = None, None
        for candidate in candidates:
            if not candidate.exists():
                continue
            try:
                payload, path = load_checkpoint(candidate, expect_config=self.config), candidate
                break
            except CheckpointError as err:
                if "trained for other rules" in str(err):
                    raise
                log.warning("skipped %s: %s", candidate.name, err)
        if payload is None or path is None:
            raise CheckpointError(f"{self.run_dir}: no intact checkpoint to resume from")
        missing = [k for k in ("optimizer", "counters", "rng", "pool") if k not in payload]
        if missing:
            raise CheckpointError(
                f"{path} is a policy checkpoint without training state ({', '.join(missing)} missing): "
                "it cannot resume a run; start a new run with --init-from to use its weights"
            )
        saved = payload.get("args", {})
        for key in ("hidden",):
            if list(saved.get(key, [])) != list(getattr(self.args, key)):
                raise CheckpointError(
                    f"{path}: the run was trained with {key}={saved.get(key)}, not {getattr(self.args, key)}"
                )
        self.net.load_state_dict(network_from_checkpoint(payload, str(path)).state_dict())
        if self.critic is not None:
            if "critic" not in payload:
                raise CheckpointError(f"{path}: the run has a privileged critic, the checkpoint holds none")
            self.critic.load_state_dict(payload["critic"])
        self.optimizer.load_state_dict(payload["optimizer"])
        counters = payload["counters"]
        self.steps, self.updates, self.episodes = counters["steps"], counters["updates"], counters["episodes"]
        self._apply_lr()  # the saved state holds the old rate; the arguments rule
        self.best_score = payload.get("best_score", -math.inf)
        self.torch_gen.set_state(payload["rng"]["torch"])
        self.rng.setstate(_tuplify(payload["rng"]["python"]))
        self.pool.restore(payload["pool"])
        self.history = list(payload.get("history", []))
        for kept in [*self.run_dir.glob("checkpoint_*.pt"), self.run_dir / "best.pt", path]:
            if kept.exists():  # what the other kept checkpoints name must outlive pruning
                try:
                    refs = payload["pool"] if kept == path else load_checkpoint(kept, expect_config=self.config)["pool"]
                except (CheckpointError, KeyError) as err:
                    log.warning("ignored %s when keeping pool snapshots: %s", kept.name, err)
                    continue
                self._pool_refs[kept.name] = list(refs)
        _truncate_csv(self.run_dir / "progress.csv", self.updates)
        log.info("resumed %s at update %d, %d steps", path, self.updates, self.steps)

    def _warm_start(self, path: str) -> None:
        payload = load_checkpoint(path, migrate=True)
        if list(payload["network"].get("hidden", [])) != list(self.args.hidden):
            raise CheckpointError(
                f"{path}: init_from has hidden={payload['network'].get('hidden')}, "
                f"the run has hidden={list(self.args.hidden)}"
            )
        self.net.load_state_dict(network_from_checkpoint(payload, path).state_dict())
        log.info("weights from %s (trained for %s)", path, checkpoint_config(payload, path).variant)

    # ---------------------------------------------------------------- stages
    @property
    def late(self) -> bool:
        """Whether the run is in its second stage (``heuristic_after`` learner decisions done)."""
        return self.steps >= self.args.heuristic_after

    def stage_value(self, name: str) -> Any:
        """``name``'s value in the current stage: ``late_<name>`` in the second stage when it is set."""
        late = getattr(self.args, f"late_{name}")
        return late if self.late and late is not None else getattr(self.args, name)

    def _apply_lr(self) -> None:
        """Give the optimizer the current stage's learning rate, saying when it changes."""
        lr = self.stage_value("lr")
        for group in self.optimizer.param_groups:
            if group["lr"] != lr:
                log.info("learning rate %g (it was %g)", lr, group["lr"])
                group["lr"] = lr

    # ---------------------------------------------------------------- acting
    def _policy(self, net: PolicyNet, obs: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Actions, their log-probabilities and the values of ``obs`` (dmc: epsilon-greedy actions; the
        log-probabilities and values, which Monte-Carlo returns do not use, are 0)."""
        with torch.no_grad():
            logits, value = net(torch.from_numpy(obs).to(self.device), bf16_torso=self.bf16)
            legal = torch.from_numpy(mask).bool()
            if self.args.algorithm == "dmc":
                greedy = logits.cpu().masked_fill(~legal, -torch.inf).argmax(dim=1)
                uniform = torch.rand(legal.shape, generator=self.torch_gen).masked_fill(~legal, -1.0).argmax(dim=1)
                explore = torch.rand(len(legal), generator=self.torch_gen) < self.args.epsilon
                zeros = np.zeros(len(legal), np.float32)
                return torch.where(explore, uniform, greedy).numpy(), zeros, zeros
            dist = MaskedCategorical(logits.cpu(), legal)
            action = dist.sample(self.torch_gen)
            return action.numpy(), dist.log_prob(action).numpy(), value.cpu().numpy()

    def collect(self) -> tuple[list[Episode], dict[str, float]]:
        """Play one update's episodes: the learner's decisions of each (rows of ``rollout``), with GAE done."""
        args, n = self.args, self.args.num_games
        env, heuristic, players = self.env, self.heuristic, self.table.config.num_players
        rollout = self.rollout
        rollout.clear()
        # The heuristics' bid sampling, per update (the first process's seed is the one-process run's).
        heuristic.seed(
            [derive_seed(args.seed, 2, self.updates, *([k] if k else [])) for k in range(heuristic.processes)]
        )
        # Per game: its opponent (an Opponent value or a pool index), the learner's seat against one,
        # the episodes it has finished, the episode it plays now, and each seat's latest learner row.
        opponent = np.empty(n, np.int64)
        learner_seat = np.empty(n, np.int64)
        for i in range(n):
            opponent[i], learner_seat[i] = self._draw_opponent(players)
        if self.versus:  # the env plays the heuristic seats, so each game's next opponent is drawn ahead
            next_opponent, next_seat = np.empty(n, np.int64), np.empty(n, np.int64)
            for i in range(n):
                next_opponent[i], next_seat[i] = self._draw_opponent(players)
            env.set_heuristic_seats(heuristic_seats(opponent, learner_seat, players))
        out = env.reset(seed=derive_seed(args.seed, 1, self.updates))
        if self.versus:
            env.set_next_heuristic_seats(heuristic_seats(next_opponent, next_seat, players))
        finished = np.zeros(n, np.int64)
        episode_of_game = np.arange(n)
        next_episode = n
        last_row = np.full((n, players), -1, np.int64)
        finished_episodes: dict[int, int] = {}  # episode -> its game, in the order they ended
        shaping = self.stage_value("points_weight") / self.config.start_score
        equity_shaping = EquityShaping(self.table.config, env) if args.equity_shaping else None
        env_steps = 0
        quota = args.episodes_per_game
        while (finished < quota).any():
            seats = out.seats
            active = finished < quota
            learner = active & ((opponent == Opponent.SELF_PLAY) | (seats == learner_seat))
            rows = np.flatnonzero(learner)
            actions = np.empty(n, np.int64)
            if len(rows):
                obs_rows, mask_rows = out.observations[rows], out.action_masks[rows]
                act, logp, value = self._policy(self.net, obs_rows, mask_rows)
                hidden = None
                if self.critic is not None:
                    hidden = other_hands(env.hands[rows], seats[rows])
                    with torch.no_grad():
                        value = (
                            self.critic(
                                torch.from_numpy(obs_rows).to(self.device),
                                torch.from_numpy(hidden).to(self.device),
                                bf16_torso=self.bf16,
                            )
                            .cpu()
                            .numpy()
                        )
                actions[rows] = act
                new_rows = rollout.add(
                    obs=obs_rows,
                    mask=mask_rows,
                    hidden=hidden,
                    action=act,
                    log_prob=logp,
                    value=value,
                    seat=seats[rows],
                    episode=episode_of_game[rows],
                )
                last_row[rows, seats[rows]] = new_rows
            # The other decisions, opponent by opponent in the order of their first game (each draws
            # from its own generator, so that order keeps runs reproducible).
            acting = np.where(active, opponent, Opponent.RANDOM_AFTER_QUOTA)
            others = np.flatnonzero(~learner)
            kinds, first = np.unique(acting[others], return_index=True)
            for kind in kinds[np.argsort(first)].tolist():
                idx = others[acting[others] == kind]
                if kind in (Opponent.RANDOM_AFTER_QUOTA, Opponent.RANDOM):
                    noise = np.random.default_rng(self.rng.getrandbits(32)).random((len(idx), NUM_ACTIONS))
                    noise[out.action_masks[idx] == 0] = -1.0
                    actions[idx] = noise.argmax(axis=1)
                elif kind == Opponent.HEURISTIC:
                    actions[idx] = heuristic.act(out.observations[idx], out.action_masks[idx])
                else:
                    act, _, _ = self._policy(self.pool.network(kind), out.observations[idx], out.action_masks[idx])
                    actions[idx] = act
            before = env.scores if shaping else None
            out = env.step(actions)
            env_steps += n
            rewards = out.rewards * self.reward_scale
            if shaping:  # score decreases of the games still going (a finished game was reset)
                rewards += (before - env.scores) * ~out.done[:, None] * shaping
            if equity_shaping is not None:
                rewards += equity_shaping.step(env, out.done) * self.reward_scale
            # Each seat's reward goes to its latest decision (rows are distinct, so no sum collides).
            paid = (rewards != 0) & active[:, None] & (last_row >= 0)
            rollout.reward[last_row[paid]] += rewards[paid]
            ended = np.flatnonzero(out.done).tolist()
            for i in ended:
                if active[i]:
                    finished_episodes[int(episode_of_game[i])] = i
                    self.episodes += 1
                if self.versus:  # the episode the env started with the drawn-ahead seats
                    opponent[i], learner_seat[i] = next_opponent[i], next_seat[i]
                    next_opponent[i], next_seat[i] = self._draw_opponent(players)
                else:
                    opponent[i], learner_seat[i] = self._draw_opponent(players)
                finished[i] += 1
                episode_of_game[i] = next_episode
                next_episode += 1
                last_row[i] = -1
            if self.versus and ended:
                env.set_next_heuristic_seats(heuristic_seats(next_opponent, next_seat, players))
        ready, mean_return = self._finish(finished_episodes)
        return ready, {"env_steps": env_steps, "mean_return": mean_return}

    def _finish(self, finished_episodes: dict[int, int]) -> tuple[list[Episode], float]:
        """The finished episodes in the order they ended, their GAE done; the mean return of a seat in one."""
        rollout, size = self.rollout, self.rollout.size
        rank = np.full(max(finished_episodes, default=-1) + 1, -1, np.int64)
        rank[list(finished_episodes)] = np.arange(len(finished_episodes))
        row_rank = rank[rollout.episode[:size]]  # every learner row belongs to a finished episode
        order = np.argsort(row_rank, kind="stable")  # episodes in the order they ended, each in play order
        chains = np.split(order, np.flatnonzero(np.diff(row_rank[order])) + 1) if size else []
        # dmc: values 0 and lambda 1 make ret each decision's Monte-Carlo return.
        lam = 1.0 if self.args.algorithm == "dmc" else self.args.gae_lambda
        for rows in chains:
            gae(rows, rollout.seat, rollout.reward, rollout.value, rollout.advantage, rollout.ret, self.args.gamma, lam)
        games = list(finished_episodes.values())
        ready = [Episode(games[int(row_rank[rows[0]])], rows) for rows in chains]
        # A seat's return in an episode: the sum of its rewards there.
        key = row_rank * MAX_PLAYERS + rollout.seat[:size]
        played = np.bincount(key, minlength=1) > 0
        sums = np.bincount(key, weights=rollout.reward[:size], minlength=1)
        mean_return = float(np.mean(sums[played] / self.reward_scale)) if played.any() else 0.0
        return ready, mean_return

    def _draw_opponent(self, players: int) -> tuple[int, int]:
        """A new episode's opponent (an ``Opponent`` value or a pool index) and the learner's seat (-1: every seat)."""
        heuristic = self.args.heuristic_fraction if self.late else 0.0
        draw = self.rng.random() if heuristic or self.args.random_fraction else 1.0  # none spent without them
        if draw < heuristic + self.args.random_fraction:
            return (Opponent.HEURISTIC if draw < heuristic else Opponent.RANDOM), self.rng.randrange(players)
        if len(self.pool) and self.rng.random() < self.args.pool_fraction:
            opponent = self.rng.randrange(len(self.pool))
            return opponent, self.rng.randrange(players)
        return Opponent.SELF_PLAY, -1

    # ---------------------------------------------------------------- learning
    def update(self, rows: np.ndarray) -> dict[str, float]:
        """Epochs over ``rows`` of the latest ``collect``'s rollout (PPO, or DMC's regression); the mean losses."""
        rollout = self.rollout
        rows = np.asarray(rows, np.int64)
        if len(rows) and (rows.min() < 0 or rows.max() >= rollout.size):
            raise ValueError(f"update() takes rows of the latest collect(), 0 to {rollout.size - 1}")
        if self.args.algorithm == "dmc":
            return self._update_dmc(rows)
        args = self.args
        dev = self.device
        ent_coef = self.stage_value("ent_coef")
        self._apply_lr()
        # The observations stay where collect() wrote them; each minibatch gathers its own rows.
        rows_t = torch.from_numpy(rows).to(dev)
        obs = torch.from_numpy(rollout.obs[: rollout.size]).to(dev)
        mask = torch.from_numpy(rollout.mask[: rollout.size]).to(dev)
        hidden = torch.from_numpy(rollout.hidden[: rollout.size]).to(dev) if rollout.hidden is not None else None
        actions = torch.from_numpy(rollout.action[rows]).to(dev)
        old_logp = torch.from_numpy(rollout.log_prob[rows]).to(dev)
        adv = torch.from_numpy(rollout.advantage[rows]).float().to(dev)
        ret = torch.from_numpy(rollout.ret[rows]).float().to(dev)
        warming = self.updates < args.critic_warmup
        adv = (adv - adv.mean()) / (adv.std() + 1e-8)
        stats = {"policy_loss": 0.0, "value_loss": 0.0, "entropy": 0.0, "approx_kl": 0.0, "clip_fraction": 0.0}
        batches = 0
        for idx in self._minibatches(len(rows)):
            where = rows_t[idx]
            obs_batch = obs.index_select(0, where)  # 3x faster than obs[where] here, measured
            logits, value = self.net(obs_batch, bf16_torso=self.bf16)
            dist = MaskedCategorical(logits, mask.index_select(0, where).bool())
            logp = dist.log_prob(actions[idx])
            ratio = (logp - old_logp[idx]).exp()
            a = adv[idx]
            policy_loss = -torch.min(ratio * a, ratio.clamp(1 - args.clip, 1 + args.clip) * a).mean()
            value_loss = 0.5 * (value - ret[idx]).pow(2).mean()
            if self.critic is not None and hidden is not None:  # the policy's own value head learns too
                critic_value = self.critic(obs_batch, hidden.index_select(0, where), bf16_torso=self.bf16)
                critic_loss = 0.5 * (critic_value - ret[idx]).pow(2).mean()
                value_loss = critic_loss if warming else critic_loss + value_loss
            entropy = dist.entropy().mean()
            loss = policy_loss + args.vf_coef * value_loss - ent_coef * entropy
            if warming:  # only the critic learns: no gradient reaches the policy network
                loss = args.vf_coef * value_loss
            self._gradient_step(loss)
            with torch.no_grad():
                stats["policy_loss"] += float(policy_loss)
                stats["value_loss"] += float(value_loss)
                stats["entropy"] += float(entropy)
                stats["approx_kl"] += float(((ratio - 1) - (logp - old_logp[idx])).mean())
                stats["clip_fraction"] += float(((ratio - 1).abs() > args.clip).float().mean())
            batches += 1
        return {k: v / batches for k, v in stats.items()}

    def _minibatches(self, total: int) -> Iterator[torch.Tensor]:
        """Indices into an update's ``total`` rows: ``epochs`` shuffled passes, ``minibatch`` at a time."""
        for _ in range(self.args.epochs):
            order = torch.randperm(total, generator=self.torch_gen).to(self.device)
            for start in range(0, total, self.args.minibatch):
                yield order[start : start + self.args.minibatch]

    def _gradient_step(self, loss: torch.Tensor) -> None:
        """One optimizer step on ``loss``, the gradient norm clipped to ``max_grad_norm``."""
        self.optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.optimizer.param_groups[0]["params"], self.args.max_grad_norm)
        self.optimizer.step()

    def _update_dmc(self, rows: np.ndarray) -> dict[str, float]:
        """Deep Monte-Carlo: the action head's entry of each played action learns its Monte-Carlo return
        (squared error), the value head the same return. ``policy_loss`` is the action head's loss and
        ``entropy`` that of the epsilon-greedy behaviour policy."""
        args, dev, rollout = self.args, self.device, self.rollout
        self._apply_lr()
        rows_t = torch.from_numpy(rows).to(dev)
        obs = torch.from_numpy(rollout.obs[: rollout.size]).to(dev)
        actions = torch.from_numpy(rollout.action[rows]).to(dev)
        ret = torch.from_numpy(rollout.ret[rows]).float().to(dev)
        stats = {"policy_loss": 0.0, "value_loss": 0.0}
        batches = 0
        for idx in self._minibatches(len(rows)):
            q, value = self.net(obs.index_select(0, rows_t[idx]), bf16_torso=self.bf16)
            q_loss = 0.5 * (q.gather(1, actions[idx, None]).squeeze(1) - ret[idx]).pow(2).mean()
            value_loss = 0.5 * (value - ret[idx]).pow(2).mean()
            self._gradient_step(q_loss + args.vf_coef * value_loss)
            stats["policy_loss"] += float(q_loss.detach())
            stats["value_loss"] += float(value_loss.detach())
            batches += 1
        result = {k: v / max(batches, 1) for k, v in stats.items()}
        result["entropy"] = epsilon_greedy_entropy(rollout.mask[rows].sum(axis=1), args.epsilon)
        return result

    # ---------------------------------------------------------------- evaluation
    def agent(self) -> PolicyAgent:
        """The current policy as a greedy agent on the CPU (a copy: training goes on)."""
        net = copy.deepcopy(self.net).to("cpu").eval()
        return PolicyAgent(net, self.config, greedy=True)

    def evaluate(self, decks: int | None = None) -> dict[str, float]:
        """Duplicate evaluation of the current policy against random and heuristic baselines.

        Whole-game episodes (rams, match) report the win share (fair share 1/n) with its Wilson
        interval; one-deal episodes the advantage in points. Baselines are seeded per game, so the
        same weights give the same numbers every time.
        """
        args = self.args
        decks = decks or args.eval_decks
        result = {}
        policy = self.agent()
        for name, baseline in (("random", RandomAgent), ("heuristic", agent_source("heuristic", self.config))):
            ev = evaluate(
                {"policy": policy},
                baseline,
                self.config,
                decks=decks,
                seed=args.eval_seed,
                episode=args.episode,
                baseline_name=name,
                progress=args.progress,
            )
            report = ev.agents[0]
            result[f"adv_vs_{name}"] = report.advantage
            result[f"adv_vs_{name}_lo"], result[f"adv_vs_{name}_hi"] = report.advantage_ci
            if report.win_rate is not None:
                result[f"win_vs_{name}"] = report.win_rate
                result[f"win_vs_{name}_lo"], result[f"win_vs_{name}_hi"] = report.win_rate_ci
        return result

    def selection_score(self, ev: dict[str, float]) -> float:
        """What ``best.pt`` maximises: the win share against heuristics for whole games, else the advantage."""
        return ev.get("win_vs_heuristic", ev["adv_vs_heuristic"])

    # ---------------------------------------------------------------- the run
    def train_update(self) -> dict[str, Any]:
        """One update of the run: collect, PPO epochs, counters, pool snapshot, evaluation, progress, checkpoint.

        Returns the progress row, also appended to ``history`` and ``progress.csv``. :meth:`run` repeats
        it until ``total_steps``; tests call it to make exactly the updates a run makes.
        """
        args = self.args
        started = time.perf_counter()
        episodes, collect_stats = self.collect()
        rows = episode_rows(episodes)
        collected = time.perf_counter()
        losses = self.update(rows)
        self.updates += 1
        self.steps += len(rows)
        elapsed = time.perf_counter() - started
        row: dict[str, Any] = {
            "update": self.updates,
            "steps": self.steps,
            "episodes": self.episodes,
            "samples": len(rows),
            "steps_per_s": len(rows) / elapsed,
            "env_steps_per_s": collect_stats["env_steps"] / (collected - started),
            "mean_return": collect_stats["mean_return"],
            **losses,
        }
        if args.snapshot_every and self.updates % args.snapshot_every == 0:
            self.pool.add(self.net, self.updates)
        best = False
        final = self.steps >= args.total_steps
        if (args.eval_every and self.updates % args.eval_every == 0) or final:
            ev = self.evaluate()
            row.update(ev)
            score = self.selection_score(ev)
            if score > self.best_score:
                self.best_score, best = score, True
        self.history.append(row)
        _write_csv(self.run_dir / "progress.csv", row)
        if best or final or self.updates % args.checkpoint_every == 0:
            self.save(best=best)
        return row

    def run(self) -> Path:
        """Train until ``total_steps``; returns the path of the best checkpoint (or the latest)."""
        args = self.args
        writer = _tensorboard(self.run_dir, self.steps)
        bar = tqdm(
            total=args.total_steps,
            initial=min(self.steps, args.total_steps),
            unit="step",
            disable=not args.progress,
            dynamic_ncols=True,
        )
        try:
            while self.steps < args.total_steps:
                row = self.train_update()
                for key, value in row.items():
                    if key != "update":
                        writer.add_scalar(key, value, self.steps)
                bar.update(min(row["samples"], bar.total - bar.n))
                log.info(_log_line(row))
        finally:
            bar.close()
            writer.close()
            self.close()
        best_path = self.run_dir / "best.pt"
        return best_path if best_path.exists() else self.run_dir / "latest.pt"


FEW_EVALUATIONS = 5  # up to this many evaluations are drawn as points with error bars, not a band


def plot_learning_curves(csv_path: Path, png_path: Path) -> Path:
    """A PNG of the run's progress: mean return, entropy, and the evaluations with their 95% CIs."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = learning_curves_figure(csv_path)
    try:
        fig.savefig(png_path, dpi=100)
    finally:
        plt.close(fig)
    return Path(png_path)


def learning_curves_figure(csv_path: Path) -> Any:
    """The figure of :func:`plot_learning_curves`. The third panel names its deal set: the periodic
    evaluation's (``eval_decks`` decks of ``eval_seed``), not the final tables' (another deal set)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with Path(csv_path).open() as f:
        rows = list(csv.DictReader(f))
    saved = run_arguments(csv_path)
    steps = [int(r["steps"]) for r in rows]
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.4))
    axes[0].plot(steps, [float(r["mean_return"]) for r in rows], marker="o" if len(rows) <= FEW_EVALUATIONS else None)
    axes[0].set_title("self-play return per seat and episode (reward units)")
    axes[1].plot(steps, [float(r["entropy"]) for r in rows], marker="o" if len(rows) <= FEW_EVALUATIONS else None)
    axes[1].set_title("policy entropy (legal actions)")
    whole = any(r.get("win_vs_heuristic") for r in rows)
    metric, fair = ("win", 1.0 / int(saved.get("num_players", 4))) if whole else ("adv", 0.0)
    for k, name in enumerate(("random", "heuristic")):
        evaluated = [r for r in rows if r.get(f"{metric}_vs_{name}")]
        if not evaluated:
            continue
        x = [int(r["steps"]) for r in evaluated]
        mid = [float(r[f"{metric}_vs_{name}"]) for r in evaluated]
        lo = [float(r[f"{metric}_vs_{name}_lo"]) for r in evaluated]
        hi = [float(r[f"{metric}_vs_{name}_hi"]) for r in evaluated]
        label = f"vs {name}"
        if len(evaluated) <= FEW_EVALUATIONS:  # a band between a few points hides them: draw each with its bar
            below = [max(0.0, m - a) for m, a in zip(mid, lo, strict=True)]
            above = [max(0.0, b - m) for m, b in zip(mid, hi, strict=True)]
            axes[2].errorbar(x, mid, yerr=[below, above], fmt="o-", capsize=5, color=f"C{k}", label=label)
        else:
            axes[2].plot(x, mid, marker="o", color=f"C{k}", label=label)
            axes[2].fill_between(x, lo, hi, alpha=0.2, color=f"C{k}")
    axes[2].axhline(fair, color="grey", linewidth=0.8, linestyle="--")
    decks, seed = saved.get("eval_decks", "?"), saved.get("eval_seed", "?")
    games = {"rams": "ramsar", "match": "matches"}.get(saved.get("episode", "rams"), "games")
    kind = f"win share in whole {games}" if whole else "duplicate advantage per deal"
    axes[2].set_title(f"periodic evaluation: {kind}, 95% CI" + (f" (fair {fair:.2f})" if whole else ""), fontsize=10)
    axes[2].set_ylabel(f"{decks} decks of deal set {seed}")
    final = "" if seed == "?" else f" {seed + 1}"
    axes[2].annotate(
        f"the final tables (eval_vs_*.json) play another deal set{final}: their numbers differ by chance",
        xy=(0.5, -0.22),
        xycoords="axes fraction",
        ha="center",
        fontsize=8,
        color="dimgrey",
    )
    if axes[2].get_legend_handles_labels()[0]:
        axes[2].legend()
    for ax in axes:
        ax.set_xlabel("learner decisions")
        if steps:
            ax.set_xlim(0, max(steps) * 1.05)  # from the start: one point is not drawn on a 5% sliver of steps
    fig.tight_layout()
    return fig


def run_arguments(csv_path: Path) -> dict[str, Any]:
    """The saved arguments (``args.json``) of the run whose ``progress.csv`` this is; empty if missing."""
    path = Path(csv_path).with_name("args.json")
    return json.loads(path.read_text()) if path.exists() else {}


def num_players(csv_path: Path) -> int:
    """Players of the run whose ``progress.csv`` this is (from its ``args.json``; 4 if that is missing)."""
    from .runargs import read_run_args  # every field's type checked: a damaged args.json is named

    try:
        return int(read_run_args(Path(csv_path).parent).get("num_players", 4))
    except FileNotFoundError:
        return 4


def _tuplify(value: Any) -> Any:
    return tuple(_tuplify(v) for v in value) if isinstance(value, (list, tuple)) else value


def _tensorboard(run_dir: Path, steps: int) -> Any:
    """The run's TensorBoard writer; events past ``steps`` (redone after a resume) are purged."""
    from torch.utils.tensorboard import SummaryWriter

    return SummaryWriter(str(run_dir / "tensorboard"), purge_step=steps or None)


CSV_COLUMNS = [
    "update",
    "steps",
    "episodes",
    "samples",
    "steps_per_s",
    "env_steps_per_s",
    "mean_return",
    "policy_loss",
    "value_loss",
    "entropy",
    "approx_kl",
    "clip_fraction",
    "adv_vs_random",
    "adv_vs_random_lo",
    "adv_vs_random_hi",
    "adv_vs_heuristic",
    "adv_vs_heuristic_lo",
    "adv_vs_heuristic_hi",
    "win_vs_random",
    "win_vs_random_lo",
    "win_vs_random_hi",
    "win_vs_heuristic",
    "win_vs_heuristic_lo",
    "win_vs_heuristic_hi",
]


def _truncate_csv(path: Path, updates: int) -> None:
    """Drop the rows of ``progress.csv`` after update ``updates`` (redone after a resume)."""
    if not path.exists():
        return
    with path.open(newline="") as f:
        rows = [r for r in csv.DictReader(f) if int(r["update"]) <= updates]
    tmp = path.with_suffix(".csv.tmp")
    with tmp.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=CSV_COLUMNS, restval="", extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    os.replace(tmp, path)


def _write_csv(path: Path, row: dict[str, Any]) -> None:
    exists = path.exists()
    with path.open("a", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=CSV_COLUMNS, restval="")
        if not exists:
            writer.writeheader()
        writer.writerow(row)


def _log_line(row: dict[str, Any]) -> str:
    text = (
        f"update {row['update']} steps {row['steps']:,} ({row['steps_per_s']:,.0f}/s, "
        f"env {row['env_steps_per_s']:,.0f}/s) return {row['mean_return']:+.3f} "
        f"entropy {row['entropy']:.3f} value_loss {row['value_loss']:.4f}"
    )
    for name in ("random", "heuristic"):
        key = f"adv_vs_{name}"
        if key in row:
            text += f" | vs {name} {row[key]:+.3f} [{row[key + '_lo']:+.3f}, {row[key + '_hi']:+.3f}]"
        key = f"win_vs_{name}"
        if key in row:
            text += f" win {row[key]:.3f} [{row[key + '_lo']:.3f}, {row[key + '_hi']:.3f}]"
    return text
