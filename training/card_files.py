"""What the zoo's card writers share: the figures' formats and the one loop that writes the cards or, with
``--check``, fails naming each card that differs from its files and figures."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rams_env.options import arg, options_parser

DOCS = Path(__file__).resolve().parents[1] / "docs" / "beliefs"
"""where the belief and search measurements the cards cite are kept"""


def interval(share: float, ci: list[float]) -> str:
    """``0.324 [0.305, 0.344]``."""
    return f"{share:.3f} [{ci[0]:.3f}, {ci[1]:.3f}]"


def signed(value: float, ci: list[float]) -> str:
    """``+0.033 [+0.016, +0.050]``."""
    return f"{value:+.3f} [{ci[0]:+.3f}, {ci[1]:+.3f}]"


@dataclass(kw_only=True)
class CardsArgs:
    """The options of a card writer."""

    check: bool = arg(False, "change nothing; fail naming each card that differs")


def write_cards(module: str, models: Iterable[Any], card: Callable[[Any], str], argv: list[str] | None) -> int:
    """Write the card of each of ``models`` (``--check``: fail naming each that differs); the exit status."""
    prog = f"python -m {module}"
    parser = options_parser(f"Write the cards of {module}'s models from their files and figures.", CardsArgs, prog=prog)
    check, differ = parser.parse_args(argv).check, []
    for model in models:
        text = card(model)
        if model.card.is_file() and model.card.read_text(encoding="utf-8") == text:
            continue
        if check:
            differ.append(str(model.card))
        else:
            model.card.write_text(text, encoding="utf-8")
            print(f"wrote {model.card}")
    if differ:
        print(f"cards that differ from their figures (run {prog}):", *differ, file=sys.stderr)
        return 1
    return 0
