"""What the collecting scripts (``improve``, ``distill``) share: the shards' names, the record of what
a run folder's shards were collected with, and the check of ``--device``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import torch

from rams_env.policy.checkpoint import write_atomically

SHARD = "shard-{:05d}.npz"  # data/shard-NNNNN.npz, written atomically; a stopped run resumes at its last
COLLECTION = "collection.json"  # what the shards of a run folder were collected with


def check_collection(data_dir: Path, args: Any, keys: tuple[str, ...]) -> None:
    """Record what the shards are collected with (the options ``keys``), or on a resume refuse a run
    that would mix other shards in (a ``SystemExit`` naming the options that differ)."""
    wanted = {k: str(getattr(args, k)) for k in keys}
    path = data_dir / COLLECTION
    if path.exists():
        try:
            recorded = json.loads(path.read_text())
        except (OSError, ValueError) as err:
            raise SystemExit(f"{path}: unreadable ({err}); remove the run folder to start again") from None
        differ = [k for k in keys if not isinstance(recorded, dict) or recorded.get(k) != wanted[k]]
        if differ:
            raise SystemExit(
                f"{data_dir} holds shards collected with other {', '.join(differ)} ({path}); "
                "use another --out, or the same options to resume"
            )
        return
    write_atomically(path, lambda f: f.write(json.dumps(wanted, indent=2).encode()))


def check_device(device: str) -> None:
    """Refuse (``ValueError``) a ``--device`` other than cpu and cuda, and cuda where torch finds none."""
    if device not in ("cpu", "cuda"):
        raise ValueError(f"--device must be cpu or cuda, got {device!r}")
    if device == "cuda" and not torch.cuda.is_available():
        raise ValueError("--device cuda: torch finds no CUDA device here (a CPU build of torch, or no GPU)")
