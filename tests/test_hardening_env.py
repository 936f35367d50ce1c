"""Hardening of the PettingZoo env and the Gymnasium wrapper (issue 13 items 7, 12, 15, 16 and the
human-render leak): bad input gives a clear error, numpy integers are accepted, a rejected action
changes nothing (pending rewards included), win rewards are paid however the episode ends, and
the wrapper's human rendering shows the learner's seat only."""

from __future__ import annotations

import random

import numpy as np
import pytest

import rams_env
from rams_env import Action, IllegalActionError
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


# =========================================================================== item 15: smaller edges


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
