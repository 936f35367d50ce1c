"""The compiled heuristic (``rams_env.compiled.heuristic``) against ``HeuristicAgent``, decision by
decision, and the batched env's heuristic seats against the same games played in Python.

Both agents see every observation of whole ramsar (from the start score and from random
scores), seeded alike, while some moves are random so that odd positions come up; every
decision must be the same action. The long comparison (100,000 decisions per preset) is marked
slow; ``python -m benchmarks.heuristic_speed --compare N`` runs a longer one.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from rams_env.agents import HeuristicAgent
from rams_env.agents.base import observe
from rams_env.agents.compiled_heuristic import CompiledHeuristicAgent, compare_agents
from rams_env.compiled import config_array
from rams_env.compiled.heuristic_chances import (
    S_BEATEN,
    S_OPPONENTS,
    WORK_SIZE,
    hold,
    situation,
    suit_top_chance,
)
from rams_env.compiled.heuristic_decode import V_HAND, V_TRUMP, decode
from rams_env.envs import BatchedRamsEnv, heuristic_seed, next_deal_or_end, win_rewards
from rams_env.rules import Game, Phase, make_config
from rams_env.rules.cards import HAND_SIZE
from rams_env.rules.config import PRESETS
from rams_env.rules.seeding import SeedError


@pytest.mark.slow
@pytest.mark.parametrize("variant", list(PRESETS))
def test_the_twin_chooses_what_the_python_agent_chooses_at_every_table_size(variant: str) -> None:
    made, differ = compare_agents(variant, 3_000, seed=11)
    assert made >= 3_000
    assert differ == []


@pytest.mark.slow
@pytest.mark.parametrize("variant", list(PRESETS))
def test_the_twin_chooses_what_the_python_agent_chooses_over_100000_decisions(variant: str) -> None:
    made, differ = compare_agents(variant, 100_000, seed=2026)
    assert made >= 100_000
    assert differ == []


def test_the_twin_samples_better_card_hands_with_the_python_agents_generator() -> None:
    """Bids and answers to better cards draw hands from the generator: a differently seeded twin
    soon disagrees, the same seed never does."""
    config = make_config("mattmar", 4)
    same, other = 0, 0
    for g in range(60):
        game = Game(config, seed=g)
        while game.phase in (Phase.BID, Phase.ANSWER):
            obs = observe(game, game.current)
            python = HeuristicAgent(config, seed=g).act(obs)
            same += python != CompiledHeuristicAgent(config, seed=g).act(obs)
            other += python != CompiledHeuristicAgent(config, seed=g + 1000).act(obs)
            game.apply(python)
    assert same == 0 and other > 0


@pytest.mark.parametrize(("variant", "n"), [("mattmar", 4), ("rams32", 5)])
def test_the_table_of_top_chances_is_what_hold_computes_card_by_card(variant: str, n: int) -> None:
    """A situation tabulates its top chances by suit and count of unseen cards above (``_tops``); every
    entry a card reads is, bit for bit, ``hold`` of that card against every opponent, under every trump,
    with the known card (the dealer's turned card) among them."""
    config = make_config(variant, n)
    c = config_array(config, "rams", "win")
    work = np.zeros(WORK_SIZE)
    rng = random.Random(3)
    checked = known = 0
    for g in range(12):
        game = Game(config, seed=g)
        agents = [HeuristicAgent(config, seed=g) for _ in range(n)]
        while game.phase < Phase.DEAL_OVER:
            obs = observe(game, game.current)
            game.apply(agents[game.current].act(obs))
            if rng.random() > 0.3:
                continue
            v = decode(obs["observation"], c)
            for trump, hand_size in [(t, HAND_SIZE) for t in range(4)] + [(v[V_TRUMP], -1)]:
                sit = situation(v, trump, hand_size, work)
                known += sit[S_BEATEN] != 0
                # a situation of play (hand size -1) tabulates the suits in hand only
                suits = [s for s in range(4) if hand_size >= 0 or (v[V_HAND] >> (13 * s)) & 0x1FFF]
                for suit in suits:
                    for rank in range(13):
                        for lower in range(4) if suit == trump else [-1]:
                            led = trump if lower >= 0 else suit
                            expected = hold(sit, 13 * suit + rank, led, sit[S_OPPONENTS], max(0, lower), work)
                            assert suit_top_chance(sit, suit, rank, lower, work) == expected
                            checked += 1
    assert checked > 10_000 and known > 0


def test_the_compiled_agent_refuses_a_table_it_was_not_built_for() -> None:
    game = Game(make_config("russian", 5), seed=1)
    while len(game.legal_actions()) < 2:
        game.apply(game.legal_actions()[0])
    obs = observe(game, game.current)
    with pytest.raises(ValueError, match="built for mattmar with 4 players, but observes russian with 5"):
        CompiledHeuristicAgent(make_config("mattmar", 4)).act(obs)
    with pytest.raises(ValueError, match="below 2\\*\\*64"):
        CompiledHeuristicAgent(seed=2**70)
    with pytest.raises(SeedError, match="seed must be a non-negative int"):
        CompiledHeuristicAgent(seed="1")  # type: ignore[arg-type]


# ----------------------------------------------------------------------------- heuristic seats
def python_versus(variant: str, n: int, seed: int, heuristic: list[bool], episode: str, reward: str, steps: int):
    """The batched env's game ``seed`` with heuristic seats, played in Python: per controlled
    decision the observation, mask, and then the rewards and done of the step after it."""
    config = make_config(variant, n)
    seeder = random.Random(seed)
    agents = {s: HeuristicAgent(config, seed=heuristic_seed(seed, s)) for s in range(n) if heuristic[s]}
    choose = np.random.default_rng(seed)

    def new_game() -> Game:
        while True:
            game = Game(config, seed=seeder.getrandbits(63))
            if game.current >= 0:
                return game

    def apply(game: Game, action: int, into: np.ndarray, ended: bool) -> tuple[Game, bool, bool]:
        before = np.array(game.scores, np.float64)
        game.apply(action)
        if reward == "points":
            into += before - np.array(game.scores)
        if game.phase >= Phase.DEAL_OVER and next_deal_or_end(game, episode):
            if reward == "win" and not ended:
                into += win_rewards(game)
            return new_game(), True, ended
        return game, ended, False

    def advance(game: Game, rewards: np.ndarray, carry: np.ndarray, ended: bool) -> tuple[Game, bool]:
        while heuristic[game.current]:
            action = agents[game.current].act(observe(game, game.current))
            game, ended, again = apply(game, action, carry if ended else rewards, ended)
            if again:  # an episode with no controlled decision: dropped
                carry[:] = 0.0
        return game, ended

    carry = np.zeros(n)
    game, _ = advance(new_game(), carry, carry, True)
    record = []
    for _ in range(steps):
        obs = observe(game, game.current)
        action = int(choose.choice(np.flatnonzero(obs["action_mask"])))
        rewards, carry = carry, np.zeros(n)
        game, ended, _ = apply(game, action, rewards, False)
        game, ended = advance(game, rewards, carry, ended)
        record.append((obs, action, rewards, ended))
    return record


@pytest.mark.slow
@pytest.mark.parametrize(
    ("variant", "n", "episode", "reward"),
    [
        ("mattmar", 4, "rams", "win"),
        ("norrlandsknack", 3, "rams", "points"),
        ("rams32", 5, "deal", "points"),
        ("russian", 4, "rams", "win"),
        ("russian", 6, "deal", "points"),
    ],
)
def test_heuristic_seats_play_inside_the_step_as_the_python_heuristic_plays_them(
    variant: str, n: int, episode: str, reward: str
) -> None:
    heuristic = [s != 1 for s in range(n)]
    record = python_versus(variant, n, 5, heuristic, episode, reward, 400)
    env = BatchedRamsEnv(
        1, variant=variant, num_players=n, episode=episode, reward=reward, heuristic_seats=np.array(heuristic)
    )
    out = env.reset_games([5])
    for k, (obs, action, rewards, ended) in enumerate(record):
        assert out.seats[0] == 1, k
        assert np.array_equal(out.observations[0], obs["observation"]), k
        assert np.array_equal(out.action_masks[0], obs["action_mask"]), k
        out = env.step(np.array([action]))
        assert out.done[0] == ended, k
        np.testing.assert_allclose(out.rewards[0], rewards, atol=1e-6, err_msg=f"step {k}")
    assert sum(ended for *_, ended in record) > 0


def test_heuristic_seats_change_from_the_next_episode_and_need_a_controlled_seat() -> None:
    env = BatchedRamsEnv(3, num_players=4, episode="deal", seed=3, heuristic_seats=np.array([False, True, True, True]))
    out = env.reset()
    assert (out.seats == 0).all()
    env.set_next_heuristic_seats(np.array([True, True, False, True]))
    assert not env.heuristic_seats[:, 0].any()  # the current episode keeps its seats
    rng = np.random.default_rng(0)
    switched = np.zeros(3, bool)
    for _ in range(200):
        expected_seat = np.where(switched, 2, 0)
        assert (out.seats == expected_seat).all()
        out = env.step(np.array([rng.choice(np.flatnonzero(m)) for m in out.action_masks]))
        switched |= out.done
    assert switched.all() and env.heuristic_seats[:, 2].sum() == 0
    with pytest.raises(ValueError, match="every seat is a heuristic seat"):
        BatchedRamsEnv(2, heuristic_seats=np.ones(4, bool))
    with pytest.raises(ValueError, match="shape"):
        BatchedRamsEnv(2, heuristic_seats=np.zeros(5, bool))
    with pytest.raises(ValueError, match="bool array"):
        BatchedRamsEnv(2, heuristic_seats=[0, 1, 1, 1])
    env.set_heuristic_seats(np.array([False, False, True, True]))
    assert (env.reset().seats <= 1).all() and env.heuristic_seats[:, 2:].all()
    with pytest.raises(ValueError, match="made without heuristic_seats"):
        BatchedRamsEnv(2).set_heuristic_seats(np.array([False, True, True, True]))
    with pytest.raises(ValueError, match="heuristic_seeds needs"):
        BatchedRamsEnv(2).reset_games([1, 2], heuristic_seeds=[[1] * 4, [2] * 4])
    with pytest.raises(ValueError, match="heuristic_seeds must be an int array"):
        env.reset_games([1, 2, 3], heuristic_seeds=np.zeros((3, 3), np.int64))


def test_heuristic_seats_are_reproducible_per_seed_and_follow_their_seeds() -> None:
    def run(seed: int, hseeds: np.ndarray | None = None) -> list[int]:
        env = BatchedRamsEnv(4, num_players=4, episode="rams", seed=seed, heuristic_seats=np.array([1, 0, 1, 1], bool))
        out = env.reset_games(list(range(seed, seed + 4)), heuristic_seeds=hseeds)
        rng = np.random.default_rng(1)
        trace = []
        for _ in range(150):
            out = env.step(np.array([rng.choice(np.flatnonzero(m)) for m in out.action_masks]))
            trace += np.flatnonzero(out.observations[0] > 0.5).tolist()
        return trace

    assert run(1) == run(1)
    derived = np.array([[heuristic_seed(s, seat) for seat in range(4)] for s in range(1, 5)])
    assert run(1, derived) == run(1)
    assert run(1, derived + 1) != run(1)
