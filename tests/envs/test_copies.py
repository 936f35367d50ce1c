"""A copy of an env, by ``copy.deepcopy``, ``pickle`` or ``cloudpickle``, plays on exactly as the original.

Each env is played a few steps, copied mid-episode, and then the original and the copy take the same
actions: every observation, mask, reward and end must agree, and stepping one must not move the other.
SuperSuit's vector envs and Gymnasium's async vector envs send envs to other processes by pickling them.
"""

from __future__ import annotations

import copy
import pickle

import cloudpickle
import gymnasium
import numpy as np
import pytest

import rams_env
from rams_env.agents import HeuristicAgent
from rams_env.envs import ENGINES, BatchedRamsEnv, ReferenceBatchedRamsEnv, SubprocBatchedRamsEnv

COPIES = {
    "deepcopy": copy.deepcopy,
    "pickle": lambda env: pickle.loads(pickle.dumps(env)),
    "cloudpickle": lambda env: cloudpickle.loads(cloudpickle.dumps(env)),
}


def legal_choice(mask: np.ndarray, rng: np.random.Generator) -> int:
    """A random legal action of one mask (0 for an all-zero mask: an ignored action)."""
    legal = np.flatnonzero(mask)
    return int(rng.choice(legal)) if len(legal) else 0


def assert_same(a, b) -> None:
    """Equal nested results: dicts, tuples, lists and arrays, compared exactly."""
    if isinstance(a, dict):
        assert a.keys() == b.keys()
        for key in a:
            assert_same(a[key], b[key])
    elif isinstance(a, (tuple, list)) or (isinstance(a, np.ndarray) and a.dtype == object):  # object: final obs a game
        assert len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            assert_same(x, y)
    elif isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        np.testing.assert_array_equal(a, b)
    elif hasattr(a, "__dataclass_fields__"):
        for name in a.__dataclass_fields__:
            assert_same(getattr(a, name), getattr(b, name))
    else:
        assert a == b


# ---------------------------------------------------------------- the AEC env


def aec_play(env, steps: int, rng: np.random.Generator) -> list:
    """``steps`` agent turns of random legal play (reset with a fixed seed at an episode's end),
    recording what every agent sees."""
    record = []
    for _ in range(steps):
        agent = env.agent_selection
        obs, reward, terminated, truncated, info = env.last()
        record.append((agent, obs, reward, terminated, truncated, info, dict(env.rewards)))
        record.append([env.observe(a) for a in env.agents])
        if terminated or truncated:
            env.step(None)
            if not env.agents:
                env.reset(seed=int(rng.integers(1000)))
            continue
        env.step(legal_choice(obs["action_mask"], rng))
    return record


@pytest.mark.parametrize("how", COPIES)
@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("variant", "n", "episode"), [("mattmar", 4, "deal"), ("russian", 5, "rams")])
def test_aec_copy_plays_on_as_the_original(how, engine, variant, n, episode):
    env = rams_env.env(variant=variant, num_players=n, episode=episode, engine=engine)
    env.reset(seed=11)
    aec_play(env, 9, np.random.default_rng(0))
    twin = COPIES[how](env)
    expected = aec_play(env, 80, np.random.default_rng(1))
    assert_same(aec_play(twin, 80, np.random.default_rng(1)), expected)


def test_aec_copy_is_independent():
    env = rams_env.env()
    env.reset(seed=3)
    twin = copy.deepcopy(env)
    before = twin.observe(twin.agent_selection)["observation"].copy()
    aec_play(env, 30, np.random.default_rng(0))  # only the original moves
    np.testing.assert_array_equal(twin.observe(twin.agent_selection)["observation"], before)


# ------------------------------------------------------ the Gymnasium envs


def gym_play(env, steps: int, rng: np.random.Generator, mask) -> list:
    record = []
    for _ in range(steps):
        action = legal_choice(mask, rng) if mask.ndim == 1 else np.array([legal_choice(row, rng) for row in mask])
        result = env.step(action)
        record.append(result)
        mask = result[4]["action_mask"]
        if mask.ndim == 1 and (result[2] or result[3]):
            _, info = env.reset(seed=int(rng.integers(1000)))
            mask = info["action_mask"]
    return record


GYM_ENVS = {
    "Rams-v1": lambda: gymnasium.make("rams_env/Rams-v1", opponents=HeuristicAgent()),
    "Rams-v1 reference": lambda: gymnasium.make("rams_env/Rams-v1", engine="reference"),
    **{
        f"RamsVec-v1 {mode} {obs}": (
            lambda mode=mode, obs=obs: gymnasium.make_vec(
                "rams_env/RamsVec-v1", num_envs=3, autoreset_mode=mode, observation_mode=obs, opponents="heuristic"
            )
        )
        for mode in ("NextStep", "SameStep")
        for obs in ("array", "dict")
    },
}


@pytest.mark.parametrize("how", COPIES)
@pytest.mark.parametrize("name", GYM_ENVS)
def test_gym_copy_plays_on_as_the_original(how, name):
    env = GYM_ENVS[name]()
    _, info = env.reset(seed=5)
    rng = np.random.default_rng(0)
    record = gym_play(env, 4, rng, info["action_mask"])
    mask = record[-1][4]["action_mask"]
    twin = COPIES[how](env)
    expected = gym_play(env, 60, np.random.default_rng(1), mask)
    assert_same(gym_play(twin, 60, np.random.default_rng(1), mask), expected)


# -------------------------------------------------------- the batched envs


def batched_play(env, steps: int, rng: np.random.Generator, masks: np.ndarray) -> list:
    record = []
    for _ in range(steps):
        out = env.step(np.array([legal_choice(row, rng) for row in masks]))
        record.append(copy.deepcopy(out))
        record.append(env.scores)
        masks = out.action_masks
    return record


BATCHED = {
    "BatchedRamsEnv": lambda: BatchedRamsEnv(3, variant="rams32", num_players=4),
    "BatchedRamsEnv heuristic seats": lambda: BatchedRamsEnv(3, heuristic_seats=np.array([False, True, True, True])),
    "ReferenceBatchedRamsEnv": lambda: ReferenceBatchedRamsEnv(3),
    "SubprocBatchedRamsEnv": lambda: SubprocBatchedRamsEnv(3, workers=2),
}


# The subprocess env by two routes (each copy starts two more processes).
BATCHED_CASES = [(name, how) for name in BATCHED for how in COPIES if how != "cloudpickle" or "Subproc" not in name]


@pytest.mark.parametrize(("name", "how"), BATCHED_CASES)
def test_batched_copy_plays_on_as_the_original(name, how):
    env = BATCHED[name]()
    rng = np.random.default_rng(0)
    masks = env.reset(seed=7).action_masks
    masks = batched_play(env, 5, rng, masks)[-2].action_masks
    twin = COPIES[how](env)
    try:
        expected = batched_play(env, 50, np.random.default_rng(1), masks)
        assert_same(batched_play(twin, 50, np.random.default_rng(1), masks), expected)
    finally:
        env.close()
        twin.close()
