"""RLlib: the MultiAgentEnv adapter (turn order, rewards of every seat, end of episode), the masked RLModule,
and multi-agent PPO with one shared policy training on a local Ray instance, whose policy picks only legal
actions; the example script."""

from __future__ import annotations

import os
import pickle
import runpy
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import gymnasium
import numpy as np
import pytest
import ray
import torch
from ray.rllib.core.columns import Columns

import rams_env
from rams_env.agents import load_agent
from rams_env.apps.cli import main as rams_main
from rams_env.integrations import rllib
from rams_env.integrations.rllib import (
    MASKED_LOGIT,
    SHARED_POLICY,
    MaskedPPOModule,
    RamsMultiAgentEnv,
    RLlibAgent,
    build_algo,
    init_ray,
    load_rllib_agent,
    ppo_config,
    warm_start,
)
from rams_env.obs.encoding import OBS_SIZE
from rams_env.policy import CheckpointError
from rams_env.policy.network import PolicyNet
from rams_env.rules import NUM_ACTIONS

# Training runs and example scripts of a library: CI runs them, -m 'not slow' skips them.
pytestmark = pytest.mark.slow

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "rllib_ppo.py"
BATCH = 200


@pytest.fixture
def local_ray() -> Iterator[None]:
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


@pytest.mark.parametrize(("variant", "episode"), [("mattmar", "deal"), ("russian", "rams"), ("rams32", "match")])
def test_env_asks_the_seat_to_act_and_pays_every_seat_its_score_change(variant, episode):
    env = RamsMultiAgentEnv({"variant": variant, "num_players": 4, "episode": episode})
    rng = np.random.default_rng(0)
    for seed in range(3):
        observations, infos = env.reset(seed=seed)
        game = env.aec.game
        returns = dict.fromkeys(env.possible_agents, 0.0)
        start = list(game.scores)
        new_rams = 0
        while True:
            [agent] = observations
            assert agent == f"player_{game.current_player}" and set(infos) == {agent}
            assert env.observation_spaces[agent].contains(observations[agent])
            rams_before = game.rams_number if episode == "match" else 0
            action = int(rng.choice(np.flatnonzero(observations[agent]["action_mask"])))
            observations, rewards, terminateds, truncateds, infos = env.step({agent: action})
            assert set(rewards) == set(env.possible_agents) and truncateds == {"__all__": False}
            for a, r in rewards.items():
                returns[a] += r
            if episode == "match" and game.rams_number != rams_before:
                new_rams += 1  # a new rams starts from fresh scores, which is no reward
            if terminateds["__all__"]:
                break
            assert terminateds == {"__all__": False}
        assert set(observations) == set(env.possible_agents) and all(terminateds.values())
        assert not any(o["action_mask"].any() for o in observations.values())
        if not new_rams:
            assert [returns[a] for a in env.possible_agents] == [b - e for b, e in zip(start, game.scores, strict=True)]


def test_env_rejects_an_action_for_a_seat_not_to_act():
    env = RamsMultiAgentEnv({})
    observations, _ = env.reset(seed=0)
    [agent] = observations
    other = next(a for a in env.possible_agents if a != agent)
    with pytest.raises(ValueError, match=f"{agent} is to act"):
        env.step({other: 0})


def test_bad_settings_fail_before_ray_starts():
    with pytest.raises(ValueError, match="variant"):
        ppo_config({"variant": "whist"})
    with pytest.raises(ValueError, match="action_mask"):
        MaskedPPOModule(observation_space=gymnasium.spaces.Box(0, 1, (3,)), action_space=gymnasium.spaces.Discrete(60))


def test_module_masks_illegal_logits():
    env = RamsMultiAgentEnv({"variant": "norrlandsknack", "num_players": 5})
    module = MaskedPPOModule(
        observation_space=env.observation_spaces["player_0"],
        action_space=env.action_spaces["player_0"],
        model_config={"hidden": [16]},
    )
    observations, _ = env.reset(seed=1)
    [obs] = observations.values()
    batch = {Columns.OBS: {k: torch.as_tensor(v).unsqueeze(0) for k, v in obs.items()}}
    logits = module.forward_exploration(batch)[Columns.ACTION_DIST_INPUTS][0]
    legal = torch.as_tensor(obs["action_mask"]).bool()
    assert torch.all(logits[~legal] == MASKED_LOGIT) and torch.all(logits[legal] > MASKED_LOGIT)
    values = module.compute_values(batch)
    assert values.shape == (1,)


