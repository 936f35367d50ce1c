"""A run's saved arguments (``<run_dir>/args.json``), read with bounds and every field's type checked.

``rams train --resume``, the learning-curve plot and the model-card export read this file; a hand-edited
or damaged one is a ``ValueError`` naming the file and the field, never a traceback from deep inside.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rams_env import jsoncheck

ARGS_DEPTH = jsoncheck.MAX_DEPTH  # args.json has 2 levels: {"hidden": [256, 256]}

_CHECKS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "int": (jsoncheck.is_int, "an integer"),
    "float": (jsoncheck.is_number, "a number"),
    "float | None": (lambda v: v is None or jsoncheck.is_number(v), "a number or null"),
    "bool": (lambda v: isinstance(v, bool), "true or false"),
    "str": (lambda v: isinstance(v, str), "a string"),
    "tuple[int, ...]": (lambda v: isinstance(v, list) and all(jsoncheck.is_int(x) for x in v), "a list of integers"),
}


def read_run_args(run_dir: str | os.PathLike[str]) -> dict[str, Any]:
    """The arguments saved in ``run_dir/args.json``, lists of ints as tuples; ``ValueError`` naming what is wrong.

    ``FileNotFoundError`` when the folder holds no ``args.json``.
    """
    from .config import TrainArgs  # torch: imported when a run is read, not with this module

    path = Path(run_dir) / "args.json"
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{run_dir} holds no args.json")
    saved = jsoncheck.read(path, max_depth=ARGS_DEPTH, max_bytes=1024 * 1024)
    fields = {f.name: str(f.type) for f in dataclasses.fields(TrainArgs)}
    if not isinstance(saved, dict):
        raise ValueError(f"{path} is not the arguments of a training run (a JSON object of them)")
    unknown = sorted(set(saved) - set(fields))
    if unknown:
        raise ValueError(f"{path} is not the arguments of a training run: unknown fields {unknown[:5]}")
    for name, value in saved.items():
        check, expected = _CHECKS.get(fields[name], (lambda v: True, ""))
        if not check(value):
            raise ValueError(f"{path}: {name!r} must be {expected}, got {jsoncheck.short(value)}")
    return {k: tuple(v) if isinstance(v, list) else v for k, v in saved.items()}
