"""The calibration targets of ``rams exploit`` (rams_env/agents/flawed.py): a trained policy that plays as
its base except where its planted hole applies, read from the mask and the observation's phase."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")  # deliberate: the core installs without torch (tests/test_without_torch.py); CI has it

import rams_env
from rams_env import Action
from rams_env.agents import FlawedAgent, resolve
from rams_env.agents.specs import loaded_policy
from rams_env.rules import make_config
from rams_env.rules.cards import RANKS

CONFIG = make_config("mattmar", 4)
BASE = "mattmar-4p"


def _play(flaw: str, seed: int) -> list[tuple[np.ndarray, np.ndarray, str, int, int]]:
    """Every decision of one rams with four copies of ``flaw``: (observation, mask, phase, the flawed
    agent's action, its base's action)."""
    agent = FlawedAgent(flaw, base=BASE, config=CONFIG)
    base = loaded_policy(BASE)
    env = rams_env.env(variant="mattmar", num_players=4, episode="rams")
    env.reset(seed=seed)
    seen = []
    for name in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        phase = env.unwrapped.view(name)["phase"]
        action = agent.act(obs)
        seen.append((obs["observation"], obs["action_mask"], phase, action, base.act(obs)))
        env.step(action)
    return seen


@pytest.mark.parametrize("flaw", ["always-knock", "never-buy", "highest-card"])
def test_a_flawed_agent_plays_its_hole_where_it_applies_and_its_base_elsewhere(flaw):
    seen = _play(flaw, seed=3)
    applied = 0
    for _, mask, phase, action, base_action in seen:
        assert mask[action] == 1
        legal = np.flatnonzero(mask)
        if flaw == "always-knock" and mask[Action.KNOCK]:
            expected = int(Action.KNOCK)
        elif flaw == "never-buy" and mask[Action.DRAW]:
            expected = int(Action.DRAW)
        elif flaw == "highest-card" and phase == "play":
            cards = [a for a in legal if a < 52]
            expected = max(cards, key=lambda a: (a % len(RANKS), a // len(RANKS)))
        else:
            assert action == base_action, (phase, legal)
            continue
        assert action == expected, (phase, legal)
        applied += action != base_action
    assert applied > 0  # the hole changed some decisions of the base


def test_act_batch_is_act_row_by_row():
    seen = _play("highest-card", seed=5)
    agent = FlawedAgent("highest-card", base=BASE, config=CONFIG)
    observations = np.stack([row[0] for row in seen])
    masks = np.stack([row[1] for row in seen])
    assert agent.act_batch(observations, masks).tolist() == [row[3] for row in seen]


def test_the_spec_names_the_flaw_and_the_base_and_refuses_bad_ones():
    agent = resolve("flawed:flaw=never-buy", CONFIG).source
    assert isinstance(agent, FlawedAgent) and agent.base_spec == "mattmar" and agent.config == CONFIG
    with pytest.raises(ValueError, match="flaw must be one of always-knock, never-buy, highest-card"):
        resolve("flawed:flaw=always-pass", CONFIG)
    with pytest.raises(ValueError, match="base must be a trained policy"):
        resolve("flawed:flaw=never-buy,base=heuristic", CONFIG)
    with pytest.raises(ValueError, match="flaw"):
        resolve("flawed", CONFIG)
