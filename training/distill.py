"""Distil a search into the policy network: DAgger on the search's decisions.

Collection: the student (a zoo name or checkpoint) plays whole ramsar in one seat, the seat turning
from rams to rams, against heuristics in the others. At each of its decisions with more than one
legal action the expert (an agent spec of ``rams eval``, a search over the student for instance)
names its action, which is recorded with the observation and the mask; the student's own action is
played, so the data come from the states the student reaches (DAgger's first iteration). Decisions
are written in shards of ``--shard`` (``data/shard-NNNNN.npz``, each written atomically), so a
stopped collection resumes at its last shard; each shard's ramsar are seeded by its number, and
``data/collection.json`` records the options the shards were collected with (a resume with others is
refused rather than mixed in).

Training: the student is fine-tuned on every shard by cross-entropy to the expert's actions plus
``--kl`` times the KL divergence from the student's own policy (what the expert leaves alone stays),
for ``--epochs`` passes, on ``--device`` (``cuda`` where torch finds one); the value head is not
trained. Writes ``distilled.pt`` (a checkpoint that ``load_agent`` and ``rams eval`` take) and
``distill.json`` (the arguments and how often the expert differed from the student).

    python -m rams_training.distill --student mattmar-4p --variant mattmar \\
        --expert "search:simulations=10,base=mattmar-4p,opponent_model=heuristic" --decisions 20000
"""

from __future__ import annotations

import dataclasses
import json
import random
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tqdm.auto import tqdm

from rams_env.agents import observe
from rams_env.agents.neural import PolicyAgent
from rams_env.agents.specs import build_agent
from rams_env.eval import agent_source
from rams_env.options import REQUIRED, SEED, arg, check_fields, option_name, parse
from rams_env.policy.checkpoint import (
    load_checkpoint,
    make_checkpoint,
    network_from_checkpoint,
    save_checkpoint,
    write_atomically,
)
from rams_env.policy.network import MaskedCategorical
from rams_env.rules import Game, Phase, make_config
from rams_env.rules.config import RulesConfig
from rams_env.zoo import locate

from .checks import agent_spec, device, model, rules
from .shards import DISTILL_SHARD, DamagedFileError, collect_shards, concatenated_shards, shard_count


def collect_shard(
    config: RulesConfig, student: Any, expert_spec: str, decisions: int, seed: int
) -> dict[str, np.ndarray]:
    """``decisions`` decisions of ``student`` in whole ramsar against heuristics, each with the expert's
    action: arrays ``observation``, ``mask``, ``expert`` and ``student`` (the action played)."""
    rng = random.Random(seed)
    expert = build_agent(agent_source(expert_spec, config), seed)
    heuristic = build_agent(agent_source("heuristic", config), seed)
    rows: dict[str, list[Any]] = {"observation": [], "mask": [], "expert": [], "student": []}
    while len(rows["expert"]) < decisions:
        game = Game(config, rng.randrange(2**31))
        seat = rng.randrange(config.num_players)
        while not game.rams_over and len(rows["expert"]) < decisions:
            if game.phase >= Phase.DEAL_OVER:
                game.next_deal()
                continue
            player = game.current
            if player != seat:
                game.apply(heuristic.act_game(game, player))
                continue
            legal = game.legal_actions()
            if len(legal) == 1:  # a forced move: nothing to learn, no forward pass
                game.apply(legal[0])
                continue
            seen = observe(game, seat)
            action = student.act(seen)
            rows["observation"].append(seen["observation"])
            rows["mask"].append(seen["action_mask"].astype(bool))
            rows["expert"].append(expert.act_game(game, seat))
            rows["student"].append(action)
            game.apply(action)
    return {
        "observation": np.stack(rows["observation"]).astype(np.float32),
        "mask": np.stack(rows["mask"]),
        "expert": np.asarray(rows["expert"], np.int64),
        "student": np.asarray(rows["student"], np.int64),
    }


def read_shards(folder: Path) -> dict[str, np.ndarray]:
    """Every shard of ``folder``, concatenated (plain arrays: ``allow_pickle=False``)."""
    paths = sorted(folder.glob("shard-*.npz"))
    if not paths:
        raise ValueError(f"no shards in {folder}")
    return concatenated_shards(paths, DISTILL_SHARD)  # checked: DamagedFileError names a damaged file


