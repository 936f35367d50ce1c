"""Determinization: a copy of a game with the cards hidden from one seat placed elsewhere (``Game.with_hidden_cards``).

The search agent and the OpenSpiel resampler deal the hidden cards again and play on in such a copy;
what the engine derived from the real cards is derived again from the placed ones.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from .cards import ACE, ace_value, counted_jacks, jack_bonus, rank_of
from .phases import Phase, TurnedAt

if TYPE_CHECKING:
    from .game import Game


def with_hidden_cards(
    game: Game,
    seat: int,
    hands: Sequence[Sequence[int]] | Mapping[int, Sequence[int]],
    piles: Sequence[Sequence[int]] | Mapping[int, Sequence[int]],
    talon: Sequence[int],
) -> Game:
    """A copy in which the cards hidden from ``seat`` lie where given: a determinization.

    ``hands[j]`` and ``piles[j]`` (read for every other seat ``j``, a list of n or a dict):
    ``j``'s hand and his face-down cards, cards thrown in (exchanged, passed) before the cards he
    discarded while buying; ``talon``: the undrawn talon, top card first (the copy's talon holds
    only these). Every place keeps its size and the hidden cards stay the same set; the caller
    keeps them where ``seat`` knows them to be (the public turned card in the dealer's hand,
    shown cards with their player: checked) and out of hands that a past play rules them out of
    (not checked). ``seat``'s cards and everything public are copied as they are.

    What the engine derived from the real cards is derived again from the given ones: the
    legal actions, where the turned card is once it is not public (the dealer's hand or gone),
    the jacks (russian) and dealt ace of a player who has neither knocked nor changed cards yet
    (his hand is his dealt hand; later they count as none unless shown), and the aces held in the
    play (russian: hand and cards played). The copy's random generator continues as this
    game's; reseed ``rng`` before :meth:`Game.next_deal` if later deals must not follow this game's.
    """
    n = game.n
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
        raise ValueError(f"seat must be 0..{n - 1}, got {seat!r}")
    others = [j for j in range(n) if j != seat]
    new_hands = {j: sorted(hands[j]) for j in others}
    new_piles = {j: list(piles[j]) for j in others}
    new_talon = list(talon)
    before = game.talon[game.talon_pos :]
    after = list(new_talon)
    for j in others:
        if len(new_hands[j]) != len(game.hands[j]) or len(new_piles[j]) != len(game.out_hidden[j]):
            raise ValueError(f"seat {j}'s hand or face-down pile changed size")
        before += game.hands[j] + game.out_hidden[j]
        after += new_hands[j] + new_piles[j]
    if len(new_talon) != game.talon_size or sorted(before) != sorted(after):
        raise ValueError("the hidden cards must be the same cards, placed in places of the same sizes")
    dealer, turned = game.dealer, game.turned
    public_in_hand = game.turned_public and game.turned_at == TurnedAt.DEALER
    if seat != dealer and public_in_hand and turned not in new_hands[dealer]:
        raise ValueError("the turned card is known to be in the dealer's hand")
    for s, _, cards in game.shown:
        if s != seat and any(c in before and c not in new_hands[s] and c not in new_piles[s] for c in cards):
            raise ValueError(f"cards shown by seat {s} must stay with him")
    world = game.clone()
    world._legal = None
    world.talon, world.talon_pos = new_talon, 0
    cfg = game.config
    for j in others:
        hand = world.hands[j] = new_hands[j]
        world.out_hidden[j] = new_piles[j]
        dealt = None  # his dealt hand, while his cards tell it: he has not knocked and changed none
        if world.active[j] is None and not new_piles[j]:
            dealt = [c for c in hand if c != turned] if j == dealer else hand  # Swedish: he holds the turned card
        world.dealt_ace[j] = dealt is not None and any(rank_of(c) == ACE for c in dealt)
        if cfg.jacks and not world.jacks_shown[j]:
            world.jack_cards[j] = counted_jacks(dealt) if dealt is not None else ()
            world.jacks[j] = jack_bonus(world.jack_cards[j])
        if (cfg.jacks or cfg.russian_specials) and world.phase == Phase.PLAY:
            played = [c for cards, _ in world.completed for s, c in cards if s == j]
            played += [c for s, c in world.trick if s == j]
            world.aces_held[j] = ace_value(hand + played)
    if not world.turned_public and world.turned_at != TurnedAt.TABLE:
        world.turned_at = TurnedAt.DEALER if turned in world.hands[dealer] else TurnedAt.GONE
    return world
