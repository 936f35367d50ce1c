"""PPO's update (training/ppo.py) on updates with no samples or one: nothing learnt, or a finite step."""

from __future__ import annotations

import numpy as np
import torch

from rams_env.obs import OBS_SIZE
from rams_env.policy import PolicyNet
from rams_env.rules.actions import NUM_ACTIONS
from rams_training import ppo
from rams_training.config import TrainArgs
from rams_training.rollout import Rollout

torch.set_num_threads(1)


def _rollout(n: int) -> tuple[Rollout, np.ndarray]:
    rollout = Rollout(hidden=False)
    rows = rollout.add(
        obs=np.zeros((n, OBS_SIZE), np.float32),
        mask=np.ones((n, NUM_ACTIONS), np.int8),
        action=np.zeros(n, np.int64),
        log_prob=np.full(n, -np.log(NUM_ACTIONS), np.float32),
        value=np.zeros(n),
        seat=np.zeros(n, np.int64),
        episode=np.zeros(n, np.int64),
    )
    rollout.advantage[rows], rollout.ret[rows] = 1.0, 1.0
    return rollout, rows


def _update(n: int) -> tuple[dict[str, float], PolicyNet, dict[str, torch.Tensor]]:
    torch.manual_seed(0)
    net = PolicyNet(OBS_SIZE, NUM_ACTIONS, hidden=(16,))
    before = {k: v.clone() for k, v in net.state_dict().items()}
    rollout, rows = _rollout(n)
    args = TrainArgs(hidden=(16,), minibatch=64, epochs=2, threads=1)
    losses = ppo.update(
        net,
        None,
        torch.optim.Adam(net.parameters(), lr=1e-3),
        rollout,
        rows,
        args,
        ent_coef=0.01,
        warming=False,
        generator=torch.Generator().manual_seed(0),
        device=torch.device("cpu"),
        bf16=False,
    )
    return losses, net, before


def test_an_update_without_samples_learns_nothing_and_reports_zero_losses() -> None:
    losses, net, before = _update(0)
    assert losses == dict.fromkeys(("policy_loss", "value_loss", "entropy", "approx_kl", "clip_fraction"), 0.0)
    assert all(torch.equal(v, before[k]) for k, v in net.state_dict().items())


def test_an_update_of_one_sample_stays_finite() -> None:
    """One sample's advantage has no spread to normalise by (its std is NaN): it is centred only."""
    losses, net, before = _update(1)
    assert all(np.isfinite(v) for v in losses.values())
    assert all(torch.isfinite(v).all() for v in net.state_dict().values())
    assert any(not torch.equal(v, before[k]) for k, v in net.state_dict().items())  # the value head learnt
