"""The fields of an arguments dataclass: each made by :func:`arg` (its default, a one-line documentation and
the values it takes: a :class:`Range`, ``check=SEED`` or ``choices``), checked by :func:`check_fields` in the
dataclass's ``__post_init__`` (``ValueError`` naming the field). :func:`field_type` says how a field's type
is read, :data:`PARSERS` read it from text. The command line of such a dataclass is :mod:`rams_env.options`;
``args.json`` and the benchmarks' ``--set KEY=VALUE`` read the same fields. Nothing here parses a command line.
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from rams_env.keyvalue import parse_bool
from rams_env.rules.seeding import require_seed

REQUIRED: Any = dataclasses.MISSING
"""the default of a field the command line must give (the dataclass needs ``kw_only=True``)"""
SEED = "seed"
"""the ``check`` of a field that is a seed: :func:`rams_env.rules.seeding.require_seed`, the one seed rule"""


class Range(NamedTuple):
    """The values a number (or each int of a ``tuple[int, ...]``) may take: ``low`` to ``high`` (None: no
    bound), each included unless ``open_low`` / ``open_high``."""

    low: float | None = None
    high: float | None = None
    open_low: bool = False
    open_high: bool = False

    def __contains__(self, value: Any) -> bool:
        low = self.low is None or (value > self.low if self.open_low else value >= self.low)
        return low and (self.high is None or (value < self.high if self.open_high else value <= self.high))


def arg(
    default: Any,
    doc: str,
    *,
    low: float | None = None,
    high: float | None = None,
    open_low: bool = False,
    open_high: bool = False,
    check: str | None = None,
    choices: Sequence[str] | None = None,
    metavar: str | None = None,
    positional: bool = False,
    nargs: str | None = None,
    repeat: bool = False,
    old_names: Sequence[str] = (),
) -> Any:
    """A field: its default (or :data:`REQUIRED`), its documentation (the option's ``--help``), the
    :class:`Range` of a number (``low``/``high``), ``check=SEED`` or the ``choices`` of a string. On the command
    line: its ``metavar``, whether it is ``positional``, the ``nargs`` of a ``tuple[str, ...]`` (or ``repeat``:
    the option given once per value) and ``old_names``, earlier names still accepted (not shown)."""
    if check not in (None, SEED):
        raise TypeError(f"arg(check=...) takes {SEED!r}, got {check!r}")
    bounds = Range(low, high, open_low, open_high) if low is not None or high is not None else None
    meta = dict(doc=doc, range=bounds, check=check, metavar=metavar, nargs=nargs, positional=positional or None)
    meta.update(choices=None if choices is None else tuple(choices), repeat=repeat or None)
    meta.update(old_names=tuple(old_names) or None)
    return dataclasses.field(default=default, metadata={k: v for k, v in meta.items() if v is not None})


class FieldType(NamedTuple):
    """A field's type as the command line and ``args.json`` read it: ``base`` bool, int, float, str or tuple,
    ``optional`` whether it takes ``None`` too (``X | None``), ``item`` the type of a tuple's items."""

    base: type
    optional: bool
    item: type = int


def field_type(hint: Any) -> FieldType:
    """The :class:`FieldType` of a type hint; ``TypeError`` for any type the command line cannot read."""
    if hint in (bool, int, float, str):
        return FieldType(hint, optional=False)
    if hint in (tuple[int, ...], tuple[str, ...]):
        return FieldType(tuple, optional=False, item=typing.get_args(hint)[0])
    members = typing.get_args(hint)
    if typing.get_origin(hint) in (typing.Union, types.UnionType) and len(members) == 2 and type(None) in members:
        inner = field_type(next(m for m in members if m is not type(None)))
        if not inner.optional:
            return inner._replace(optional=True)
    raise TypeError(
        f"a field cannot be typed {hint!r}: use bool, int, float, str, tuple[int, ...] or tuple[str, ...], or X | None"
    )


def field_types(cls: type) -> dict[str, FieldType]:
    """Every field's :class:`FieldType`, in field order (``TypeError`` for a field without documentation or of
    a type the command line cannot read)."""
    hints, found = typing.get_type_hints(cls), {}
    for f in dataclasses.fields(cls):
        if not f.metadata.get("doc"):
            raise TypeError(f"{cls.__name__}.{f.name} has no documentation: declare it with arg(default, doc)")
        try:
            found[f.name] = field_type(hints[f.name])
        except TypeError as err:
            raise TypeError(f"{cls.__name__}.{f.name}: {err}") from None
    return found


def describe(kind: FieldType, bounds: Range | None = None, check: str | None = None) -> str:
    """What a field takes, in words: ``a positive integer``, ``a number in [0, 1]``, ``a seed``."""
    what = {bool: "true or false", str: "a string", int: "an integer", float: "a number"}.get(kind.base)
    if kind.base is tuple:
        what = "strings" if kind.item is str else "integers joined by commas"
    if check == SEED:
        what = "a seed (an integer from 0 to 2**64 - 1)"
    elif bounds is not None and kind.base in (int, float, tuple) and kind.item is int:
        if kind.base is not float and bounds == Range(1):
            what = "a positive integer" if kind.base is int else "positive integers joined by commas"
        elif bounds.high is None and bounds.low is not None:
            what = f"{what} {'>' if bounds.open_low else '>='} {_number(bounds.low)}"
        else:
            low, high = ("-inf" if b is None else _number(b) for b in (bounds.low, bounds.high))
            left = "(" if bounds.open_low or bounds.low is None else "["
            what = f"{what} in {left}{low}, {high}{')' if bounds.open_high or bounds.high is None else ']'}"
    return f"{what} or unset" if kind.optional else what


def _number(bound: float) -> str:
    """A bound as the help reads it: ``0.5``, ``1024``, ``10000000`` (not ``1e+07``)."""
    return f"{bound:g}" if isinstance(bound, float) else str(bound)


def _fits(kind: FieldType, bounds: Range | None, value: Any) -> bool:
    """Whether ``value`` is of ``kind`` (an int for a float too, never a bool for a number) within ``bounds``."""
    if value is None:
        return kind.optional
    if kind.base is bool or kind.base is str:
        return isinstance(value, kind.base)
    if kind.base is tuple:
        if not isinstance(value, (list, tuple)) or (bounds is not None and not value):  # a range: at least one
            return False
        return all(_fits(FieldType(kind.item, False), bounds, v) for v in value)
    if isinstance(value, bool) or not isinstance(value, int if kind.base is int else (int, float)):
        return False
    return (kind.base is int or math.isfinite(value)) and (bounds is None or value in bounds)


def check_field(name: str, kind: FieldType, metadata: Any, value: Any, label: str | None = None) -> None:
    """``ValueError`` (``SeedError`` for a seed) naming ``label`` (default ``name``) unless ``value`` is what
    the field of ``kind`` and ``metadata`` (:func:`arg`) takes."""
    label = label or name
    if metadata.get("check") == SEED:
        if value is not None or not kind.optional:
            require_seed(value, label)
        return
    if not _fits(kind, metadata.get("range"), value):
        raise ValueError(f"{label} must be {describe(kind, metadata.get('range'))}, got {value!r}")
    choices = metadata.get("choices")
    values = () if value is None else value if kind.base is tuple else (value,)
    if choices is not None and any(v not in choices for v in values):
        raise ValueError(f"{label} must be one of {', '.join(choices)}, got {value!r}")


def check_fields(obj: Any, label: Callable[[str], str] | None = None) -> None:
    """Check every field of the dataclass instance ``obj`` (``label(name)`` names it in the message; default
    the field's name); the first bad one raises."""
    kinds = field_types(type(obj))
    for f in dataclasses.fields(obj):
        check_field(f.name, kinds[f.name], f.metadata, getattr(obj, f.name), label(f.name) if label else None)


def field_docs(cls: type) -> dict[str, str]:
    """Each field's documentation, in field order."""
    return {f.name: f.metadata["doc"] for f in dataclasses.fields(cls)}


def parse_ints(text: str) -> tuple[int, ...]:
    """Positive ints joined by commas (``256,256``); ``ValueError`` for anything else."""
    try:
        values = tuple(int(x) for x in text.split(","))
    except ValueError:
        raise ValueError(f"expected comma-separated integers like 256,256, got {text!r}") from None
    if min(values) < 1:
        raise ValueError(f"expected positive integers, got {text!r}")
    return values


PARSERS: dict[type, Callable[[str], Any]] = {bool: parse_bool, int: int, float: float, str: str, tuple: parse_ints}
"""how a value of a field is read from text, by its base type (``ValueError`` for a bad text)"""
