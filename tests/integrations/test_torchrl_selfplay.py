"""TorchRL self-play over the batched env: ``RamsSelfPlayEnv`` passes ``check_env_specs``, plays exactly the games of
``BatchedRamsEnv`` with the same seed and actions, resets finished games alone; ``seat_decisions`` gives each seat
its own rewards and sequence ends; a tiny Collector + GAE + ClipPPOLoss run gives a finite loss."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from tensordict import TensorDict

from rams_env.envs import BatchedRamsEnv
from rams_env.integrations.torchrl_selfplay import RamsSelfPlayEnv, seat_decisions

# library rollouts and training: CI runs them, -m 'not slow' skips them; torch seeded (conftest.py)
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("seeded_torch")]


def test_check_env_specs_passes():
    from torchrl.envs.utils import check_env_specs

    check_env_specs(RamsSelfPlayEnv(4, episode="deal"), seed=0)
    check_env_specs(RamsSelfPlayEnv(3, variant="russian", num_players=3, episode="rams", reward="win"), seed=1)


@pytest.mark.parametrize(
    ("kwargs", "steps"),
    [
        ({"episode": "deal"}, 150),
        ({"variant": "russian", "num_players": 3, "episode": "rams", "reward": "win"}, 300),
    ],
)
def test_plays_exactly_the_games_of_batched_rams_env(kwargs, steps):
    games, seed = 5, 11
    env = RamsSelfPlayEnv(games, **kwargs)
    env.set_seed(seed)
    reference = BatchedRamsEnv(games, **kwargs)
    expected = reference.reset(seed=seed)
    td = env.reset()
    rng = np.random.default_rng(3)
    ended = 0
    for _ in range(steps):
        assert np.array_equal(td["observation"].numpy(), expected.observations)
        assert np.array_equal(td["action_mask"].numpy(), expected.action_masks.astype(bool))
        assert np.array_equal(td["seat"].numpy(), expected.seats)
        actions = np.array([rng.choice(np.flatnonzero(mask)) for mask in expected.action_masks], np.int64)
        td["action"] = torch.from_numpy(actions)
        stepped, td = env.step_and_maybe_reset(td)
        expected = reference.step(actions)
        nxt = stepped["next"]
        assert np.array_equal(nxt["reward"].numpy(), expected.rewards)
        assert np.array_equal(nxt["terminated"].squeeze(-1).numpy(), expected.terminated)
        assert np.array_equal(nxt["done"].squeeze(-1).numpy(), expected.done)
        assert not nxt["truncated"].any()
        ended += int(expected.terminated.sum())
    assert ended >= 2


def test_partial_reset_restarts_only_finished_games_and_refuses_games_in_mid_episode():
    env = RamsSelfPlayEnv(6, episode="deal")
    env.set_seed(2)
    td = env.reset()
    while True:  # play random legal actions until some game, not all, ends
        td["action"] = torch.multinomial(td["action_mask"].float(), 1).squeeze(-1)
        td = env.step(td)
        done = td["next", "done"].squeeze(-1)
        if done.any():
            break
        td = td["next"]
    assert not done.all()
    following = td["next"].clone()  # the next episode's first decision, already dealt (same-step autoreset)
    with pytest.raises(RuntimeError, match="reset it"):
        env.step(following.clone().set("action", following["action_mask"].float().argmax(-1)))
    playing = int(torch.nonzero(~done)[0])
    with pytest.raises(ValueError, match=f"game {playing} is in mid-episode"):
        env.reset(
            TensorDict(
                {"_reset": done.clone().index_fill_(0, torch.tensor([playing]), True).unsqueeze(-1)}, batch_size=[6]
            )
        )
    # TorchRL keeps the input's entries for the games not reset, as a collector passes them
    restarted = env.reset(following.clone().set("_reset", done.unsqueeze(-1)))
    assert torch.equal(restarted["observation"], following["observation"])
    assert torch.equal(restarted["seat"], following["seat"]) and not restarted["done"].any()
    restarted["action"] = restarted["action_mask"].float().argmax(-1)
    env.step(restarted)  # every game steps on
    full = env.reset()  # a full reset deals new games to all
    assert full["action_mask"].any(-1).all() and not full["done"].any()


def test_seat_decisions_give_each_seat_its_own_rewards_and_sequence_ends():
    # one game of 2 seats, 6 frames; the action at frame 2 ends the episode
    seats = torch.tensor([[0, 1, 0, 1, 1, 0]])
    rewards = torch.tensor([[[1, 0], [0, 2], [3, 4], [0, 5], [6, 0], [7, 7]]], dtype=torch.float32)
    done = torch.tensor([[False, False, True, False, False, False]]).unsqueeze(-1)
    batch = TensorDict(
        {
            "observation": torch.arange(6.0).reshape(1, 6, 1),
            "action_mask": torch.ones(1, 6, 60, dtype=torch.bool),
            "seat": seats,
            "action": torch.arange(10, 16).reshape(1, 6),
            "next": {"reward": rewards, "done": done, "terminated": done.clone()},
        },
        batch_size=[1, 6],
    )
    data = seat_decisions(batch)
    # seat 0: frames 0 (to its next turn at 2), 2 (ends the episode); seat 1: frames 1 (to the end), 3 (to 4);
    # frames 4 and 5 are dropped (their seats' rewards go on past the batch)
    assert data["action"].tolist() == [10, 12, 11, 13]
    assert data["next", "reward"].squeeze(-1).tolist() == [1, 3, 6, 5]
    assert data["next", "terminated"].squeeze(-1).tolist() == [False, True, True, False]
    assert data["next", "truncated"].squeeze(-1).tolist() == [False, False, False, True]
    assert data["next", "done"].squeeze(-1).tolist() == [False, True, True, True]
    assert data["next", "observation"].squeeze(-1).tolist()[0::3] == [2.0, 4.0]  # the seat's next decision


def test_collector_and_clip_ppo_loss_train_the_shared_net():
    from torchrl.collectors import Collector
    from torchrl.objectives import ClipPPOLoss
    from torchrl.objectives.value import GAE

    from rams_env.integrations.torchrl_vector import masked_actor, value_module
    from rams_env.obs import OBS_SIZE
    from rams_env.policy import PolicyNet
    from rams_env.rules.actions import NUM_ACTIONS

    env = RamsSelfPlayEnv(8, episode="rams", reward="win")
    env.set_seed(0)
    net = PolicyNet(OBS_SIZE, NUM_ACTIONS, (32,))
    actor, critic = masked_actor(net), value_module(net)
    collector = Collector(
        env, actor, frames_per_batch=8 * 40, total_frames=8 * 40 * 2, auto_register_policy_transforms=False
    )
    gae = GAE(gamma=1.0, lmbda=0.95, value_network=critic)
    loss = ClipPPOLoss(actor, critic)
    loss.set_keys(sample_log_prob="action_log_prob", value="state_value")
    optimizer = torch.optim.Adam(loss.parameters(), lr=1e-3)
    decisions = 0
    for batch in collector:
        assert batch["action_mask"].gather(-1, batch["action"].unsqueeze(-1)).all()  # legal actions only
        data = seat_decisions(batch)
        decisions += len(data)
        with torch.no_grad():
            gae(data)
        values = loss(data)
        total = values["loss_objective"] + values["loss_critic"] + values["loss_entropy"]
        assert torch.isfinite(total)
        optimizer.zero_grad()
        total.backward()
        assert all(p.grad is not None and torch.isfinite(p.grad).all() for p in net.parameters())
        optimizer.step()
        collector.update_policy_weights_()
    collector.shutdown()
    assert decisions >= 500
