"""Text rendering of a game from one seat's point of view (hands of the viewer only)."""

from __future__ import annotations

from ..rules import Game


def render_table(game: Game, viewer: int) -> str:
    """A readable table of what ``viewer`` may know: own hand, trick, trump, scores, whose turn."""
    v = game.view(viewer)
    n = game.n
    lines = [
        f"Rams ({v['variant']}, {n} players)  rams {v['rams'] + 1}, deal {v['deal'] + 1}  phase: {v['phase']}",
        f"trump: {v['trump']}   turned card: {v['turned_card'] or '-'}   talon: {v['talon']} cards",
        "",
        f"{'seat':<10}{'role':<10}{'status':<10}{'score':>6}{'tricks':>7}{'bought':>8}  trick",
    ]
    trick = {s: c for s, c in v["trick"]}
    for s in range(n):
        role = "dealer" if s == v["dealer"] else ("forehand" if s == v["forehand"] else "")
        status = {True: "knocked", False: "passed", None: ""}[v["active"][s]]
        name = f"player_{s}" + ("*" if s == viewer else "")
        turn = "  <- to act" if v["to_act"] == s else ""
        bought = f"{v['discarded'][s]}/{v['drawn'][s]}" if v["active"][s] else ""
        lines.append(
            f"{name:<10}{role:<10}{status:<10}{v['scores'][s]:>6}{v['tricks'][s]:>7}{bought:>8}  "
            f"{trick.get(s, ''):<4}{turn}"
        )
    lines += ["", f"your hand (player_{viewer}): {' '.join(v['hand']) or '-'}"]
    if v["phase"] == "over" and v["winners"] is not None:
        lines.append("winners: " + ", ".join(f"player_{s}" for s in v["winners"]))
    return "\n".join(lines)
