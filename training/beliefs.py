"""Train a belief network: from a seat's observation, where each card hidden from it lies.

Collection: whole ramsar of one preset at every table size it allows (half of them at 4 players, the
rest spread over the other sizes), every seat played by the compiled heuristic or by a trained policy
(the preset's flagship at 4 players, its multi-size model elsewhere), drawn per seat and per rams, so
that the opponents the network learns are of both kinds. At every decision with a choice in the knock
or the play, the seat to act's observation is recorded with the true place of every card hidden from
it (:func:`rams_env.obs.beliefs.hidden_places`) and the size of each place. The labels are free: the
engine knows where every card is. No ramsar starts from a seed below ``FIRST_SEED``, so the deals of
``benchmarks.belief_accuracy`` (seeds 0 to 999) are never trained on. Decisions are written in shards
(``data/shard-NNNNN.npz``, each atomically); a stopped collection resumes at its last shard.

Training: :class:`~rams_env.policy.beliefs.BeliefNet` by cross-entropy of each hidden card's true place
(places without room masked), the last ``--holdout`` share of the shards held out to report the
held-out log-likelihood and the share of the other hands' cards whose likeliest place is right. Each
epoch ends with ``state.pt`` (network, optimizer, generator) written atomically, so a stopped run
resumes at its last epoch; the end writes ``<variant>-beliefs.beliefs.pt`` (what ``SearchAgent(beliefs=)``
and the zoo take) and ``beliefs.json``.

    python -m rams_training.beliefs --variant mattmar --decisions 400000 --out runs/beliefs-mattmar
"""

from __future__ import annotations

import dataclasses
import json
import math
import random
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tqdm.auto import tqdm

from rams_env.agents import load_agent, observe
from rams_env.agents.compiled_heuristic import CompiledHeuristicAgent
from rams_env.obs.beliefs import hidden_places, place_room
from rams_env.options import REQUIRED, SEED, arg, check_fields, option_name, parse
from rams_env.policy.beliefs import BeliefNet, masked_log_likelihood, save_beliefs
from rams_env.policy.checkpoint import read_plain, write_atomically
from rams_env.rules import Game, Phase, make_config
from rams_env.rules.config import PRESETS, RulesConfig
from rams_env.zoo import FLAGSHIPS

from .shards import BELIEF_SHARD, SHARD, DamagedFileError, collect_shards, concatenated_shards, shard_count

FIRST_SEED = 1_000_000  # the ramsar collected start at or above it: benchmarks.belief_accuracy deals seeds below
MULTI_SIZE = {"mattmar": "mattmar-3to7p", "norrlandsknack": "norrlandsknack-3to7p", "rams32": "rams32-3to6p",
              "russian": "russian-3to7p"}  # fmt: skip
SEARCHED = (Phase.KNOCK, Phase.PLAY)  # the decisions recorded: those the search makes


def table_sizes(variant: str) -> list[int]:
    """The table sizes a preset allows."""
    sizes = []
    for n in range(2, 9):
        try:
            make_config(variant, n)
        except ValueError:
            continue
        sizes.append(n)
    return sizes


class Players:
    """The two kinds of player of the collection, per table size: the compiled heuristic and a policy."""

    def __init__(self, variant: str, policy_share: float) -> None:
        self.variant, self.policy_share = variant, policy_share
        self._policies: dict[int, Any] = {}

    def policy(self, config: RulesConfig) -> Any:
        n = config.num_players
        if n not in self._policies:
            name = FLAGSHIPS[self.variant] if n == 4 else MULTI_SIZE[self.variant]
            agent = load_agent(name)
            self._policies[n] = agent if n == 4 else agent.for_table(config)
        return self._policies[n]

    def seats(self, config: RulesConfig, rng: random.Random) -> list[Any]:
        """One player per seat for a rams: a policy with chance ``policy_share``, else the heuristic."""
        heuristic = CompiledHeuristicAgent(config, seed=rng.randrange(2**31))
        return [
            self.policy(config) if rng.random() < self.policy_share else heuristic for _ in range(config.num_players)
        ]


def collect_shard(variant: str, players: Players, decisions: int, seed: int) -> dict[str, np.ndarray]:
    """``decisions`` recorded decisions (module docstring): arrays ``observation`` (float16), ``places``
    (the true place of each card, -1 where not hidden), ``room`` (hidden cards per place)."""
    rng = random.Random(seed)
    sizes = table_sizes(variant)
    others = [n for n in sizes if n != 4] or sizes
    rows: dict[str, list[np.ndarray]] = {"observation": [], "places": [], "room": []}
    while len(rows["places"]) < decisions:
        n = 4 if rng.random() < 0.5 else rng.choice(others)
        config = make_config(variant, n)
        seats = players.seats(config, rng)
        game = Game(config, rng.randrange(FIRST_SEED, 2**31))
        while not game.rams_over and len(rows["places"]) < decisions:
            if game.phase >= Phase.DEAL_OVER:
                game.next_deal()
                continue
            seat = game.current
            if game.phase in SEARCHED and len(game.legal_actions()) > 1:
                rows["observation"].append(observe(game, seat)["observation"].astype(np.float16))
                rows["places"].append(hidden_places(game, seat))
                rows["room"].append(place_room(game, seat))
            game.apply(seats[seat].act_game(game, seat))
    return {key: np.stack(value) for key, value in rows.items()}


def read_data(data_dir: Path, shards: int) -> dict[str, np.ndarray]:
    """The first ``shards`` shards, concatenated and checked (:class:`DamagedFileError` names a bad one)."""
    return concatenated_shards([data_dir / SHARD.format(k) for k in range(shards)], BELIEF_SHARD)