def test_module_activation_is_named_and_checked():
    env = RamsMultiAgentEnv({})
    spaces = dict(observation_space=env.observation_spaces["player_0"], action_space=env.action_spaces["player_0"])
    relu = MaskedPPOModule(**spaces, model_config={"hidden": [8], "activation": "relu"})
    assert relu.activation == "relu" and isinstance(relu.torso[1], torch.nn.ReLU)
    assert isinstance(MaskedPPOModule(**spaces, model_config={"hidden": [8]}).torso[1], torch.nn.Tanh)
    with pytest.raises(ValueError, match=r"model_config\['activation'\] must be one of \['relu', 'tanh'\], got 'gelu'"):
        MaskedPPOModule(**spaces, model_config={"hidden": [8], "activation": "gelu"})
    with pytest.raises(ValueError, match="got 'gelu'"):
        ppo_config({}, activation="gelu")


def _tiny_algo(hidden: list[int], activation: str):
    config = (
        ppo_config({"variant": "mattmar", "num_players": 4}, hidden=hidden, activation=activation)
        .env_runners(num_env_runners=0, rollout_fragment_length=BATCH)
        .training(train_batch_size_per_learner=BATCH, minibatch_size=100, num_epochs=1)
        .debugging(seed=0)
    )
    return config.build_algo()


def test_warm_start_copies_a_policy_net_into_learner_and_env_runner(local_ray, tmp_path):
    torch.manual_seed(1)
    net = PolicyNet(OBS_SIZE, NUM_ACTIONS, hidden=(16, 8))
    algo = _tiny_algo([16, 8], "relu")
    try:
        warm_start(algo, net)
        module = algo.get_module(SHARED_POLICY)  # the env runner's, which samples
        learned = algo.learner_group.get_weights()[SHARED_POLICY]  # the learner's, which trains
        ours = net.state_dict()
        assert np.array_equal(learned["torso.2.weight"], ours["torso.2.weight"].numpy())
        assert np.array_equal(learned["pi.bias"], ours["policy_head.bias"].numpy())
        assert np.array_equal(learned["vf.weight"], ours["value_head.weight"].numpy())
        env = rams_env.env(variant="mattmar", num_players=4)
        for seed in range(3):
            env.reset(seed=seed)
            obs = env.last()[0]
            batch = {Columns.OBS: {k: torch.as_tensor(v).unsqueeze(0) for k, v in obs.items()}}
            logits, value = net(torch.as_tensor(obs["observation"], dtype=torch.float32).unsqueeze(0))
            legal = torch.as_tensor(obs["action_mask"]).bool()
            theirs = module.forward_exploration(batch)[Columns.ACTION_DIST_INPUTS][0]
            assert torch.allclose(theirs[legal], logits[0][legal], atol=1e-5)
            assert torch.allclose(module.compute_values(batch), value, atol=1e-5)
        algo.train()  # PPO goes on from the copied weights
        saved = Path(algo.save_to_path(str(tmp_path / "algo")))
        trained = {k: v.clone() for k, v in module.state_dict().items()}
    finally:
        algo.stop()
    loaded = load_rllib_agent(saved)  # the activation read back from the checkpoint's module config
    assert loaded.module.activation == "relu" and isinstance(loaded.module.torso[1], torch.nn.ReLU)
    assert all(torch.equal(loaded.module.state_dict()[k], v) for k, v in trained.items())
    again = pickle.loads(pickle.dumps(loaded))  # to an evaluation worker, activation and all
    assert again.module.activation == "relu"


def test_warm_start_refuses_a_tanh_module_and_other_widths(local_ray):
    net = PolicyNet(OBS_SIZE, NUM_ACTIONS, hidden=(16,))
    for hidden, activation, message in (([16], "tanh", 'build it with activation="relu"'), ([8], "relu", "differ")):
        algo = _tiny_algo(hidden, activation)
        try:
            with pytest.raises(ValueError, match=message):
                warm_start(algo, net)
        finally:
            algo.stop()


