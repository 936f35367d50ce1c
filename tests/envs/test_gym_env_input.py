"""The Gymnasium wrapper's input and edges: non-integer actions refused with the state unchanged, numpy
integers taken (actions, ``learner_seat``, seeds), an opponent's illegal action an error, requested deals
kept or refused by name, a failed reset that consumes no draw, action masks through ``gymnasium.make``,
and human rendering that shows the learner's seat only."""

from __future__ import annotations

import importlib
import random

import gymnasium
import numpy as np
import pytest

from rams_env import Action, IllegalActionError
from rams_env.agents import HeuristicAgent, RandomAgent
from rams_env.envs import RamsGymEnv, game_seeds
from tests.decks import stack_deck
from tests.envs.test_aec_input import jacks_go_out_options, masked_choice


def pass_always(observation) -> int:
    mask = observation["action_mask"]
    for action in (Action.NO_BID, Action.REJECT, Action.PASS):
        if mask[action]:
            return int(action)
    return int(np.flatnonzero(mask)[0])


@pytest.mark.parametrize("action", [57.9, "57", 3.7, True, False, np.float64(3.0), np.bool_(True), None, [3], 3 + 0j])
def test_gym_step_refuses_non_integer_actions(action):
    env = RamsGymEnv(num_players=4, learner_seat=0)
    env.reset(seed=0)
    mask = env.action_masks().copy()
    before = env.aec.game.view(0)
    with pytest.raises(TypeError, match="integer action id"):
        env.step(action)
    # nothing happened: the learner is still to act in the same state
    assert env.aec.agent_selection == "player_0"
    assert np.array_equal(env.action_masks(), mask)
    assert env.aec.game.view(0) == before
    env.step(masked_choice(random.Random(0), env.action_masks()))


@pytest.mark.parametrize("kind", [int, np.int64, np.int32, np.uint8, np.intp])
def test_gym_step_takes_python_and_numpy_integers(kind):
    env = RamsGymEnv(num_players=4, learner_seat=0)
    env.reset(seed=0)
    rng = random.Random(0)
    terminated = False
    while not terminated:
        _, reward, terminated, _, _ = env.step(kind(masked_choice(rng, env.action_masks())))
        assert isinstance(reward, float)


def test_learner_seat_refuses_bools_and_takes_numpy_integers():
    for bad in (True, False, 1.0, "1", np.bool_(True)):
        with pytest.raises(ValueError, match="learner_seat"):
            RamsGymEnv(num_players=4, learner_seat=bad)
    env = RamsGymEnv(num_players=4, learner_seat=np.int64(2))
    _, info = env.reset(seed=0)
    assert info["seat"] == 2 and env.aec.agent_selection == "player_2"


@pytest.mark.parametrize(
    "opponent", [lambda obs: int(np.flatnonzero(obs["action_mask"] == 0)[0]), lambda obs: 2.5, lambda obs: True]
)
def test_an_opponents_illegal_action_is_an_error_not_a_silent_end(opponent):
    """Before: the episode ended with reward 0 for the learner and nothing said."""
    env = RamsGymEnv(num_players=4, learner_seat=0, opponents=opponent, episode="rams")
    rng = random.Random(0)
    with pytest.raises(IllegalActionError, match=r"opponent player_[123]") as info:
        env.reset(seed=0)
        for _ in range(1000):
            _, reward, terminated, _, _ = env.step(masked_choice(rng, env.action_masks()))
            assert not terminated, f"the episode ended silently (reward {reward})"
    assert "illegal" in str(info.value) or "int action id" in str(info.value)
    # the learner's own illegal action still ends the episode with the illegal reward
    env = RamsGymEnv(num_players=4, learner_seat=0, illegal_reward=-2.0)
    env.reset(seed=0)
    _, reward, terminated, _, _ = env.step(int(np.flatnonzero(~env.action_masks())[0]))
    assert terminated and reward == -2.0
    assert env.aec.illegal_action == "terminate"


def test_a_requested_deck_and_dealer_are_kept_when_that_deal_ends_before_the_learners_decision():
    """The learner deals; with random opponents everyone before him sometimes passes (he is credited
    with five tricks and has no decision). reset() deals again, but from the requested deck and
    dealer, never a different deal."""
    deck = stack_deck("mattmar", 4, 0, {0: ["AS", "KS", "QS", "JS", "TS"]}, "2S")
    env = RamsGymEnv(variant="mattmar", num_players=4, learner_seat=0, episode="deal")
    aec, starts = env.aec, []
    backend_start = aec._backend.start

    def start(seed, deck=None, dealer=None, scores=None):
        starts.append((deck, dealer))
        return backend_start(seed, deck, dealer, scores)

    aec._backend.start = start
    redealt = 0
    for seed in range(60):
        starts.clear()
        env.reset(seed=seed, options={"deck": deck, "dealer": 0})
        redealt += len(starts) > 1
        assert all(s == (deck, 0) for s in starts), f"seed {seed}: the requested deal was replaced"
        view = aec.view(0)
        assert view["dealer"] == 0 and env.action_masks().any()
    assert redealt, "no seed made the requested deal end before the learner's decision"


