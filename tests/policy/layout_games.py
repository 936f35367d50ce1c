"""Seeded random games whose observations pin an encoder layout: ``tests/policy/obs_v2.npz`` holds the
observations that encoder version 2 wrote for :func:`play_games` (written once, before version 3), so that
the migration of version 2 weights is checked against the real old encoder, not against its own inverse."""

from __future__ import annotations

import random

import numpy as np

from rams_env.obs import ObservationEncoder
from rams_env.rules import Game, Phase, make_config
from rams_env.rules.config import PRESETS

DECISIONS = 48  # observations kept per game: every decision until then, across deals
V2_PRESETS = ("mattmar", "norrlandsknack", "rams32", "russian")  # the presets of encoder version 2, in order


def games() -> list[tuple[str, int, int]]:
    """(preset, players, seed) of each game: every preset of version 2 at its fewest, 4 and most seats."""
    out = []
    for k, variant in enumerate(V2_PRESETS):
        preset = PRESETS[variant]
        low, high = preset.get("min_players", 3), preset.get("max_players", 7)
        out += [(variant, n, 1000 * k + n) for n in sorted({low, 4, high})]
    return out


def play(variant: str, players: int, seed: int) -> np.ndarray:
    """The observation of the seat to act at each of the first ``DECISIONS`` decisions of a random game
    (scores drawn near the end of the race, so that the race fields vary)."""
    config = make_config(variant, players)
    rng = random.Random(seed)
    scores = [rng.randint(1, config.start_score) for _ in range(players)]
    game = Game(config, seed=seed, scores=scores)
    encoder, rows = ObservationEncoder(config), []
    while len(rows) < DECISIONS and not game.is_over:
        if game.phase == Phase.DEAL_OVER:
            game.next_deal()
            continue
        rows.append(encoder.encode(game, game.current))
        game.apply(rng.choice(game.legal_actions()))
    return np.stack(rows)


def play_games() -> dict[str, np.ndarray]:
    """Every game's observations, keyed ``"<preset>-<players>-<seed>"``."""
    return {f"{v}-{n}-{s}": play(v, n, s) for v, n, s in games()}


if __name__ == "__main__":  # python -m tests.policy.layout_games: rewrite the fixture (only under encoder 2)
    from pathlib import Path

    from rams_env.obs import ENCODER_VERSION

    assert ENCODER_VERSION == 2, "the fixture holds version 2's observations"
    np.savez_compressed(Path(__file__).with_name("obs_v2.npz"), **play_games())