def test_ppo_trains_a_shared_policy_that_plays_only_legal_actions(local_ray, tmp_path, capsys):
    config = (
        ppo_config({"variant": "mattmar", "num_players": 4}, hidden=[32])
        .env_runners(num_env_runners=0, rollout_fragment_length=BATCH)
        .training(train_batch_size_per_learner=BATCH, minibatch_size=100, num_epochs=1)
        .debugging(seed=0)
    )
    algo = config.build_algo()
    try:
        module = algo.get_module(SHARED_POLICY)
        assert isinstance(module, MaskedPPOModule) and module.torso[0].out_features == 32
        before = {k: v.clone() for k, v in module.state_dict().items()}
        for _ in range(2):
            result = algo.train()
        assert result["env_runners"]["num_env_steps_sampled_lifetime"] >= 2 * BATCH
        assert set(result["env_runners"]["agent_episode_returns_mean"]) <= {f"player_{i}" for i in range(4)}
        after = module.state_dict()
        assert any(not torch.equal(before[k], after[k]) for k in before), "training left the weights unchanged"
        saved = Path(algo.save_to_path(str(tmp_path / "algo")))
    finally:
        algo.stop()
    _check_checkpoint_agent(saved, module, tmp_path, capsys)
    # The trained policy in every seat through whole deals of the PettingZoo env (which raises on an illegal
    # action): greedy in even deals, sampled from its exploration distribution in odd ones (a greedy policy this
    # young may pass at every bid, so that no deal reaches play); every greedy and sampled action must be legal.
    agent = RLlibAgent(module)
    env = rams_env.env(variant="mattmar", num_players=4)
    decisions = 0
    for seed in range(20):
        env.reset(seed=seed)
        for _ in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            action = agent.act(obs)
            assert obs["action_mask"][action] == 1
            batch = {Columns.OBS: {k: torch.as_tensor(v).unsqueeze(0).repeat(16, 1) for k, v in obs.items()}}
            logits = module.forward_exploration(batch)[Columns.ACTION_DIST_INPUTS]
            sampled = module.get_exploration_action_dist_cls().from_logits(logits).sample()
            assert obs["action_mask"][sampled.numpy()].all()
            env.step(action if seed % 2 == 0 else int(sampled[0]))
            decisions += 1
    assert decisions > 100


