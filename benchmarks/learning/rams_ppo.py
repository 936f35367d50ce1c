"""The project's own pipeline: the ``quick`` recipe of ``rams train`` (training/cli.py), bounded by time.

Imitation of the compiled heuristic (``imitation`` decisions, 2M in the recipe), then PPO with one
learning seat against three compiled heuristics on the win reward of whole ramsar. ``train_for`` runs
the imitation first (as ``Trainer.run`` does), then ``Trainer.train_update`` until the time passes.
The decisions it reports are both kinds: the heuristic's decisions the network imitated and the
learner's PPO decisions, since the network learned from each; ``info()`` gives them apart.

``--set KEY=VALUE`` overrides any :class:`rams_training.config.TrainArgs` field of the recipe but those the
harness sets (say ``imitation=20000 num_games=16`` for a smoke test): the schema of
:mod:`benchmarks.learning.schemas`, checked before any file is written.
"""

from __future__ import annotations

import dataclasses
import shutil
import time
from pathlib import Path
from typing import Any

from rams_env.agents.neural import PolicyAgent
from rams_env.policy import make_checkpoint, save_checkpoint
from rams_training.run import Trainer

from .harness import Settings
from .schemas import RAMS_RECIPE as RECIPE
from .schemas import check_options, rams_train_args


class RamsPPO:
    """``rams train quick`` as a :class:`~benchmarks.learning.harness.Pipeline`."""

    name = "rams"

    def __init__(self, settings: Settings, **options: Any) -> None:
        self.folder = Path(settings.out) / self.name
        self.args = rams_train_args(settings, check_options(self.name, options, settings))  # before any file
        run_dir = Path(self.args.run_dir)
        if (run_dir / "args.json").exists():  # an earlier benchmark's run: this one, started, replaces it
            shutil.rmtree(run_dir)
        self.trainer = Trainer(self.args)
        self.imitation_seconds = 0.0

    def train_for(self, seconds: float) -> int:
        """Imitation first (once), then PPO updates (at least one) until ``seconds`` pass; imitated + learner
        decisions."""
        started = time.perf_counter()
        trainer = self.trainer
        if self.args.imitation and not trainer.imitated:
            trainer.imitate()
            self.imitation_seconds = time.perf_counter() - started
        while True:  # at least one update a call, so that every point of the curve has PPO in it
            trainer.train_update()
            if time.perf_counter() - started >= seconds:
                return trainer.imitated + trainer.steps

    def agent(self) -> PolicyAgent:
        """The current network, greedy (a copy on the CPU)."""
        return self.trainer.agent()

    def save(self) -> Path:
        """The current network as a project checkpoint, ``policy.pt`` (``rams eval`` loads it)."""
        path = self.folder / "policy.pt"
        payload = make_checkpoint(
            self.trainer.net, self.trainer.config, trained_by=f"benchmarks.learning rams ({RECIPE} recipe)"
        )
        save_checkpoint(path, payload)
        return path

    def info(self) -> dict[str, Any]:
        """The decisions by kind, the updates and the recipe's arguments."""
        return {
            "recipe": RECIPE,
            "imitation_decisions": self.trainer.imitated,
            "imitation_seconds": self.imitation_seconds,
            "ppo_decisions": self.trainer.steps,
            "ppo_updates": self.trainer.updates,
            "args": {k: list(v) if isinstance(v, tuple) else v for k, v in dataclasses.asdict(self.args).items()},
        }

    def close(self) -> None:
        """Close the trainer's envs and give its folder back."""
        self.trainer.close()
