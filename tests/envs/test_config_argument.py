"""``config=``: every env built from a ready ``RulesConfig`` plays exactly the games of the same env built from
``variant``, ``num_players`` and rule options, and a config beside a rule option, a disagreeing ``variant`` or
``num_players``, or a config that is not a ``RulesConfig`` is refused with a message naming what is wrong."""

from __future__ import annotations

import copy
import pickle
import random

import gymnasium
import numpy as np
import pytest

import rams_env
from rams_env.envs import (
    VECTOR_ENV_ID,
    BatchedRamsEnv,
    RamsEnv,
    RamsGymEnv,
    RamsVectorEnv,
    ReferenceBatchedRamsEnv,
    SubprocBatchedRamsEnv,
)
from rams_env.rules import make_config
from rams_env.rules.config import DEFAULT_NUM_PLAYERS, DEFAULT_VARIANT, ConfigError

CONFIG = make_config("russian", 5, start_score=150)
STRINGS = dict(variant="russian", num_players=5, start_score=150)
SEED = 11


def _aec_trace(env, steps: int = 150) -> list:
    """A random game (and the next ones) of an AEC env: each decision's agent, observation, mask and rewards."""
    chooser = random.Random(SEED)
    env.reset(seed=SEED)
    trace = []
    for _ in range(steps):
        if all(env.terminations.values()):
            env.reset()
        agent = env.agent_selection
        obs = env.observe(agent)
        trace.append((agent, obs["observation"], obs["action_mask"], dict(env.rewards), dict(env.infos[agent])))
        env.step(chooser.choice(np.flatnonzero(obs["action_mask"]).tolist()))
    return trace


def _gym_trace(env, steps: int = 100) -> list:
    """A random game (and the next ones) of the one-seat env: observations, masks, rewards, ends."""
    chooser = random.Random(SEED)
    obs, info = env.reset(seed=SEED)
    trace = [(obs, info["action_mask"])]
    for _ in range(steps):
        action = chooser.choice(np.flatnonzero(info["action_mask"]).tolist())
        obs, reward, terminated, truncated, info = env.step(action)
        trace.append((obs, info["action_mask"], reward, terminated, truncated, info["score"]))
        if terminated or truncated:
            obs, info = env.reset()
            trace.append((obs, info["action_mask"]))
    return trace


def _vector_trace(env, steps: int = 60) -> list:
    """Random legal actions in every game of the vector env: observations, masks, rewards, ends."""
    rng = np.random.default_rng(SEED)
    obs, infos = env.reset(seed=SEED)
    trace = [(obs, infos["action_mask"])]
    for _ in range(steps):
        masks = infos["action_mask"]
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks], np.int64)
        obs, rewards, terminated, truncated, infos = env.step(actions)
        trace.append((obs, infos["action_mask"], rewards, terminated, truncated, infos["score"]))
    return trace


def _batched_trace(env, steps: int = 60) -> list:
    """Random legal actions in every game of a batched env: seats, observations, masks, rewards, ends."""
    rng = np.random.default_rng(SEED)
    out = env.reset(seed=SEED)
    trace = []
    for _ in range(steps):
        trace.append(copy.deepcopy(out))
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in out.action_masks], np.int64)
        out = env.step(actions)
    trace.append(copy.deepcopy(out))
    return trace


def _same(a, b) -> None:
    """Two traces equal, item by item (arrays by value)."""
    assert len(a) == len(b)
    for x, y in zip(a, b, strict=True):
        if isinstance(x, (tuple, list)):
            _same(x, y)
        elif isinstance(x, dict):
            assert x.keys() == y.keys()
            _same(list(x.values()), list(y.values()))
        elif isinstance(x, np.ndarray):
            np.testing.assert_array_equal(x, y)
        elif hasattr(x, "__dataclass_fields__"):
            _same([getattr(x, f) for f in x.__dataclass_fields__], [getattr(y, f) for f in y.__dataclass_fields__])
        else:
            assert x == y


# ---------------------------------------------------------------------- the same games


@pytest.mark.parametrize("engine", ["compiled", "reference"])
def test_aec_env_from_config_plays_as_from_strings(engine):
    made = rams_env.env(config=CONFIG, engine=engine)
    assert made.unwrapped.config == CONFIG
    _same(_aec_trace(made), _aec_trace(rams_env.env(**STRINGS, engine=engine)))
    _same(_aec_trace(rams_env.raw_env(config=CONFIG, engine=engine)), _aec_trace(rams_env.raw_env(**STRINGS)))


def test_gym_env_from_config_plays_as_from_strings():
    expected = _gym_trace(RamsGymEnv(**STRINGS))
    env = RamsGymEnv(config=CONFIG)
    assert env.aec.config == CONFIG
    _same(_gym_trace(env), expected)
    made = gymnasium.make(rams_env.envs.ENV_ID, config=CONFIG)
    assert made.unwrapped.aec.config == CONFIG
    _same(_gym_trace(made), expected)


def test_vector_env_from_config_plays_as_from_strings():
    expected = _vector_trace(RamsVectorEnv(4, **STRINGS, opponents="heuristic"))
    env = RamsVectorEnv(4, config=CONFIG, opponents="heuristic")
    assert env.config == CONFIG and env.num_players == 5
    _same(_vector_trace(env), expected)
    made = gymnasium.make_vec(VECTOR_ENV_ID, num_envs=4, config=CONFIG, opponents="heuristic")
    _same(_vector_trace(made), expected)


