"""The opponent pool of self-play: frozen past snapshots of the policy, each a checkpoint file.

Training only: it lives here, not in :mod:`rams_env.policy`, which holds what a trained policy needs
to be played (the network, checkpoints, ensembles).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import torch

from rams_env.policy import PolicyNet, load_checkpoint, make_checkpoint, network_from_checkpoint, save_checkpoint
from rams_env.rules import RulesConfig


class OpponentPool:
    """Frozen past snapshots of a policy for self-play, each a checkpoint file in ``folder``.

    The run's checkpoint records :meth:`references` (the file names) and :meth:`restore` reloads
    them, so the pool is saved with the run. The oldest snapshot leaves the pool beyond
    ``capacity``; its file stays until :meth:`prune` is told no checkpoint refers to it (a run
    interrupted between a snapshot and its next checkpoint must still find the old pool).
    """

    def __init__(
        self, folder: str | os.PathLike[str], capacity: int, config: RulesConfig, device: str | torch.device = "cpu"
    ) -> None:
        if capacity < 1:
            raise ValueError(f"the opponent pool needs a capacity of at least 1, got {capacity}")
        self.folder, self.capacity, self.config = Path(folder), capacity, config
        self.device = torch.device(device)
        self._names: list[str] = []
        self._nets: dict[str, PolicyNet] = {}

    def __len__(self) -> int:
        return len(self._names)

    def add(self, net: PolicyNet, update: int) -> Path:
        """Freeze a copy of ``net`` as the snapshot of ``update``."""
        name = f"snapshot_{update:06d}.pt"
        path = self.folder / name
        save_checkpoint(path, make_checkpoint(net, self.config, snapshot_of_update=update))
        self._names.append(name)
        self._nets[name] = self._load(name)
        while len(self._names) > self.capacity:
            self._nets.pop(self._names.pop(0), None)
        return path

    def prune(self, keep: set[str]) -> None:
        """Delete the snapshot files that are neither in the pool nor in ``keep``."""
        for path in self.folder.glob("snapshot_*.pt"):
            if path.name not in keep and path.name not in self._names:
                path.unlink(missing_ok=True)

    def network(self, index: int) -> PolicyNet:
        """The frozen network of snapshot ``index`` (0 = oldest kept)."""
        return self._nets[self._names[index]]

    def references(self) -> list[str]:
        """File names of the snapshots, oldest first (stored in the run's checkpoint)."""
        return list(self._names)

    def restore(self, names: Sequence[str]) -> None:
        """Reload the snapshots a checkpoint refers to; ``CheckpointError`` if one is missing or bad."""
        self._names = [str(n) for n in names]
        self._nets = {name: self._load(name) for name in self._names}

    def _load(self, name: str) -> PolicyNet:
        path = self.folder / name
        payload = load_checkpoint(path, expect_config=self.config)
        return network_from_checkpoint(payload, str(path)).to(self.device).eval()
