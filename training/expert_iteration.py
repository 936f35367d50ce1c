"""Expert iteration: the network trained on a search over itself, round after round.

Round r collects ``--decisions-per-round`` decisions into ``OUT/round-r/data/`` with distill's collection
(:func:`rams_training.distill.collect`, on the one collector :func:`rams_training.shards.collect_shards`): the
round's network plays one seat of whole ramsar against heuristics, and the search over it names its action at
each of its decisions. The round's network is round r-1's ``OUT/round-(r-1)/net.pt`` (round 0's: ``--start``),
and the search's ``base`` and ``rollout_policy`` are that checkpoint's path; its other options are
``--search``. The network is then fine-tuned with distill's training (:func:`rams_training.distill.fine_tune`:
cross-entropy to the search plus ``--kl`` times the KL from itself) on the round's shards but the last share
``--held-out`` of them, and written atomically as ``OUT/round-r/net.pt``, which the next round plays and
searches over.

Resuming: ``OUT/state.json`` records the options and each finished round. The same command run again (with a
larger ``--rounds`` to go on) skips the finished rounds, resumes a round's collection at its first missing
shard, and trains an unfinished round again from its start. Every seed derives from ``--seed`` and the round
(:func:`round_seed`), so a stopped run ends with the files of a run never stopped: byte for byte, but for the
time stamps in the shards' zip headers (:mod:`rams_training.shards`). Only ``--rounds``, ``--threads`` and
``--device`` may change on a resume.

``OUT/report.json``: per round, the network and the search, the decisions, the loss of each epoch, and on the
held-out shards how often the round's network (``start``) and the trained one (``trained``) choose the
search's action.

    python -m rams_training.expert_iteration --variant mattmar --rounds 4 --decisions-per-round 50000 \\
        --out runs/ei-mattmar
"""

from __future__ import annotations

import dataclasses
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from rams_env import zoo
from rams_env.agents.neural import PolicyAgent
from rams_env.agents.specs import loaded_policy
from rams_env.options import REQUIRED, SEED, arg, check_fields, option_name, parse
from rams_env.policy.checkpoint import (
    load_checkpoint,
    make_checkpoint,
    network_from_checkpoint,
    save_checkpoint,
    write_atomically,
)
from rams_env.policy.network import MaskedCategorical
from rams_env.rules import make_config
from rams_env.rules.config import RulesConfig

from . import distill
from .checks import OptionError, agent_spec, device, model, rules
from .shards import DISTILL_SHARD, SHARD, DamagedFileError, concatenated_shards, shard_count

PROG = "python -m rams_training.expert_iteration"
NETWORK_KEYS = ("base", "rollout_policy")  # the search's options that each round sets to its network
RESUMABLE = ("rounds", "threads", "device", "out")  # what a resume may change: how far and where, not what
STATE, REPORT, NET = "state.json", "report.json", "net.pt"


def round_seed(seed: int, r: int) -> int:
    """The seed of round ``r`` of a run seeded ``seed`` (its collection's and its training's)."""
    return int(np.random.SeedSequence(seed, spawn_key=(r,)).generate_state(1, np.uint64)[0])


def search_items(text: str) -> list[str]:
    """The ``key=value`` items of a search's options (``simulations=20,objective=win``)."""
    return [item.strip() for item in text.split(",") if item.strip()]


def expert_spec(search: str, network: str) -> str:
    """The agent spec of the search with the options ``search`` over ``network`` (its base and rollout policy)."""
    return "search:" + ",".join([*search_items(search), *(f"{key}={network}" for key in NETWORK_KEYS)])


def preset_search(variant: str) -> tuple[str, str] | None:
    """The preset's named search of the zoo (``<variant>-search``): the network it rolls out with, and its
    options but ``base`` and ``rollout_policy``; None where the zoo has none."""
    named = zoo.named_agent(f"{variant}-search")
    if named is None:
        return None
    name, _, text = zoo.agent_spec(named).partition(":")
    items = search_items(text)
    rollout = [value for key, _, value in (item.partition("=") for item in items) if key == "rollout_policy"]
    if name != "search" or not rollout:
        return None
    return rollout[0], ",".join(item for item in items if item.partition("=")[0] not in NETWORK_KEYS)


def network_name(value: str) -> str:
    """The network ``value`` as a search's spec names it: a zoo name as it is, a file by its absolute path."""
    return str(Path(value).resolve()) if os.path.exists(value) else value


def no_comma(name: str, value: str, path: str) -> None:
    """Refuse an option whose ``path`` would go in an agent spec with a comma (a spec separates its options so)."""
    if "," in path:
        raise OptionError(f"{option_name(name)} {value!r}: its path {path!r} holds a comma, which an agent spec cannot")


