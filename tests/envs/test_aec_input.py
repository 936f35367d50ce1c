"""The AEC env's input and edges: bools refused as actions with the state unchanged, numpy integers accepted
for seeds, dealers, scores and seats, unknown agents and seats named, a failed reset that consumes no draw,
observe() after the episode, a rejected action that leaves pending rewards alone, and win rewards paid
however the episode ends. (The Gymnasium wrapper's are in tests/envs/test_gym_env_input.py.)"""

from __future__ import annotations

import random

import numpy as np
import pytest

import rams_env
from rams_env import IllegalActionError
from rams_env.rules.seeding import SeedError
from tests.decks import stack_deck

ENGINES = ("compiled", "reference")


def masked_choice(rng: random.Random, mask: np.ndarray) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


def jacks_go_out_options() -> dict:
    """Russian, 4 players: seat 2 (score 5) is dealt both black jacks and goes out at once."""
    deck = stack_deck("russian", 4, 0, {2: ["JC", "JS"]}, "2H")
    return {"deck": deck, "dealer": 0, "scores": [50, 50, 5, 50]}


def snapshot(env) -> tuple:
    """Everything a rejected action must leave alone."""
    raw = env.unwrapped
    observations = {a: raw.observe(a) for a in raw.agents}
    return (
        raw.agent_selection,
        list(raw.agents),
        dict(raw.rewards),
        dict(raw._cumulative_rewards),
        {a: dict(i) for a, i in raw.infos.items()},
        dict(raw.terminations),
        {a: (o["observation"].tobytes(), o["action_mask"].tobytes()) for a, o in observations.items()},
        [raw.view(s) for s in range(len(raw.possible_agents))],
    )


# =========================================================================== bools as actions


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("action", [True, False, np.bool_(True)])
def test_aec_step_refuses_bools(engine, action):
    """``True`` is not action 1: refused with the state unchanged, even where action 1 or 0 is legal."""
    rng = random.Random(0)
    for seed in range(40):
        env = rams_env.env(engine=engine)
        env.reset(seed=seed)
        while env.agents:
            mask = env.observe(env.agent_selection)["action_mask"]
            if mask[int(action)]:
                before = snapshot(env)
                with pytest.raises(IllegalActionError, match="int action id"):
                    env.step(action)
                assert snapshot(env) == before
                return
            env.step(masked_choice(rng, mask))
    pytest.fail("no state with the action legal found")


def test_aec_terminate_mode_records_a_bool_as_not_an_action():
    env = rams_env.env(illegal_action="terminate")
    env.reset(seed=0)
    agent = env.agent_selection
    env.step(True)
    assert all(env.terminations.values())
    assert env.infos[agent]["illegal_action"] == "True"


# =========================================================================== numpy integers
def trace(env, seed, options=None) -> list:
    env.reset(seed=seed, options=options)
    rng = random.Random(0)
    out = []
    for _agent in env.agent_iter():
        obs, reward, termination, truncation, _ = env.last()
        out.append((obs["observation"].tobytes(), reward))
        env.step(None if termination or truncation else masked_choice(rng, obs["action_mask"]))
    return out