@pytest.mark.parametrize("cls", [BatchedRamsEnv, ReferenceBatchedRamsEnv])
def test_batched_env_from_config_plays_as_from_strings(cls):
    env = cls(3, config=CONFIG)
    assert env.config == CONFIG and env.num_players == 5
    _same(_batched_trace(env), _batched_trace(cls(3, **STRINGS)))


def test_batched_env_with_heuristic_seats_from_config():
    seats = np.array([False, True, True, False, True])
    made = BatchedRamsEnv(3, config=CONFIG, heuristic_seats=seats)
    _same(_batched_trace(made), _batched_trace(BatchedRamsEnv(3, **STRINGS, heuristic_seats=seats)))


def test_subprocess_env_from_config():
    """The config travels to the worker process (pickled) and plays there as the strings do."""
    env = SubprocBatchedRamsEnv(2, workers=1, config=CONFIG)
    try:
        assert env.config == CONFIG and env.num_players == 5
        _same(_batched_trace(env, steps=20), _batched_trace(BatchedRamsEnv(2, **STRINGS), steps=20))
    finally:
        env.close()


def test_same_values_as_the_config_are_fine():
    assert RamsEnv("russian", 5, config=CONFIG).config == CONFIG
    assert RamsEnv(variant="russian", num_players=5, config=CONFIG).config == CONFIG
    assert BatchedRamsEnv(2, num_players=5, config=CONFIG).config == CONFIG
    assert RamsVectorEnv(2, variant="russian", config=CONFIG).config == CONFIG


def test_defaults_unchanged():
    config = rams_env.env().unwrapped.config
    assert (config.variant, config.num_players) == ("mattmar", 4)
    assert type(config.variant) is str and type(config.num_players) is int  # no default object kept
    assert config == make_config("mattmar", 4)
    assert BatchedRamsEnv(1).config == make_config("mattmar", 4)
    assert rams_env.env(start_score=7).unwrapped.config.start_score == 7


def test_defaults_pickle_as_themselves():
    for default in (DEFAULT_VARIANT, DEFAULT_NUM_PLAYERS):
        assert pickle.loads(pickle.dumps(default)) is default
        assert copy.deepcopy(default) is default
    assert DEFAULT_VARIANT == "mattmar" and DEFAULT_NUM_PLAYERS == 4


# ---------------------------------------------------------------------- refusals

MAKERS = {
    "env": rams_env.env,
    "raw_env": rams_env.raw_env,
    "RamsGymEnv": RamsGymEnv,
    "gymnasium.make": lambda **kw: gymnasium.make(rams_env.envs.ENV_ID, **kw),
    "RamsVectorEnv": lambda **kw: RamsVectorEnv(2, **kw),
    "make_vec": lambda **kw: gymnasium.make_vec(VECTOR_ENV_ID, num_envs=2, **kw),
    "BatchedRamsEnv": lambda **kw: BatchedRamsEnv(2, **kw),
    "ReferenceBatchedRamsEnv": lambda **kw: ReferenceBatchedRamsEnv(2, **kw),
    "SubprocBatchedRamsEnv": lambda **kw: SubprocBatchedRamsEnv(2, workers=1, **kw),
}


@pytest.fixture(params=sorted(MAKERS))
def make(request):
    return MAKERS[request.param]


def test_rule_option_beside_config_names_it(make):
    with pytest.raises(ValueError, match=r"rule option\(s\) start_score given with config \(russian, 5 players\)"):
        make(config=CONFIG, start_score=150)  # even when it is the config's own value
    with pytest.raises(ConfigError, match="flight_fine, start_score") as err:
        make(config=CONFIG, start_score=200, flight_fine=3)
    assert err.value.option == "flight_fine"


def test_unknown_keyword_beside_config_names_it(make):
    with pytest.raises(ValueError, match=r"unknown keyword\(s\) colour given with config \(russian, 5 players\)"):
        make(config=CONFIG, colour="red")


def test_disagreeing_variant_names_both(make):
    with pytest.raises(ValueError, match=r"^variant 'rams32' and config \(russian, 5 players\) disagree: give one$"):
        make(config=CONFIG, variant="rams32")
    # "mattmar" given is not "mattmar" left at its default
    with pytest.raises(ValueError, match=r"variant 'mattmar' and config \(russian, 5 players\) disagree"):
        make(config=CONFIG, variant="mattmar")


def test_disagreeing_num_players_names_both(make):
    with pytest.raises(ValueError, match=r"^num_players 4 and config \(russian, 5 players\) disagree: give one$"):
        make(config=CONFIG, num_players=4)
    with pytest.raises(
        ValueError, match=r"^variant 'rams32', num_players 3 and config \(russian, 5 players\) disagree"
    ):
        make(config=CONFIG, variant="rams32", num_players=3)


def test_config_that_is_not_a_rules_config_names_its_type(make):
    with pytest.raises(TypeError, match=r"config must be a RulesConfig .* got dict"):
        make(config=CONFIG.to_dict())
    with pytest.raises(TypeError, match="got str"):
        make(config="russian")


def test_positional_variant_beside_config():
    with pytest.raises(ValueError, match=r"variant 'rams32' and config \(russian, 5 players\) disagree"):
        RamsEnv("rams32", config=CONFIG)
    with pytest.raises(ValueError, match=r"num_players 3 and config"):
        RamsGymEnv("russian", 3, config=CONFIG)
