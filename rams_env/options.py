"""The command line of an arguments dataclass (fields made by :func:`rams_env.fields.arg`) on argparse: the one
module that builds parsers. (tyro, CleanRL's, does not fit: its errors are boxes of several lines, not the one
``prog: error: ...`` line of every command.) :func:`add_options` gives a parser or a section of it one option
per field (``--num-players`` for ``num_players``; a bool ``--flag``/``--no-flag``), :func:`options_parser` is a
parser of dataclasses, :func:`parse` reads a command line into one (its ``ValueError``: exit status 2) and
:func:`commands_parser` a parser of subcommands, each adding its options to a :data:`Parser`.
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Callable, Sequence
from typing import Any, NoReturn, TypeVar

from rams_env.fields import (  # noqa: F401 (re-exported: the commands import them with their options)
    PARSERS,
    REQUIRED,
    SEED,
    FieldType,
    arg,
    check_field,
    check_fields,
    describe,
    field_docs,
    field_type,
    field_types,
)

T = TypeVar("T")
Parser = argparse.ArgumentParser
"""what a command's ``configure`` hook adds its options to (``add_argument_group`` makes a section)"""
Namespace = argparse.Namespace
"""what a parser reads: one attribute per field"""
FIELD_ATTR = "dataclass_field"
"""the attribute of each action :func:`add_options` adds: ``Class.field`` of the field it reads"""


def option_name(field: str) -> str:
    """The option of a field: ``--num-players`` for ``num_players``."""
    return f"--{field.replace('_', '-')}"


def _reader(kind: FieldType, meta: Any, validate: bool) -> Callable[[str], Any]:
    """The ``type`` of a field's option: its text read by :data:`PARSERS`, with ``validate`` checked against
    the field's range or seed rule (else a parse error saying what it takes)."""
    one = FieldType(str, False) if kind.base is tuple and kind.item is str else kind._replace(optional=False)
    checked = validate and ("range" in meta or "check" in meta)

    def read(text: str) -> Any:
        value = text
        try:
            value = PARSERS[one.base](text)
            if checked:
                check_field("", one, meta, value)
        except ValueError:
            wanted = describe(one, meta.get("range"), meta.get("check"))
            raise argparse.ArgumentTypeError(f"expected {wanted}, got {value!r}") from None
        return value

    return read


def add_options(
    parser: Parser | argparse._ArgumentGroup,
    cls: type,
    unset: bool = False,
    extra_help: Callable[[str], str] | None = None,
    only: Sequence[str] | None = None,
    validate: bool = False,
    choices: bool = True,
) -> None:
    """One option per field of ``cls`` (``only``: these), its help the field's documentation and
    ``extra_help(name)``, its default the field's (``unset``: None, so the caller sees which were given).
    ``parser`` may be a section or a mutually exclusive group. ``validate``: a value outside the field's range
    or seed rule is refused as it is read (else the dataclass's check refuses it). ``choices=False``: a field's
    choices are listed in its help, left to the command's own check (its message)."""
    kinds = field_types(cls)
    for f in dataclasses.fields(cls):
        if only is not None and f.name not in only:
            continue
        kind, meta = kinds[f.name], f.metadata
        text = meta["doc"] + (extra_help(f.name) if extra_help else "")
        given: dict[str, Any] = {"help": text.replace("%", "%%")}  # argparse formats the help with %
        given.update({key: meta[key] for key in ("choices", "metavar", "nargs") if key in meta})
        if not choices and "choices" in meta:
            given["help"] += f" ({', '.join(given.pop('choices'))})"
        if kind.base is bool:
            given["action"] = argparse.BooleanOptionalAction
        else:
            given["type"] = _reader(kind, meta, validate)
        if kind.base is tuple and kind.item is str and meta.get("repeat"):
            given["action"] = "append"
        elif kind.base is tuple and kind.item is str:
            given.setdefault("nargs", "+")
        default = None if unset or f.default is REQUIRED else f.default
        if meta.get("positional"):
            names = [f.name]
            if f.default is not REQUIRED:
                given.update(default=f.default, nargs=given.get("nargs", "?"))
        else:
            names = [option_name(f.name)]
            if f.default is REQUIRED and not unset:
                given["required"] = True
            else:  # append adds to a list
                appended = given.get("action") == "append" and default is not None
                given["default"] = list(default) if appended else default
        action = parser.add_argument(*names, **given)
        setattr(action, FIELD_ATTR, f"{cls.__name__}.{f.name}")
        hidden = {k: v for k, v in given.items() if k not in ("help", "required", "default", "metavar")}
        for old in meta.get("old_names", ()):  # earlier spellings: the same field, not shown
            alias = parser.add_argument(
                option_name(old), dest=f.name, default=argparse.SUPPRESS, help=argparse.SUPPRESS, **hidden
            )
            setattr(alias, FIELD_ATTR, f"{cls.__name__}.{f.name}")


def from_namespace(cls: type[T], namespace: Namespace, **changes: Any) -> T:
    """A ``cls`` of the fields of ``namespace`` (lists become tuples), with ``changes``; its checks raise."""
    values = {f.name: getattr(namespace, f.name) for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    return cls(**{**{k: tuple(v) if isinstance(v, list) else v for k, v in values.items()}, **changes})


def error(prog: str, message: str) -> NoReturn:
    """Stop as ``parser.error`` stops on a bad option found after parsing: the message, exit status 2."""
    argparse.ArgumentParser(prog=prog).exit(2, f"{prog}: error: {message}\n")


class _Formatter(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Each option's default after its help; the description and the epilog as they are written."""


def options_parser(
    description: str,
    *parts: type | tuple[type, Sequence[str]],
    prog: str | None = None,
    validate: bool = False,
    epilog: str | None = None,
) -> Parser:
    """A parser of the fields of each part in turn (a dataclass, or ``(cls, names)``: those fields); its help
    shows the defaults."""
    parser = argparse.ArgumentParser(prog=prog, description=description, formatter_class=_Formatter, epilog=epilog)
    for part in parts:
        cls, only = part if isinstance(part, tuple) else (part, None)
        add_options(parser, cls, only=only, validate=validate)
    return parser


def parse(cls: type[T], argv: Sequence[str] | None, prog: str | None, description: str, validate: bool = False) -> T:
    """The command line as a ``cls``: a bad value, or a ``ValueError`` of its checks, is ``parser.error``."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    add_options(parser, cls, validate=validate)
    namespace = parser.parse_args(argv)
    try:
        return from_namespace(cls, namespace)
    except (TypeError, ValueError) as err:
        parser.error(str(err))


def commands_parser(prog: str, description: str, commands: Sequence[Any]) -> Parser:
    """A parser of subcommands, one per command (its ``name``, ``help``, ``configure(parser)``); what it reads
    names the command (``command``) and holds its ``run``."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in commands:
        child = sub.add_parser(command.name, help=command.help, description=command.help)
        command.configure(child)
        child.set_defaults(run=command.run)
    return parser
