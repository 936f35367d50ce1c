"""Cards as small ints: ``suit * 13 + rank``, suits C D H S, ranks 2..A (docs/rules.md "Cards and seats")."""

from __future__ import annotations

import operator
from collections.abc import Iterable

SUITS = "CDHS"
RANKS = "23456789TJQKA"
NUM_CARDS = 52
HAND_SIZE = 5  # cards dealt to each player (the Swedish dealer also holds the turned card)
CLUBS, DIAMONDS, HEARTS, SPADES = range(4)
JACK, QUEEN, KING, ACE = 9, 10, 11, 12
SEVEN = 5  # rank index of the lowest card of the 32-card deck

# Russian write-offs (docs/rules.md "Russian scoring"), each named once: the engines, the search and the
# heuristic read these.
ACE_VALUES = (10, 15, 20, 5)  # by suit index (C, D, H, S): clubs 10, diamonds 15, hearts 20, spades 5
JACK_PAIR_BONUS = 5  # a dealt pair of black or of red jacks writes off this; all four jacks: two pairs
ALL_JACKS_BONUS = 2 * JACK_PAIR_BONUS  # all four jacks
ALL_JACKS_NO_TRICK = 5  # an active holder of all four jacks who takes no trick writes off this instead
JACKS_OUT_AT = 5  # a player dealt jacks with this score or less goes out on them (wins the game)
FIVE_OF_A_SUIT_BONUS = 5  # the holder of five cards of one suit writes off this plus his aces
BLACK_JACKS = frozenset({CLUBS * 13 + JACK, SPADES * 13 + JACK})
RED_JACKS = frozenset({DIAMONDS * 13 + JACK, HEARTS * 13 + JACK})


def suit_of(card: int) -> int:
    """Suit index of a card (0 clubs .. 3 spades); the compiled twin is ``compiled.layout.suit_of``."""
    return card // 13


def rank_of(card: int) -> int:
    """Rank index of a card (0 for a two .. 12 for an ace); the compiled twin is ``compiled.layout.rank_of``."""
    return card % 13


def ranks_by_suit(cards: Iterable[int]) -> list[list[int]]:
    """The ranks of ``cards`` grouped by suit index, each list in the order given: ``suit_of`` and
    ``rank_of`` at once, for the agents' loops over every unseen card (one builtin call a card)."""
    ranks: list[list[int]] = [[], [], [], []]
    for card in cards:
        suit, rank = divmod(card, 13)
        ranks[suit].append(rank)
    return ranks


def card_index(name: str) -> int:
    """Index of a card written rank then suit, e.g. ``card_index("TH") == 34``."""
    if not isinstance(name, str) or len(name) != 2:
        raise ValueError(f"not a card name: {name!r} (expected rank then suit, like 'TH')")
    rank, suit = name[0].upper(), name[1].upper()
    if rank not in RANKS or suit not in SUITS:
        raise ValueError(f"not a card name: {name!r} (ranks {RANKS}, suits {SUITS})")
    return SUITS.index(suit) * 13 + RANKS.index(rank)


def card_name(index: int) -> str:
    """Name of a card index, e.g. ``card_name(34) == "TH"``; any integer type (numpy's too), not a bool."""
    try:
        number = operator.index(index)  # what an action space's sample or a mask's flatnonzero hands out
    except TypeError:
        number = -1
    if isinstance(index, bool) or not 0 <= number < NUM_CARDS:
        raise ValueError(f"not a card index: {index!r} (expected 0..51)")
    return RANKS[rank_of(number)] + SUITS[suit_of(number)]


def deck_cards(deck_size: int) -> list[int]:
    """The cards of a 52- or 32-card deck, in index order."""
    if deck_size == 52:
        return list(range(NUM_CARDS))
    if deck_size == 32:
        return [c for c in range(NUM_CARDS) if rank_of(c) >= SEVEN]
    raise ValueError(f"deck_size must be 52 or 32, got {deck_size!r}")


def ace_value(cards: list[int]) -> int:
    """Sum of the russian values of the aces among ``cards``."""
    return sum(ACE_VALUES[suit_of(c)] for c in cards if rank_of(c) == ACE)


def counted_jacks(cards: list[int] | tuple[int, ...]) -> tuple[int, ...]:
    """The jacks of a dealt hand that score in russian: complete black and red pairs, sorted."""
    jacks = {c for c in cards if rank_of(c) == JACK}
    counted = (BLACK_JACKS if jacks >= BLACK_JACKS else set()) | (RED_JACKS if jacks >= RED_JACKS else set())
    return tuple(sorted(counted))


def jack_bonus(cards: list[int] | tuple[int, ...]) -> int:
    """Russian jacks write-off for a dealt hand (or its counted jacks): ``JACK_PAIR_BONUS`` per
    complete black or red pair, so ``ALL_JACKS_BONUS`` for all four, else 0."""
    return JACK_PAIR_BONUS * (len(counted_jacks(cards)) // 2)
