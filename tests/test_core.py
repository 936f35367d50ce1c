"""The public core facade (``rams_env.core``): games stepped in one call, their read-only views, and the
compiled heuristic outside a core, each against the Python engine or agent it stands for."""

from __future__ import annotations

import numpy as np
import pytest

import rams_env
from rams_env.agents import HeuristicAgent
from rams_env.agents.base import observe
from rams_env.core import COLUMNS, ROLES, SEAT_COLUMNS, Core, Heuristic
from rams_env.envs import next_deal_or_end
from rams_env.rules import Game, IllegalActionError, make_config


def test_a_core_game_plays_what_the_aec_env_plays_from_the_same_seed() -> None:
    """Every seat a learner: the core's observations, masks and seats are the AEC env's, step for step."""
    spec = rams_env.make_spec("russian", 4)
    core, env = Core(spec, 1), rams_env.env("russian", 4)
    out = core.restart([11])
    env.reset(seed=11)
    rng = np.random.default_rng(0)
    for _ in range(60):
        obs, _, term, _, _ = env.last()
        if term:
            break
        assert int(out.seats[0]) == env.seat_of(env.agent_selection)
        np.testing.assert_array_equal(out.observations[0], obs["observation"])
        np.testing.assert_array_equal(out.masks[0], obs["action_mask"])
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        env.step(action)
        out = core.step(np.array([action]))
    assert core.view("scores")[0].tolist() == [env.infos[a]["score"] for a in env.possible_agents]


def test_views_are_copies_and_unknown_names_are_refused() -> None:
    core = Core(rams_env.make_spec("mattmar", 5), 3)
    core.restart([1, 2, 3])
    for name in COLUMNS:
        assert core.view(name).shape == (3,)
    for name in SEAT_COLUMNS:
        assert core.view(name).shape == (3, 5)
    scores = core.view("scores")
    scores[:] = -7
    assert (core.view("scores") > 0).all()
    assert core.seat_view("scores", np.array([0, 1, 2])).tolist() == [core.view("scores")[g, g] for g in range(3)]
    with pytest.raises(ValueError, match="unknown view 'score'"):
        core.view("score")
    with pytest.raises(ValueError, match="unknown seat view 'phase'"):
        core.seat_view("phase", np.zeros(3, np.int64))


def test_an_illegal_action_names_the_game_and_steps_no_game() -> None:
    core = Core(rams_env.make_spec("mattmar", 4), 2)
    out = core.restart([5, 6])
    before = out.observations.copy()
    legal = [int(np.flatnonzero(out.masks[g])[0]) for g in range(2)]
    illegal = int(np.flatnonzero(out.masks[1] == 0)[0])
    with pytest.raises(IllegalActionError, match="game 1"):
        core.step(np.array([legal[0], illegal]))
    np.testing.assert_array_equal(core.outputs.observations, before)
    assert core.run(core.act_all, np.array([legal[0], illegal])) == 1


def test_seats_become_roles_in_one_place_and_compiled_seats_play_inside_the_call() -> None:
    core = Core(rams_env.make_spec("mattmar", 4), 4, autoreset=True)
    core.set_seats(["learner", "heuristic", "random", "heuristic"], seeds=np.arange(16).reshape(4, 4))
    assert core.roles().tolist() == [[ROLES[k] for k in ("learner", "heuristic", "random", "heuristic")]] * 4
    out = core.restart(range(4))
    for _ in range(50):
        assert (out.seats == 0).all()  # only the learner's decisions stop the call
        actions = np.array([int(np.flatnonzero(m)[0]) for m in out.masks])
        out = core.step(actions)
    with pytest.raises(ValueError, match="seats"):
        core.set_seats(["learner", "heuristic"])


def test_the_heuristic_decides_as_the_python_agent_seed_for_seed() -> None:
    """``Heuristic.act`` and ``act_rows`` against ``HeuristicAgent`` with the same seeds, over whole ramsar."""
    config = make_config("norrlandsknack", 4)
    python = [HeuristicAgent(config, seed=s) for s in range(4)]
    one, rows = Heuristic(list(range(4))), Heuristic(np.arange(4).reshape(1, 4))
    game, decisions = Game(config, seed=9), 0
    while True:
        while (seat := game.current) >= 0:
            obs = observe(game, seat)
            expected = python[seat].act(obs)
            bits = sum(1 << int(a) for a in np.flatnonzero(obs["action_mask"]))
            assert one.act(obs["observation"], config, bits, seat) == expected
            got = rows.act_rows(obs["observation"][None], obs["action_mask"][None], config, np.array([seat]))
            assert got.tolist() == [expected]
            game.apply(expected)
            decisions += 1
        if next_deal_or_end(game, "rams"):
            break
    assert decisions > 50
    one.reseed(0, 2)
    assert (one.generators[2] == Heuristic([0]).generators[0]).all()
