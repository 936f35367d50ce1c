"""TorchRL: Rams in TorchRL's PettingZooWrapper with masks, a masked policy shared by every seat collecting
rollouts (one acting seat per step, legal actions only, every seat's reward equal to its score change); the
example script."""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest
import torch
from torchrl.envs import PettingZooWrapper

import rams_env
from rams_env.integrations.torchrl import (
    ACTING_KEY,
    ACTION_KEY,
    ACTION_MASK_KEY,
    GROUP,
    OBSERVATION_KEY,
    make_env,
    masked_policy,
)

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "torchrl_rollout.py"

# TorchRL warns on every wrapper that it was tested with PettingZoo 1.24.3; these tests are what covers 1.27.
# Rollouts and the example script of a library: CI runs them, -m 'not slow' skips them.
pytestmark = [
    pytest.mark.slow,
    pytest.mark.usefixtures("seeded_torch"),  # conftest.py
    pytest.mark.filterwarnings("ignore:PettingZoo in TorchRL is tested using version:UserWarning"),
]


@pytest.mark.parametrize(("variant", "num_players", "episode"), [("mattmar", 4, "deal"), ("russian", 3, "deal")])
def test_masked_policy_rollout_is_legal_and_pays_every_seat_its_score_change(variant, num_players, episode):
    env = make_env(seed=0, variant=variant, num_players=num_players, episode=episode)
    policy = masked_policy(env, hidden=[32])
    with torch.no_grad():
        rollout = env.rollout(300, policy, break_when_any_done=False)
    assert rollout.batch_size == (300,)
    acting = rollout[ACTING_KEY]
    assert acting.shape == (300, num_players) and torch.all(acting.sum(-1) == 1)
    chosen = rollout[ACTION_MASK_KEY].gather(-1, rollout[ACTION_KEY].unsqueeze(-1)).squeeze(-1)
    assert torch.all(chosen[acting])
    # Every seat's reward, at every step, is its score's decrease (TorchRL reads all seats' step rewards).
    score, next_score = rollout[GROUP, "info", "score"], rollout["next", GROUP, "info", "score"]
    reward = rollout["next", GROUP, "reward"].squeeze(-1)
    assert torch.equal(reward, score - next_score)
    assert reward.abs().sum() > 0 and rollout["next", "done"].sum() >= 2


def test_make_env_is_a_seeded_torchrl_pettingzoo_wrapper():
    first, second, other = (make_env(seed=seed, variant="rams32") for seed in (5, 5, 6))
    assert isinstance(first, PettingZooWrapper) and list(first.group_map) == [GROUP]
    observations = [env.reset()[OBSERVATION_KEY] for env in (first, second, other)]
    assert torch.equal(observations[0], observations[1]) and not torch.equal(observations[0], observations[2])


def test_masked_policy_rejects_bad_settings():
    with pytest.raises(ValueError, match="hidden"):
        masked_policy(make_env(), hidden=[0])
    per_seat = PettingZooWrapper(env=rams_env.env(), use_mask=True)
    with pytest.raises(ValueError, match=GROUP):
        masked_policy(per_seat)


def test_example_collects_a_legal_rollout(capsys):
    main = runpy.run_path(str(EXAMPLE))["main"]
    rollout = main(["--steps", "50", "--variant", "norrlandsknack", "--players", "5"])
    assert rollout.batch_size == (50,)
    assert "every action the env used was legal: True" in capsys.readouterr().out
