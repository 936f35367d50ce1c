"""Determinization: a copy of a game with the cards hidden from one seat placed elsewhere (``Game.with_hidden_cards``).

The search agent and the OpenSpiel resampler deal the hidden cards again and play on in such a copy;
what the engine derived from the real cards is derived again from the placed ones. ``knock_turn`` and
``play_start`` rewind such a copy to an earlier decision of the deal, so that an opponent model can
replay it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from .cards import ACE, HAND_SIZE, ace_value, counted_jacks, jack_bonus, rank_of
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


def knock_turn(game: Game, seat: int) -> Game:
    """A copy of ``game``, in its knock round, as it stood when ``seat`` (who has knocked or passed in
    it, before the player now to act) was to decide: the knocks and passes of ``seat`` and of the
    players after him are undone, a passed hand is taken back from its face-down pile, and what the
    engine derives from a dealt hand (the dealt ace and the jacks, russian) is derived again. An
    opponent model replays with it the knock round of a determinized world."""
    n = game.n
    if game.phase != Phase.KNOCK:
        raise ValueError(f"knock_turn needs the knock round, the phase is {game.phase.name}")
    order = [(game.forehand + i) % n for i in range(n)]
    now = order.index(game.current)
    if isinstance(seat, bool) or not isinstance(seat, int) or seat not in order[:now]:
        raise ValueError(f"seat {seat!r} has not decided in this knock round")
    world = game.clone()
    world._legal = None
    cfg = game.config
    for j in order[order.index(seat) : now]:
        pile = world.out_hidden[j]
        if world.active[j] is False:
            world.hands[j] = sorted(pile[-HAND_SIZE:])
            del pile[-HAND_SIZE:]
            if world.jacks_shown[j]:  # shown on passing (nothing else shows jacks in the knock round)
                world.jacks_shown[j] = False
                world.shown = [s for s in world.shown if s[:2] != (j, "jacks")]
        world.active[j] = None
        if not pile:  # no cards changed: his hand is his dealt hand
            hand = world.hands[j]
            world.dealt_ace[j] = any(rank_of(c) == ACE for c in hand)
            if cfg.jacks:
                world.jack_cards[j] = counted_jacks(hand)
                world.jacks[j] = jack_bonus(world.jack_cards[j])
    world.current = seat
    return world


def play_start(game: Game) -> Game:
    """A copy of ``game``, in its play, as it stood when the play began: every card played goes back to
    its player's hand, the tricks and the trick points (Swedish) are undone, and the turned card, if
    the dealer has played it, is back in his hand (public unless he discarded while buying, Swedish).
    An opponent model replays with it the play of a determinized world."""
    if game.phase != Phase.PLAY:
        raise ValueError(f"play_start needs the play, the phase is {game.phase.name}")
    world = game.clone()
    world._legal = None
    played = [(s, c) for cards, _ in game.completed for s, c in cards] + list(game.trick)
    for s, c in played:
        world.hands[s].append(c)
    for hand in world.hands:
        hand.sort()
    if game.config.swedish:
        world.scores = [score + won for score, won in zip(game.scores, game.tricks_won, strict=True)]
    world.tricks_won = [0] * game.n
    world.completed, world.trick = [], []
    world.queen_due = -1
    world.leader = world.current = game.play_order[0]
    if (game.dealer, game.turned) in played:
        world.turned_at = TurnedAt.DEALER
        world.turned_public = not (game.config.swedish and game.discards[game.dealer])
    return world
