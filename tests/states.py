"""Game states met in random legal play, for the tests that check something at many states."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from rams_env.rules import Game, Phase, make_config


def random_states(
    variant: str, n: int, seed: int, keep: float, deals: int = 2, early_keep: float | None = None
) -> list[Game]:
    """Clones of live states met in random legal play over up to ``deals`` deals: about ``keep`` of
    the buying and play states, and ``early_keep`` (default ``keep``) of the bidding and knock ones."""
    early = keep if early_keep is None else early_keep
    game = Game(make_config(variant, n), seed=seed)
    rng = random.Random(seed)
    states = []
    while game.phase != Phase.GAME_OVER and game.deal_number < deals:
        if game.phase == Phase.DEAL_OVER:
            game.next_deal()
            continue
        if rng.random() < (keep if game.phase >= Phase.BUY else early):
            states.append(game.clone())
        game.apply(rng.choice(game.legal_actions()))
    return states


def openspiel_decisions(game: Any, rng: random.Random, episodes: int) -> Iterator[Any]:
    """Every decision state of ``episodes`` random plays of the OpenSpiel ``game`` (uniform chance and
    actions, from ``rng``); each is yielded before the walk applies its random action."""
    for _ in range(episodes):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(rng.choice(state.chance_outcomes())[0])
                continue
            yield state
            state.apply_action(rng.choice(state.legal_actions()))
