"""Policy improvement from counterfactual rollouts on true deals: a network that plays for the rams.

Collection (compiled, :mod:`rams_env.compiled.counterfactual`): whole ramsar of heuristics, one seat
(the learner) exploring with the chance ``--explore``. At a share ``--record`` of the learner's
decisions every legal action is tried on a copy of the true deal and played out to the deal's end by
the heuristic in every seat, and each outcome is scored by the learner's chance to win the rams: its
share of the win where the rams ended, else the equity model (:mod:`rams_env.equity`) at the next
deal's start. That is each action's value Q(deal, action) for a player who then plays as the
heuristic, with the equity model judging the rest of the rams.

Training: a :class:`~rams_env.policy.network.PolicyNet` learns, from the learner's observation alone,
each legal action's value less their mean (squared error on the legal actions). Fitted on the
observation, it learns the mean over the deals that look the same to the learner, drawn as often as
play against heuristics draws them: the beliefs are those of the true game, which no sampled world
has to approximate. Its policy head holds those values times ``--scale`` as logits, so the greedy
policy (``load_agent``, ``rams eval``) plays the best action: one step of policy improvement over the
heuristic at every decision, for the rams rather than for points. The value head learns the mean.

Collected decisions go into shards (``data/shard-NNNNN.npz``, written atomically; a stopped run
resumes at its last shard; ``data/collection.json`` refuses a resume with other options). Writes
``improved.pt`` (a checkpoint) and ``improve.json`` (the arguments, the losses, and on held-out
decisions the equity a decision loses against the best action: the heuristic's and the network's).

    python -m rams_training.improve --variant mattmar --ramsar 4000 --out runs/improve-mattmar
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tqdm.auto import tqdm

from rams_env import equity as equity_model
from rams_env.agents import load_agent
from rams_env.compiled.counterfactual import (
    PER_MILLION,
    advance_to_learner,
    apply_actions,
    branch_games,
    collect_counterfactuals,
    counterfactual_records,
    deal_outcomes,
    observe_learners,
)
from rams_env.compiled.drivers import next_deal_or_end
from rams_env.compiled.layout import CURRENT, DEAL_OVER, PHASE, STATE_WIDTH, P, config_array
from rams_env.compiled.mt import mt_seed
from rams_env.compiled.rules import new_game_with
from rams_env.compiled.workspace import RamsarPlan, make_workspace, mt_states, ramsar_plan
from rams_env.obs.encoding import OBS_SIZE
from rams_env.options import REQUIRED, SEED, arg, check_fields, error, option_name, parse
from rams_env.policy.checkpoint import (
    load_checkpoint,
    make_checkpoint,
    network_from_checkpoint,
    save_checkpoint,
    write_atomically,
)
from rams_env.policy.network import PolicyNet
from rams_env.rules import make_config
from rams_env.rules.actions import NUM_ACTIONS, Action
from rams_env.rules.config import RulesConfig
from rams_env.zoo import locate

from .checks import device, network_size, rules
from .shards import IMPROVE_SHARD, DamagedFileError, collect_shards, read_shard, shard_count
from .shards import write_shard as write_arrays

EMPTY = np.zeros(0, np.int64)  # no fixed deck: a shuffled one
PROG = "python -m rams_training.improve"
COLLECTED_BY = ("variant", "num_players", "base", "shard", "explore", "record", "random_start", "seed")


def legal_masks(legal: np.ndarray) -> np.ndarray:
    """Boolean action masks (N, NUM_ACTIONS) of the compiled engine's legal sets (bit ``a`` for action ``a``)."""
    return ((legal[:, None] >> np.arange(NUM_ACTIONS)[None, :]) & 1).astype(bool)


