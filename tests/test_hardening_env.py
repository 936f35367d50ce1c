"""Hardening of the PettingZoo env and the Gymnasium wrapper (issue 13 items 7, 12, 15, 16 and the
human-render leak): bad input gives a clear error, numpy integers are accepted, a rejected action
changes nothing (pending rewards included), win rewards are paid however the episode ends, and
the wrapper's human rendering shows the learner's seat only."""

from __future__ import annotations

import importlib
import random

import gymnasium
import numpy as np
import pytest

import rams_env
from rams_env import Action, IllegalActionError
from rams_env.agents import SearchAgent
from rams_env.envs import RamsGymEnv
from tests.decks import stack_deck

ENGINES = ("compiled", "reference")


def masked_choice(rng: random.Random, mask: np.ndarray) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


def pass_always(observation) -> int:
    mask = observation["action_mask"]
    for action in (Action.NO_BID, Action.REJECT, Action.PASS):
        if mask[action]:
            return int(action)
    return int(np.flatnonzero(mask)[0])


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


# =========================================================================== item 7: the wrapper's input
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


# =========================================================================== item 12: numpy integers
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
    for bad_seed in (True, 1.5, "3", np.float64(3)):
        with pytest.raises(TypeError, match="seed"):
            env.reset(seed=bad_seed)


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


def test_search_agent_takes_a_numpy_seed():
    env = rams_env.env()
    env.reset(seed=0)
    a = SearchAgent(simulations=2, seed=np.int64(4), env=env).act(env.observe(env.agent_selection))
    b = SearchAgent(simulations=2, seed=4, env=env).act(env.observe(env.agent_selection))
    assert a == b


# =========================================================================== item 15: smaller edges
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


def test_search_agent_without_env_says_how_to_use_it():
    """SearchAgent needs the game's public history: act(observation) without env= is an explicit,
    documented error (the contract promises no-argument agents only for RandomAgent and HeuristicAgent)."""
    env = rams_env.env()
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"SearchAgent\(env=") as info:
        SearchAgent(simulations=2).act(env.observe(env.agent_selection))
    assert "act_game" in str(info.value)
    for doc in (SearchAgent.__doc__, SearchAgent.act.__doc__):
        assert "env=" in doc and "act_game" in doc


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


# =========================================================================== item 16: rewards that go missing
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


# =========================================================================== the human render leak
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
