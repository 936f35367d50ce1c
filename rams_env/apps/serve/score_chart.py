"""Every seat's score at the start of each rams and after each deal: the page's score chart
(:class:`ScoreHistory`). Why each score changed is :func:`rams_env.apps.scores.deal_summary`."""

from __future__ import annotations

from typing import Any

from ...rules import Game


class ScoreHistory:
    """Every seat's score at the start of each rams and after each deal: the page's score chart."""

    def __init__(self, game: Game) -> None:
        self.points: list[dict[str, Any]] = []
        self.start(game)

    def start(self, game: Game) -> None:
        """The scores as a deal starts (a point of its own only when a new rams begins)."""
        if game.deal_in_rams == 0 and not (self.points and self.points[-1]["rams"] == game.rams_number):
            self.points.append({"rams": game.rams_number, "deal": 0, "scores": list(game.scores)})

    def deal_over(self, game: Game) -> None:
        """The scores after the deal just over."""
        self.points.append({"rams": game.rams_number, "deal": game.deal_in_rams + 1, "scores": list(game.scores)})
