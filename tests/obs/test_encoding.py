"""Encoder version 2: the race to 0 (start score, scores near 0, what a flight costs) by name, scripted."""

from __future__ import annotations

import numpy as np
import pytest

import rams_env
from rams_env.obs.encoding import ENCODER_VERSION, RACE_FLAGS, SLICES


def _race(obs: np.ndarray, n: int) -> tuple[float, np.ndarray, np.ndarray]:
    start = float(obs[SLICES["start_score"]][0])
    near = obs[SLICES["score_left"]].reshape(-1, RACE_FLAGS)[:n]
    cost = obs[SLICES["flight_cost"]][:n]
    return start, near, cost


@pytest.mark.parametrize("engine", ["compiled", "reference"])
def test_swedish_race_fields_follow_the_scores_relative_to_the_observer(engine):
    env = rams_env.env(variant="mattmar", num_players=4, engine=engine)
    env.reset(seed=3, options={"scores": [1, 3, 7, 10], "dealer": 0})
    obs = env.observe("player_1")["observation"]  # relative seats: 1, 2, 3, 0 in absolute terms
    start, near, cost = _race(obs, 4)
    assert ENCODER_VERSION >= 2  # the race fields came with version 2
    assert start == pytest.approx(10 / 200)
    # score 3: flags "at most 3, 4, 5"; 7 and 10: none; 1: all five
    assert near.tolist() == [[0, 0, 1, 1, 1], [0] * 5, [0] * 5, [1] * 5]
    # a flight adds 5, but never above the cap 10
    assert (cost * 5).round().tolist() == [5, 3, 0, 5]


@pytest.mark.parametrize("engine", ["compiled", "reference"])
def test_russian_race_fields_show_the_chosen_start_score_and_the_fine(engine):
    env = rams_env.env(variant="russian", num_players=4, start_score=150, engine=engine)
    env.reset(seed=1, options={"scores": [4, 150, 60, 2], "dealer": 3})
    obs = env.observe("player_0")["observation"]
    start, near, cost = _race(obs, 4)
    assert start == pytest.approx(150 / 200)
    assert near.tolist() == [[0, 0, 0, 1, 1], [0] * 5, [0] * 5, [0, 1, 1, 1, 1]]
    assert (cost * 5).round().tolist() == [5, 5, 5, 5]  # the fine without aces; no cap in russian
