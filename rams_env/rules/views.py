"""What a seat may know of a game, as plain data: ``Game.view`` and ``Game.result`` (docs/contract.md).

Both read the state and change nothing; every value is JSON-native, cards by name ("TH").
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .actions import Action
from .cards import SUITS, card_name
from .phases import PHASE_NAMES

if TYPE_CHECKING:
    from .game import Game

BID_BETTER = int(Action.BID_BETTER)


def view(game: Game, seat: int) -> dict[str, Any]:
    """Plain, JSON-serialisable dict of what ``seat`` may know (docs/rules.md "What each player knows")."""
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < game.n:
        raise ValueError(f"seat must be 0..{game.n - 1}, got {seat!r}")
    bids = [
        {
            "bid": "better" if b == BID_BETTER else "swing",
            "answers": [list(a) for a in ans],
            "done": True,
            "happened": ok,
        }
        for b, ans, ok in game.bid_log
    ]
    if game.pending_bid:
        bids.append(
            {
                "bid": "better" if game.pending_bid == BID_BETTER else "swing",
                "answers": [list(a) for a in game.answers],
                "done": False,
                "happened": None,
            }
        )
    return {
        "variant": game.config.variant,
        "seat": seat,
        "dealer": game.dealer,
        "forehand": game.forehand,
        "phase": PHASE_NAMES[game.phase],
        "to_act": game.current if game.current >= 0 else None,
        "hand": [card_name(c) for c in game.hands[seat]],
        "trump": SUITS[game.trump],
        "turned_card": card_name(game.turned) if game.turned_public else None,
        "turned_card_at": game.turned_at.label if game.turned_public else None,
        "trick": [[s, card_name(c)] for s, c in game.trick],
        "tricks": list(game.tricks_won),
        "scores": list(game.scores),
        "active": list(game.active),
        "talon": game.talon_size,
        "bids": bids,
        "discarded": list(game.discards),
        "drawn": list(game.draws),
        "pending_discards": game.pending_discards,
        "take_pending": game.take_pending,
        "completed_tricks": [
            {"cards": [[s, card_name(c)] for s, c in cards], "winner": w} for cards, w in game.completed
        ],
        "out_of_play_public": [card_name(c) for c in game.out_public],
        "own_out_of_play": sorted(card_name(c) for c in game.out_hidden[seat]),
        "shown": [{"seat": s, "what": what, "cards": [card_name(c) for c in cards]} for s, what, cards in game.shown],
        "flights": list(game.flights),
        "rams_flights": list(game.rams_flights),
        "passed_last_deal": list(game.passed_prev),
        "totals": list(game.totals),
        "rams": game.rams_number,
        "deal": game.deal_in_rams,
        "rams_over": game.rams_over,
        "winners": list(game.winners) if game.winners is not None else None,
    }


def result(game: Game) -> dict[str, Any]:
    """Scores, winners and per-rams results so far (complete once ``is_over``)."""
    return {
        "over": game.is_over,
        "reason": game.end_reason,
        "scores": list(game.scores),
        "winners": list(game.winners) if game.winners is not None else None,
        "ramsar": [{"scores": list(s), "winners": list(w), "reason": r} for s, w, r in game.rams_log],
        "totals": list(game.totals),
        "flights": list(game.flights),
        "settlement": list(game.settlement) if game.settlement is not None else None,
    }