def evaluate(net: BeliefNet, data: dict[str, torch.Tensor]) -> dict[str, float]:
    """Held-out figures: the mean log-likelihood of each hidden card's true place, and the share of the
    other hands' cards whose likeliest place is their true one."""
    net.eval()
    with torch.no_grad():
        logits = torch.cat([net(obs.float()) for obs in data["observation"].split(4096)])
        loglik = float(masked_log_likelihood(logits, data["places"], data["room"]))
        logits = logits.masked_fill((data["room"] <= 0).unsqueeze(1), -torch.inf)
        in_hands = (data["places"] >= 0) & (data["places"] < data["room"].shape[1] - 2)
        right = (logits.argmax(-1) == data["places"].long()) & in_hands
    net.train()
    return {"log_likelihood": loglik, "hand_cards_argmax_right": float(right.sum() / in_hands.sum())}


def train(args: BeliefArgs, data: dict[str, np.ndarray], out: Path) -> tuple[BeliefNet, list[dict[str, float]]]:
    """Train (or resume from ``out/state.pt``) for ``args.epochs`` epochs; the network and each epoch's figures."""
    tensors = {key: torch.from_numpy(value) for key, value in data.items()}
    cut = int(len(data["places"]) * (1 - args.holdout))
    fit = {key: value[:cut] for key, value in tensors.items()}
    held = {key: value[cut:] for key, value in tensors.items()}
    torch.manual_seed(args.seed)
    net = BeliefNet(args.hidden)
    optimizer = torch.optim.Adam(net.parameters(), lr=args.lr)
    history: list[dict[str, float]] = []
    state_path = out / "state.pt"
    if state_path.exists():
        state = read_plain(state_path, "belief training state")
        net.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        torch.set_rng_state(state["rng"])
        history = json.loads(state["history"])
    for epoch in tqdm(range(len(history), args.epochs), desc="train beliefs", unit="epoch", initial=len(history),
                      total=args.epochs):  # fmt: skip
        for group in optimizer.param_groups:  # cosine decay to a tenth over the run
            group["lr"] = args.lr * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * epoch / args.epochs)))
        total = 0.0
        for batch in torch.randperm(cut).split(args.batch):
            loss = -masked_log_likelihood(
                net(fit["observation"][batch].float()), fit["places"][batch], fit["room"][batch]
            )
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += float(loss.detach()) * len(batch)
        history.append({"epoch": epoch + 1, "train_loss": total / cut, **evaluate(net, held)})
        tqdm.write(json.dumps(history[-1]))
        state = {"model": net.state_dict(), "optimizer": optimizer.state_dict(), "rng": torch.get_rng_state(),
                 "history": json.dumps(history)}  # fmt: skip
        write_atomically(state_path, lambda f, state=state: torch.save(state, f))
    return net.eval(), history


COLLECTED_BY = ("variant", "shard", "seed", "policy_share")


@dataclass(kw_only=True)
class BeliefArgs:
    """The arguments of ``python -m rams_training.beliefs`` (module docstring), checked as they are made."""

    variant: str = arg(REQUIRED, "rules preset", choices=PRESETS)
    decisions: int = arg(400_000, "decisions to collect", low=1)
    shard: int = arg(20_000, "decisions per shard", low=1)
    policy_share: float = arg(
        0.5, "chance that a seat is played by the trained policy, else the heuristic", low=0, high=1
    )
    out: str = arg(REQUIRED, "run folder (shards, state.pt, the belief network)")
    hidden: tuple[int, ...] = arg((512, 512), "widths of the hidden layers, joined by commas")
    epochs: int = arg(8, "training passes", low=1)
    batch: int = arg(1024, "decisions per gradient step", low=1)
    lr: float = arg(1e-3, "Adam learning rate (cosine decay to a tenth)", low=0, open_low=True)
    holdout: float = arg(0.05, "share of the decisions held out for the figures", low=0, high=0.5, open_low=True)
    seed: int = arg(0, "seed of the ramsar and of the training", check=SEED)
    threads: int = arg(1, "torch threads", low=1)

    def __post_init__(self) -> None:
        """Every option, before anything is loaded or written (``ValueError`` naming the first bad one)."""
        check_fields(self, option_name)
        if not self.hidden or min(self.hidden) < 1:
            raise ValueError(f"--hidden must be positive widths, got {self.hidden!r}")


def main(argv: list[str] | None = None) -> int:
    """The command line (module docstring)."""
    args = parse(BeliefArgs, argv, "python -m rams_training.beliefs", __doc__.split("\n\n")[0])
    torch.set_num_threads(args.threads)
    out = Path(args.out)
    data_dir = out / "data"
    players = Players(args.variant, args.policy_share)
    shards = shard_count(args.decisions, args.shard)
    collect = partial(collect_shard, args.variant, players, args.shard)  # each shard's seed last
    collect_shards(data_dir, args, COLLECTED_BY, BELIEF_SHARD, shards, collect)
    try:
        data = read_data(data_dir, shards)
    except DamagedFileError as err:
        raise SystemExit(str(err)) from None
    net, history = train(args, data, out)
    options = {k: (list(v) if isinstance(v, tuple) else v) for k, v in dataclasses.asdict(args).items()}
    save_beliefs(out / f"{args.variant}-beliefs.beliefs.pt", net, args.variant, decisions=len(data["places"]),
                 history=json.dumps(history), args=json.dumps(options))  # fmt: skip
    report = {"decisions": len(data["places"]), "history": history, "args": options}
    write_atomically(out / "beliefs.json", lambda f: f.write(json.dumps(report, indent=2).encode()))
    print(json.dumps(history[-1]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
