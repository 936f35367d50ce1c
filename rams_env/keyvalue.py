"""``key=value`` text as the command lines and agent specs take it: one parser for all of them.

``rams --option start_score=150``, agent specs such as ``search:simulations=200,confidence=0.5``
and ``rams train --cuda false`` read their values here. No numpy or torch: importing this costs
nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

TRUE_WORDS = ("true", "1", "yes", "on")
FALSE_WORDS = ("false", "0", "no", "off")


def parse_bool(text: str) -> bool:
    """``true``/``false`` (also ``1``/``0``, ``yes``/``no``, ``on``/``off``), any case; else ``ValueError``."""
    word = text.strip().lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise ValueError(f"expected true or false, got {text!r}")


def parse_value(text: str) -> bool | int | float | str:
    """A value as typed: ``true``/``false`` (any case) a bool, then an int, then a float, else the text."""
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def parse_pair(item: str) -> tuple[str, bool | int | float | str]:
    """``"key=value"`` as ``(key, parse_value(value))``, whitespace around each side dropped;
    ``ValueError`` for an item that is no such pair (no ``=``, or an empty side)."""
    key, eq, value = item.partition("=")
    key, value = key.strip(), value.strip()
    if not eq or not key or not value:
        raise ValueError(f"expected key=value, got {item!r}")
    return key, parse_value(value)


def parse_pairs(items: Iterable[str]) -> dict[str, Any]:
    """``key=value`` items (see :func:`parse_pair`) into a dict; a later key wins."""
    return dict(parse_pair(item) for item in items)
