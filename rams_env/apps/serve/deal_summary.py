"""What a deal did to each seat's score, said the way the game counts it (``10 → 6, 4 tricks``).

:func:`deal_summary` explains the change of every seat's score in a deal that is over, from what
the table saw: the scores before and after, the tricks, who knocked, the flights and the cards
shown (docs/rules.md "Scoring"). ``rams serve`` shows it in its end-of-deal banner; :class:`ScoreHistory`
keeps every seat's score after each deal for the page's chart. Lower scores are better: a trick
takes a point off, a flight adds the fine (Swedish presets: capped at ``flight_cap``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...rules import Game
from ...rules.cards import ALL_JACKS_BONUS, FIVE_OF_A_SUIT_BONUS, JACK_PAIR_BONUS

_ENDS = {
    "played": "all five tricks played",
    "free_five": "everyone before the dealer passed: the dealer takes five tricks without play",
    "zero": "a score reached 0",
    "four_aces": "four aces shown",
    "five_of_a_suit": "five of one suit shown",
    "jacks_out": "out on jacks",
}


def _tricks(count: int) -> str:
    return f"{count} trick{'' if count == 1 else 's'}"


def deal_summary(game: Game, seat: int, scores_before: Sequence[int], flights_before: Sequence[int]) -> dict[str, Any]:
    """The deal just over as ``seat`` saw it: how it ended and, by seat, ``before``, ``after``,
    ``tricks``, ``flew``, ``capped`` and ``why`` (one line such as ``4 tricks: 10 - 4 = 6``)."""
    view = game.view(seat)
    config = game.config
    reason = game.deal_reason or "played"
    rows = []
    for s in range(game.n):
        before, after, tricks = scores_before[s], view["scores"][s], view["tricks"][s]
        flew = view["flights"][s] > flights_before[s]
        active = view["active"][s]
        raw = before + config.flight_fine
        capped = bool(flew and config.swedish and raw > config.flight_cap)
        jacks = sum(
            ALL_JACKS_BONUS if len(shown["cards"]) == 4 else JACK_PAIR_BONUS
            for shown in view["shown"]
            if shown["seat"] == s and shown["what"] == "jacks"
        )
        why = _why(config.swedish, reason, before, after, tricks, flew, capped, active, jacks, config.flight_fine, raw)
        rows.append(
            {"seat": s, "before": before, "after": after, "tricks": tricks, "flew": flew, "capped": capped, "why": why}
        )
    return {"reason": reason, "ended": _ENDS.get(reason, reason), "seats": rows}


def _why(
    swedish: bool,
    reason: str,
    before: int,
    after: int,
    tricks: int,
    flew: bool,
    capped: bool,
    active: bool | None,
    jacks: int,
    fine: int,
    raw: int,
) -> str:
    if flew:
        cost = after - before
        if swedish:
            text = f"flew (knocked, took no trick): {before} + {fine} = {raw}"
            if capped:
                text += (
                    f", capped at {after}: the flight costs {cost}" if cost else f", capped at {after}: costs nothing"
                )
            return text
        return f"flew (knocked, took no trick): fined {cost} ({fine} + aces held): {before} + {cost} = {after}"
    if active is False and after == before:
        return f"passed: stays at {before}"
    off = before - after
    if swedish:
        if reason == "free_five" and tricks == 5:
            return f"dealer, 5 tricks without play: {before} - 5 = {after}"
        if off == tricks:
            text = f"{_tricks(tricks)}: {before} - {tricks} = {after}" if tricks else f"no trick: stays at {before}"
            return text + (" (wins the rams at 0)" if reason == "zero" and after == 0 else "")
        return f"{before} → {after}"
    if off < 0:
        return f"fined {-off}{' (' + _ENDS[reason] + ')' if reason in _ENDS else ''}: {before} + {-off} = {after}"
    parts = [_tricks(tricks) + (" without play" if reason == "free_five" else "")] if tricks else []
    if jacks:
        parts.append(f"jacks {jacks}")
    rest = off - tricks - jacks
    if reason == "five_of_a_suit" and rest >= FIVE_OF_A_SUIT_BONUS:
        parts.append(f"five of a suit {FIVE_OF_A_SUIT_BONUS}")
        if rest > FIVE_OF_A_SUIT_BONUS:
            parts.append(f"aces held {rest - FIVE_OF_A_SUIT_BONUS}")
    elif rest > 0:
        parts.append(f"aces held {rest}")
    elif rest < 0:  # the all-jacks holder without a trick writes off less than the jacks' value
        parts = [f"jacks, no trick {off}"]
    head = ", ".join(parts) if parts else "nothing written off"
    return f"{head}: {before} - {off} = {after}" if off else f"{head}: stays at {before}"


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
