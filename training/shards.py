"""What the collecting scripts (``beliefs``, ``distill``, ``improve``) share: the one shard collector
(:func:`collect_shards`), the shards' names, the record of what a run folder's shards were collected
with, the check of ``--device``, and the checked reading of the shards (``data/shard-NNNNN.npz``).

The collector writes numbered shards, each atomically and each seeded by its number
(:func:`shard_seed`), so a stopped collection resumes at the first shard missing and ends with the
same files as a collection never stopped (byte for byte but for the time stamps that ``np.savez``
gives each member of the zip).

Atomic writes keep a stopped collection whole, but disks and copies damage files too. Every shard is
read here: each array the script needs must be present, readable (the zip's CRC checks the bytes),
of the expected kind and shape, with as many rows as the others, and its action ids in range. A
shard that fails is one :class:`DamagedFileError` (a ``ValueError``) naming the file and what is wrong.
A resumed collection sets a damaged shard aside (``shard-NNNNN.npz.damaged``), says so, and collects
it again (:func:`set_aside_if_damaged`); the training never reads it.
"""

from __future__ import annotations

import json
import sys
import zipfile
import zlib
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import torch
from tqdm.auto import tqdm

from rams_env.obs.encoding import ENCODER_VERSION, OBS_SIZE
from rams_env.policy.checkpoint import write_atomically
from rams_env.rules.actions import NUM_ACTIONS
from rams_env.rules.seeding import wrap_seed

SHARD = "shard-{:05d}.npz"  # data/shard-NNNNN.npz, written atomically; a stopped run resumes at its last
COLLECTION = "collection.json"  # what the shards of a run folder were collected with


def check_collection(data_dir: Path, args: Any, keys: tuple[str, ...]) -> None:
    """Record what the shards are collected with (the options ``keys``, and the observation's encoder version:
    shards of two layouts pack to the same width), or on a resume refuse a run that would mix other shards in
    (a ``SystemExit`` naming what differs)."""
    wanted = {k: str(getattr(args, k)) for k in keys}
    wanted["encoder_version"] = str(ENCODER_VERSION)
    keys = (*keys, "encoder_version")
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


AGAIN = "run the same command again to collect it again"


class DamagedFileError(ValueError):
    """A file written by a training script that cannot be used as it is: damaged, truncated or foreign.

    The message names the file, what is wrong (``reason``) and how to make it again."""

    def __init__(self, path: Path, reason: str, remedy: str = AGAIN) -> None:
        super().__init__(f"{path}: {reason}; {remedy}")
        self.path, self.reason = path, reason


class Array(NamedTuple):
    """What one array of a shard must be: its number of dimensions, its dtype kinds (numpy's
    ``dtype.kind`` letters), its second dimension (None: any), and whether it is an action id."""

    ndim: int
    kinds: str
    width: int | None = None
    action: bool = False


