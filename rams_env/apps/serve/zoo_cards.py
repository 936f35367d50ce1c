"""The trained agents a folder of model cards offers: ``rams serve``'s agent pickers.

Every ``*.md`` under the folder (at any depth: ``checkpoints/<preset>/<model>/<model>.md`` as well
as ``checkpoints/<model>.md``) that opens like the cards ``rams_training.export`` writes is read: its
title names the variant and table sizes, its ``File:`` line (or a checkpoint or ensemble manifest of
the same name next to it) the file to load, its headline table the win share against heuristics.
Nothing is loaded: reading cards is cheap, and a card that does not parse is left out.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ... import zoo

_TITLE = re.compile(r"^# `(?P<name>[^`]+)`: (?P<what>.*?) of (?P<variant>[a-z0-9]+), (?P<sizes>[\d/]+) players\s*$")
_FILE = re.compile(r"File: `(?P<path>[^`]+\.(?:pt|json))`")
_HEADLINE = re.compile(
    r"^\|\s*whole ramsar vs 3 heuristics, win share\s*\|[^|]*\|\s*(?P<value>[\d.]+)\s*\|\s*(?P<ci>\[[^\]]*\])"
)


@dataclass(frozen=True)
class AgentCard:
    """One trained agent of the zoo, as the page lists it."""

    spec: str  # what to pass as the agent: its zoo name, or the file's path
    name: str
    kind: str  # "flagship" (a preset's best, rams_env.zoo.FLAGSHIPS), "ensemble" or "checkpoint"
    variant: str
    sizes: tuple[int, ...]
    ensemble: bool  # several checkpoints played as one (a manifest)
    card: str  # the model card's path
    headline: str  # "win share 0.282 [0.252, 0.314] against 3 heuristics" (empty: the card gives none)

    def to_dict(self) -> dict[str, Any]:
        """Plain data for JSON."""
        return {**asdict(self), "sizes": list(self.sizes)}


def _kind(name: str, path: Path) -> str:
    """A preset's flagship (:data:`rams_env.zoo.FLAGSHIPS`), an ensemble, or another checkpoint."""
    if name in zoo.FLAGSHIPS.values():
        return "flagship"
    return "ensemble" if path.suffix == ".json" else "checkpoint"


def _spec(name: str, path: Path) -> str:
    """The zoo's name of the file when the zoo resolves that name to it (``rams eval mattmar-4p``), else its path."""
    try:
        same = zoo.resolve(name).path.resolve() == path.resolve()
    except (ValueError, OSError):
        same = False
    return name if same else str(path)


def read_card(card: Path, root: Path) -> AgentCard | None:
    """The agent a model card describes, or None if it is not such a card or its file is missing.
    ``root``: the folder its ``File:`` paths are relative to (the checkout the zoo lives in)."""
    try:
        text = card.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    lines = text.splitlines()
    title = _TITLE.match(lines[0]) if lines else None
    if title is None:
        return None
    name = title["name"]
    found = _FILE.search(text)
    candidates = [
        card.with_suffix(".pt"),
        card.with_suffix(".json"),
        card.parent / f"{name}.pt",
        card.parent / f"{name}.json",
    ]
    if found:
        candidates += [card.parent / Path(found["path"]).name, root / found["path"]]
    path = next((p for p in candidates if p.is_file() and p.suffix in (".pt", ".json") and p.stem == name), None)
    if path is None:
        return None
    headline = ""
    for line in lines:
        if match := _HEADLINE.match(line):
            headline = f"win share {match['value']} {match['ci']} in whole ramsar against 3 heuristics (fair 0.25)"
            break
    sizes = tuple(sorted(int(n) for n in title["sizes"].split("/")))
    kind = _kind(name, path)
    return AgentCard(
        _spec(name, path), name, kind, title["variant"], sizes, path.suffix == ".json", str(card), headline
    )


def zoo_cards(folder: str | Path) -> list[AgentCard]:
    """The agents of every model card under ``folder`` (recursively): flagships, then ensembles, then the rest."""
    folder = Path(folder)
    if not folder.is_dir():
        return []
    root = folder.resolve().parent
    cards = [c for c in (read_card(p, root) for p in sorted(folder.glob("**/*.md"))) if c is not None]
    order = {"flagship": 0, "ensemble": 1, "checkpoint": 2}
    return sorted(cards, key=lambda c: (order[c.kind], c.variant, c.name))