def check_search(search: str, network: str, config: RulesConfig) -> None:
    """``--search``: options of the search but the network's, reproducible, and a search that builds."""
    keys = {item.partition("=")[0].strip() for item in search_items(search)}
    fixed = sorted(keys & set(NETWORK_KEYS))
    if fixed:
        raise OptionError(f"--search sets {', '.join(fixed)}: each round sets them to its own network; leave them out")
    if "time_limit" in keys:
        raise OptionError("--search sets time_limit: a search timed by the clock is not reproducible; use simulations")
    agent_spec("search", expert_spec(search, network), config)


def held_out_shards(share: float, shards: int) -> int:
    """How many of a round's ``shards`` (its last) are kept out of training: ``share`` of them, at least one
    where ``share`` is above 0."""
    return max(1, round(share * shards)) if share > 0 else 0


@dataclass(kw_only=True)
class ExpertIterationArgs:
    """The arguments of ``python -m rams_training.expert_iteration`` (module docstring), checked as they are made."""

    variant: str = arg(REQUIRED, "rules preset")
    num_players: int = arg(4, "players at the table (default 4)")
    rounds: int = arg(4, "rounds to have finished; run again with more to go on (default 4)", low=1)
    decisions_per_round: int = arg(
        50000, "search decisions collected each round, in whole shards (default 50000)", low=1
    )
    shard: int = arg(500, "decisions per shard (default 500)", low=1)
    start: str | None = arg(
        None, "zoo name or checkpoint of round 0's network (default: the network of the preset's named search)"
    )
    search: str | None = arg(
        None,
        "the search's options, key=value,... without base and rollout_policy, which each round sets to its "
        "network (default: those of the preset's named search, <variant>-search)",
    )
    held_out: float = arg(
        0.1, "share of each round's shards kept out of training (default 0.1)", low=0, high=1, open_high=True
    )
    epochs: int = arg(8, "fine-tuning passes each round (default 8)", low=1)
    lr: float = arg(1e-4, "Adam learning rate (default 1e-4)", low=0, open_low=True)
    kl: float = arg(1.0, "weight of the KL to the round's network (default 1)", low=0)
    batch: int = arg(512, "decisions per minibatch (default 512)", low=1)
    seed: int = arg(0, "seed of the run: each round's seed derives from it and the round", check=SEED)
    out: str = arg(REQUIRED, "run folder (round-R/data, round-R/net.pt, state.json, report.json)")
    threads: int = arg(1, "torch threads (default 1)", low=1)
    device: str = arg("cpu", "torch device of the fine-tuning: cpu or cuda (default cpu)")

    def __post_init__(self) -> None:
        """Every option, before anything is collected or written (``ValueError`` naming the first bad one); an
        unset ``start`` or ``search`` becomes the preset's named search's."""
        check_fields(self, option_name)  # each field's type and range, declared with it
        device("device", self.device)
        config = rules(self.variant, self.num_players)
        if self.start is None or self.search is None:
            preset = preset_search(self.variant)
            if preset is None:
                raise OptionError(
                    f"--variant {self.variant}: no {self.variant}-search in the zoo; give --start and --search"
                )
            self.start = preset[0] if self.start is None else self.start
            self.search = preset[1] if self.search is None else self.search
        model("start", self.start, config)  # one network, not an ensemble: it is trained
        no_comma("start", self.start, network_name(self.start))
        no_comma("out", self.out, str(Path(self.out).resolve()))  # its round-R/net.pt go in the search's spec
        self.start = network_name(self.start)
        check_search(self.search, self.start, config)
        shards = shard_count(self.decisions_per_round, self.shard)
        if held_out_shards(self.held_out, shards) >= shards:
            raise OptionError(
                f"--held-out {self.held_out} keeps all {shards} shards of a round out of training; "
                "lower it, or collect more shards a round (--decisions-per-round, --shard)"
            )


@dataclass(frozen=True)
class RoundCollection:
    """One round's collection: what :func:`rams_training.distill.collect` takes (``data/collection.json``
    records all but ``decisions``)."""

    student: str
    expert: str
    variant: str
    num_players: int
    shard: int
    seed: int
    decisions: int


def run_options(args: ExpertIterationArgs) -> dict[str, Any]:
    """The options that make a run's files (all but :data:`RESUMABLE`), as ``state.json`` records them."""
    return {k: v for k, v in dataclasses.asdict(args).items() if k not in RESUMABLE}


def load_state(out: Path, options: dict[str, Any]) -> list[dict[str, Any]]:
    """The finished rounds of the run folder ``out`` (none in a new one); ``SystemExit`` for a ``state.json``
    that is unreadable or records other options."""
    path = out / STATE
    if not path.exists():
        return []
    try:
        state = json.loads(path.read_text())
        recorded, rounds = dict(state["options"]), list(state["rounds"])
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise SystemExit(f"{path}: unreadable ({err}); remove the run folder to start again") from None
    differ = [option_name(k) for k in options if recorded.get(k) != options[k]]
    if differ:
        raise SystemExit(
            f"{path}: a run of other {', '.join(differ)}; use another --out, or the same options to resume"
        )
    return rounds


