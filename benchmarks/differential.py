"""The long differential run of issue 5: the compiled batched env against the Python reference.

Plays ``--deals`` episodes per preset through :class:`~rams_env.envs.vector.BatchedRamsEnv` (compiled)
and :class:`~rams_env.envs.vector.ReferenceBatchedRamsEnv` (the pure-Python engine, itself checked
against the AEC env by ``tests/envs/test_vector.py``) with the same seeds and the same uniformly random
legal actions, and compares every observation, mask, seat, reward, episode end and score.

Run: ``python -m benchmarks.differential --deals 100000`` (about a minute per preset per 100k
deals on one core). Exits 1 on the first difference, naming it.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass

import numpy as np
from tqdm import tqdm

from rams_env import compiled
from rams_env.compiled.random_policy import random_legal_actions
from rams_env.compiled.workspace import mt_states
from rams_env.envs import BatchedRamsEnv, ReferenceBatchedRamsEnv
from rams_env.options import SEED, arg, options_parser

PRESETS = [("mattmar", 4), ("norrlandsknack", 5), ("rams32", 3), ("russian", 4)]
FIELDS = ("seats", "observations", "action_masks", "rewards", "done")


def compare(variant: str, players: int, deals: int, games: int, seed: int) -> tuple[int, int]:
    """Play until ``deals`` episodes ended in both envs; returns (episodes, steps compared)."""
    fast = BatchedRamsEnv(games, variant=variant, num_players=players, seed=seed)
    slow = ReferenceBatchedRamsEnv(games, variant=variant, num_players=players, seed=seed)
    a, b = fast.reset(), slow.reset()
    rng = mt_states()
    compiled.mt_seed(rng, seed)
    actions = np.empty(games, np.int64)
    episodes = steps = 0
    with tqdm(total=deals, desc=f"{variant} {players}p", unit="deal") as bar:
        while episodes < deals:
            for name in FIELDS:
                if not np.array_equal(getattr(a, name), getattr(b, name)):
                    game = int(np.argwhere(getattr(a, name) != getattr(b, name))[0][0])
                    raise AssertionError(f"{variant} {players}p step {steps}: {name} of game {game} differs")
            if not np.array_equal(fast.scores, slow.scores):
                raise AssertionError(f"{variant} {players}p step {steps}: scores differ")
            random_legal_actions(a.action_masks, rng, actions)
            a, b = fast.step(actions), slow.step(actions)
            ended = int(a.done.sum())
            episodes += ended
            steps += games
            bar.update(ended)
    return episodes, steps


@dataclass(kw_only=True)
class DifferentialArgs:
    """The options of ``python -m benchmarks.differential``."""

    deals: int = arg(100_000, "episodes compared per preset", low=1)
    games: int = arg(256, "games stepped together", low=1)
    seed: int = arg(2026, "seed of the deals and the random play", check=SEED)


def main() -> None:
    parser = options_parser(__doc__.splitlines()[0], DifferentialArgs, validate=True)
    args = parser.parse_args()
    started = time.perf_counter()
    try:
        for variant, players in PRESETS:
            episodes, steps = compare(variant, players, args.deals, args.games, args.seed)
            print(f"{variant} {players}p: {episodes:,} deals, {steps:,} decisions identical")
    except AssertionError as err:
        print(f"DIFFERENCE: {err}", file=sys.stderr)
        sys.exit(1)
    print(f"all identical ({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
