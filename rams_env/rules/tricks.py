"""Which cards may be played to a trick, and who wins it (docs/rules.md "Trick play").

Pure functions over small ints; ``trick`` is a list of ``(seat, card)`` in play order.
"""

from __future__ import annotations

from .cards import ACE, JACK, KING, QUEEN


def trick_winner(trick: list[tuple[int, int]], trump: int) -> int:
    """Seat that wins ``trick``: the highest trump, else the highest card of the suit led."""
    led = trick[0][1] // 13
    best_seat, best_card = trick[0]
    best_key = (best_card // 13 == trump, best_card % 13)
    for seat, card in trick[1:]:
        suit = card // 13
        if suit != trump and suit != led:
            continue  # a discarded card never wins
        key = (suit == trump, card % 13)
        if key > best_key:
            best_seat, best_key = seat, key
    return best_seat


def swedish_lead(hand: list[int], trump: int, forced_trump: bool, trump_ace: bool = True) -> list[int]:
    """Cards a Swedish player may lead: the trump ace first, trumps while someone is at 1 point."""
    ace = trump * 13 + ACE
    if trump_ace and ace in hand:
        return [ace]
    if forced_trump:
        trumps = [c for c in hand if c // 13 == trump]
        if trumps:
            return trumps
    return list(hand)


def swedish_follow(
    hand: list[int], trick: list[tuple[int, int]], trump: int, overtake: bool = True, trump_ace: bool = True
) -> list[int]:
    """Cards a Swedish player may play to a started trick (follow, overtake, trump, overtrump, discard)."""
    led_card = trick[0][1]
    led = led_card // 13
    if trump_ace and led == trump:
        ace = trump * 13 + ACE
        if ace in hand:  # the trump ace must be played to a trump lead
            return [ace]
    follow = [c for c in hand if c // 13 == led]
    best_trump = -1
    best_led = -1
    for _, card in trick:
        suit = card // 13
        if suit == trump:
            best_trump = max(best_trump, card % 13)
        if suit == led:
            best_led = max(best_led, card % 13)
    if follow:
        if not overtake or (led != trump and best_trump >= 0):
            return follow  # trick already trumped: any card of the suit led
        beaters = [c for c in follow if c % 13 > best_led]
        return beaters or follow
    trumps = [c for c in hand if c // 13 == trump]
    if trumps:
        if overtake and best_trump >= 0:
            over = [c for c in trumps if c % 13 > best_trump]
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
    led = led_card // 13
    if led == trump and led_card % 13 in (JACK, QUEEN, KING):
        ace = trump * 13 + ACE
        if ace in hand:
            return [ace]
    follow = [c for c in hand if c // 13 == led]
    if follow:
        return follow
    trumps = [c for c in hand if c // 13 == trump]
    return trumps or list(hand)
