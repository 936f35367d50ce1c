"""How the ``rams`` commands and the server say what happened: an action as one seat saw it
(:func:`describe`), the news it made (:func:`news`: a trick taken, a deal or a rams over), and the
names of the legal moves."""

from __future__ import annotations

from collections.abc import Sequence

from ..rules import Action, Game, Phase, action_name


def legal_names(legal: Sequence[int]) -> str:
    """The names of ``legal``, as the messages about an illegal move list them."""
    return ", ".join(action_name(a) for a in legal)


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
            return f"{who}: draw {game.pending_discards - (1 if game.config.swedish and seat == game.dealer else 0)}"
        return f"{who}: discard {action_name(action)}" if seat == viewer else f"{who}: discard a card"
    return f"{who}: play {action_name(action)}"


def news(game: Game, tricks_before: int, scores_before: list[int], viewer: int) -> list[str]:
    """Public news after an action: a completed trick, the end of a deal or of the game."""
    lines = []
    if len(game.completed) > tricks_before:
        cards, winner = game.completed[-1]
        shown = " ".join(action_name(c) for _, c in cards)
        lines.append(f"  trick ({shown}) taken by {'you' if winner == viewer else f'player_{winner}'}")
    if game.phase >= Phase.DEAL_OVER:
        points = "  ".join(
            f"player_{s}: {b - a:+d}" for s, (b, a) in enumerate(zip(scores_before, game.scores, strict=True))
        )
        lines.append(f"deal over ({game.deal_reason}); points this deal: {points}")
        if game.rams_over:
            winners = ", ".join("you" if s == viewer else f"player_{s}" for s in game.rams_log[-1][1])
            lines.append(f"the rams is over; won by {winners}")
    return lines
