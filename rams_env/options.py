"""One builder of command-line options from a dataclass, for every command: the ``rams`` subcommands, the
training and evaluation scripts, ``rams exploit``, ``rams psro``, the export and the benchmark harness.

A command declares its arguments as a dataclass whose fields are made by :func:`arg` (a default, a
one-line documentation, which is the option's ``--help``, and the :class:`Range` of a number or
``check=SEED``) and whose ``__post_init__`` checks them (:func:`check_fields` for every type and range,
then what relates fields; ``ValueError`` naming the option); :func:`add_options` gives it one option per
field, and :func:`parse` reads a command line into it (a bad value is ``parser.error``, exit status 2).
Field types are those :func:`field_type` reads: bool, int, float, str, ``tuple[int, ...]`` (one option,
ints joined by commas), ``tuple[str, ...]`` (several words: ``nargs`` or a ``repeat``-ed option), each
optionally ``| None``. A bool is one pair of flags everywhere, ``--flag``/``--no-flag`` (argparse's
``BooleanOptionalAction``); :data:`PARSERS` reads a field's value from text (``KEY=VALUE`` settings, where a
bool is true/false). How a field shows on the command line is its :func:`arg` too: ``metavar``, a
``positional`` argument, ``nargs``, ``repeat`` and ``old_names`` (earlier spellings, accepted and not
shown). With ``validate=True`` :func:`add_options` checks each value against its field as it is read (a
bad one is ``parser.error``). Every action :func:`add_options` adds names its field (:data:`FIELD_ATTR`),
so a test can tell a command's options all come from dataclasses. The training package imports this
module; nothing here imports the training package.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import types
import typing
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple, NoReturn, TypeVar

from rams_env.keyvalue import parse_bool
from rams_env.rules.seeding import require_seed

T = TypeVar("T")

REQUIRED: Any = dataclasses.MISSING
"""the default of a field the command line must give (the dataclass needs ``kw_only=True``)"""


class Range(NamedTuple):
    """The values a number (or each int of a ``tuple[int, ...]``) may take: from ``low`` to ``high``
    (None: no bound), each bound included unless ``open_low`` / ``open_high``. Floats are finite."""

    low: float | None = None
    high: float | None = None
    open_low: bool = False
    open_high: bool = False

    def __contains__(self, value: Any) -> bool:
        if self.low is not None and (value <= self.low if self.open_low else value < self.low):
            return False
        return self.high is None or (value < self.high if self.open_high else value <= self.high)

    def text(self) -> str:
        """The range as an interval: ``[0, 1]``, ``(0, inf)``, ``[1, 1024]``."""
        low = "-inf" if self.low is None else f"{self.low:g}"
        high = "inf" if self.high is None else f"{self.high:g}"
        left = "(" if self.open_low or self.low is None else "["
        right = ")" if self.open_high or self.high is None else "]"
        return f"{left}{low}, {high}{right}"


SEED = "seed"
"""the ``check`` of a field that is a seed: :func:`rams_env.rules.seeding.check_seed`, the one seed rule"""


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
    """A field of an arguments dataclass: its default (or :data:`REQUIRED`), its documentation, and the
    :class:`Range` of its values (``low``/``high``; :func:`check_fields` checks it) or ``check=SEED``, or the
    ``choices`` of a string (the option takes only those). On the command line: its ``metavar``, whether it
    is ``positional``, the ``nargs`` of a ``tuple[str, ...]`` (``"+"``, ``"*"``; or ``repeat``: the option
    given once per value) and ``old_names``, earlier names of the option still accepted (not shown)."""
    metadata: dict[str, Any] = {"doc": doc}
    if choices is not None:
        metadata["choices"] = tuple(choices)
    shown = {"metavar": metavar, "nargs": nargs}
    metadata.update({key: value for key, value in shown.items() if value is not None})
    if positional:
        metadata["positional"] = True
    if repeat:
        metadata["repeat"] = True
    if old_names:
        metadata["old_names"] = tuple(old_names)
    if low is not None or high is not None:
        metadata["range"] = Range(low, high, open_low, open_high)
    if check is not None:
        if check != SEED:
            raise TypeError(f"arg(check=...) takes {SEED!r}, got {check!r}")
        metadata["check"] = check
    return dataclasses.field(default=default, metadata=metadata)


class FieldType(NamedTuple):
    """A field's type as the command line and ``args.json`` read it: ``base`` is one of :data:`BASE_TYPES`,
    ``optional`` whether it also takes ``None`` (``X | None``), ``item`` the type of a tuple's items
    (int or str)."""

    base: type
    optional: bool
    item: type = int


BASE_TYPES = (bool, int, float, str, tuple)
"""what a field may be: bool, int, float, str or tuple[int, ...] or tuple[str, ...] (``tuple``), each
optionally ``| None``"""


def field_type(hint: Any) -> FieldType:
    """The :class:`FieldType` of a type hint; ``TypeError`` for any type the command line cannot read."""
    if hint in (bool, int, float, str):
        return FieldType(hint, optional=False)
    if hint == tuple[int, ...]:
        return FieldType(tuple, optional=False)
    if hint == tuple[str, ...]:
        return FieldType(tuple, optional=False, item=str)
    members = typing.get_args(hint)
    if typing.get_origin(hint) in (typing.Union, types.UnionType) and len(members) == 2 and type(None) in members:
        inner = field_type(next(m for m in members if m is not type(None)))
        if not inner.optional:
            return FieldType(inner.base, optional=True, item=inner.item)
    raise TypeError(
        f"a field cannot be typed {hint!r}: use bool, int, float, str, tuple[int, ...] or tuple[str, ...], or X | None"
    )


def field_types(cls: type) -> dict[str, FieldType]:
    """Every field's :class:`FieldType`, in field order (``TypeError`` for a field without documentation
    or of a type the command line cannot read)."""
    hints = typing.get_type_hints(cls)
    found = {}
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
    if check == SEED:
        text = "a seed (an integer from 0 to 2**64 - 1)"
    elif kind.base is bool:
        text = "true or false"
    elif kind.base is str:
        text = "a string"
    elif kind.base is tuple and kind.item is str:
        text = "strings"
    else:
        what = {int: "an integer", float: "a number", tuple: "integers joined by commas"}[kind.base]
        if bounds is None:
            text = what
        elif kind.base is not float and bounds == Range(1):
            text = "a positive integer" if kind.base is int else "positive integers joined by commas"
        elif bounds.high is None and bounds.low is not None:
            text = f"{what} {'>' if bounds.open_low else '>='} {bounds.low:g}"
        else:
            text = f"{what} in {bounds.text()}"
    return f"{text} or unset" if kind.optional else text


def _fits(kind: FieldType, bounds: Range | None, value: Any) -> bool:
    """Whether ``value`` is of ``kind`` (an int for a float too, never a bool for a number) within ``bounds``."""
    if value is None:
        return kind.optional
    if kind.base is bool or kind.base is str:
        return isinstance(value, kind.base)
    if kind.base is tuple:
        items = list(value) if isinstance(value, (list, tuple)) else None
        if items is None or (bounds is not None and not items):  # widths with a range: at least one
            return False
        return all(_fits(FieldType(kind.item, False), bounds, v) for v in items)
    if isinstance(value, bool) or not isinstance(value, int if kind.base is int else (int, float)):
        return False
    if kind.base is float and not math.isfinite(value):
        return False
    return bounds is None or value in bounds


def check_field(name: str, kind: FieldType, metadata: Any, value: Any, label: str | None = None) -> None:
    """``ValueError`` (``SeedError`` for a seed) naming ``label`` (default ``name``) unless ``value`` is what
    the field of ``kind`` and ``metadata`` takes (:func:`arg`)."""
    label = label or name
    if metadata.get("check") == SEED:
        if value is None and kind.optional:
            return
        require_seed(value, label)
        return
    bounds = metadata.get("range")
    if not _fits(kind, bounds, value):
        raise ValueError(f"{label} must be {describe(kind, bounds)}, got {value!r}")
    choices = metadata.get("choices")
    values = value if kind.base is tuple and value is not None else () if value is None else (value,)
    if choices is not None and any(v not in choices for v in values):
        raise ValueError(f"{label} must be one of {', '.join(choices)}, got {value!r}")


def check_fields(obj: Any, label: Callable[[str], str] | None = None) -> None:
    """Check every field of the dataclass instance ``obj`` against its type and its :func:`arg` range
    (``label(name)`` names it in the message; default the field's name); the first bad one raises."""
    kinds = field_types(type(obj))
    for f in dataclasses.fields(obj):
        check_field(f.name, kinds[f.name], f.metadata, getattr(obj, f.name), label(f.name) if label else None)


def field_docs(cls: type) -> dict[str, str]:
    """Each field's documentation, in field order."""
    return {f.name: f.metadata["doc"] for f in dataclasses.fields(cls)}


def parse_bool_option(text: str) -> bool:
    """A boolean read from text, as a ``KEY=VALUE`` setting gives it (true/false, yes/no, 1/0)."""
    try:
        return parse_bool(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def parse_ints(text: str) -> tuple[int, ...]:
    """An option's positive ints joined by commas (``256,256``)."""
    try:
        values = tuple(int(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers like 256,256, got {text!r}") from None
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"expected positive integers, got {text!r}")
    return values


PARSERS: dict[type, Callable[[str], Any]] = {
    bool: parse_bool_option,
    int: int,
    float: float,
    str: str,
    tuple: parse_ints,
}
"""how an option's text is read, by the field's base type (``X | None`` reads as ``X``: unset is the default)"""


def option_name(field: str) -> str:
    """The option of a field: ``--num-players`` for ``num_players``."""
    return f"--{field.replace('_', '-')}"


FIELD_ATTR = "dataclass_field"
"""the attribute of each argparse action :func:`add_options` adds: ``Class.field`` of the field it reads"""


def expected(kind: FieldType, bounds: Range | None) -> str:
    """What an option takes, as its parse error says it: ``a positive integer up to 1,024``."""
    if kind.base is int and bounds is not None and bounds.low in (0, 1) and not bounds.open_low:
        what = "a positive integer" if bounds.low == 1 else "a non-negative integer"
        if bounds.high is None:
            return what
        if not bounds.open_high:
            return f"{what} up to {bounds.high:,.0f}"
    return describe(FieldType(kind.base, False, kind.item), bounds)


def checked_parser(kind: FieldType, metadata: Any) -> Callable[[str], Any]:
    """The text parser of a field (one item of a ``tuple[str, ...]``) that also checks the value against the
    field's range or seed rule (``argparse.ArgumentTypeError``: ``expected a positive integer, got 0``)."""
    read = str if kind.base is tuple and kind.item is str else PARSERS[kind.base]
    bounds, seed = metadata.get("range"), metadata.get("check") == SEED
    if bounds is None and not seed:
        return read
    wanted = "a seed (an integer from 0 to 2**64 - 1)" if seed else expected(kind, bounds)

    def parse(text: str) -> Any:
        try:
            value = read(text)
        except (ValueError, argparse.ArgumentTypeError):
            raise argparse.ArgumentTypeError(f"expected {wanted}, got {text!r}") from None
        try:
            check_field("", FieldType(kind.base, False, kind.item), metadata, value)
        except ValueError:
            shown = f"{value:,}" if isinstance(value, int) else repr(value)
            raise argparse.ArgumentTypeError(f"expected {wanted}, got {shown}") from None
        return value

    parse.__name__ = kind.base.__name__  # argparse's "invalid int value" names the type
    return parse


def add_options(
    parser: argparse.ArgumentParser | argparse._ArgumentGroup,
    cls: type,
    unset: bool = False,
    extra_help: Callable[[str], str] | None = None,
    only: Sequence[str] | None = None,
    validate: bool = False,
    choices: bool = True,
) -> None:
    """One option per field of ``cls``, help from its documentation (and ``extra_help(name)`` after it);
    its default the field's (with ``unset``: None, so that the caller sees which were given). A bool is
    ``--flag``/``--no-flag``. ``parser`` may be an argument group (a mutually exclusive one too); ``only``:
    these fields alone. ``validate``: each value is checked against its field's range or seed rule as it is
    read; ``choices=False``: a field's choices are shown in the help but left to the command's own check (its
    message). Each action added carries its field's name (:data:`FIELD_ATTR`)."""
    kinds = field_types(cls)
    for f in dataclasses.fields(cls):
        if only is not None and f.name not in only:
            continue
        kind, meta = kinds[f.name], f.metadata
        text = (meta["doc"] + (extra_help(f.name) if extra_help else "")).replace("%", "%%")  # % for argparse
        options: dict[str, Any] = {"help": text}
        if kind.base is bool:
            options["action"] = argparse.BooleanOptionalAction
        elif kind.base is tuple and kind.item is str:
            options["type"] = checked_parser(kind, meta) if validate else str
            if meta.get("repeat"):
                options["action"] = "append"
            else:
                options["nargs"] = meta.get("nargs", "+")
        else:
            options["type"] = checked_parser(kind, meta) if validate else PARSERS[kind.base]
            if "nargs" in meta:
                options["nargs"] = meta["nargs"]
        if "choices" in meta and choices:
            options["choices"] = meta["choices"]
        elif "choices" in meta:
            options["help"] += f" ({', '.join(meta['choices'])})"
        if "metavar" in meta:
            options["metavar"] = meta["metavar"]
        if meta.get("positional"):
            names = [f.name]
            if f.default is not REQUIRED:
                options["default"] = f.default
                options.setdefault("nargs", "?")
        else:
            names = [option_name(f.name)]
            if f.default is REQUIRED and not unset:
                options["required"] = True
            else:
                default = None if unset or f.default is REQUIRED else f.default
                appended = options.get("action") == "append" and default is not None
                options["default"] = list(default) if appended else default  # append needs a list
        action = parser.add_argument(*names, **options)
        setattr(action, FIELD_ATTR, f"{cls.__name__}.{f.name}")
        for old in meta.get("old_names", ()):  # earlier spellings: same field, not shown
            hidden = {k: v for k, v in options.items() if k not in ("help", "required", "default", "metavar")}
            alias = parser.add_argument(
                option_name(old), dest=f.name, default=argparse.SUPPRESS, help=argparse.SUPPRESS, **hidden
            )
            setattr(alias, FIELD_ATTR, f"{cls.__name__}.{f.name}")


def from_namespace(cls: type[T], namespace: argparse.Namespace, **changes: Any) -> T:
    """A ``cls`` of the fields of ``namespace`` (lists read by ``nargs`` or ``repeat`` become tuples), with
    ``changes`` applied; its checks raise as the dataclass's do."""
    values = {f.name: getattr(namespace, f.name) for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    values = {k: tuple(v) if isinstance(v, list) else v for k, v in values.items()}
    return cls(**{**values, **changes})


def error(prog: str, message: str) -> NoReturn:
    """Stop as ``parser.error`` stops on a bad option found after parsing: the message, exit status 2."""
    argparse.ArgumentParser(prog=prog).exit(2, f"{prog}: error: {message}\n")


Part = type | tuple[type, Sequence[str]]
"""what :func:`options_parser` adds: every field of a dataclass, or ``(cls, names)``: those fields alone"""


def options_parser(
    description: str,
    *parts: Part,
    prog: str | None = None,
    validate: bool = False,
    formatter_class: type[argparse.HelpFormatter] = argparse.ArgumentDefaultsHelpFormatter,
) -> argparse.ArgumentParser:
    """A parser whose every option is a dataclass field: :func:`add_options` of each part in turn (a script
    that takes the rules options adds ``(RulesOptions, ["variant"])`` before its own dataclass); its help
    shows the defaults (``formatter_class``)."""
    parser = argparse.ArgumentParser(prog=prog, description=description, formatter_class=formatter_class)
    for part in parts:
        cls, only = part if isinstance(part, tuple) else (part, None)
        add_options(parser, cls, only=only, validate=validate)
    return parser


def parse(
    cls: type[T],
    argv: Sequence[str] | None,
    prog: str | None,
    description: str,
    validate: bool = False,
    formatter_class: type[argparse.HelpFormatter] = argparse.HelpFormatter,
) -> T:
    """The arguments of a command line as a ``cls`` (its checks failing as ``parser.error``; ``validate``:
    each value checked as it is read, :func:`add_options`)."""
    parser = options_parser(description, cls, prog=prog, validate=validate, formatter_class=formatter_class)
    namespace = parser.parse_args(argv)
    try:
        return from_namespace(cls, namespace)
    except (TypeError, ValueError) as err:
        parser.error(str(err))
        raise  # parser.error exits
