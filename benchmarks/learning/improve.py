"""Policy improvement from counterfactual rollouts (training/improve.py), bounded by time.

Each ``train_for(seconds)`` spends a share ``collect_share`` of its time collecting shards of
counterfactual decisions (``collect_shard``, heuristic base, written with ``write_shard``), and the
rest fitting the network to every shard so far (``read_shards``, then ``train``), which goes on from
the weights of the previous chunk. So the curve has a point per chunk, each on more data.

The script's functions are used as they are. Two limits of doing that, which a change in
training/improve.py would lift: ``train`` takes whole epochs (so a fit is sized by the speed of the
previous one and may overshoot) and makes a new Adam optimizer and cosine schedule each call (a
restart of the schedule per chunk); it always shows its tqdm bar. A ``train(..., seconds=)`` bound and
an optimizer passed in would make the split exact.

Decisions: the recorded decisions the network is fitted to (each with every legal action's value), not
counting the epochs over them. ``--set KEY=VALUE``: ``shard`` (ramsar per shard), ``explore``,
``record``, ``random_start``, ``lr``, ``scale``, ``held_out`` (as in ``python -m rams_training.improve``, with
its ranges) and ``collect_share``: :class:`benchmarks.learning.schemas.ImproveSettings`.
"""

from __future__ import annotations

import copy
import shutil
import time
from pathlib import Path
from typing import Any

from rams_env.agents.neural import PolicyAgent
from rams_env.obs import OBS_SIZE
from rams_env.policy import PolicyNet, make_checkpoint, save_checkpoint
from rams_env.rules import make_config
from rams_env.rules.actions import NUM_ACTIONS
from rams_env.rules.seeding import wrap_seed
from rams_training.improve import collect_shard, read_shards, train, write_shard
from rams_training.shards import SHARD

from .harness import Settings
from .schemas import check_options


class Improve:
    """``python -m rams_training.improve`` as a :class:`~benchmarks.learning.harness.Pipeline`."""

    name = "improve"

    def __init__(self, settings: Settings, **options: Any) -> None:
        self.options = check_options(self.name, options, settings)  # before any file
        self.settings = settings
        self.config = make_config(settings.variant, settings.num_players)
        self.folder = Path(settings.out) / self.name
        self.data_dir = self.folder / "data"
        if self.data_dir.exists():  # an earlier benchmark's shards: this one collects its own
            shutil.rmtree(self.data_dir)
        self.data_dir.mkdir(parents=True)
        self.net = PolicyNet(OBS_SIZE, NUM_ACTIONS)
        self.shards = self.decisions = self.epochs = 0
        self.epoch_seconds_per_decision: float | None = None
        self.collect_seconds = self.fit_seconds = 0.0
        self.report: dict[str, Any] = {}

    def collect(self, seconds: float) -> None:
        """Collect shards (at least one) until ``seconds`` pass."""
        started = time.perf_counter()
        o = self.options
        while True:
            seed = wrap_seed(self.settings.seed * 100003 + self.shards)
            shard = collect_shard(self.config, int(o["shard"]), seed, o["explore"], o["record"], o["random_start"])
            write_shard(self.data_dir / SHARD.format(self.shards), shard)
            self.shards += 1
            if time.perf_counter() - started >= seconds:
                break
        self.collect_seconds += time.perf_counter() - started

    def fit(self, seconds: float) -> None:
        """Fit the network to every shard so far, for as many epochs as fit in ``seconds`` (at least one)."""
        started = time.perf_counter()
        data = read_shards(self.data_dir)
        self.decisions = len(data["rams"])
        o = self.options
        fitted = False
        while True:
            left = seconds - (time.perf_counter() - started)
            if self.epoch_seconds_per_decision is None:
                epochs = 1  # no speed measured yet: one epoch, then as many more as the time left holds
            else:
                epochs = int(left / (self.epoch_seconds_per_decision * self.decisions))
                if epochs < 1 and fitted:
                    break
                epochs = max(1, epochs)
            began = time.perf_counter()
            seed = wrap_seed(self.settings.seed + self.epochs)
            self.report = train(
                data, self.net, epochs, o["lr"], o["scale"], seed, o["held_out"], progress=self.settings.progress
            )
            self.epoch_seconds_per_decision = (time.perf_counter() - began) / (epochs * self.decisions)
            self.epochs += epochs
            fitted = True
            if epochs > 1:
                break
        self.fit_seconds += time.perf_counter() - started

    def train_for(self, seconds: float) -> int:
        """Collect for a share of ``seconds``, then fit for the rest; the decisions fitted to."""
        started = time.perf_counter()
        self.collect(self.options["collect_share"] * seconds)
        self.fit(seconds - (time.perf_counter() - started))
        return self.decisions

    def agent(self) -> PolicyAgent:
        """The fitted network, greedy (a copy)."""
        return PolicyAgent(copy.deepcopy(self.net).eval(), self.config, greedy=True)

    def save(self) -> Path:
        """The network as a project checkpoint, ``improved.pt`` (``rams eval`` loads it)."""
        path = self.folder / "improved.pt"
        save_checkpoint(path, make_checkpoint(self.net, self.config, trained_by="benchmarks.learning improve"))
        return path

    def info(self) -> dict[str, Any]:
        """Shards, epochs, the time split and the last fit's held-out regrets."""
        held_out = {k: v for k, v in self.report.items() if k in ("regret_base", "regret_network", "agrees_with_base")}
        return {
            "options": self.options,
            "shards": self.shards,
            "epochs": self.epochs,
            "collect_seconds": self.collect_seconds,
            "fit_seconds": self.fit_seconds,
            "held_out": held_out,
        }

    def close(self) -> None:
        """Nothing to close (the shards stay in ``data/``)."""