def _check_checkpoint_agent(saved: Path, module: MaskedPPOModule, tmp_path: Path, capsys) -> None:
    """An RLlib checkpoint is an agent source: load_agent and rams eval read it, with its rules, safely."""
    agent = load_agent(saved)
    assert isinstance(agent, RLlibAgent) and (agent.variant, agent.num_players) == ("mattmar", 4)
    live = RLlibAgent(module)
    env = rams_env.env(variant="mattmar", num_players=4)
    for seed in range(5):
        env.reset(seed=seed)
        for _ in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            assert agent.act(obs) == live.act(obs)
            env.step(agent.act(obs))
    with pytest.raises(CheckpointError, match=r"num_players=4 \(expected 5\)"):
        load_agent(saved, expect_config=rams_env.make_config("mattmar", 5))
    capsys.readouterr()
    assert rams_main(["eval", str(saved), "heuristic", "--decks", "2", "--workers", "2", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert str(saved) in out and "heuristic" in out
    assert rams_main(["eval", str(saved), "--num-players", "5", "--decks", "1", "--no-progress"]) == 1
    assert "plays 4 players, not --num-players 5: change it to --num-players 4" in capsys.readouterr().err

    # Nothing in the folder runs: a hostile pickle in either file is refused without being executed.
    marker = tmp_path / "ran"

    class Hostile:
        def __reduce__(self):
            return (os.system, (f"touch {marker}",))

    for name in ("module_state.pkl", "class_and_ctor_args.pkl"):
        copy = tmp_path / f"hostile_{name}"
        shutil.copytree(saved, copy)
        target = copy / "learner_group" / "learner" / "rl_module" / SHARED_POLICY / name
        target.write_bytes(pickle.dumps({"class": Hostile(), "torso.0.weight": Hostile()}))
        with pytest.raises(CheckpointError):
            load_rllib_agent(copy)
        assert not marker.exists()
    # A module of the wrong shape is refused before any module is built.
    copy = tmp_path / "wrong_shapes"
    shutil.copytree(saved, copy)
    state_file = copy / "learner_group" / "learner" / "rl_module" / SHARED_POLICY / "module_state.pkl"
    state = pickle.loads(state_file.read_bytes())
    state["pi.weight"] = np.zeros((3, 3), np.float32)
    state_file.write_bytes(pickle.dumps(state))
    with pytest.raises(CheckpointError, match=r"pi\.weight"):
        load_rllib_agent(copy)


# ----------------------------------------------------------------------------- Ray: join or start, fail fast
class _Stop(Exception):
    pass


@pytest.fixture
def recorded_init(monkeypatch: pytest.MonkeyPatch) -> list[dict]:
    """``ray.init`` replaced by a recorder that stops the caller right there."""
    calls: list[dict] = []

    def fake_init(*args, **kwargs):
        calls.append(dict(kwargs, args=args))
        raise _Stop

    monkeypatch.setattr(ray, "init", fake_init)
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    return calls


def test_init_ray_joins_ray_address_without_num_cpus_and_otherwise_starts_its_own(recorded_init, monkeypatch):
    monkeypatch.setenv("RAY_ADDRESS", "10.0.0.1:6379")
    with pytest.raises(_Stop):
        init_ray(num_cpus=2)
    with pytest.raises(_Stop):
        init_ray("auto", num_cpus=2)
    monkeypatch.delenv("RAY_ADDRESS")
    with pytest.raises(_Stop):
        init_ray(num_cpus=2)
    joined, auto, local = recorded_init
    assert joined["address"] == "10.0.0.1:6379" and "num_cpus" not in joined
    assert auto["address"] == "auto" and "num_cpus" not in auto
    # A local instance of its own even where `ray start` runs a cluster on this machine.
    assert local["address"] == "local" and local["num_cpus"] == 2


@pytest.mark.parametrize(
    ("env", "argv", "address"), [("10.0.0.1:6379", [], "10.0.0.1:6379"), (None, ["--address", "auto"], "auto")]
)
def test_example_joins_a_cluster_without_num_cpus(recorded_init, monkeypatch, env, argv, address):
    if env:
        monkeypatch.setenv("RAY_ADDRESS", env)
    main = runpy.run_path(str(EXAMPLE))["main"]
    with pytest.raises(_Stop):
        main(["--num-cpus", "1", *argv])
    [call] = recorded_init
    assert call["address"] == address and "num_cpus" not in call


def test_more_env_runners_than_free_cpus_fail_fast(local_ray):
    config = ppo_config({"variant": "mattmar", "num_players": 4}, hidden=[8]).env_runners(num_env_runners=3)
    with pytest.raises(RuntimeError, match=r"need 3 CPUs, but the Ray cluster has 1 free .*at most 1 env runners"):
        build_algo(config)
    assert rllib.resources_needed(config.env_runners(num_env_runners=1))["CPU"] == 1


def test_example_with_more_env_runners_than_cpus_exits_with_one_message_instead_of_hanging(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    run = subprocess.run(
        [sys.executable, str(EXAMPLE), "--env-runners", "4", "--num-cpus", "1"],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        cwd=tmp_path,
    )
    assert run.returncode == 1
    assert "rllib_ppo.py: error: 4 env runners and 0 learners need 4 CPUs" in run.stderr
    assert "Traceback" not in run.stderr


# RLlib registers its env wrapper with gymnasium again for every algorithm built in a process: benign.
@pytest.mark.filterwarnings("ignore:.*Overriding environment rllib-multi-agent-env-v0:UserWarning")
@pytest.mark.parametrize("env", ["batched", "aec"])
def test_example_trains_locally_shows_a_moving_evaluation_and_saves_an_agent(env, tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    main = runpy.run_path(str(EXAMPLE))["main"]
    checkpoint = tmp_path / "ppo"
    argv = ["--iterations", "1", "--batch", str(BATCH), "--num-cpus", "1", "--decks", "2", "--eval-decks", "2"]
    argv += ["--env", env, "--envs-per-runner", "4"]
    result = main([*argv, "--variant", "rams32", "--num-players", "3", "--checkpoint", str(checkpoint)])
    assert [a.name for a in result.agents] == ["rllib_ppo"] and result.decks == 2
    assert not ray.is_initialized()
    out = capsys.readouterr().out
    # The progress line: an evaluation against the baseline on a fixed deal set, not the zero-sum mean return.
    assert "iteration 1: " in out and "vs random " in out and "points per deal (2 decks)" in out
    assert "mean return per seat" not in out
    agent = load_agent(checkpoint)  # the rules come from the rams_env_rules.json the example wrote
    assert (agent.variant, agent.num_players) == ("rams32", 3) and (checkpoint / rllib.RULES_FILE).is_file()
    module = "default_policy" if env == "batched" else "shared"  # a single-agent algorithm, or the shared policy
    assert (checkpoint / "learner_group" / "learner" / "rl_module" / module).is_dir()


def test_example_starts_from_a_zoo_policy(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    main = runpy.run_path(str(EXAMPLE))["main"]
    checkpoint = tmp_path / "warm"
    argv = ["--iterations", "1", "--batch", str(BATCH), "--num-cpus", "1", "--decks", "2", "--eval-decks", "2"]
    main([*argv, "--init-from", "mattmar-4p", "--checkpoint", str(checkpoint)])
    zoo = load_agent("mattmar-4p")
    assert f"starting from mattmar-4p ({'x'.join(map(str, zoo.net.hidden))}, ReLU)" in capsys.readouterr().out
    agent = load_agent(checkpoint)
    assert agent.module.activation == "relu" and agent.module.torso[0].out_features == zoo.net.hidden[0]
