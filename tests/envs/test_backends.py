"""The AEC env plays identical games on its two engines: the compiled one (default) and the
pure-Python reference. Every observation, mask, reward, info, termination and view is compared."""

from __future__ import annotations

import random

import numpy as np
import pytest

import rams_env
from rams_env.rules import IllegalActionError

CASES = [
    ("mattmar", 4, "deal", "points"),
    ("mattmar", 5, "match", "win"),
    ("mattmar", 3, "match", "points"),
    ("norrlandsknack", 5, "rams", "points"),
    ("norrlandsknack", 4, "match", "win"),
    ("rams32", 3, "rams", "win"),
    ("rams32", 6, "deal", "points"),
    ("russian", 4, "deal", "points"),
    ("russian", 3, "rams", "win"),
    ("russian", 7, "match", "points"),
]


def _pair(**kwargs):
    return rams_env.raw_env(**kwargs), rams_env.raw_env(engine="reference", **kwargs)


def _same(fast, slow, where: str) -> None:
    agent = fast.agent_selection
    assert agent == slow.agent_selection, where
    for a in fast.possible_agents:
        f, s = fast.observe(a), slow.observe(a)
        assert np.array_equal(f["observation"], s["observation"]), f"{where}: observation of {a}"
        assert np.array_equal(f["action_mask"], s["action_mask"]), f"{where}: mask of {a}"
    assert fast.rewards == slow.rewards, where
    assert fast._cumulative_rewards == slow._cumulative_rewards, where
    assert fast.infos == slow.infos and fast.terminations == slow.terminations, where
    assert fast.legal_actions() == slow.legal_actions(), where


@pytest.mark.slow
@pytest.mark.parametrize(("variant", "players", "episode", "reward"), CASES)
def test_compiled_and_reference_engines_play_the_same_games(variant, players, episode, reward):
    fast, slow = _pair(variant=variant, num_players=players, episode=episode, reward=reward)
    chooser = random.Random(players)
    for seed in range(40 if episode == "deal" else 6):
        fast.reset(seed=seed)
        slow.reset(seed=seed)
        step = 0
        while not all(fast.terminations.values()):
            _same(fast, slow, f"seed {seed}, step {step}")
            if step % 11 == 0:
                assert fast.view(fast.agent_selection) == slow.view(slow.agent_selection)
                assert fast.game.to_json() == slow.game.to_json()
            action = chooser.choice(fast.legal_actions())
            fast.step(action)
            slow.step(action)
            step += 1
        _same(fast, slow, f"seed {seed}, the end")
        assert fast.game.result() == slow.game.result()


def test_reset_options_and_illegal_actions_behave_alike():
    fast, slow = _pair(variant="russian", num_players=4)
    deck = [rams_env.card_name(c) for c in range(52)][::-1]
    options = {"deck": deck, "dealer": 2, "scores": [40, 7, 100, 55]}
    for env in (fast, slow):
        env.reset(seed=3, options=options)
    _same(fast, slow, "after reset with options")
    assert fast.view(0) == slow.view(0)
    for bad in (999, -1, "KNOCK", 1.5, 0):
        messages = []
        for env in (fast, slow):
            with pytest.raises(IllegalActionError) as err:
                env.step(bad)
            messages.append(str(err.value))
        assert messages[0] == messages[1]
    for env in (fast, slow):
        with pytest.raises(ValueError, match="deck"):
            env.reset(options={"deck": deck[:-1]})
    fast, slow = _pair(variant="mattmar", num_players=4, illegal_action="terminate", illegal_reward=-3.0)
    for env in (fast, slow):
        env.reset(seed=1)
        env.step(0 if 0 not in env.legal_actions() else 59)
    _same(fast, slow, "after an illegal action")


def test_the_game_mirror_follows_the_compiled_engine():
    env = rams_env.raw_env(variant="mattmar", num_players=4, episode="match")
    env.reset(seed=5)
    chooser = random.Random(5)
    for _ in range(300):
        if all(env.terminations.values()):
            break
        env.step(chooser.choice(env.legal_actions()))
    game = env.game
    assert game.legal_actions() == env.legal_actions()
    assert [env.infos[a]["score"] for a in env.possible_agents] == game.scores


def test_unknown_engine_is_refused():
    with pytest.raises(ValueError, match="engine"):
        rams_env.raw_env(engine="fortran")
