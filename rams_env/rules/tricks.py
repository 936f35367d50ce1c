"""Which cards may be played to a trick, and who wins it (docs/rules.md "Trick play").

Pure functions over small ints; ``trick`` is a list of ``(seat, card)`` in play order. The lead and
follow rules of each family come first, then :func:`legal_plays`, which picks them by the rule
options: the engine's legality in the play phase.
"""

from __future__ import annotations

from .cards import ACE, JACK, KING, QUEEN, rank_of, suit_of
from .config import RulesConfig


def trick_winner(trick: list[tuple[int, int]], trump: int) -> int:
    """Seat that wins ``trick``: the highest trump, else the highest card of the suit led."""
    led = suit_of(trick[0][1])
    best_seat, best_card = trick[0]
    best_key = (suit_of(best_card) == trump, rank_of(best_card))
    for seat, card in trick[1:]:
        suit = suit_of(card)
        if suit != trump and suit != led:
            continue  # a discarded card never wins
        key = (suit == trump, rank_of(card))
        if key > best_key:
            best_seat, best_key = seat, key
    return best_seat


def swedish_lead(hand: list[int], trump: int, forced_trump: bool, trump_ace: bool = True) -> list[int]:
    """Cards a Swedish player may lead: the trump ace first, trumps while someone is at 1 point."""
    ace = trump * 13 + ACE
    if trump_ace and ace in hand:
        return [ace]
    if forced_trump:
        trumps = [c for c in hand if suit_of(c) == trump]
        if trumps:
            return trumps
    return list(hand)


def swedish_follow(
    hand: list[int], trick: list[tuple[int, int]], trump: int, overtake: bool = True, trump_ace: bool = True
) -> list[int]:
    """Cards a Swedish player may play to a started trick (follow, overtake, trump, overtrump, discard)."""
    led_card = trick[0][1]
    led = suit_of(led_card)
    if trump_ace and led == trump:
        ace = trump * 13 + ACE
        if ace in hand:  # the trump ace must be played to a trump lead
            return [ace]
    follow = [c for c in hand if suit_of(c) == led]
    best_trump = -1
    best_led = -1
    for _, card in trick:
        suit = suit_of(card)
        if suit == trump:
            best_trump = max(best_trump, rank_of(card))
        if suit == led:
            best_led = max(best_led, rank_of(card))
    if follow:
        if not overtake or (led != trump and best_trump >= 0):
            return follow  # trick already trumped: any card of the suit led
        beaters = [c for c in follow if rank_of(c) > best_led]
        return beaters or follow
    trumps = [c for c in hand if suit_of(c) == trump]
    if trumps:
        if overtake and best_trump >= 0:
            over = [c for c in trumps if rank_of(c) > best_trump]
            return over or trumps
        return trumps
    return list(hand)


def russian_lead(hand: list[int], trump: int, queen_due: bool) -> list[int]:
    """Cards a russian player may lead: trump ace, else trump king, else the queen after a K/A win."""
    base = trump * 13
    for rank in (ACE, KING):
        if base + rank in hand:
            return [base + rank]
    if queen_due and base + QUEEN in hand:
        return [base + QUEEN]
    return list(hand)


def russian_follow(hand: list[int], trick: list[tuple[int, int]], trump: int) -> list[int]:
    """Cards a russian player may play to a started trick: follow, else trump, else any; ace on a face."""
    led_card = trick[0][1]
    led = suit_of(led_card)
    if led == trump and rank_of(led_card) in (JACK, QUEEN, KING):
        ace = trump * 13 + ACE
        if ace in hand:
            return [ace]
    follow = [c for c in hand if suit_of(c) == led]
    if follow:
        return follow
    trumps = [c for c in hand if suit_of(c) == trump]
    return trumps or list(hand)


def forced_trump_lead(config: RulesConfig, scores: list[int], seat: int) -> bool:
    """Swedish forced trump lead: with these live ``scores``, some player other than ``seat`` stands at 1."""
    return config.forced_trump_lead and any(scores[o] == 1 for o in range(len(scores)) if o != seat)


def legal_plays(
    config: RulesConfig,
    hand: list[int],
    trick: list[tuple[int, int]],
    trump: int,
    seat: int,
    scores: list[int],
    queen_due: bool,
) -> list[int]:
    """The cards of ``hand`` that ``seat`` may play to ``trick`` (docs/rules.md "Trick play").

    ``scores``: the live scores (Swedish forced trump lead), ``queen_due``: ``seat`` must lead the
    trump queen when he holds it (russian). The engine's legality in the play phase, and the search's
    test of which cards a past play rules out.
    """
    if config.honour_leads:
        return russian_follow(hand, trick, trump) if trick else russian_lead(hand, trump, queen_due)
    if trick:
        return swedish_follow(hand, trick, trump, config.overtake_duty, config.trump_ace_lead)
    return swedish_lead(hand, trump, forced_trump_lead(config, scores, seat), config.trump_ace_lead)
