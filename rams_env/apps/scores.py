"""What a deal did to each seat's score, worded once for every front end: the page (its log and its
end-of-deal banner), ``rams play`` and ``rams replay``.

Lower scores are better in Rams: a trick takes a point off, a flight adds the fine (Swedish presets:
capped at ``flight_cap``). So a score's change is never said as signed points (``+3`` for a score that
went down would read the wrong way): it is said as the score's move, ``10 → 7``, with the reason
(``3 tricks: 10 - 3 = 7``).

- :func:`score_change`: one seat's change, ``10 → 7`` (the one wording every front end uses);
- :func:`deal_summary`: every seat's change in a deal that is over, from what the table saw (the
  scores before and after, the tricks, who knocked, the flights and the cards shown: docs/rules.md
  "Scoring"), each with its ``why``;
- :func:`score_lines`: the lines that end a deal in the log of the page and in the terminal.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..rules import Game
from ..rules.cards import ALL_JACKS_BONUS, FIVE_OF_A_SUIT_BONUS, JACK_PAIR_BONUS

LOWER_IS_BETTER = "lower is better"


@dataclass(frozen=True)
class DealStart:
    """The scores and flights of every seat as a deal starts: what its summary is counted from."""

    scores: tuple[int, ...]
    flights: tuple[int, ...]

    @classmethod
    def of(cls, game: Game) -> DealStart:
        """The deal start of ``game`` now (call it before the deal's first action)."""
        return cls(tuple(game.scores), tuple(game.flights))


def score_change(before: int, after: int, arrow: str = "→") -> str:
    """One seat's score over a deal, as every front end says it: ``10 → 7`` (``arrow``: ``->`` in a terminal)."""
    return f"{before} {arrow} {after}"


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


def deal_summary(
    game: Game, seat: int, scores_before: Sequence[int], flights_before: Sequence[int], arrow: str = "→"
) -> dict[str, Any]:
    """The deal just over as ``seat`` saw it: how it ended, who won (``result``: :func:`result_line`) and, by
    seat, ``before``, ``after``, ``change`` (:func:`score_change`), ``tricks``, ``flew``, ``capped`` and ``why``
    (such as ``4 tricks: 10 - 4 = 6``)."""
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
        why = why if why else score_change(before, after, arrow)
        rows.append(
            {
                "seat": s,
                "before": before,
                "after": after,
                "change": score_change(before, after, arrow),
                "tricks": tricks,
                "flew": flew,
                "capped": capped,
                "why": why,
            }
        )
    return {
        "reason": reason,
        "ended": _ENDS.get(reason, reason),
        "seats": rows,
        "result": result_line(game, seat, rows),
    }


def _names(seats: Sequence[int], viewer: int) -> str:
    names = [f"player_{s}" + (" (you)" if s == viewer else "") for s in seats]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def result_line(game: Game, viewer: int, rows: Sequence[dict[str, Any]]) -> str:
    """Who won what the deal ended, ties named: the match (or the russian game), else the rams; a deal
    that ends neither has no winner (rules/episode.py), so its best is named: whose score fell most."""
    view = game.view(viewer)
    winners, what = view["winners"], "the match" if game.config.ramsar_per_match > 1 else "the game"
    if winners is None and view["rams_over"]:
        winners, what = list(game.rams_winners() or ()), "the rams"
    if winners is not None:
        if not winners:
            return f"nobody wins {what}"
        at = "" if what == "the match" else f" at {min(view['scores'][s] for s in winners)}"  # a match: by totals
        return f"{_names(winners, viewer)} {'wins' if len(winners) == 1 else 'share'} {what}{at}"
    fell = {row["seat"]: row["before"] - row["after"] for row in rows}
    best = max(fell.values())
    if best <= 0:
        return "the deal's best: nobody, no score fell"
    seats = [s for s, off in fell.items() if off == best]
    points = f"{best} point{'s' if best > 1 else ''} off"
    return f"the deal's best: {_names(seats, viewer)}, {points}{' each' if len(seats) > 1 else ''}"


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
        if cost <= 0:  # a holder of jacks without a trick: no fine, and the jacks only if all four
            change = f"{before} - {-cost} = {after}" if cost else f"stays at {before}"
            return f"flew holding jacks: no fine, {change}"
        held = f"{fine} + aces held {cost - fine}" if cost > fine else f"{fine}, no ace held"
        return f"flew (knocked, took no trick): fined {cost} ({held}): {before} + {cost} = {after}"
    if active is False and after == before:
        return f"passed: stays at {before}"
    off = before - after
    if swedish:
        if reason == "free_five" and tricks == 5:
            return f"dealer, 5 tricks without play: {before} - 5 = {after}"
        if off == tricks:
            text = f"{_tricks(tricks)}: {before} - {tricks} = {after}" if tricks else f"no trick: stays at {before}"
            return text + (" (wins the rams at 0)" if reason == "zero" and after == 0 else "")
        return ""  # a change no rule above names: said as the change alone
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


def score_lines(game: Game, start: DealStart, viewer: int, arrow: str = "→", indent: str = "") -> list[str]:
    """The lines that end a deal as ``viewer`` saw it: how it ended and every seat's score change
    (``you 10 → 9, player_1 10 → 7``), then one line per seat saying why (a flight, and its cap, too)."""
    summary = deal_summary(game, viewer, start.scores, start.flights, arrow)
    who = lambda s: "you" if s == viewer else f"player_{s}"
    changes = ", ".join(f"{who(row['seat'])} {row['change']}" for row in summary["seats"])
    lines = [f"deal over ({summary['ended']}); scores ({LOWER_IS_BETTER}): {changes}"]
    lines += [f"{indent}{who(row['seat'])}: {row['why']}" for row in summary["seats"]]
    return lines
