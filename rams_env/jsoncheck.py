"""JSON from users (game logs, ensemble manifests, a run's ``args.json``, request bodies), read with bounds.

Every reader checks the same things before it uses a value: the size of the text, how deeply it is
nested, and the type of every field it indexes or hashes. Each failure is one :class:`JsonInputError`
(a ``ValueError``) naming the file or field; the readers turn it into their own error
(``CommandError``, ``CheckpointError``, a 400). No numpy or torch: importing this costs nothing.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from typing import Any

MAX_DEPTH = 32  # levels of nesting of any file or body we read (the deepest we write has 4)
MAX_BYTES = 16 * 1024 * 1024  # bytes of a JSON file (a log of a whole match is far smaller)
MAX_PATH = 1024  # characters of a path read from a file (PATH_MAX is 4096, a name at most 255 bytes)
MAX_NAME = 255  # bytes of one component of such a path


class JsonInputError(ValueError):
    """JSON from a user that cannot be used: unreadable, too large, too deep, or a field of the wrong type."""


class NotJsonError(JsonInputError):
    """Text that is not JSON at all (not UTF-8, or a syntax error), as opposed to JSON out of bounds."""


def depth(value: Any) -> int:
    """Levels of nesting of a parsed JSON value (a scalar is 0, ``[]`` is 1), counted without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            children: Sequence[Any] = list(item.values())
        elif isinstance(item, list):
            children = item
        else:
            continue
        deepest = max(deepest, level)
        stack.extend((child, level + 1) for child in children)
    return deepest


def parse(text: str | bytes, where: str, max_depth: int = MAX_DEPTH, max_bytes: int = MAX_BYTES) -> Any:
    """JSON ``text`` parsed, at most ``max_bytes`` long and ``max_depth`` levels deep; else :class:`JsonInputError`."""
    if len(text) > max_bytes:
        raise JsonInputError(f"{where} is larger than {max_bytes:,} bytes")
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as err:
            raise NotJsonError(f"{where} is not UTF-8 text (byte {err.start}: {err.reason}), so not JSON") from None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as err:
        raise NotJsonError(f"{where} is not JSON: {err}") from None
    except RecursionError:
        raise JsonInputError(f"{where}: its JSON is nested too deeply (more than {max_depth} levels)") from None
    except ValueError:  # an integer longer than Python converts (sys.get_int_max_str_digits)
        digits = sys.get_int_max_str_digits()
        raise JsonInputError(f"{where} holds a number of more than {digits} digits") from None
    if depth(value) > max_depth:
        raise JsonInputError(f"{where}: its JSON is nested too deeply (more than {max_depth} levels)")
    return value


def read(path: str | os.PathLike[str], max_depth: int = MAX_DEPTH, max_bytes: int = MAX_BYTES) -> Any:
    """The JSON file at ``path``, read with :func:`parse`'s bounds; :class:`JsonInputError` naming the file."""
    where = str(path)
    try:
        with open(path, "rb") as f:
            data = f.read(max_bytes + 1)
    except OSError as err:
        raise JsonInputError(f"cannot read {where}: {err.strerror or err}") from None
    return parse(data, where, max_depth, max_bytes)


def header_problem(data: Any, where: str, file: tuple[str, str, str], format_name: str, version: int, keys: Any) -> str:
    """What is wrong with a plain-data file's header (``""``: nothing): ``format``, ``format_version`` and no key
    outside ``keys``. ``file`` names it three ways: ``(what it is, its format's kind, what has the keys)``."""
    what, kind, holder = file
    if not isinstance(data, dict) or data.get("format") != format_name:
        return f'{where!r} is not {what} ("format" is not {format_name!r})'
    if data.get("format_version") != version:
        return (
            f"{where!r} has {kind} format version {data.get('format_version')!r}; this rams_env reads version {version}"
        )
    unknown = sorted(set(data) - set(keys))
    if unknown:
        return f"{where!r} has unknown keys {unknown}; {holder} has {sorted(keys)}"
    return ""


def is_int(value: Any) -> bool:
    """An integer that is not a bool (JSON's ``true`` is no seat number)."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: Any) -> bool:
    """An int or float that is not a bool."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def short(value: Any, limit: int = 120) -> str:
    """A value from a file or request as one short line of JSON (``a dict`` where it is no JSON)."""
    try:
        text = json.dumps(value)
    except (TypeError, ValueError, RecursionError):
        text = f"a {type(value).__name__}"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def check_path(text: Any, where: str) -> str:
    """``text`` if it is a usable relative or absolute path string: not empty, no NUL, not over-long.

    ``MAX_PATH`` characters in all and ``MAX_NAME`` bytes a component: the operating system's
    ``File name too long`` is said here, naming the field, before any file is opened.
    """
    if not isinstance(text, str) or not text:
        raise JsonInputError(f"{where} must be a non-empty path string, got {short(text)}")
    if "\0" in text:
        raise JsonInputError(f"{where} must not hold a NUL character")
    if len(text) > MAX_PATH:
        raise JsonInputError(f"{where} is {len(text):,} characters long; a path may have at most {MAX_PATH}")
    longest = max(len(part.encode("utf-8", "surrogatepass")) for part in text.replace("\\", "/").split("/"))
    if longest > MAX_NAME:
        raise JsonInputError(f"{where} has a name of {longest} bytes; a file or folder name has at most {MAX_NAME}")
    return text
