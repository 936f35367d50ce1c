"""The imitation warm start: labels equal to the heuristic's own choices, returns, a run that imitates once."""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pytest
import torch

from rams_env.agents import CompiledHeuristicAgent
from rams_env.envs.vector import game_seeds
from rams_env.obs import OBS_SIZE
from rams_env.policy import MaskedCategorical, PolicyNet, load_checkpoint
from rams_env.rules import make_config
from rams_env.rules.actions import NUM_ACTIONS
from rams_training import cores
from rams_training.config import TrainArgs
from rams_training.imitation import HeuristicLabeller, fit_chunk, returns_to_go
from rams_training.run import Trainer

from .test_run import tiny


def test_returns_run_to_the_end_of_each_episode_per_seat():
    # game 0: seat 0, seat 1, seat 0 (ends: seat 0 +1, seat 1 -1), then seat 1 of the next episode, unfinished
    seats = np.array([[0], [1], [0], [1]])
    done = np.array([[False], [False], [True], [False]])
    rewards = np.zeros((4, 1, 2), np.float32)
    rewards[1, 0] = [0.5, 0.0]  # seat 0 earns 0.5 from seat 1's decision
    rewards[2, 0] = [1.0, -1.0]
    returns, finished = returns_to_go(rewards, done, seats)
    assert returns[:3, 0].tolist() == [1.5, -1.0, 1.0]
    assert finished[:, 0].tolist() == [True, True, True, False]


@pytest.mark.parametrize(("variant", "episode", "reward"), [("mattmar", "rams", "win"), ("russian", "deal", "points")])
def test_the_labels_are_what_the_seeded_heuristics_play(variant, episode, reward):
    config = make_config(variant, 4)
    labeller = HeuristicLabeller(config, episode, reward, num_games=3, seed=5, reward_scale=1.0)
    # seat s of game g draws from HeuristicAgent(seed=game_seeds(seed + 1, games * players)[g * players + s])
    agents = [CompiledHeuristicAgent(config, seed=s) for s in game_seeds(6, 3 * 4)]
    state = labeller.state
    for _ in range(200):
        labels = labeller.actions(state)
        for g in range(3):
            seen = {"observation": state.observations[g].copy(), "action_mask": state.action_masks[g].copy()}
            assert labels[g] == agents[g * 4 + int(state.seats[g])].act(seen)
        state = labeller.env.step(labels)
    labeller.close()


def test_a_chunk_keeps_the_finished_episodes_legal_labels_and_their_returns():
    labeller = HeuristicLabeller(make_config("mattmar", 4), "rams", "win", num_games=4, seed=0, reward_scale=2.0)
    chunk = labeller.chunk(600)
    labeller.close()
    assert 0 < len(chunk) < 600 * 4  # the unfinished tails are dropped
    assert chunk.masks[np.arange(len(chunk)), chunk.actions].all()
    # the win reward is +1 shared by the winners and -1 shared by the rest, times the scale
    assert np.all(np.abs(chunk.returns) <= 2.0 + 1e-6) and (chunk.returns == 2.0).any()


def test_a_chunk_step_raises_agreement():
    config = make_config("mattmar", 4)
    labeller = HeuristicLabeller(config, "rams", "win", num_games=16, seed=0, reward_scale=1.0)
    chunk = labeller.chunk(400)
    labeller.close()
    torch.manual_seed(0)
    net = PolicyNet(OBS_SIZE, NUM_ACTIONS, (64,))
    optimizer = torch.optim.Adam(net.parameters(), lr=3e-3)
    generator = torch.Generator().manual_seed(0)
    first, _ = fit_chunk(net, optimizer, chunk, generator, 0.5, 256, torch.device("cpu"), False)
    # Five more steps: each adds about 0.06 (seeds 0-3 alike); three steps gave 0.18-0.20, too near the margin
    # once encoder version 3 moved the preset field (and with it the first layer's initial weights).
    for _ in range(5):
        last, value_loss = fit_chunk(net, optimizer, chunk, generator, 0.5, 256, torch.device("cpu"), False)
    assert last > first + 0.2
    assert np.isfinite(value_loss)


def test_a_run_imitates_once_then_resumes_without_imitating(tmp_path, caplog):
    args = tiny(tmp_path / "run", episode="rams", reward="win", imitation=3000, total_steps=400)
    trainer = Trainer(args)
    trainer.run()
    report = json.loads((tmp_path / "run" / "imitation.json").read_text())
    assert report["decisions"] >= 3000
    assert load_checkpoint(tmp_path / "run" / "latest.pt")["counters"]["imitated"] == report["decisions"]
    again = tiny(tmp_path / "run", episode="rams", reward="win", imitation=3000, total_steps=800, resume=True)
    resumed = Trainer(again)
    caplog.set_level("INFO", logger="rams.train")
    resumed.run()
    assert "imitated" not in caplog.text
    assert resumed.imitated == report["decisions"]


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (dict(imitation=-1), "imitation must be an integer >= 0"),
        (dict(imitation_lr=0.0), "imitation_lr must be a number > 0"),
        (dict(imitation=10, init_from="x.pt"), "imitation and init_from"),
    ],
)
def test_bad_imitation_arguments_are_refused_by_name(overrides, message):
    with pytest.raises(ValueError, match=message):
        TrainArgs(**overrides)


