"""Deal sets: the fixed decks an evaluation plays, and the seeds of the agents that play them.

Deck ``i`` of the deal set ``seed`` (its cards, first dealer, scores and game seed) depends only on
``(seed, i)`` and the rules. The agent in seat ``s`` on deck ``i`` gets a seed derived from
``(seed, i, s)`` whichever agent it is, so a rerun gives identical numbers and an agent evaluated
against itself has an advantage of exactly 0 (common random numbers).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ..envs.seats import derive_seed
from ..rules import Game, RulesConfig, card_name, deck_cards

SCORES = ("start", "random")  # scores of the first deal of each deck: the start score, or drawn

REPORT_SEED = 7400001
"""the report deal set: no training run evaluates on it and no choice of a model uses it; every figure of
the docs, the model cards, ``rams exploit``'s and ``rams psro``'s reports and the learning benchmarks' final
evaluation is on it"""
CHOOSING_SEED = 7200001
"""the deal set that chooses: the periodic evaluations of ``rams exploit`` and the learning benchmarks"""


# Streams of derived seeds, kept apart so that no two uses share numbers.
_DEALS, _AGENTS, _LINEUPS = 0, 1, 2


@dataclass(frozen=True)
class Deal:
    """Deck ``index`` of a deal set: the first deal's deck (top card first), dealer, scores and game seed."""

    index: int
    deck: tuple[str, ...]
    dealer: int
    seed: int  # seeds the game's generator, which shuffles the later deals of a rams or match
    scores: tuple[int, ...]  # the seats' scores when the first deal starts

    def game(self, config: RulesConfig) -> Game:
        """A fresh game starting with this deal."""
        return Game(config, self.seed, deck=list(self.deck), dealer=self.dealer, scores=list(self.scores))


def deal_set(config: RulesConfig, seed: int, count: int, scores: str = "start") -> list[Deal]:
    """``count`` decks; deck ``i``, its first dealer and scores depend only on ``(seed, i)`` and the config.

    ``scores="start"``: every seat starts at the start score. ``"random"``: each seat's score is drawn
    from 1 to the start score, so that a single deal also weighs flights and forced knocks (from the
    start score a Swedish flight costs nothing: it is capped there). The decks are the same either way.
    """
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise ValueError(f"count (number of decks) must be a positive int, got {count!r}")
    if scores not in SCORES:
        raise ValueError(f"scores must be one of {SCORES}, got {scores!r}")
    return [deal_at(config, seed, i, scores) for i in range(count)]


def deck_of(config: RulesConfig, seed: int, index: int, scores: str = "start") -> Deal:
    """Deck ``index`` of the deal set ``seed``: ``deal_set(config, seed, index + 1, scores)[index]``, the others
    not made (``rams serve`` plays one deck of a set)."""
    if isinstance(index, bool) or not isinstance(index, int) or index < 0:
        raise ValueError(f"index (of a deck) must be a non-negative int, got {index!r}")
    if scores not in SCORES:
        raise ValueError(f"scores must be one of {SCORES}, got {scores!r}")
    return deal_at(config, seed, index, scores)


def agent_seed(seed: int, deck: int, seat: int) -> int:
    """Seed of the agent in ``seat`` on deck ``deck`` of the deal set ``seed`` (whichever agent sits there)."""
    return derive_seed(seed, _AGENTS, deck, seat)


def lineup_seed(seed: int, deck: int) -> int:
    """Seed of the league's line-up on deck ``deck`` of the deal set ``seed``."""
    return derive_seed(seed, _LINEUPS, deck)


def deal_at(config: RulesConfig, seed: int, index: int, scores: str) -> Deal:
    """Deck ``index`` of the deal set ``seed``, its arguments unchecked (:func:`deck_of` checks them)."""
    rng = random.Random(derive_seed(seed, _DEALS, index))
    cards = deck_cards(config.deck_size)
    rng.shuffle(cards)
    dealer = rng.randrange(config.num_players)
    game_seed = rng.getrandbits(63)
    n, start = config.num_players, config.start_score
    start_scores = tuple(rng.randint(1, start) for _ in range(n)) if scores == "random" else (start,) * n
    return Deal(index, tuple(card_name(c) for c in cards), dealer, game_seed, start_scores)