def collect_shard(
    config: RulesConfig, ramsar: int, seed: int, explore: float, record: float, random_start: float
) -> dict[str, np.ndarray]:
    """The decisions recorded in the ramsar of ``ramsar_plan(config, ramsar, seed, random_start)``
    (module docstring): ``observation`` (float16), ``mask`` (bool), ``base`` (the heuristic's action), ``q``
    (float32, each legal action's chance to win the rams, NaN where illegal) and ``rams`` (the rams of
    the shard each decision belongs to)."""
    plan = ramsar_plan(config, ramsar, seed, random_start, learners=True)
    behaviour = mt_states()
    mt_seed(behaviour, plan.behaviour)
    c = config_array(config, "rams", "win")
    chances = int(explore * PER_MILLION), int(record * PER_MILLION)
    capacity = 128 * ramsar
    while True:  # a retry goes on drawing from ``behaviour``, as the first try left it
        out = counterfactual_records(capacity, 8 * capacity, config.num_players)
        plays = (plan.seeds, plan.hseeds, plan.learner, plan.start, *chances)
        decisions, branches = collect_counterfactuals(make_workspace(), make_workspace(), c, behaviour, *plays, out)
        if decisions >= 0:
            break
        capacity *= 2
    seat = plan.learner[out.rams[:decisions]]
    sample = out.sample[:branches]
    value = branch_values(config, out.scores[:branches], out.dealer[:branches], out.winners[:branches], seat[sample])
    q = np.full((decisions, NUM_ACTIONS), np.nan, np.float32)
    q[sample, out.action[:branches]] = value
    return {
        "observation": out.obs[:decisions].astype(np.float16),
        "mask": legal_masks(out.legal[:decisions]),
        "base": out.heuristic[:decisions],
        "q": q,
        "rams": out.rams[:decisions],
    }


