"""How ``rams play``, ``rams replay`` and ``rams serve`` say what happened, as one seat saw it: an action
(:func:`describe`), the news it made (:func:`news`: a bid settled, a trick taken, a deal or a rams over),
both at once as the action is applied (:func:`apply_and_narrate`), the hint of each phase and the names of
the legal moves.

The scores of a deal that is over are worded by :mod:`rams_env.apps.scores` (``you 10 → 9``: lower is
better), the same for every front end. The terminal and the page differ only in layout (the terminal
indents a trick and the reasons, and writes ``->`` for the arrow): each passes its :class:`Wording`,
:data:`TERMINAL` or :data:`PAGE`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..rules import Action, Game, Phase, TurnedAt, action_name
from ..rules.config import UNANIMOUS
from .scores import DealStart, score_lines

NEXT_DEAL = "--- next deal ---"  # the line between two deals of an episode
BOUGHT_KEY = (
    "(bought: cards discarded/cards drawn when buying; a Swedish dealer, who holds the turned card too, "
    "draws one fewer than he discards)"
)
PHASE_HINTS = {
    Phase.BID: "Forehand's bid: bid better cards, bid a swing, or no more bids (go on to the knock).",
    Phase.ANSWER: "Answer the bid: accept or reject.",
    Phase.KNOCK: "Knock (play this deal) or pass.",
    Phase.BUY: "Buying: discard a card, or DRAW to replace the cards discarded.",
    Phase.PLAY: "Play a card.",
}


@dataclass(frozen=True)
class Wording:
    """How a front end lays out the news: the template of a taken trick (``{cards}``, ``{winner}``), the
    arrow of a score change, and the indent of the lines that say why each score changed."""

    trick: str
    arrow: str
    indent: str


TERMINAL = Wording(trick="  trick ({cards}) taken by {winner}", arrow="->", indent="  ")
PAGE = Wording(trick="trick ({cards}) taken by {winner}", arrow="→", indent="")


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
        said = {Action.BID_BETTER: "bid better cards", Action.BID_SWING: "bid a swing", Action.NO_BID: "no more bids"}
        return f"{who}: {said[Action(action)]}"
    if phase == Phase.ANSWER:
        return f"{who}: {'accept' if action == Action.ACCEPT else 'reject'}"
    if phase == Phase.BUY:
        if action == Action.DRAW:
            return f"{who}: draw {draw_count(game, seat)}"
        return f"{who}: discard {action_name(action)}" if seat == viewer else f"{who}: discard a card"
    return f"{who}: play {action_name(action)}"


def _who(seat: int, viewer: int) -> str:
    return "you" if seat == viewer else f"player_{seat}"


def bid_news(game: Game, viewer: int) -> str:
    """What the bid just settled did (the last of ``game``'s bids): who took new cards, or the new trump."""
    bid, answers, happened = game.bid_log[-1]
    if bid == Action.BID_BETTER:
        if not happened:
            refused = [s for s, accepted in answers if not accepted]
            return f"better cards refused by {_who(refused[-1], viewer)}: everybody keeps his hand"
        if game.config.better_cards == UNANIMOUS:  # all accepted: everybody
            takers = [(game.forehand + k) % game.n for k in range(game.n)]
        else:  # forehand, and each who accepted
            takers = [game.forehand] + [s for s, accepted in answers if accepted]
        names = ", ".join(_who(s, viewer) + (" (forehand)" if s == game.forehand else "") for s in takers)
        keep = game.dealer in takers and game.config.swedish and game.turned_at == TurnedAt.DEALER
        rest = [s for s in range(game.n) if s not in takers]
        text = f"better cards: {names} threw in the hand and took five new cards from the talon"
        if keep:
            text += " (the dealer keeps the turned card)"
        if rest:
            text += f"; {', '.join(_who(s, viewer) for s in rest)} kept the hand"
        return text
    if happened:
        return f"swing: the dealer turned up a card of another suit; trump is now {game.trump}"
    refused = [s for s, accepted in answers if not accepted]
    if refused:
        return f"swing refused by {_who(refused[-1], viewer)}: trump stays {game.trump}"
    return f"swing: no card of another suit turned up before the talon ran out, trump stays {game.trump}"


def news(
    game: Game, tricks_before: int, start: DealStart, viewer: int, wording: Wording = TERMINAL, bids_before: int = -1
) -> list[str]:
    """Public news after an action: a bid settled (when ``bids_before`` was the number of bids before it),
    a completed trick, the end of a deal (every score's change and why), the end of a rams."""
    lines = []
    if 0 <= bids_before < len(game.bid_log):
        lines.append(bid_news(game, viewer))
    if len(game.completed) > tricks_before:
        cards, winner = game.completed[-1]
        lines.append(
            wording.trick.format(cards=" ".join(action_name(c) for _, c in cards), winner=_who(winner, viewer))
        )
    if game.phase >= Phase.DEAL_OVER:
        lines += score_lines(game, start, viewer, wording.arrow, wording.indent)
        if game.rams_over and game.rams_log:
            lines.append(f"the rams is over; won by {', '.join(_who(s, viewer) for s in game.rams_log[-1][1])}")
    return lines


def apply_and_narrate(
    game: Game, seat: int, action: int, viewer: int, start: DealStart, wording: Wording = TERMINAL
) -> tuple[str, list[str]]:
    """Apply ``seat``'s ``action`` and say it as ``viewer`` saw it: the action's line and the news it made.
    ``start``: the scores and flights at the start of the deal (:meth:`DealStart.of`)."""
    line = describe(game, seat, action, viewer)
    tricks_before, bids_before = len(game.completed), len(game.bid_log)
    game.apply(action)
    return line, news(game, tricks_before, start, viewer, wording, bids_before)


def move_hint(game: Game, seat: int, hints: Mapping[Phase, str] = PHASE_HINTS) -> str:
    """The line over ``seat``'s moves: what the phase asks (``hints``: the terminal's by default), and why when
    only one move is offered."""
    if game.current != seat:
        return ""
    legal, phase = game.legal_actions(), game.phase
    if phase == Phase.ANSWER:
        what = (
            "better cards (accept: throw your hand in and take five new cards)"
            if game.pending_bid == Action.BID_BETTER
            else "a swing (a new trump, only if everyone accepts)"
        )
        if legal == [int(Action.REJECT)]:
            return (
                f"Forehand bid {what}. You can only reject: after forehand's and the earlier accepters' "
                "new cards, the talon cannot give you five."
            )
        return f"Forehand bid {what}: accept or reject."
    if phase == Phase.KNOCK and legal == [int(Action.KNOCK)]:
        return f"You must knock (you may not pass): {knock_reason(game, seat)}."
    return hints.get(phase, "")


def knock_reason(game: Game, seat: int) -> str:
    """Why ``seat`` may not pass (docs/rules.md, the knock round); call it only when it may not."""
    config, score = game.config, game.scores[seat]
    if config.forced_knock_at_one and score == 1:
        return "you stand at 1 point"
    if config.forced_knock_at_two and score == 2 and game.passed_prev[seat]:
        return "you stand at 2 points and passed in the previous deal"
    return "you were dealt an ace"
