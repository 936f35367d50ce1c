"""``rams_env.make``, ``EnvSpec`` and ``Seat``: one way in, one spec, one seat type, each the same env as the
names users know."""

from __future__ import annotations

import json
import pickle

import numpy as np
import pytest

import rams_env
from rams_env import EnvSpec, Seat, make, make_spec
from rams_env.envs import BatchedRamsEnv, RamsGymEnv, RamsVectorEnv
from rams_env.envs.gym_env import opponent_seed
from rams_env.envs.heuristic_seats import heuristic_seed
from rams_env.envs.seats import derive_seed
from rams_env.rules.config import ConfigError


def random_play(env, steps: int, seed: int) -> list[tuple]:
    """The AEC env's observations, masks and rewards over ``steps`` random legal steps."""
    rng, seen = np.random.default_rng(seed), []
    env.reset(seed=seed)
    for agent in env.agent_iter(steps):
        obs, reward, terminated, truncated, _ = env.last()
        seen.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward))
        env.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return seen


def test_every_face_builds_from_one_spec():
    spec = make_spec("russian", 5, "rams", "win")
    for name, face in rams_env.FACES.items():
        if name == "subproc":
            continue  # worker processes: tests/envs/test_vector.py covers them; below with seats
        env = make(spec, name, **({"num_envs": 2} if face.count else {}))
        inner = getattr(env, "venv", None) or getattr(env, "games", None) or getattr(env, "aec", None)
        inner = getattr(env, "unwrapped", env) if inner is None else inner
        if hasattr(inner, "rams_spec"):
            assert inner.rams_spec == spec.resolved(face.default_illegal), name


def test_make_is_the_env_users_know():
    made = random_play(make("norrlandsknack", "aec", num_players=5, start_score=7), 300, seed=4)
    known = random_play(rams_env.env(variant="norrlandsknack", num_players=5, start_score=7), 300, seed=4)
    assert made == known


def test_a_rules_config_is_the_rules_of_a_spec():
    config = rams_env.make_config("norrlandsknack", 5, start_score=7)
    made = random_play(make(config, "aec", episode="rams"), 300, seed=4)
    known = random_play(rams_env.env(config=config, episode="rams"), 300, seed=4)
    assert made == known
    with pytest.raises(ValueError, match="config given twice"):
        make(config, "aec", config=config)


def test_spec_round_trips_as_plain_data():
    spec = make_spec("russian", 5, "match", "win", illegal_action="terminate", start_score=150)
    data = json.loads(json.dumps(spec.to_dict()))
    assert EnvSpec.from_dict(data) == spec
    assert pickle.loads(pickle.dumps(spec)) == spec and hash(spec) == hash(EnvSpec.from_dict(data))
    assert spec.replace(reward="points").reward == "points" and spec.variant == "russian"
    assert make(data, "raw_aec").rams_spec == spec


@pytest.mark.parametrize(
    ("call", "names"),
    [
        (lambda: make_spec(episodes="deal"), "episodes"),
        (lambda: EnvSpec.from_dict({"variant": "mattmar", "rewards": "win"}), "rewards"),
        (lambda: make_spec("mattmar", 4, "deal", "win"), "win"),
        (lambda: make_spec(illegal_action="ignore"), "illegal_action"),
        (lambda: make_spec(spec=make_spec("russian", 5), num_players=4), "num_players"),
        (lambda: make_spec(spec=make_spec("russian", 5), start_score=150), "start_score"),
        (lambda: make("mattmar", "aec", num_envs=3), "num_envs"),
        (lambda: make("mattmar", "aec", seats=["learner"] * 4), "seats"),
        (lambda: make("mattmar", "cards"), "cards"),
        (lambda: make("mattmar", "vector", seed=3), "seed"),
        (lambda: make("mattmar", variant="russian"), "variant"),
    ],
)
def test_unknown_or_contradictory_fields_are_named(call, names):
    with pytest.raises(ValueError, match=names):
        call()


def test_a_spec_given_with_agreeing_defaults_is_taken():
    spec = make_spec("rams32", 3, "match")
    assert RamsVectorEnv(2, spec=spec).rams_spec == spec.resolved("terminate")
    with pytest.raises(ConfigError, match="episode"):
        BatchedRamsEnv(2, episode="rams", spec=spec)


def test_seats_are_the_older_keywords():
    seats = ["heuristic", "learner", Seat("random"), Seat.of("heuristic")]
    old = RamsVectorEnv(3, learner_seat=1, opponents=["heuristic", "random", "heuristic"])
    new = make(face="vector", num_envs=3, seats=seats)
    rng, (obs_a, info), (obs_b, _) = np.random.default_rng(0), old.reset(seed=9), new.reset(seed=9)
    for _ in range(60):
        np.testing.assert_array_equal(obs_a, obs_b)
        actions = [int(rng.choice(np.flatnonzero(m))) if m.any() else 0 for m in info["action_mask"]]
        obs_a, reward_a, *_, info = old.step(actions)
        obs_b, reward_b, *_ = new.step(actions)
        np.testing.assert_array_equal(reward_a, reward_b)
    mask = np.array([True, False, False, True])
    old_b = BatchedRamsEnv(4, heuristic_seats=mask, seed=2).reset()
    new_b = make(face="batched", num_envs=4, seats=[*seats[:1], "learner", "learner", *seats[3:]], seed=2).reset()
    np.testing.assert_array_equal(old_b.observations, new_b.observations)
    gym = make(face="gym", seats=seats)
    assert isinstance(gym, RamsGymEnv) and gym.learner_seat == 1


def test_bad_seats_say_what_is_wrong():
    with pytest.raises(ValueError, match="exactly one learner"):
        make(face="vector", num_envs=2, seats=["learner"] * 4)
    with pytest.raises(ValueError, match="'learner' or 'heuristic'"):
        make(face="batched", num_envs=2, seats=["random", "learner", "learner", "learner"])
    with pytest.raises(ValueError, match="give 4"):
        make(face="gym", seats=["learner", "heuristic"])
    with pytest.raises(TypeError, match="act"):
        Seat.of(3.5)
    with pytest.raises(ValueError, match="replaces"):
        RamsVectorEnv(2, learner_seat=2, seats=["learner", "heuristic", "heuristic", "heuristic"])


def test_one_seed_formula():
    # the values every earlier release derived (SeedSequence([seed, index, tag]), 63 bits)
    assert opponent_seed(5, 1) == 2883275720912190498 == derive_seed(5, 1, 0x6F70706F)
    assert heuristic_seed(7, 2) == 1722561587427544843
    assert derive_seed(1, 2, 3) == 6498626229777268288
    with pytest.raises(ValueError, match="non-negative"):
        derive_seed(-1)