IMPROVE_SHARD = {
    "mask": Array(2, "b", NUM_ACTIONS),
    "base": Array(1, "iu", action=True),
    "q": Array(2, "f", NUM_ACTIONS),
    "rams": Array(1, "iu"),
    "obs_bits": Array(2, "u", -(-OBS_SIZE // 8)),
    "obs_dense": Array(2, "f"),
}
"""a shard of ``rams_training.improve`` (its ``obs_dense_cols`` is checked apart: one per dense column)"""

DISTILL_SHARD = {
    "observation": Array(2, "f", OBS_SIZE),
    "mask": Array(2, "b", NUM_ACTIONS),
    "expert": Array(1, "iu", action=True),
    "student": Array(1, "iu", action=True),
}
"""a shard of ``rams_training.distill``"""

BELIEF_SHARD = {
    "observation": Array(2, "f", OBS_SIZE),
    "places": Array(2, "i"),
    "room": Array(2, "i"),
}
"""a shard of ``rams_training.beliefs``"""

_EXTRA = {"obs_dense_cols": Array(1, "iu")}  # arrays read but not one per decision


def read_shard(path: Path, spec: dict[str, Array]) -> dict[str, np.ndarray]:
    """The arrays of ``spec`` (and ``obs_dense_cols`` where the file has one) from the shard ``path``,
    checked (module docstring); :class:`DamagedFileError` naming the file and the remedy."""
    try:
        with np.load(path, allow_pickle=False) as data:
            missing = sorted(set(spec) - set(data.files))
            if missing:
                raise DamagedFileError(path, f"not a shard of this script (no {', '.join(missing)})")
            names = [*spec, *(k for k in _EXTRA if k in data.files)]
            arrays = {key: data[key] for key in names}
    except DamagedFileError:
        raise
    except (OSError, EOFError, ValueError, KeyError, zipfile.BadZipFile, zlib.error) as err:
        raise DamagedFileError(path, f"damaged or truncated ({_reason(err)})") from None
    problem = _shape_problem(arrays, {**spec, **_EXTRA})
    if problem:
        raise DamagedFileError(path, f"damaged ({problem})")
    return arrays


def _reason(err: BaseException) -> str:
    text = str(err).strip() or type(err).__name__
    return f"{type(err).__name__}: {text}" if type(err).__name__ not in text else text


def _shape_problem(arrays: dict[str, np.ndarray], spec: dict[str, Array]) -> str | None:
    """What is wrong with the arrays of a shard read whole, or None."""
    rows = None
    for key, array in arrays.items():
        want = spec[key]
        if array.ndim != want.ndim or array.dtype.kind not in want.kinds:
            return f"{key} is {array.dtype} of shape {array.shape}, not {want.ndim}-dimensional of kind {want.kinds}"
        if want.width is not None and array.shape[1] != want.width:
            return f"{key} has {array.shape[1]} columns, not {want.width}"
        if want.action and array.size and not (array.min() >= 0 and array.max() < NUM_ACTIONS):
            return f"{key} holds an action id outside 0..{NUM_ACTIONS - 1}"
        if key in _EXTRA:
            continue
        if rows is not None and len(array) != rows:
            return f"{key} has {len(array)} rows, the others {rows}"
        rows = len(array)
    cols = arrays.get("obs_dense_cols")
    if "obs_dense" in arrays:
        if cols is None or len(cols) != arrays["obs_dense"].shape[1]:
            return "obs_dense_cols does not name one column per column of obs_dense"
        if cols.size and not (cols.min() >= 0 and cols.max() < OBS_SIZE):
            return f"obs_dense_cols names a column outside 0..{OBS_SIZE - 1}"
    return None


def set_aside_if_damaged(path: Path, spec: dict[str, Array]) -> bool:
    """On a resume: if the shard ``path`` exists but is damaged, rename it ``<name>.damaged`` and say so
    on stderr (the caller then collects it again). True when it was set aside."""
    if not path.exists():
        return False
    try:
        read_shard(path, spec)
    except DamagedFileError as err:
        aside = path.with_name(path.name + ".damaged")
        path.replace(aside)
        print(f"{path}: {err.reason}; set aside as {aside.name}, collecting it again", file=sys.stderr)
        return True
    return False


Shard = dict[str, np.ndarray]
"""one shard's arrays, by name"""


def shard_count(total: int, per_shard: int) -> int:
    """How many shards of ``per_shard`` cover ``total`` (the last one full too: every shard is the same size)."""
    return -(-total // per_shard)


def shard_seed(seed: int, k: int) -> int:
    """The seed of shard ``k`` of a run seeded ``seed``: each shard's own, so a resume collects the same data."""
    return wrap_seed(seed * 100003 + k)


def write_shard(path: Path, shard: Shard) -> None:
    """Write one shard atomically (``np.savez_compressed``; a stopped run never leaves half a shard)."""
    write_atomically(path, lambda f: np.savez_compressed(f, **shard))


def collect_shards(
    data_dir: Path,
    args: Any,
    keys: tuple[str, ...],
    spec: dict[str, Array],
    shards: int,
    collect: Callable[[int], Shard],
    write: Callable[[Path, Shard], None] = write_shard,
) -> None:
    """Collect the shards ``0 .. shards - 1`` of ``data_dir`` (``SHARD``), resuming: make the folder, record
    the options ``keys`` of ``args`` or refuse a resume with others (:func:`check_collection`), then, under a
    progress bar, set each damaged shard aside (:func:`set_aside_if_damaged`, checked against ``spec``) and
    write each missing one, ``write(path, collect(shard_seed(args.seed, k)))``. Shards already whole are kept
    as they are, so a stopped collection run again ends with the shards of one never stopped (module docstring)."""
    data_dir.mkdir(parents=True, exist_ok=True)
    check_collection(data_dir, args, keys)
    for k in tqdm(range(shards), desc="collect", unit="shard"):
        path = data_dir / SHARD.format(k)
        set_aside_if_damaged(path, spec)  # a resume collects a damaged shard again, saying so
        if not path.exists():
            write(path, collect(shard_seed(args.seed, k)))


def concatenated_shards(paths: Iterable[Path], spec: dict[str, Array]) -> Shard:
    """The arrays of ``spec`` from the shards ``paths``, each checked (:func:`read_shard`), concatenated in order."""
    parts = [read_shard(path, spec) for path in paths]
    return {key: np.concatenate([part[key] for part in parts]) for key in spec}
