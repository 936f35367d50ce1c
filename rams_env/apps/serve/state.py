"""What one server holds: its live games and replays (each in a bounded :class:`~.limits.Store`), the saved
logs it offers, the trained agents it suggests, and its settings."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

from ... import zoo
from .games import LiveGame
from .limits import Limits, Store
from .zoo_cards import AgentCard, zoo_cards


def _game_over(live: LiveGame) -> float | None:
    """When a game ended (over, or stopped by an error), on ``time.monotonic``'s clock; None while in play."""
    return live.finished_at


class ServeState:
    """What one server holds: live games, replays, the saved logs it offers, its settings."""

    def __init__(
        self,
        save_dir: str | os.PathLike[str] | None = None,
        logs: Sequence[str | os.PathLike[str]] = (),
        checkpoint_dir: str | os.PathLike[str] | None = None,
        threads: int = 1,
        limits: Limits | None = None,
    ) -> None:
        self.limits = limits = limits or Limits()
        self.games = Store(
            "game",
            limits.max_games,
            limits.idle_seconds,
            "rams serve --max-games",
            _game_over,
            keep_seconds=limits.keep_finished_seconds,
        )
        self.replays = Store("replay", limits.max_replays, limits.idle_seconds, "rams serve --max-replays")
        self.save_dir = Path(save_dir) if save_dir is not None else None
        self.logs = [Path(p) for p in logs]
        self.checkpoint_dir = Path(checkpoint_dir) if checkpoint_dir is not None else None
        self.threads = threads

    def known_logs(self) -> dict[str, Path]:
        """The logs the page may open by name: those the server was started with and those in ``save_dir``."""
        found = {p.name: p for p in self.logs}
        if self.save_dir is not None and self.save_dir.is_dir():
            for path in sorted(self.save_dir.glob("*.json")):
                found.setdefault(path.name, path)
        return found

    def agent_suggestions(self) -> list[str]:
        names = ["random", "heuristic", "search", "search:200", *zoo.known_names()]
        names += [card.spec for card in self.agent_cards() if card.spec not in names]
        if self.checkpoint_dir is not None and self.checkpoint_dir.is_dir():
            pts = sorted(self.checkpoint_dir.rglob("*.pt"))
            agents = [p for p in pts if p.parent.name != p.stem and not p.name.endswith(zoo.BELIEFS_SUFFIX)]
            names += [str(p) for p in agents if str(p) not in names]  # belief networks are not agents
        return names

    def agent_cards(self) -> list[AgentCard]:
        """The trained agents whose model cards lie under ``checkpoint_dir`` (flagships, ensembles, others)."""
        return zoo_cards(self.checkpoint_dir) if self.checkpoint_dir is not None else []

    def limit_threads(self) -> None:
        """One torch thread for checkpoint agents (as ``rams eval --threads``), once torch is loaded."""
        torch = sys.modules.get("torch")
        if torch is not None and torch.get_num_threads() != self.threads:
            torch.set_num_threads(self.threads)
