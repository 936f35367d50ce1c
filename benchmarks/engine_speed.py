"""Engine-only speed: random legal play, legal actions computed at every step, one core.

Run: ``python -m benchmarks.engine_speed [--seconds 2]``. Prints actions/s per preset.
"""

from __future__ import annotations

import platform
import random
import time
from dataclasses import dataclass

from rams_env.options import arg, options_parser
from rams_env.rules import Game, Phase, make_config

CASES = (("mattmar", 4), ("norrlandsknack", 4), ("rams32", 4), ("russian", 4), ("mattmar", 7))


def random_play_rate(variant: str, num_players: int, seconds: float, seed: int = 0) -> tuple[float, int]:
    """Actions per second of random legal play, whole games, for about ``seconds``."""
    chooser = random.Random(seed)
    config = make_config(variant, num_players)
    actions = 0
    game_seed = seed
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        game = Game(config, seed=game_seed)
        game_seed += 1
        while game.phase != Phase.GAME_OVER:
            if game.phase == Phase.DEAL_OVER:
                game.next_deal()
                continue
            legal = game.legal_actions()
            game.apply(legal[chooser.randrange(len(legal))])
            actions += 1
    return actions / (time.perf_counter() - start), actions


@dataclass(kw_only=True)
class EngineSpeedArgs:
    """The options of ``python -m benchmarks.engine_speed``."""

    seconds: float = arg(2.0, "time per case", low=0, open_low=True)


def main() -> None:
    parser = options_parser(__doc__.splitlines()[0], EngineSpeedArgs, validate=True)
    args = parser.parse_args()
    print(
        f"rams_env engine, random legal play, one core ({platform.python_implementation()} "
        f"{platform.python_version()}, {platform.machine()})"
    )
    print(f"{'variant':<16}{'players':>8}{'actions/s':>12}{'actions':>10}")
    for variant, n in CASES:
        rate, count = random_play_rate(variant, n, args.seconds)
        print(f"{variant:<16}{n:>8}{rate:>12,.0f}{count:>10,}")


if __name__ == "__main__":
    main()
