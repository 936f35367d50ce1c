"""The one rule of per-seat credit (rams_env.envs.credit): a seat's rewards go to its latest decision until it
decides again or the episode ends; rewards before its first decision belong to no decision."""

from __future__ import annotations

import numpy as np

from rams_env.envs.credit import SeatCredit


def closed_as_dict(closed) -> dict:
    return {(g, s): (i, e) for g, s, i, e in zip(*(x.tolist() for x in closed), strict=True)}


def test_rewards_go_to_each_seats_latest_decision_until_it_decides_again_or_the_episode_ends():
    credit = SeatCredit(2, 3)
    credit.pay(np.array([[5.0, 5.0, 5.0], [0.0, 0.0, 0.0]]))  # before any decision: nobody's
    assert not len(credit.decide(np.array([0, 1]), np.array([0, 2]), np.array([10, 11])).ids)
    credit.pay(np.array([[1.0, 2.0, 0.0], [0.0, 0.0, 3.0]]))  # game 0 seat 1 has no decision: dropped
    assert not len(credit.decide(np.array([0, 1]), np.array([1, 0]), np.array([12, 13])).ids)
    credit.pay(np.array([[1.0, 1.0, 0.0], [4.0, 0.0, 1.0]]))
    closed = closed_as_dict(credit.decide(np.array([0, 1]), np.array([0, 2]), np.array([14, 15])))
    assert closed == {(0, 0): (10, 2.0), (1, 2): (11, 4.0)}  # seat 0: 1 + 1; game 1 seat 2: 3 + 1
    credit.pay(np.array([[0.5, 0.0, 0.0], [0.0, 2.0, 0.0]]))
    ended = closed_as_dict(credit.end(np.array([1])))
    assert ended == {(1, 0): (13, 4.0 + 0.0), (1, 2): (15, 0.0)}  # game 1's open decisions, terminal
    assert (credit.open[1] == -1).all() and (credit.owed[1] == 0).all()
    assert closed_as_dict(credit.end(np.array([0]))) == {(0, 0): (14, 0.5), (0, 1): (12, 1.0)}


def test_float32_credit_adds_as_a_float32_buffer_would():
    credit = SeatCredit(1, 2, np.float32)
    buffer = np.zeros(1, np.float32)
    credit.decide(np.array([0]), np.array([0]), np.array([0]))
    for reward in (0.1, 0.2, 0.3, 1e-8):
        credit.pay(np.array([[reward, 0.0]], np.float32))
        buffer[0] += np.float32(reward)
    assert credit.end(np.array([0])).earned[0] == buffer[0]
