"""Fuzz: 10,000 random deals per preset, cycling over its player counts, with cheap checks.

A table is a fresh ``Game`` (its own seed; often low starting scores; every third one a deck
stacked for rare hands) played for up to ``DEALS_PER_TABLE`` deals by a uniformly random policy.
At every step someone is to act and the legal set is non-empty, and the engine raises nothing.
At every deal's end: every card is in exactly one place, the deal took at most
``config.max_deal_actions`` actions, and the scores, tricks and active players agree with the
independent model of ``tests/oracle.py`` (Swedish points trick by trick and flights; russian
write-offs, fines, jacks, aces, five of a suit; rams, match and game ends).
"""

from __future__ import annotations

import random
import time

import pytest

from rams_env.rules import Game, Phase, make_config
from tests.decks import card_places, check_result
from tests.oracle import PRESET_PLAYERS, Shadow, card_str, deck_of, rigged_deck

DEALS = 10_000
DEALS_PER_TABLE = 4


def fuzz(variant: str, deals: int, seed: int = 0) -> dict[str, int]:
    """Play ``deals`` random deals of ``variant``; return how the deals ended (for the log)."""
    rng = random.Random(f"{variant}-{seed}")
    counts = list(PRESET_PLAYERS[variant])
    configs = [make_config(variant, n) for n in counts]
    decks = [sorted(deck_of(variant, n)) for n in counts]
    reasons: dict[str, int] = {}
    played = table = 0
    while played < deals:
        which = table % len(counts)
        cfg, deck, n = configs[which], decks[which], counts[which]
        table += 1
        dealer = rng.randrange(n)
        top = cfg.start_score
        scores = [rng.choice((1, 2, 2, 3, 5, top)) for _ in range(n)] if rng.random() < 0.4 else None
        stacked = rigged_deck(rng, variant, n, dealer) if table % 3 == 0 else None
        game = Game(cfg, seed=rng.getrandbits(32), deck=stacked, dealer=dealer, scores=scores)
        shadow = Shadow(variant, n, top, scores or [top] * n, dealer)
        shadow.start_deal(game.view, stacked)
        for _ in range(DEALS_PER_TABLE):
            steps = 0
            while game.phase != Phase.DEAL_OVER and game.phase != Phase.GAME_OVER:
                legal = game.legal_actions()
                seat = game.current_player
                assert legal and seat == shadow.to_act(), (seat, shadow.to_act(), legal)
                assert legal == shadow.legal(game.view(seat))
                action = rng.choice(legal)
                game.apply(action)
                shadow.after(seat, action, game.view)
                steps += 1
            played += 1
            reasons[shadow.reason or "?"] = reasons.get(shadow.reason or "?", 0) + 1
            assert steps <= cfg.max_deal_actions
            assert game.legal_actions() == [] and game.current_player == -1
            assert sorted(card_str(c) for c in card_places(game)) == deck
            view = game.view(0)
            assert shadow.phase == "over"
            assert view["scores"] == shadow.scores, (view["scores"], shadow.scores, shadow.reason)
            assert view["tricks"] == shadow.tricks and view["active"] == shadow.active
            assert (game.phase == Phase.GAME_OVER) == shadow.game_over
            if shadow.game_over:
                check_result(game, shadow)
                break
            game.next_deal()
            shadow.next_deal()
            shadow.start_deal(game.view)
    return reasons


@pytest.mark.slow
@pytest.mark.parametrize("variant", list(PRESET_PLAYERS))
def test_fuzz_random_deals(variant: str) -> None:
    start = time.perf_counter()
    reasons = fuzz(variant, DEALS)
    elapsed = time.perf_counter() - start
    print(f"{variant}: {sum(reasons.values())} deals in {elapsed:.1f} s, {reasons}")
    assert sum(reasons.values()) >= DEALS
    assert reasons.get("played", 0) > DEALS // 10  # the fuzz really plays deals out