def fine_tune(
    payload: dict[str, Any],
    data: dict[str, np.ndarray],
    epochs: int,
    lr: float,
    kl: float,
    seed: int,
    device: str = "cpu",
    batch: int = 512,
) -> tuple[torch.nn.Module, list[float]]:
    """The student's network trained on ``data`` (on ``device``, in minibatches of ``batch``): cross-entropy to
    the expert plus ``kl`` times the KL divergence from its own starting policy; returns the network (on the
    CPU) and the mean loss of each epoch."""
    torch.manual_seed(seed)
    net = network_from_checkpoint(payload).to(device)
    teacher = network_from_checkpoint(payload).to(device).eval()
    obs = torch.from_numpy(data["observation"]).to(device)
    mask = torch.from_numpy(data["mask"]).to(device)
    target = torch.from_numpy(data["expert"]).to(device)
    with torch.no_grad():
        start = MaskedCategorical(teacher(obs)[0], mask).probs
    optimizer = torch.optim.Adam(net.parameters(), lr=lr)
    losses = []
    for _ in tqdm(range(epochs), desc="fine-tune", unit="epoch"):
        order = torch.randperm(len(target), device=device)
        total = 0.0
        for rows in order.split(batch):
            dist = MaskedCategorical(net(obs[rows])[0], mask[rows])
            p = start[rows]
            drift = torch.where(mask[rows], p * (torch.log(p.clamp_min(1e-12)) - dist.log_probs), 0.0).sum(-1)
            loss = -dist.log_prob(target[rows]).mean() + kl * drift.mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += float(loss.detach()) * len(rows)
        losses.append(total / len(target))
    return net.cpu().eval(), losses


COLLECTED_BY = ("student", "expert", "variant", "num_players", "shard", "seed")


def collect(data_dir: Path, args: Any, config: RulesConfig, student: Any) -> None:
    """Collect ``args.decisions`` decisions of ``student`` (an agent) labelled by the expert spec ``args.expert``
    into the shards of ``data_dir`` (``args.shard`` each), resuming (:func:`rams_training.shards.collect_shards`);
    ``args`` holds the options of :data:`COLLECTED_BY`, which ``data/collection.json`` records."""
    agent_source(args.expert, config)  # a bad spec fails now, not after the first shard
    one = partial(collect_shard, config, student, args.expert, args.shard)  # each shard's seed last
    collect_shards(data_dir, args, COLLECTED_BY, DISTILL_SHARD, shard_count(args.decisions, args.shard), one)


@dataclass(kw_only=True)
class DistillArgs:
    """The arguments of ``python -m rams_training.distill`` (module docstring), checked as they are made."""

    student: str = arg(REQUIRED, "zoo name or checkpoint of the student network")
    expert: str = arg(REQUIRED, "agent spec of the expert, as rams eval takes it")
    variant: str = arg(REQUIRED, "rules preset (4 players)")
    num_players: int = arg(4, "players at the table (default 4)")
    decisions: int = arg(20000, "decisions to collect (default 20000)", low=1)
    shard: int = arg(500, "decisions per shard (default 500)", low=1)
    out: str = arg(REQUIRED, "run folder (shards, distilled.pt)")
    epochs: int = arg(8, "fine-tuning passes (default 8)", low=1)
    lr: float = arg(1e-4, "Adam learning rate (default 1e-4)", low=0, open_low=True)
    kl: float = arg(1.0, "weight of the KL to the student (default 1)", low=0)
    seed: int = arg(0, "seed of the ramsar and of the fine-tuning", check=SEED)
    threads: int = arg(1, "torch threads (default 1)", low=1)
    device: str = arg("cpu", "torch device of the fine-tuning: cpu or cuda (default cpu)")

    def __post_init__(self) -> None:
        """Every option, before anything is loaded or written (``ValueError`` naming the first bad one)."""
        check_fields(self, option_name)  # each field's type and range, declared with it
        device("device", self.device)
        config = rules(self.variant, self.num_players)
        model("student", self.student, config)
        agent_spec("expert", self.expert, config)


def main(argv: list[str] | None = None) -> int:
    """The command line (module docstring)."""
    args = parse(DistillArgs, argv, "python -m rams_training.distill", __doc__.split("\n\n")[0])
    torch.set_num_threads(args.threads)
    config = make_config(args.variant, args.num_players)
    student_path = locate(args.student)
    payload = load_checkpoint(student_path, expect_config=config)
    student = PolicyAgent(network_from_checkpoint(payload), config)  # the file read once
    out = Path(args.out)
    data_dir = out / "data"
    collect(data_dir, args, config, student)
    try:
        data = read_shards(data_dir)
    except DamagedFileError as err:
        raise SystemExit(str(err)) from None
    net, losses = fine_tune(payload, data, args.epochs, args.lr, args.kl, args.seed, args.device)
    save_checkpoint(out / "distilled.pt", make_checkpoint(net, config, distilled_from=str(args.student)))
    report = {
        "student": str(args.student),
        "expert": args.expert,
        "decisions": len(data["expert"]),
        "expert_differs": float(np.mean(data["expert"] != data["student"])),
        "losses": losses,
        "args": {k: str(v) for k, v in dataclasses.asdict(args).items()},
    }
    write_atomically(out / "distill.json", lambda f: f.write(json.dumps(report, indent=2).encode()))
    print(json.dumps({k: report[k] for k in ("decisions", "expert_differs", "losses")}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
