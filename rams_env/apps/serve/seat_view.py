"""What a seat is shown: its ``view()`` and the hand sizes derived from it, its legal moves labelled for
the page's buttons with a hint that says why when only one is offered, how many cards it may mark for
discarding, and the points of a deal that is over.
Nothing here reads another seat's hand or the deck."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...envs.render_rgb import hand_counts
from ...rules import Action, Game, Phase, action_name
from ..narration import PHASE_HINTS, draw_count, move_hint

HINTS = {  # the terminal's, but for buying: the page marks the discards by clicking
    **PHASE_HINTS,
    Phase.BUY: "Buying: click the cards to discard (click again to keep), then confirm the draw.",
}
_CALLS = {
    Action.PASS: "Pass",
    Action.KNOCK: "Knock",
    Action.BID_BETTER: "Bid better cards",
    Action.BID_SWING: "Bid a swing",
    Action.NO_BID: "No more bids",
    Action.ACCEPT: "Accept",
    Action.REJECT: "Reject",
    Action.DRAW: "Draw",
}


def hint(game: Game, seat: int) -> str:
    """The line over ``seat``'s moves: what the phase asks (the page's wording for buying), and why when only
    one move is offered."""
    return move_hint(game, seat, HINTS)


def forced_draw(game: Game, seat: int) -> bool:
    """Whether ``seat``'s only move is to draw nothing: buying with an empty talon and nothing discarded."""
    return (
        game.current == seat
        and game.phase == Phase.BUY
        and game.pending_discards == 0
        and game.legal_actions() == [int(Action.DRAW)]
    )


def seat_state(game: Game, seat: int) -> dict[str, Any]:
    """The seat's ``view()`` and the hand sizes derived from it: everything of the table a page gets."""
    view = game.view(seat)
    return {"view": view, "counts": hand_counts(view)}


def legal_moves(game: Game, seat: int) -> list[dict[str, Any]]:
    """The moves ``seat`` may make now, labelled for buttons (empty when it is not that seat's turn)."""
    if game.current != seat:
        return []
    verb = "discard" if game.phase == Phase.BUY else "play"
    moves = []
    for a in game.legal_actions():
        if a < 52:
            moves.append({"id": a, "name": action_name(a), "kind": "card", "label": f"{verb} {action_name(a)}"})
        else:
            label = _CALLS[Action(a)]
            if a == Action.DRAW:
                count = draw_count(game, seat)
                label = f"Draw {count}" if count else "Draw none"
            moves.append({"id": a, "name": action_name(a), "kind": "call", "label": label})
    return moves


def deal_points(game: Game, scores_before: Sequence[int]) -> list[int] | None:
    if game.phase < Phase.DEAL_OVER:
        return None
    return [b - a for b, a in zip(scores_before, game.scores, strict=True)]


def buy_rules(game: Game, seat: int) -> dict[str, Any] | None:
    """How many cards ``seat`` may mark for discarding now, for the page's confirm button (None: not buying)."""
    if game.phase != Phase.BUY or game.current != seat:
        return None
    hand, room, done = len(game.hands[seat]), game.talon_size, game.pending_discards
    if game.take_pending:
        return {
            "min": 1,
            "max": 1,
            "draw": False,
            "fewer": 0,
            "note": "Discard one more card: then you take the turned card.",
        }
    if game.config.swedish and seat == game.dealer:
        note = "You hold the turned card: discard at least one; you draw one card fewer than you discard."
        return {
            "min": max(0, 1 - done),
            "max": max(0, min(hand, room + 1 - done)),
            "draw": True,
            "fewer": 1,
            "note": note,
        }
    return {
        "min": 0,
        "max": max(0, min(hand, room - done)),
        "draw": True,
        "fewer": 0,
        "note": f"The talon holds {room}.",
    }