def test_free_cores_are_the_idle_share_of_the_cores(monkeypatch):
    samples = iter([(100, 200), (150, 300)])  # idle 50 of 100 jiffies: half the cores
    monkeypatch.setattr(cores, "_cpu_times", lambda: next(samples))
    monkeypatch.setattr(cores, "usable_cores", lambda: 4)
    monkeypatch.setattr(cores.os, "cpu_count", lambda: 4)
    monkeypatch.setattr(cores, "time", SimpleNamespace(sleep=lambda s: None))
    assert cores.free_cores() == 2


def test_the_governor_leaves_the_cores_other_work_keeps_busy(monkeypatch):
    # 4 cores; over 10 s the machine was 3/4 busy and this process used 1 core: others keep 2 busy
    cpu = iter([(0, 0), (100, 400)])
    clock = iter([0.0, 10.0])
    own = iter([0.0, 10.0])
    monkeypatch.setattr(cores, "_cpu_times", lambda: next(cpu))
    monkeypatch.setattr(cores, "usable_cores", lambda: 4)
    monkeypatch.setattr(cores.os, "cpu_count", lambda: 4)
    monkeypatch.setattr(cores, "time", SimpleNamespace(process_time=lambda: next(own), monotonic=lambda: next(clock)))
    governor = cores.ThreadGovernor(threads=4)
    assert governor.adjust() == 2 and governor.threads == 2


def test_free_cores_on_this_machine_lie_between_one_and_all():
    assert 1 <= cores.free_cores(0.05) <= cores.usable_cores()  # the real /proc/stat read: the bounds only


def test_a_run_stopped_while_imitating_starts_again_on_resume(tmp_path):
    args = tiny(tmp_path / "run", episode="rams", reward="win", imitation=2000, total_steps=200)
    Trainer(args).close()  # the folder holds args.json only, as after a kill during the imitation
    resumed = Trainer(
        tiny(tmp_path / "run", episode="rams", reward="win", imitation=2000, total_steps=200, resume=True)
    )
    resumed.run()
    assert resumed.imitated >= 2000 and (tmp_path / "run" / "latest.pt").exists()


def test_a_teacher_labels_every_seat_with_its_own_actions():
    # the teacher (rams exploit's target) plays every seat: here the lowest legal action, never the heuristic's
    config = make_config("mattmar", 4)
    lowest = lambda observations, masks: masks.argmax(axis=1)
    labeller = HeuristicLabeller(config, "rams", "win", num_games=4, seed=0, reward_scale=1.0, teacher=lowest)
    chunk = labeller.chunk(300)
    labeller.close()
    assert len(chunk) > 0
    assert chunk.actions.tolist() == chunk.masks.argmax(axis=1).tolist()


def test_imitating_the_target_needs_a_target_and_one_that_is_a_policy(tmp_path):
    with pytest.raises(ValueError, match="imitation_teacher target imitates the run's target"):
        TrainArgs(imitation=1000, imitation_teacher="target")
    with pytest.raises(ValueError, match="imitation_teacher must be one of heuristic, target"):
        TrainArgs(imitation=1000, imitation_teacher="flagship")
    with pytest.raises(ValueError, match="imitation and init_from"):
        TrainArgs(imitation=1000, init_from="x.pt")
    args = tiny(tmp_path, episode="rams", reward="win", target="random", imitation=1000, imitation_teacher="target")
    with pytest.raises(ValueError, match="'random' plays at random, which is no play to imitate"):
        Trainer(args)


def test_label_smoothing_keeps_probability_on_what_the_teacher_never_plays():
    # fitted to the same labels, the smoothed copy gives the legal actions its teacher never picks far
    # more probability than the plain copy: the exploration a best response needs to leave a hole
    config = make_config("mattmar", 4)
    labeller = HeuristicLabeller(config, "rams", "win", num_games=16, seed=0, reward_scale=1.0)
    chunk = labeller.chunk(400)
    labeller.close()
    obs, masks = torch.from_numpy(chunk.observations), torch.from_numpy(chunk.masks)
    several = masks.sum(1) > 1
    others = {}
    for smoothing in (0.0, 0.3):
        torch.manual_seed(0)
        net = PolicyNet(OBS_SIZE, NUM_ACTIONS, (64,))
        optimizer = torch.optim.Adam(net.parameters(), lr=3e-3)
        generator = torch.Generator().manual_seed(0)
        for _ in range(30):
            agreement, _ = fit_chunk(net, optimizer, chunk, generator, 0.5, 256, torch.device("cpu"), False, smoothing)
        with torch.no_grad():
            probs = MaskedCategorical(net(obs)[0], masks).log_probs.exp()
        taught = probs[torch.arange(len(chunk)), torch.from_numpy(chunk.actions)]
        others[smoothing] = float((1 - taught)[several].mean())
        assert agreement > 0.6  # both copies still play the teacher's move first
    assert others[0.3] > 3 * others[0.0] and others[0.3] > 0.15  # measured 0.25 against 0.05
    with pytest.raises(ValueError, match=r"imitation_smoothing must be a number in \[0, 1\)"):
        TrainArgs(imitation_smoothing=1.0)
