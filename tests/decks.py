"""Building fixed deck orders for scripted tests: say who holds what, get the deck to pass as ``deck``."""

from __future__ import annotations

from rams_env.rules import Game, TurnedAt, card_name, deck_cards, make_config


def stack_deck(
    variant: str,
    num_players: int,
    dealer: int,
    hands: dict[int, list[str]],
    turned: str,
    talon: list[str] | None = None,
) -> list[str]:
    """Deck order (top first) that deals ``hands`` (5 dealt cards per seat; unnamed seats and the
    rest of the talon are filled with the remaining cards in index order), turns up ``turned``,
    and leaves ``talon`` on top of the talon."""
    cfg = make_config(variant, num_players)
    used = [c for h in hands.values() for c in h] + [turned] + list(talon or [])
    if len(set(used)) != len(used):
        raise ValueError(f"a card is named twice: {used}")
    rest = [card_name(c) for c in deck_cards(cfg.deck_size) if card_name(c) not in set(used)]
    full = {}
    for seat in range(num_players):
        cards = list(hands.get(seat, []))
        if len(cards) > 5:
            raise ValueError(f"seat {seat} is dealt 5 cards, got {cards}")
        while len(cards) < 5:
            cards.append(rest.pop(0))
        full[seat] = cards
    order = [(dealer + 1 + i) % num_players for i in range(num_players)]
    deck = []
    for seat in order:
        deck += full[seat][:3]
    deck.append(turned)
    for seat in order:
        deck += full[seat][3:]
    deck += list(talon or []) + rest
    assert sorted(deck) == sorted(card_name(c) for c in deck_cards(cfg.deck_size))
    return deck


def card_places(game: Game) -> list[int]:
    """Every card the engine holds, once for every place it lies in (docs/rules.md, "Dealing" to "Trick play")."""
    cards = [c for hand in game.hands for c in hand]
    cards += game.talon[game.talon_pos :]
    cards += [c for _, c in game.trick]
    cards += [c for trick, _ in game.completed for _, c in trick]
    cards += game.out_public
    cards += [c for pile in game.out_hidden for c in pile]
    if game.turned_at == TurnedAt.TABLE:  # russian: the turned card lies on the table until taken
        cards.append(game.turned)
    return cards


def check_result(game: Game, shadow) -> None:
    """At the end of a game, the engine's winners and russian settlement match the oracle's model."""
    from tests.oracle import settlement

    result = game.result()
    assert result["winners"] == shadow.winners
    if not shadow.swedish:
        assert result["settlement"] == settlement(shadow.scores, shadow.winners)