def test_a_requested_deal_that_always_ends_before_the_learners_decision_is_an_error():
    env = RamsGymEnv(variant="mattmar", num_players=4, learner_seat=0, opponents=pass_always, episode="deal")
    with pytest.raises(ValueError, match=r"options.*player_0"):
        env.reset(seed=1, options={"dealer": 0})
    options = jacks_go_out_options()
    env = RamsGymEnv(variant="russian", num_players=4, learner_seat=0, episode="rams")
    with pytest.raises(ValueError, match=r"options.*player_0"):
        env.reset(seed=1, options=options)
    # without options such deals are skipped as before
    env = RamsGymEnv(variant="mattmar", num_players=4, learner_seat=0, opponents=pass_always, episode="deal")
    for seed in range(10):
        env.reset(seed=seed)
        assert env.action_masks().any()


def test_gym_wrapper_takes_numpy_seeds():
    def run(seed):
        env = RamsGymEnv(num_players=4, learner_seat=1)
        obs, _ = env.reset(seed=seed)
        out, rng, terminated = [obs.tobytes()], random.Random(0), False
        while not terminated:
            obs, _, terminated, _, _ = env.step(masked_choice(rng, env.action_masks()))
            out.append(obs.tobytes())
        return out

    assert run(np.int64(7)) == run(7)
    with pytest.raises(TypeError, match="seed"):
        RamsGymEnv().reset(seed=7.0)


def test_a_failed_gym_reset_consumes_no_draw():
    def run(fail: bool) -> list:
        env = RamsGymEnv(num_players=4, learner_seat="random")
        env.reset(seed=3)
        if fail:
            with pytest.raises(ValueError):
                env.reset(options={"dealer": 9})
        out = []
        for _ in range(3):
            obs, info = env.reset()
            out.append((obs.tobytes(), info["seat"]))
        return out

    assert run(True) == run(False)


def test_action_masks_reachable_through_gymnasium_make():
    env = gymnasium.make("rams_env/Rams-v1", variant="russian", num_players=5)
    _, info = env.reset(seed=0)
    rng = random.Random(0)
    terminated = False
    while not terminated:
        mask = env.action_masks()
        assert mask.dtype == bool and np.array_equal(mask, info["action_mask"].astype(bool))
        _, _, terminated, _, info = env.step(masked_choice(rng, mask))
    assert not env.action_masks().any()
    # the spec stays makeable (gymnasium.make(env.spec)) with the same wrappers
    again = gymnasium.make(env.spec)
    again.reset(seed=0)
    assert again.action_masks().any()
    assert gymnasium.make("rams_env/Rams-v1", disable_env_checker=True).action_masks is not None


@pytest.mark.parametrize("seat", [0, 2])
def test_gym_human_render_shows_only_the_learners_seat(capsys, monkeypatch, seat):
    env_module = importlib.import_module("rams_env.envs.aec")  # the module of RamsEnv, which renders

    viewers = []
    table = env_module.render_table

    def spy(game, viewer):
        viewers.append(viewer)
        return table(game, viewer)

    monkeypatch.setattr(env_module, "render_table", spy)
    env = RamsGymEnv(num_players=4, learner_seat=seat, render_mode="human", episode="rams")
    env.reset(seed=0)
    rng = random.Random(0)
    terminated, steps = False, 0
    while not terminated:
        _, _, terminated, _, _ = env.step(masked_choice(rng, env.action_masks()))
        steps += 1
    assert env.render() is None
    out = capsys.readouterr().out
    assert viewers and set(viewers) == {seat}
    hands = [line for line in out.splitlines() if line.startswith("your hand")]
    assert len(hands) >= steps  # rendered at reset and after every step, as gymnasium's human mode does
    assert all(line.startswith(f"your hand (player_{seat})") for line in hands)


@pytest.mark.parametrize(
    ("name", "agent"),
    [("heuristic", HeuristicAgent), ("random", RandomAgent), (["heuristic", "random", "heuristic"], None)],
)
def test_an_opponent_string_names_a_fresh_agent_as_in_the_vector_env(name, agent):
    """``opponents="heuristic"`` is one fresh ``HeuristicAgent`` for every other seat (not nine opponents, one
    a letter), and a list may name them seat by seat: the same games as the agent objects, and as the vector env."""
    objects = agent() if agent else [HeuristicAgent(), RandomAgent(), HeuristicAgent()]
    by_name, by_object = RamsGymEnv(opponents=name), RamsGymEnv(opponents=objects)
    vector = gymnasium.make_vec("rams_env/RamsVec-v1", num_envs=1, opponents=name)
    seed = game_seeds(4, 1)[0]
    (obs, info), (obs2, _), (vobs, _) = by_name.reset(seed=seed), by_object.reset(seed=seed), vector.reset(seed=4)
    for _ in range(60):
        np.testing.assert_array_equal(obs, obs2)
        np.testing.assert_array_equal(obs, vobs[0])
        action = int(np.flatnonzero(info["action_mask"])[-1])
        obs, reward, terminated, _, info = by_name.step(action)
        obs2, reward2, *_ = by_object.step(action)
        vobs, vreward, *_ = vector.step(np.array([action]))
        assert reward == reward2 == pytest.approx(float(vreward[0]))
        if terminated:
            break


@pytest.mark.parametrize("make", [RamsGymEnv, lambda **kw: gymnasium.make_vec("rams_env/RamsVec-v1", num_envs=2, **kw)])
def test_an_unknown_opponent_name_is_refused_with_the_names_there_are(make):
    with pytest.raises(ValueError, match=r"one of \['heuristic', 'random'\]; got 'heuristc'"):
        make(opponents="heuristc")
