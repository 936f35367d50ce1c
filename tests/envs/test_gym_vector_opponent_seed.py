"""The vector env reseeds an outside opponent once, as game 0's RamsGymEnv would, and its docs say so."""

from __future__ import annotations

from pathlib import Path

import rams_env.envs.gym_vector as gym_vector
from rams_env.agents import RandomAgent
from rams_env.envs import RamsVectorEnv
from rams_env.envs.gym_env import opponent_seed
from rams_env.envs.vector import game_seeds

ROOT = Path(__file__).resolve().parents[2]


class Recording(RandomAgent):
    def __init__(self) -> None:
        super().__init__(seed=0)
        self.seeds: list[int] = []

    def seed(self, seed) -> None:
        self.seeds.append(seed)
        super().seed(seed)


def test_an_outside_opponent_is_reseeded_from_game_0s_seed_and_its_position() -> None:
    one, first, second = Recording(), Recording(), Recording()
    env = RamsVectorEnv(3, opponents=one)
    env.reset(seed=5)
    assert one.seeds == [opponent_seed(game_seeds(5, 3)[0], 0)] != [opponent_seed(5, 0)]
    env.reset(seed=[7, 8, 9])
    env.reset()  # no seed: nobody reseeded
    assert one.seeds[1:] == [opponent_seed(7, 0)]
    listed = RamsVectorEnv(2, opponents=[first, second, first])  # listed twice: reseeded once, by its first position
    listed.reset(seed=5)
    game0 = game_seeds(5, 2)[0]
    assert (first.seeds, second.seeds) == ([opponent_seed(game0, 0)], [opponent_seed(game0, 1)])


def test_the_docstring_and_the_docs_say_game_0s_seed() -> None:
    doc = " ".join(gym_vector.__doc__.split())
    assert "opponent_seed` of game 0's seed (``game_seeds(s, num_envs)[0]``" in doc
    page = " ".join((ROOT / "docs" / "environment.md").read_text(encoding="utf-8").split())
    assert "`opponent_seed(game_seeds(s, N)[0], k)`" in page