@pytest.mark.parametrize("engine", ENGINES)
def test_numpy_integers_for_seed_dealer_scores_and_seats(engine):
    env = rams_env.env(variant="mattmar", engine=engine, episode="rams")
    assert trace(env, np.int64(3)) == trace(env, 3)
    assert trace(env, np.uint32(3)) == trace(env, 3)
    plain = {"dealer": 2, "scores": [3, 7, 10, 1]}
    for numpy_options in (
        {"dealer": np.int64(2), "scores": [np.int64(3), np.int32(7), np.int8(10), np.uint16(1)]},
        {"dealer": np.int32(2), "scores": np.array([3, 7, 10, 1])},
        {"dealer": np.int8(2), "scores": (np.int64(3), 7, 10, np.int64(1))},
    ):
        assert trace(env, 5, numpy_options) == trace(env, 5, plain)
    env.reset(seed=0)
    for seat in range(4):
        assert env.unwrapped.view(np.int64(seat)) == env.unwrapped.view(seat) == env.unwrapped.view(f"player_{seat}")
        assert env.unwrapped.view(np.int32(seat))["seat"] == seat
    # bools and other types stay refused, naming the option
    for bad in ({"dealer": True}, {"dealer": 1.0}, {"dealer": np.float64(1)}, {"scores": np.array([3.0, 7, 10, 1])}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            env.reset(seed=0, options=bad)
    for bad_seed in (True, 1.5, "3", np.float64(3), -1, 2**64):
        with pytest.raises(SeedError, match="seed must be a non-negative int below 2"):
            env.reset(seed=bad_seed)


# =========================================================================== smaller edges
@pytest.mark.parametrize("engine", ENGINES)
def test_observe_after_the_episode_gives_the_final_observation(engine):
    env = rams_env.env(engine=engine)
    env.reset(seed=0)
    rng = random.Random(0)
    finals = {}
    for agent in env.agent_iter():
        obs, _, termination, truncation, _ = env.last()
        if termination or truncation:
            finals[agent] = obs
            env.step(None)
        else:
            env.step(masked_choice(rng, obs["action_mask"]))
    assert not env.agents
    for agent in env.possible_agents:
        for e in (env, env.unwrapped):
            obs = e.observe(agent)
            assert not obs["action_mask"].any()
            assert np.array_equal(obs["observation"], finals[agent]["observation"])


def test_unknown_agents_and_seats_are_named():
    env = rams_env.env()
    raw = env.unwrapped
    with pytest.raises(RuntimeError, match=r"reset\(\)"):
        raw.view(0)
    with pytest.raises(RuntimeError, match=r"reset\(\)"):
        raw.observe("player_0")
    env.reset(seed=0)
    for e in (env, raw):
        with pytest.raises(ValueError, match="bogus"):
            e.observe("bogus")
        with pytest.raises(ValueError, match="player_9"):
            e.observe("player_9")
    with pytest.raises(ValueError, match="player_9"):
        raw.view("player_9")
    for seat in (4, -1, np.int64(7)):
        with pytest.raises(ValueError, match=rf"seat.*{seat}"):
            raw.view(seat)
    for bad in (True, 1.0, None, [0]):
        with pytest.raises(ValueError, match="agent"):
            raw.view(bad)


@pytest.mark.parametrize("options", [1, "deck", [("dealer", 0)], 2.5])
def test_reset_options_must_be_a_dict(options):
    env = rams_env.env()
    with pytest.raises(TypeError, match="options"):
        env.reset(seed=0, options=options)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_failed_reset_consumes_no_draw_of_the_seed_sequence(engine):
    def next_games(fail: bool) -> list:
        env = rams_env.env(engine=engine, episode="deal")
        env.reset(seed=11)
        if fail:
            for bad in ({"dealer": 9}, {"scores": [1]}, {"deck": ["AS"]}):
                with pytest.raises(ValueError):
                    env.reset(options=bad)
            with pytest.raises(ValueError):
                env.reset(seed=99, options={"dealer": 9})  # a failed reset adopts no new seed either
        return [trace(env, None) for _ in range(3)]

    assert next_games(True) == next_games(False)


# =========================================================================== rewards that go missing
@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("episode", ["rams", "match"])
def test_win_rewards_when_the_episode_is_over_at_reset(engine, episode):
    options = jacks_go_out_options()
    env = rams_env.env(variant="russian", episode=episode, reward="win", engine=engine)
    for reuse in range(2):
        if reuse:  # a reused env: an episode won by someone else first
            env.reset(seed=4)
            rng = random.Random(0)
            for _agent in env.agent_iter():
                obs, _, term, trunc, _ = env.last()
                env.step(None if term or trunc else masked_choice(rng, obs["action_mask"]))
        env.reset(seed=1, options=options)
        assert env.unwrapped.view(0)["winners"] == [2]
        totals = dict.fromkeys(env.possible_agents, 0.0)
        for agent in env.agent_iter():
            _, reward, termination, _, _ = env.last()
            assert termination
            totals[agent] += reward
            env.step(None)
        assert totals == pytest.approx({"player_0": -1 / 3, "player_1": -1 / 3, "player_2": 1.0, "player_3": -1 / 3})


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("variant", "reward", "episode"),
    [("mattmar", "points", "deal"), ("russian", "points", "rams"), ("rams32", "win", "rams")],
)
def test_a_rejected_action_leaves_pending_rewards_alone(engine, variant, reward, episode):
    """An illegal action tried before every legal one (as a person at the terminal might) changes
    nothing: per agent, the rewards read with last() still sum to the score decrease (points) or
    the win share, and the state after each rejection is the state before it."""
    rng = random.Random(5)
    for seed in range(3):
        env = rams_env.env(variant=variant, num_players=4, reward=reward, episode=episode, engine=engine)
        plain = rams_env.env(variant=variant, num_players=4, reward=reward, episode=episode, engine=engine)
        totals = {e: dict.fromkeys(env.possible_agents, 0.0) for e in ("tried", "plain")}
        env.reset(seed=seed)
        plain.reset(seed=seed)
        start = [env.unwrapped.infos[a]["score"] for a in env.possible_agents]
        pending_seen = False
        for agent in env.agent_iter():
            obs, reward_now, term, trunc, _ = env.last()
            _, plain_reward, _, _, _ = plain.last()
            if not (term or trunc):
                pending_seen |= reward_now != 0.0
                before = snapshot(env)
                illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
                with pytest.raises(IllegalActionError):
                    env.step(illegal)
                assert snapshot(env) == before
                assert env.last()[1] == reward_now
            totals["tried"][agent] += env.last()[1]
            totals["plain"][agent] += plain_reward
            action = None if term or trunc else masked_choice(rng, obs["action_mask"])
            env.step(action)
            plain.step(action)
        assert totals["tried"] == totals["plain"]
        if reward == "points" and episode == "deal":
            end = [env.unwrapped.game.scores[s] for s in range(4)]
            for s, a in enumerate(env.possible_agents):
                assert totals["tried"][a] == pytest.approx(start[s] - end[s])
        assert pending_seen or reward == "win"
