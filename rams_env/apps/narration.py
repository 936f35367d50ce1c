"""How ``rams play``, ``rams replay`` and ``rams serve`` say what happened, as one seat saw it: an action
(:func:`describe`), the news it made (:func:`news`: a trick taken, a deal or a rams over), both at
once as the action is applied (:func:`apply_and_narrate`), the hint of each phase and the names of
the legal moves.

The terminal and the page word the news a little differently (the terminal indents a trick and
names every seat's points as ``player_N: +5``; the page says ``you +5``): each passes its
:class:`Wording`, :data:`TERMINAL` or :data:`PAGE`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..rules import Action, Game, Phase, action_name

NEXT_DEAL = "--- next deal ---"  # the line between two deals of an episode
PHASE_HINTS = {
    Phase.BID: "Forehand's bid: bid better cards, bid a swing, or make no (further) bid.",
    Phase.ANSWER: "Answer the bid: accept or reject.",
    Phase.KNOCK: "Knock (play this deal) or pass.",
    Phase.BUY: "Buying: discard a card, or DRAW to replace the cards discarded.",
    Phase.PLAY: "Play a card.",
}


@dataclass(frozen=True)
class Wording:
    """How a front end words the news: templates of a taken trick (``{cards}``, ``{winner}``), of a deal
    over (``{reason}``, ``{points}``), and of one seat's points in it (``{seat}``, ``{who}``, ``{points}``),
    joined by ``joiner``."""

    trick: str
    deal: str
    point: str
    joiner: str


TERMINAL = Wording(
    trick="  trick ({cards}) taken by {winner}",
    deal="deal over ({reason}); points this deal: {points}",
    point="player_{seat}: {points:+d}",
    joiner="  ",
)
PAGE = Wording(
    trick="trick ({cards}) taken by {winner}",
    deal="deal over ({reason}); points: {points}",
    point="{who} {points:+d}",
    joiner=", ",
)


def legal_names(legal: Sequence[int]) -> str:
    """The names of ``legal``, as the messages about an illegal move list them."""
    return ", ".join(action_name(a) for a in legal)


def draw_count(game: Game, seat: int) -> int:
    """How many cards ``seat`` draws if it draws now (in Swedish the dealer, who holds the turned card, one fewer)."""
    return game.pending_discards - (1 if game.config.swedish and seat == game.dealer else 0)


def describe(game: Game, seat: int, action: int, viewer: int) -> str:
    """What ``viewer`` sees of ``seat``'s action, said before it is applied (discards stay face down)."""
    who = "you" if seat == viewer else f"player_{seat}"
    phase = game.phase
    if phase == Phase.KNOCK:
        return f"{who}: {'knock' if action == Action.KNOCK else 'pass'}"
    if phase == Phase.BID:
        said = {Action.BID_BETTER: "bid better cards", Action.BID_SWING: "bid a swing", Action.NO_BID: "no bid"}
        return f"{who}: {said[Action(action)]}"
    if phase == Phase.ANSWER:
        return f"{who}: {'accept' if action == Action.ACCEPT else 'reject'}"
    if phase == Phase.BUY:
        if action == Action.DRAW:
            return f"{who}: draw {draw_count(game, seat)}"
        return f"{who}: discard {action_name(action)}" if seat == viewer else f"{who}: discard a card"
    return f"{who}: play {action_name(action)}"


def news(
    game: Game, tricks_before: int, scores_before: Sequence[int], viewer: int, wording: Wording = TERMINAL
) -> list[str]:
    """Public news after an action: a completed trick, the end of a deal, the end of a rams."""
    who = lambda s: "you" if s == viewer else f"player_{s}"
    lines = []
    if len(game.completed) > tricks_before:
        cards, winner = game.completed[-1]
        lines.append(wording.trick.format(cards=" ".join(action_name(c) for _, c in cards), winner=who(winner)))
    if game.phase >= Phase.DEAL_OVER:
        points = wording.joiner.join(
            wording.point.format(seat=s, who=who(s), points=b - a)
            for s, (b, a) in enumerate(zip(scores_before, game.scores, strict=True))
        )
        lines.append(wording.deal.format(reason=game.deal_reason, points=points))
        if game.rams_over and game.rams_log:
            lines.append(f"the rams is over; won by {', '.join(who(s) for s in game.rams_log[-1][1])}")
    return lines


def apply_and_narrate(
    game: Game, seat: int, action: int, viewer: int, scores_before: Sequence[int], wording: Wording = TERMINAL
) -> tuple[str, list[str]]:
    """Apply ``seat``'s ``action`` and say it as ``viewer`` saw it: the action's line and the news it made.
    ``scores_before``: the scores at the start of the deal."""
    line = describe(game, seat, action, viewer)
    tricks_before = len(game.completed)
    game.apply(action)
    return line, news(game, tricks_before, scores_before, viewer, wording)
