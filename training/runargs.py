"""A run's saved arguments (``<run_dir>/args.json``), read with bounds and every field's type checked.

``rams train --resume``, the learning-curve plot and the model-card export read this file; a hand-edited
or damaged one is a ``ValueError`` naming the file and the field, never a traceback from deep inside.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rams_env import jsoncheck

from .config import FIELD_TYPES, FieldType

ARGS_DEPTH = jsoncheck.MAX_DEPTH  # args.json has 2 levels: {"hidden": [256, 256]}

_CHECKS: dict[type, tuple[Callable[[Any], bool], str]] = {
    int: (jsoncheck.is_int, "an integer"),
    float: (jsoncheck.is_number, "a number"),
    bool: (lambda v: isinstance(v, bool), "true or false"),
    str: (lambda v: isinstance(v, str), "a string"),
    tuple: (lambda v: isinstance(v, list) and all(jsoncheck.is_int(x) for x in v), "a list of integers"),
}
"""how a saved value is checked, by the field's base type (training/config.py, FIELD_TYPES)"""


def _check(kind: FieldType) -> tuple[Callable[[Any], bool], str]:
    """The check of a saved value of a field of ``kind``, and what it expects (``null`` too for ``X | None``)."""
    check, expected = _CHECKS[kind.base]
    if kind.optional:
        return (lambda v: v is None or check(v)), f"{expected} or null"
    return check, expected


FIELD_CHECKS = {name: _check(kind) for name, kind in FIELD_TYPES.items()}
"""each field's check, made when this module is imported: a field of a type without one fails here"""


def read_run_args(run_dir: str | os.PathLike[str]) -> dict[str, Any]:
    """The arguments saved in ``run_dir/args.json``, lists of ints as tuples; ``ValueError`` naming what is wrong.

    ``FileNotFoundError`` when the folder holds no ``args.json``.
    """
    path = Path(run_dir) / "args.json"
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{run_dir} holds no args.json")
    saved = jsoncheck.read(path, max_depth=ARGS_DEPTH, max_bytes=1024 * 1024)
    if not isinstance(saved, dict):
        raise ValueError(f"{path} is not the arguments of a training run (a JSON object of them)")
    unknown = sorted(set(saved) - set(FIELD_CHECKS))
    if unknown:
        raise ValueError(f"{path} is not the arguments of a training run: unknown fields {unknown[:5]}")
    for name, value in saved.items():
        check, expected = FIELD_CHECKS[name]
        if not check(value):
            raise ValueError(f"{path}: {name!r} must be {expected}, got {jsoncheck.short(value)}")
    return {k: tuple(v) if isinstance(v, list) else v for k, v in saved.items()}
