"""``RamsVectorEnv`` (``gymnasium.make_vec("rams_env/RamsVec-v1")``) plays exactly the games of N
``gymnasium.make("rams_env/Rams-v1")`` seeded with the derived seeds: observations, masks, rewards, ends
and infos, in every autoreset mode; and what Gymnasium's ``check_env`` checks of one env, per game."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import rams_env
from rams_env.agents import HeuristicAgent, RandomAgent
from rams_env.envs import VECTOR_ENV_ID, RamsVectorEnv, game_seeds
from rams_env.rules import IllegalActionError
from rams_env.rules.seeding import SeedError


class Lowest:
    """A deterministic outside opponent: the lowest legal action, by batch or one at a time."""

    def __init__(self) -> None:
        self.batches = 0

    def act(self, observation):
        return int(np.flatnonzero(observation["action_mask"])[0])

    def act_batch(self, observations, masks):
        self.batches += 1
        return masks.argmax(axis=1)


def _single_opponents(spec, n: int):
    """The single env's opponents for a vector env's ``opponents`` spec (fresh objects for every env)."""
    make = {"heuristic": HeuristicAgent, "random": RandomAgent}
    if isinstance(spec, list):
        return [make[s]() if isinstance(s, str) else s for s in spec]
    return make[spec]() if isinstance(spec, str) else spec


CASES = [
    # (variant, players, opponents, learner seat, episode, reward)
    ("mattmar", 4, "heuristic", 0, "deal", "points"),
    ("russian", 4, ["heuristic", "random", "heuristic"], "random", "rams", "win"),
    ("norrlandsknack", 5, "random", 2, "rams", "points"),
    ("rams32", 3, ["heuristic", "OUTSIDE"], "random", "deal", "points"),
    ("mattmar", 7, "heuristic", "random", "deal", "points"),
]


def _case(case):
    variant, n, opponents, seat, episode, reward = case
    outside = Lowest()
    if isinstance(opponents, list):
        opponents = [outside if o == "OUTSIDE" else o for o in opponents]
    kwargs = dict(variant=variant, num_players=n, learner_seat=seat, episode=episode, reward=reward)
    return kwargs, opponents, outside


def _check_same(i, step, vector_obs, vector_info, single_obs, single_info):
    assert np.array_equal(vector_obs[i], single_obs), f"step {step}, game {i}: observation differs"
    for key in ("action_mask", "seat", "score", "tricks"):
        assert np.array_equal(np.asarray(vector_info[key][i]), np.asarray(single_info[key])), (
            f"step {step}, game {i}: info {key!r} differs"
        )


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP])
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-{c[1]}-{c[4]}")
def test_vector_env_plays_the_games_of_single_envs(case, mode):
    kwargs, opponents, _ = _case(case)
    num, seed = 6, 11
    vector = gymnasium.make_vec(VECTOR_ENV_ID, num_envs=num, opponents=opponents, autoreset_mode=mode, **kwargs)
    assert vector.metadata["autoreset_mode"] == mode
    singles = [
        gymnasium.make("rams_env/Rams-v1", opponents=_single_opponents(opponents, kwargs["num_players"]), **kwargs)
        for _ in range(num)
    ]
    obs, info = vector.reset(seed=seed)
    for i, (single, g) in enumerate(zip(singles, game_seeds(seed, num), strict=True)):
        _check_same(i, -1, obs, info, *single.reset(seed=g))
    chooser = np.random.default_rng(seed)
    over = np.zeros(num, bool)
    ended = 0
    for step in range(120):
        actions = np.array([chooser.choice(np.flatnonzero(m)) if m.any() else 0 for m in info["action_mask"]])
        obs, rewards, terminated, truncated, info = vector.step(actions)
        assert not truncated.any()
        for i, single in enumerate(singles):
            if over[i]:  # NEXT_STEP: this step started game i's next episode
                assert rewards[i] == 0.0 and not terminated[i]
                _check_same(i, step, obs, info, *single.reset())
                continue
            s_obs, s_reward, s_term, s_trunc, s_info = single.step(int(actions[i]))
            assert rewards[i] == pytest.approx(s_reward, abs=1e-6), f"step {step}, game {i}: reward"
            assert terminated[i] == s_term and not s_trunc, f"step {step}, game {i}: end"
            if s_term and mode == AutoresetMode.SAME_STEP:
                assert info["_final_obs"][i]
                _check_same(i, step, info["final_obs"], info["final_info"], s_obs, s_info)
                _check_same(i, step, obs, info, *single.reset())
            else:
                _check_same(i, step, obs, info, s_obs, s_info)
        ended += int(terminated.sum())
        over = terminated.copy() if mode == AutoresetMode.NEXT_STEP else np.zeros(num, bool)
    assert ended >= 1  # episodes ended (and, in NEXT_STEP, restarted) along the way


def test_the_outside_opponent_decides_every_games_turn_in_one_batch():
    kwargs, opponents, outside = _case(CASES[3])
    vector = RamsVectorEnv(16, opponents=opponents, **kwargs)
    _, info = vector.reset(seed=0)
    for _ in range(30):
        before = outside.batches
        _, _, _, _, info = vector.step(info["action_mask"].argmax(axis=1))
        assert outside.batches - before <= 3  # a few rounds of turns a step, never one call a game


def test_a_second_full_reset_deals_new_games_and_a_seed_replays_them():
    vector = RamsVectorEnv(8, opponents="heuristic")
    first, _ = vector.reset(seed=5)
    second, _ = vector.reset()
    assert not np.array_equal(first, second)
    again, _ = vector.reset(seed=5)
    assert np.array_equal(first, again)
    assert np.array_equal(vector.reset()[0], second)  # the draws after a seed follow from it


def test_next_step_reset_pays_no_reward_and_holds_the_final_observation():
    vector = RamsVectorEnv(4, opponents="heuristic", reward="points")
    _, info = vector.reset(seed=3)
    while True:
        _, _, terminated, _, info = vector.step(info["action_mask"].argmax(axis=1))
        if terminated.any():
            break
    i = int(np.flatnonzero(terminated)[0])
    assert not info["action_mask"][i].any()  # the final observation, with an all-zero mask
    _, rewards2, terminated2, _, info2 = vector.step(np.zeros(4, np.int64))  # game i's action is ignored
    assert rewards2[i] == 0.0 and not terminated2[i] and info2["action_mask"][i].any()


def test_disabled_autoreset_restarts_only_the_masked_games():
    vector = RamsVectorEnv(4, opponents="heuristic", autoreset_mode="Disabled")
    obs, info = vector.reset(seed=2)
    while True:
        obs, _, terminated, _, info = vector.step(info["action_mask"].argmax(axis=1))
        if terminated.any():
            break
    with pytest.raises(RuntimeError, match="reset_mask"):
        vector.step(np.zeros(4, np.int64))
    kept = obs[~terminated].copy()
    obs, info = vector.reset(options={"reset_mask": terminated})
    assert np.array_equal(obs[~terminated], kept)
    assert info["action_mask"].any(axis=1).all()


def test_illegal_actions_terminate_or_raise_naming_the_game():
    vector = RamsVectorEnv(3, opponents="heuristic")
    _, info = vector.reset(seed=1)
    bad = info["action_mask"].argmax(axis=1)
    bad[1] = int(np.flatnonzero(info["action_mask"][1] == 0)[0])
    _, rewards, terminated, _, info = vector.step(bad)
    assert terminated.tolist() == [False, True, False] and rewards[1] == -1.0 and info["illegal"][1]
    strict = RamsVectorEnv(3, opponents="heuristic", illegal_action="raise")
    _, info = strict.reset(seed=1)
    with pytest.raises(IllegalActionError, match="game 1"):
        strict.step(bad)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        (dict(num_envs=0), "num_envs"),
        (dict(opponents="mattmar-4p"), "load_agent"),
        (dict(opponents=["heuristic"]), "one or 3"),
        (dict(learner_seat=4), "learner_seat"),
        (dict(autoreset_mode="sometimes"), "autoreset_mode"),
        (dict(observation_mode="image"), "observation_mode"),
        (dict(start_scor=3), "start_scor"),
    ],
)
def test_bad_arguments_are_refused_by_name(kwargs, match):
    with pytest.raises(ValueError, match=match):
        RamsVectorEnv(**{"num_envs": 2, **kwargs})


def test_reset_refuses_unknown_options_and_bad_seeds():
    vector = RamsVectorEnv(2)
    with pytest.raises(ValueError, match="deck"):
        vector.reset(options={"deck": []})
    with pytest.raises(ValueError, match="seed"):
        vector.reset(seed=-1)


@pytest.mark.parametrize("observation_mode", ["array", "dict"])
def test_every_game_keeps_the_single_envs_space_contract(observation_mode):
    """What ``check_env`` checks of one env, per game: observations in the space, dtypes, the mask."""
    vector = RamsVectorEnv(5, opponents="heuristic", observation_mode=observation_mode, episode="rams")
    obs, info = vector.reset(seed=0)
    assert obs in vector.observation_space
    for _ in range(60):
        obs, rewards, terminated, truncated, info = vector.step(vector.action_masks().argmax(axis=1))
        assert obs in vector.observation_space
        assert rewards.dtype == np.float32 and terminated.dtype == bool and truncated.dtype == bool
        masks = obs["action_mask"] if observation_mode == "dict" else info["action_mask"]
        assert np.array_equal(masks, info["action_mask"])
        assert (masks.any(axis=1) | terminated).all()  # a game to play always has a legal action
        for i in range(5):
            assert vector.single_observation_space.contains(
                {k: v[i] for k, v in obs.items()} if observation_mode == "dict" else obs[i]
            )


def test_make_vec_defaults_to_the_vector_entry_point_and_the_single_id_is_unchanged():
    assert isinstance(gymnasium.make_vec(VECTOR_ENV_ID, num_envs=2).unwrapped, RamsVectorEnv)
    assert gymnasium.spec("rams_env/Rams-v1").vector_entry_point is None
    single = gymnasium.make(VECTOR_ENV_ID, opponents=RandomAgent())
    assert isinstance(single.unwrapped, rams_env.envs.RamsGymEnv)


def test_same_step_final_observations_are_one_per_game_in_dict_mode_too():
    """``infos["final_obs"][i]`` is game i's final observation in both observation modes (Gymnasium's
    autoreset guide reads it so); in dict mode an object array of dicts, None for games that did not end."""
    kwargs = {"opponents": "heuristic", "autoreset_mode": "SameStep"}
    arrays, dicts = RamsVectorEnv(4, **kwargs), RamsVectorEnv(4, observation_mode="dict", **kwargs)
    _, info = arrays.reset(seed=2)
    dicts.reset(seed=2)
    ended = 0
    for _ in range(200):
        actions = info["action_mask"].argmax(axis=1)
        _, _, terminated, _, info = arrays.step(actions)
        _, _, terminated_d, _, info_d = dicts.step(actions)
        np.testing.assert_array_equal(terminated, terminated_d)
        for i in range(4):
            if terminated[i]:
                final = info_d["final_obs"][i]
                assert set(final) == {"observation", "action_mask"}
                np.testing.assert_array_equal(final["observation"], info["final_obs"][i])
                np.testing.assert_array_equal(final["action_mask"], info["final_info"]["action_mask"][i])
                assert dicts.single_observation_space.contains(final)
                ended += 1
            elif terminated.any():
                assert info_d["final_obs"][i] is None
    assert ended >= 2


def test_a_seed_list_may_hold_none_as_gymnasiums_vector_envs_take_it():
    """``reset(seed=[1, None, 3, 4])``: the ints fix their games, a None draws its game's seed from the
    env's generator (reseeded from the first seed), so the same list replays the same games."""
    vector = RamsVectorEnv(4, opponents="heuristic")
    obs, _ = vector.reset(seed=[1, None, 3, 4])
    again, _ = vector.reset(seed=[1, None, 3, 4])
    np.testing.assert_array_equal(obs, again)
    fixed, _ = vector.reset(seed=[1, 2, 3, 4])
    for i in (0, 2, 3):
        np.testing.assert_array_equal(obs[i], fixed[i])
    assert vector.reset(seed=[None, None, None, None])[0].shape == obs.shape
    with pytest.raises(SeedError, match=r"seed\[1\] must be a non-negative int"):
        vector.reset(seed=[1, -1, 3, 4])


@pytest.mark.parametrize("env_id", ["rams_env/Rams-v1", VECTOR_ENV_ID])
@pytest.mark.parametrize(
    "kwargs",
    [{}, {"opponents": "heuristic"}, {"opponents": ["random", "heuristic"], "variant": "rams32", "num_players": 3}],
)
def test_every_registered_id_works_through_make_and_make_vec_alike(env_id, kwargs):
    """Each registered constructor takes the same arguments through ``gymnasium.make`` and ``make_vec``, and
    game 0 of the vector form plays as the single form seeded ``game_seeds(s, N)[0]``."""
    single = gymnasium.make(env_id, **kwargs)
    vector = gymnasium.make_vec(env_id, num_envs=2, **kwargs)
    obs, info = single.reset(seed=game_seeds(3, 2)[0])
    vobs, vinfo = vector.reset(seed=3)
    if env_id == VECTOR_ENV_ID and kwargs:  # the vector entry point derives the per-game seeds; with no
        np.testing.assert_array_equal(vobs[0], obs)  # opponents given, the wrapper's draw from its own generator
    action = int(np.flatnonzero(info["action_mask"])[0])
    single.step(action)
    vector.step(np.array([action, int(np.flatnonzero(vinfo["action_mask"][1])[0])]))