def write_json(path: Path, data: Any) -> None:
    """``data`` as JSON in ``path``, written atomically."""
    write_atomically(path, lambda f: f.write(json.dumps(data, indent=2).encode()))


def write_state(out: Path, options: dict[str, Any], rounds: list[dict[str, Any]]) -> None:
    """``state.json`` (the options and the finished rounds), then ``report.json`` from it."""
    write_json(out / STATE, {"options": options, "rounds": rounds})
    report = {"variant": options["variant"], "num_players": options["num_players"], "rounds": rounds}
    write_json(out / REPORT, report)


def round_data(data_dir: Path, args: ExpertIterationArgs) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray] | None]:
    """A round's shards: those trained on, and the last :func:`held_out_shards` (None where none are)."""
    shards = shard_count(args.decisions_per_round, args.shard)
    paths = [data_dir / SHARD.format(k) for k in range(shards)]
    kept = shards - held_out_shards(args.held_out, shards)
    try:
        train = concatenated_shards(paths[:kept], DISTILL_SHARD)  # checked: a damaged shard is named
        held = concatenated_shards(paths[kept:], DISTILL_SHARD) if kept < shards else None
    except DamagedFileError as err:
        raise SystemExit(str(err)) from None
    return train, held


def agreement(net: torch.nn.Module, data: dict[str, np.ndarray]) -> float:
    """The share of ``data``'s decisions where ``net``'s greedy action is the expert's."""
    with torch.no_grad():
        logits = net(torch.from_numpy(data["observation"]))[0]
        chosen = MaskedCategorical(logits, torch.from_numpy(data["mask"])).mode().numpy()
    return float(np.mean(chosen == data["expert"]))


def round_record(
    what: RoundCollection,
    train: dict[str, np.ndarray],
    held: dict[str, np.ndarray] | None,
    net: Any,
    losses: list[float],
) -> dict[str, Any]:
    """What ``report.json`` says of a finished round (module docstring)."""
    parts = [train] if held is None else [train, held]
    differs = sum(int(np.sum(p["expert"] != p["student"])) for p in parts)
    decisions = sum(len(p["expert"]) for p in parts)
    held_rows = 0 if held is None else len(held["expert"])
    start = None if held is None else float(np.mean(held["expert"] == held["student"]))
    return {
        "network": what.student,
        "search": what.expert,
        "seed": what.seed,
        "decisions": decisions,
        "trained_on": len(train["expert"]),
        "held_out": held_rows,
        "expert_differs": differs / decisions,
        "agreement": None if held is None else {"start": start, "trained": agreement(net, held)},
        "losses": losses,
    }


def run_round(args: ExpertIterationArgs, config: RulesConfig, out: Path, r: int) -> dict[str, Any]:
    """Round ``r`` (module docstring): collect, train, write ``round-r/net.pt``; returns its record."""
    network = args.start if r == 0 else str(out / f"round-{r - 1}" / NET)
    seed = round_seed(args.seed, r)
    what = RoundCollection(
        student=network,
        expert=expert_spec(args.search, network),
        variant=args.variant,
        num_players=args.num_players,
        shard=args.shard,
        seed=seed,
        decisions=args.decisions_per_round,
    )
    print(f"round {r}: {args.decisions_per_round} decisions of {network}, labelled by {what.expert}", flush=True)
    loaded_policy.cache_clear()  # a network file of a run folder made again in this process holds new weights
    payload = load_checkpoint(zoo.locate(network), expect_config=config)
    student = PolicyAgent(network_from_checkpoint(payload), config)
    folder = out / f"round-{r}"
    distill.collect(folder / "data", what, config, student)
    train, held = round_data(folder / "data", args)
    net, losses = distill.fine_tune(payload, train, args.epochs, args.lr, args.kl, seed, args.device, args.batch)
    save_checkpoint(folder / NET, make_checkpoint(net, config, distilled_from=network, expert=what.expert, round=r))
    return {"round": r, **round_record(what, train, held, net, losses)}


def main(argv: list[str] | None = None) -> int:
    """The command line (module docstring)."""
    args = parse(ExpertIterationArgs, argv, PROG, __doc__.split("\n\n")[0])
    torch.set_num_threads(args.threads)
    config = make_config(args.variant, args.num_players)
    out = Path(args.out).resolve()
    options = run_options(args)
    rounds = load_state(out, options)
    for r in range(args.rounds):
        if r < len(rounds):
            print(f"round {r}: finished ({out / STATE})", flush=True)
            continue
        rounds.append(run_round(args, config, out, r))
        write_state(out, options, rounds)
        summary = {k: rounds[-1][k] for k in ("round", "decisions", "expert_differs", "agreement", "losses")}
        print(json.dumps(summary), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