class PolicyCollection:
    """:func:`collect_policy_shard` in steps: ``width`` ramsar played side by side (the main lines),
    and the branches of recorded decisions waiting to be played out (up to ``branch_batch``)."""

    def __init__(
        self, config: RulesConfig, policy: Any, plan: RamsarPlan, explore: float, record: float, width: int, room: int
    ) -> None:
        self.config, self.policy, self.plan = config, policy, plan
        self.explore, self.record = explore, record
        self.behaviour = np.random.default_rng(plan.behaviour)
        self.c = config_array(config, "rams", "win")
        self.states = np.zeros((width, STATE_WIDTH), np.int64)
        self.rngs, self.hrngs = mt_states(width), mt_states(width, P)
        self.learners = np.zeros(width, np.int64)
        self.rams_of = np.full(width, -1, np.int64)  # the rams each main line plays, -1 once done
        self.bstates, self.bhrngs = np.zeros((room, STATE_WIDTH), np.int64), mt_states(room, P)
        self.blearners, self.bdecision, self.baction = (np.zeros(room, np.int64) for _ in range(3))
        self.used = 0  # branches waiting
        self.ws = make_workspace()  # the heuristic's scratch arrays
        self.records: dict[str, list[Any]] = {"obs": [], "legal": [], "base": [], "rams": []}
        self.outcomes: list[tuple[np.ndarray, ...]] = []
        self.started = 0

    def start(self, g: int) -> None:
        """Start the plan's next rams in main line ``g``."""
        k = self.started
        self.started += 1
        self.rams_of[g], self.learners[g] = k, self.plan.learner[k]
        for j in range(self.config.num_players):
            mt_seed(self.hrngs[g, j], int(self.plan.hseeds[k, j]))
        new_game_with(self.states[g], self.c, self.rngs[g], int(self.plan.seeds[k]), -1, self.plan.start[k], EMPTY)

    def decide(self, where: np.ndarray, at: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The policy's actions in games ``at`` of ``where`` (observations, legal masks, actions)."""
        obs = np.zeros((at.size, OBS_SIZE), np.float32)
        legal = np.zeros(at.size, np.int64)
        observe_learners(where, self.c, at, obs, legal)
        mask = legal_masks(legal)
        return obs, mask, np.asarray(self.policy.act_batch(obs, mask), np.int64)

    def resolve(self) -> None:
        """Play the waiting branches to the end of their deals and keep their outcomes."""
        used = self.used
        live = np.arange(used, dtype=np.int64)
        while live.size:
            advance_to_learner(self.bstates, self.c, self.bhrngs, self.blearners, live, self.ws)
            live = live[(self.bstates[live, PHASE] < DEAL_OVER) & (self.bstates[live, CURRENT] >= 0)]
            if live.size:
                apply_actions(self.bstates, self.c, live, self.decide(self.bstates, live)[2])
        scores = np.zeros((used, self.config.num_players), np.int64)
        dealer, winners = np.zeros(used, np.int64), np.zeros(used, np.int64)
        deal_outcomes(self.bstates[:used], self.c, scores, dealer, winners)
        ids, acts, seats = self.bdecision[:used].copy(), self.baction[:used].copy(), self.blearners[:used].copy()
        self.outcomes.append((ids, acts, seats, scores, dealer, winners))
        self.used = 0

    def advance(self, ramsar: int) -> np.ndarray:
        """Play the heuristic seats of every main line up to its learner; start the next rams where one
        ended (while the plan's ``ramsar`` last). Returns the main lines whose learner is to act."""
        going = np.flatnonzero(self.rams_of >= 0).astype(np.int64)
        advance_to_learner(self.states, self.c, self.hrngs, self.learners, going, self.ws)
        for g in going[(self.states[going, PHASE] >= DEAL_OVER) | (self.states[going, CURRENT] < 0)]:
            if next_deal_or_end(self.states[g], self.c, self.rngs[g]):
                self.rams_of[g] = -1
                if self.started < ramsar:
                    self.start(int(g))
        states = self.states
        at = np.flatnonzero((self.rams_of >= 0) & (states[:, PHASE] < DEAL_OVER) & (states[:, CURRENT] >= 0))
        return at[states[at, CURRENT] == self.learners[at]].astype(np.int64)

    def branch(self, at: np.ndarray, obs: np.ndarray, mask: np.ndarray, actions: np.ndarray) -> None:
        """Record a share ``record`` of the learners' decisions (those with a choice) and branch every legal
        action of each."""
        for r in np.flatnonzero((mask.sum(axis=1) > 1) & (self.behaviour.random(at.size) < self.record)):
            g, acts = at[r], np.flatnonzero(mask[r]).astype(np.int64)
            games = np.full(acts.size, g, np.int64)
            branch_games(self.states, self.hrngs, games, acts, self.c, self.bstates, self.bhrngs, self.used)
            rows = slice(self.used, self.used + acts.size)
            self.blearners[rows], self.bdecision[rows], self.baction[rows] = self.learners[g], len(self), acts
            self.used += acts.size
            self.records["obs"].append(obs[r].astype(np.float16))
            self.records["legal"].append(mask[r])
            self.records["base"].append(actions[r])
            self.records["rams"].append(self.rams_of[g])

    def play(self, at: np.ndarray, mask: np.ndarray, actions: np.ndarray) -> None:
        """Play the learners' actions, each replaced by a random legal one with the chance ``explore``."""
        chosen = actions.copy()
        for r in np.flatnonzero(self.behaviour.random(at.size) < self.explore):
            chosen[r] = self.behaviour.choice(np.flatnonzero(mask[r]))
        apply_actions(self.states, self.c, at, chosen)

    def __len__(self) -> int:
        """Decisions recorded so far."""
        return len(self.records["base"])

    def shard(self) -> dict[str, np.ndarray]:
        """The recorded decisions, with each action's value from its branch's outcome."""
        decisions = len(self)
        q = np.full((decisions, NUM_ACTIONS), np.nan, np.float32)
        if decisions:
            parts = (np.concatenate(part) for part in zip(*self.outcomes, strict=True))
            ids, acts, seats, scores, dealer, winners = parts
            q[ids, acts] = branch_values(self.config, scores, dealer, winners, seats)
        return {
            "observation": np.asarray(self.records["obs"], np.float16).reshape(decisions, OBS_SIZE),
            "mask": np.asarray(self.records["legal"], bool).reshape(decisions, NUM_ACTIONS),
            "base": np.asarray(self.records["base"], np.int64),
            "q": q,
            "rams": np.asarray(self.records["rams"], np.int64),
        }


def collect_policy_shard(
    config: RulesConfig,
    policy: Any,
    ramsar: int,
    seed: int,
    explore: float,
    record: float,
    random_start: float,
    games: int = 256,
    branch_batch: int = 4096,
) -> dict[str, np.ndarray]:
    """:func:`collect_shard` with ``policy`` (an agent with ``act_batch``) in the learner's seat, on the
    main line and in every branch: each action's value for a player who then plays as the policy does.
    ``games`` ramsar are played side by side, the policy's decisions batched over them, and branches
    are played out ``branch_batch`` at a time. ``base`` is the policy's action."""
    plan = ramsar_plan(config, ramsar, seed, random_start, learners=True)
    width = min(games, ramsar)
    run = PolicyCollection(config, policy, plan, explore, record, width, branch_batch + width * NUM_ACTIONS)
    for g in range(width):
        run.start(g)
    while (run.rams_of >= 0).any():
        at = run.advance(ramsar)
        if not at.size:
            continue
        obs, mask, actions = run.decide(run.states, at)
        run.branch(at, obs, mask, actions)
        run.play(at, mask, actions)
        if run.used >= branch_batch:
            run.resolve()
    run.resolve()
    return run.shard()


def branch_values(
    config: RulesConfig, scores: np.ndarray, dealer: np.ndarray, winners: np.ndarray, seat: np.ndarray
) -> np.ndarray:
    """Seat ``seat[b]``'s chance to win the rams after branch ``b``: its share of the win where the rams
    ended (``winners[b]`` a seat mask), else the equity model from ``scores[b]``, ``dealer[b]`` dealing."""
    value = np.zeros(len(seat), np.float64)
    ended = winners >= 0
    if ended.any():
        shares = equity_model.win_shares(winners[ended], config.num_players)
        value[ended] = shares[np.arange(int(ended.sum())), seat[ended]]
    going = ~ended
    if going.any():
        chances = equity_model.equity(config, scores[going], dealer[going])
        value[going] = chances[np.arange(int(going.sum())), seat[going]]
    return value


class Observations:
    """Observations kept compactly: one bit per feature (non-zero or not) and, as float16, the few
    features that take other values than 0 and 1 (``dense_cols``: scores, counts). About a tenth of the
    float16 matrix; ``obs[rows]`` gives the float32 rows."""

    def __init__(self, bits: np.ndarray, dense: np.ndarray, dense_cols: np.ndarray) -> None:
        self.bits, self.dense, self.dense_cols = bits, dense, dense_cols

    @classmethod
    def pack(cls, observation: np.ndarray) -> Observations:
        """The compact form of an observation matrix (N, OBS_SIZE)."""
        observation = np.asarray(observation)
        cols = np.flatnonzero((~np.isin(observation, (0.0, 1.0))).any(axis=0)).astype(np.int64)
        return cls(np.packbits(observation != 0, axis=1), observation[:, cols].astype(np.float16), cols)

    @classmethod
    def concatenate(cls, parts: list[Observations]) -> Observations:
        """One store of several (their dense columns united: a column binary in a part is its bits there)."""
        cols = np.unique(np.concatenate([p.dense_cols for p in parts])).astype(np.int64)
        dense = []
        for part in parts:
            block = np.unpackbits(part.bits, axis=1, count=OBS_SIZE)[:, cols].astype(np.float16)
            block[:, np.searchsorted(cols, part.dense_cols)] = part.dense
            dense.append(block)
        return cls(np.concatenate([p.bits for p in parts]), np.concatenate(dense), cols)

    def arrays(self) -> dict[str, np.ndarray]:
        """The arrays a shard stores."""
        return {"obs_bits": self.bits, "obs_dense": self.dense, "obs_dense_cols": self.dense_cols}

    def __len__(self) -> int:
        return len(self.bits)

    def __getitem__(self, rows: Any) -> np.ndarray:
        out = np.unpackbits(self.bits[rows], axis=1, count=OBS_SIZE).astype(np.float32)
        out[:, self.dense_cols] = self.dense[rows]
        return out


def write_shard(path: Path, shard: dict[str, np.ndarray]) -> None:
    """Write a collected shard atomically, its observations packed (:class:`Observations`)."""
    arrays = {k: v for k, v in shard.items() if k != "observation"}
    arrays.update(Observations.pack(shard["observation"]).arrays())
    write_arrays(path, arrays)


def read_shards(folder: Path) -> dict[str, Any]:
    """Every shard of ``folder``, concatenated (``rams`` made unique across shards; ``observation`` an
    :class:`Observations`)."""
    parts = []
    for k, path in enumerate(sorted(folder.glob("shard-*.npz"))):
        try:
            data = read_shard(path, IMPROVE_SHARD)  # checked: a damaged file is named, never trained on
        except DamagedFileError as err:
            raise SystemExit(str(err)) from None
        part: dict[str, Any] = {key: data[key] for key in ("mask", "base", "q", "rams")}
        part["observation"] = Observations(data["obs_bits"], data["obs_dense"], data["obs_dense_cols"])
        part["rams"] = part["rams"] + k * 1_000_000
        parts.append(part)
    if not parts:
        raise SystemExit(f"{folder}: no shards to train on")
    data = {key: np.concatenate([p[key] for p in parts]) for key in ("mask", "base", "q", "rams")}
    data["observation"] = Observations.concatenate([p["observation"] for p in parts])
    return data


def centred(q: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Each legal action's value less the mean over the legal actions (0 where illegal)."""
    filled = np.where(mask, q, 0.0)
    mean = filled.sum(axis=1, keepdims=True) / mask.sum(axis=1, keepdims=True)
    return np.where(mask, filled - mean, 0.0).astype(np.float32)


def regrets(q: np.ndarray, mask: np.ndarray, chosen: np.ndarray) -> float:
    """The mean chance to win the rams lost against the best action by playing ``chosen``."""
    best = np.where(mask, q, -np.inf).max(axis=1)
    return float(np.mean(best - q[np.arange(len(q)), chosen]))


def decision_kinds(mask: np.ndarray) -> dict[str, np.ndarray]:
    """Which decisions of legal sets ``mask`` are knocks, buys (draw legal), bids and answers, card play."""
    knock = mask[:, int(Action.PASS)] & mask[:, int(Action.KNOCK)]
    buy = mask[:, int(Action.DRAW)] & ~knock
    bid = mask[:, int(Action.BID_BETTER) : int(Action.DRAW)].any(axis=1) & ~knock & ~buy
    return {"knock": knock, "buy": buy, "bid": bid, "play": ~(knock | buy | bid)}


def regret_table(q: np.ndarray, mask: np.ndarray, choices: dict[str, np.ndarray]) -> dict[str, dict[str, float]]:
    """Per kind of decision (:func:`decision_kinds`, and all), the regret of each named choice."""
    kinds = {"all": np.ones(len(q), bool), **decision_kinds(mask)}
    return {
        kind: {
            "decisions": int(sel.sum()),
            **{name: regrets(q[sel], mask[sel], chosen[sel]) for name, chosen in choices.items()},
        }
        for kind, sel in kinds.items()
        if sel.any()
    }


def train(
    data: dict[str, np.ndarray],
    net: PolicyNet,
    epochs: int,
    lr: float,
    scale: float,
    seed: int,
    held_out: float,
    device: str = "cpu",
    progress: bool = True,
) -> dict[str, Any]:
    """Fit ``net`` to the centred action values of ``data`` (module docstring); a share ``held_out`` of
    the ramsar is kept out of training and measured (``progress``: a bar over the epochs). Returns the
    losses and the held-out regrets."""
    torch.manual_seed(seed)
    rams = data["rams"]
    rng = np.random.default_rng(seed)
    ids = np.unique(rams)
    test_ids = rng.choice(ids, max(1, int(len(ids) * held_out)), replace=False) if held_out > 0 else ids[:0]
    test = np.isin(rams, test_ids)
    observations = data["observation"]
    if not isinstance(observations, Observations):
        observations = Observations.pack(observations)
    mask_np, q_np = data["mask"], data["q"]
    train_idx = np.flatnonzero(~test)
    with torch.no_grad():  # the head predicts values during training, logits (times ``scale``) after it
        net.policy_head.weight /= scale
        net.policy_head.bias /= scale
    net = net.to(device).train()
    optimizer = torch.optim.Adam(net.parameters(), lr=lr)
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, epochs * (-(-len(train_idx) // 1024)))
    losses = []
    for _ in tqdm(range(epochs), desc="train", unit="epoch", disable=not progress):
        order = train_idx[rng.permutation(len(train_idx))]
        total = 0.0
        for start in range(0, len(order), 1024):
            rows = np.sort(order[start : start + 1024])
            loss = batch_loss(net, observations[rows], mask_np[rows], q_np[rows], device)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            schedule.step()
            total += float(loss.detach()) * len(rows)
        losses.append(total / len(train_idx))
    net = net.cpu().eval()
    with torch.no_grad():
        net.policy_head.weight *= scale
        net.policy_head.bias *= scale
    report: dict[str, Any] = {"losses": losses, "decisions": len(rams), "held_out_decisions": int(test.sum())}
    if test.any():
        report |= held_out_regrets(net, observations, data, test)
    return report


def batch_loss(net: PolicyNet, obs: np.ndarray, mask: np.ndarray, q: np.ndarray, device: str) -> torch.Tensor:
    """One batch's loss (module docstring): the squared error of the centred logits to the centred values on
    the legal actions ``mask``, plus the value head's to the legal actions' mean value."""
    m = torch.from_numpy(mask).to(device)
    target = torch.from_numpy(centred(q, mask)).to(device)
    mean = torch.from_numpy(np.nanmean(np.where(mask, q, np.nan), axis=1).astype(np.float32)).to(device)
    logits, value = net(torch.from_numpy(obs).to(device))
    centred_pred = logits - (logits * m).sum(1, keepdim=True) / m.sum(1, keepdim=True)
    return (((centred_pred - target) ** 2) * m).sum() / m.sum() + ((value - mean) ** 2).mean()


def held_out_regrets(
    net: PolicyNet, observations: Any, data: dict[str, np.ndarray], test: np.ndarray
) -> dict[str, Any]:
    """The regrets of the base and of the trained ``net`` on the held-out decisions ``test`` of ``data``."""
    rows = np.flatnonzero(test)
    q, m = data["q"][rows], data["mask"][rows]
    with torch.no_grad():
        logits = np.concatenate(
            [net(torch.from_numpy(observations[rows[k : k + 8192]]))[0].numpy() for k in range(0, len(rows), 8192)]
        )
    chosen = np.where(m, logits, -np.inf).argmax(axis=1)
    return {
        "regret_base": regrets(q, m, data["base"][test]),
        "regret_network": regrets(q, m, chosen),
        "agrees_with_base": float(np.mean(chosen == data["base"][test])),
        "regret_by_kind": regret_table(q, m, {"base": data["base"][test], "network": chosen}),
    }


@dataclass(kw_only=True)
class ImproveArgs:
    """The arguments of ``python -m rams_training.improve`` (module docstring), checked as they are made."""

    variant: str = arg(REQUIRED, "rules preset")
    num_players: int = arg(4, "players at the table (default 4)")
    ramsar: int = arg(4000, "ramsar to collect from (default 4000)", low=1)
    base: str = arg(
        "heuristic",
        "who plays the learner's seat and its branches: heuristic (compiled, fastest), or a zoo name, "
        "checkpoint or ensemble manifest of a policy (default heuristic)",
    )
    shard: int = arg(200, "ramsar per shard (default 200)", low=1)
    explore: float = arg(0.05, "learner's chance of a random action (default 0.05)", low=0, high=1)
    record: float = arg(0.5, "share of its decisions recorded (default 0.5)", low=0, high=1)
    random_start: float = arg(0.3, "share of ramsar from random scores (default 0.3)", low=0, high=1)
    out: str = arg(REQUIRED, "run folder (shards, improved.pt)")
    init_from: str | None = arg(None, "zoo name or checkpoint to start the network from")
    hidden: tuple[int, ...] = arg((256, 256), "hidden widths of a new network (default 256,256)", low=1)
    epochs: int = arg(10, "training passes (default 10)", low=1)
    lr: float = arg(1e-3, "Adam learning rate (default 1e-3)", low=0, open_low=True)
    scale: float = arg(100.0, "logits per unit of win chance (default 100)", low=0, open_low=True)
    held_out: float = arg(0.05, "share of ramsar kept to measure (default 0.05)", low=0, high=1, open_high=True)
    seed: int = arg(0, "seed of the collection and the training", check=SEED)
    threads: int = arg(1, "torch threads (default 1)", low=1)
    device: str = arg("cpu", "torch device of the training: cpu or cuda (default cpu)")
    collect_only: bool = arg(False, "collect the shards and stop")

    def __post_init__(self) -> None:
        """Every option, before anything is loaded or written (``ValueError`` naming the first bad one)."""
        check_fields(self, option_name)  # each field's type and range, declared with it
        device("device", self.device)
        rules(self.variant, self.num_players)
        if self.init_from is None:  # a new network: its size is known before torch allocates it
            network_size("hidden", self.hidden)


def collect_run_shard(config: RulesConfig, base: Any, args: ImproveArgs, seed: int) -> dict[str, np.ndarray]:
    """One shard of the run ``args``, seeded ``seed``: played by the compiled heuristic, or by ``base`` where
    one is given (:func:`collect_shard`, :func:`collect_policy_shard`)."""
    options = (args.shard, seed, args.explore, args.record, args.random_start)
    return collect_shard(config, *options) if base is None else collect_policy_shard(config, base, *options)


def main(argv: list[str] | None = None) -> int:
    """The command line (module docstring)."""
    args = parse(ImproveArgs, argv, PROG, __doc__.split("\n\n")[0])
    torch.set_num_threads(args.threads)
    try:
        config = make_config(args.variant, args.num_players)
        base = None if args.base == "heuristic" else load_agent(locate(args.base), expect_config=config)
        start = load_checkpoint(locate(args.init_from), expect_config=config) if args.init_from else None
    except (ValueError, OSError) as err:  # unknown rules, zoo names, unreadable or mismatched checkpoints
        error(PROG, str(err))
    if base is not None and not callable(getattr(base, "act_batch", None)):
        error(PROG, f"--base {args.base!r} is not a policy that acts on batches")
    out = Path(args.out)
    data_dir = out / "data"
    shards, collect = shard_count(args.ramsar, args.shard), partial(collect_run_shard, config, base, args)
    collect_shards(data_dir, args, COLLECTED_BY, IMPROVE_SHARD, shards, collect, write=write_shard)  # packed
    if args.collect_only:
        return 0
    data = read_shards(data_dir)
    torch.manual_seed(args.seed)  # a new network's first weights follow the seed too: the same run twice is the same
    net = network_from_checkpoint(start) if start is not None else PolicyNet(OBS_SIZE, NUM_ACTIONS, args.hidden)
    report = train(data, net, args.epochs, args.lr, args.scale, args.seed, args.held_out, args.device)
    save_checkpoint(
        out / "improved.pt",
        make_checkpoint(net, config, trained_by="rams_training.improve", init_from=str(args.init_from)),
    )
    report["args"] = {k: str(v) for k, v in dataclasses.asdict(args).items()}
    write_atomically(out / "improve.json", lambda f: f.write(json.dumps(report, indent=2).encode()))
    print(json.dumps({k: v for k, v in report.items() if k != "args"}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
