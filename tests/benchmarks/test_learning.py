"""The learning benchmark (benchmarks/learning): each pipeline at a tiny size, the command line, bad input."""

from __future__ import annotations

import csv
import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import rams_env
from benchmarks.learning.__main__ import main
from benchmarks.learning.harness import PIPELINES, OptionError, Settings, pipeline_class, run_benchmark
from benchmarks.learning.schemas import check_options
from rams_env.agents import load_agent
from rams_env.rules.actions import NUM_ACTIONS

ROOT = Path(__file__).resolve().parents[2]
TINY = dict(eval_decks=2, final_decks=2)
BAD_COMMANDS = [["nosuch", "--minutes", "1"], *(["rams", "--minutes", m] for m in ("0", "-2", "inf"))]
RAMS_TINY = {"imitation": 1, "num_games": 16}  # one imitation chunk, small PPO updates


def legal_first_move(agent: Any) -> bool:
    """Whether ``agent`` plays a legal action at the first decision of a whole-ramsar game."""
    env = rams_env.env(variant="mattmar", num_players=4, episode="rams", reward="win")
    env.reset(seed=3)
    observation = env.last()[0]
    return bool(observation["action_mask"][agent.act(observation)])


def check_result(result: dict[str, Any], folder: Path, name: str, libraries: tuple[str, ...]) -> None:
    """The result returned equals result.json, its fields hold what a run did, curve.csv has its rows."""
    assert json.loads((folder / name / "result.json").read_text()) == json.loads(json.dumps(result))
    assert result["pipeline"] == name
    assert result["settings"]["variant"] == "mattmar" and result["settings"]["num_players"] == 4
    for library in ("torch", "numpy", "gymnasium", "pettingzoo", *libraries):
        assert result["versions"][library], library
    assert result["decisions"] > 0 and result["decisions_per_s"] > 0
    assert result["train_seconds"] > 0 and result["eval_seconds"] > 0
    assert result["curve"], "no evaluation row"
    assert result["curve"][-1]["decisions"] == result["decisions"]
    for row in [*result["curve"], result["final"]]:
        lo, hi = row["win_rate_ci"]
        assert 0.0 <= lo <= row["win_rate"] <= hi <= 1.0
        alo, ahi = row["advantage_per_rams_ci"]
        assert alo <= row["advantage_per_rams"] <= ahi
        assert row["ramsar"] == 2 * 4  # 2 decks, the agent in each of 4 seats
    assert result["final"]["seed"] == 7400001 and result["curve"][0]["seed"] == 7200001
    with (folder / name / "curve.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == len(result["curve"])
    assert int(rows[-1]["decisions"]) == result["decisions"]
    assert Path(result["saved"]).exists()  # a file, or the folder RLlib saves


@pytest.mark.slow
def test_rams_pipeline(tmp_path: Path) -> None:
    settings = Settings(out=tmp_path, progress=False)
    result = run_benchmark("rams", settings, 0.05, 0.05, options=RAMS_TINY, **TINY)
    check_result(result, tmp_path, "rams", ())
    info = result["pipeline_info"]
    assert info["imitation_decisions"] > 0 and info["ppo_decisions"] > 0 and info["ppo_updates"] > 0
    assert result["decisions"] == info["imitation_decisions"] + info["ppo_decisions"]
    assert legal_first_move(load_agent(result["saved"], expect_config=rams_env.make_config("mattmar", 4)))


@pytest.mark.slow
def test_improve_pipeline(tmp_path: Path) -> None:
    settings = Settings(out=tmp_path, progress=False)
    result = run_benchmark("improve", settings, 0.02, 0.01, options={"shard": 20}, **TINY)
    check_result(result, tmp_path, "improve", ())
    info = result["pipeline_info"]  # how many rounds fit in the time depends on the machine; one always does
    assert info["shards"] >= len(result["curve"]) and info["epochs"] >= len(result["curve"])
    assert len(list((tmp_path / "improve" / "data").glob("shard-*.npz"))) == info["shards"]
    assert legal_first_move(load_agent(result["saved"]))


def test_each_improve_round_collects_a_shard_and_fits_every_shard_so_far(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pipeline = pipeline_class("improve")(Settings(out=tmp_path, progress=False), shard=2)
    first = pipeline.train_for(0.0)  # no time at all: still one shard and one epoch a round
    second = pipeline.train_for(0.0)
    assert (pipeline.shards, pipeline.epochs) == (2, 2)
    assert 0 < first < second  # the second fit is over both shards
    assert len(list((tmp_path / "improve" / "data").glob("shard-*.npz"))) == 2
    assert "epoch" not in capsys.readouterr().err  # progress=False: no bar of the fit either


@pytest.mark.slow
def test_sb3_pipeline(tmp_path: Path) -> None:
    from sb3_contrib import MaskablePPO

    from rams_env.integrations.sb3 import MaskablePPOAgent

    settings = Settings(out=tmp_path, progress=False)
    options = {"n_envs": 2, "n_steps": 64, "batch_size": 64, "imitation": 1}  # one imitation chunk, then PPO
    result = run_benchmark("sb3", settings, 0.05, 0.05, options=options, **TINY)
    check_result(result, tmp_path, "sb3", ("stable_baselines3", "sb3_contrib"))
    info = result["pipeline_info"]
    assert info["imitation_decisions"] > 0 and info["ppo_decisions"] > 0
    assert info["ppo_decisions"] % 128 == 0  # whole rollouts of 2 envs x 64 steps
    assert result["decisions"] == info["imitation_decisions"] + info["ppo_decisions"]
    assert info["recent_episodes"] >= 0 and info["learn_decisions_per_s"] > 0
    model = MaskablePPO.load(result["saved"], device="cpu")
    assert model.num_timesteps == info["ppo_decisions"]
    assert legal_first_move(MaskablePPOAgent(model))
    loaded = load_agent(result["saved"], expect_config=rams_env.make_config("mattmar", 4))  # weights only
    env = rams_env.env(variant="mattmar", num_players=4, episode="rams", reward="win")
    env.reset(seed=5)
    observation = env.last()[0]
    assert loaded.act(observation) == MaskablePPOAgent(model).act(observation)


@pytest.mark.slow
def test_torchrl_pipeline(tmp_path: Path) -> None:
    settings = Settings(out=tmp_path, progress=False)
    result = run_benchmark("torchrl", settings, 0.03, 0.03, options={"frames_per_batch": 256, "num_games": 4}, **TINY)
    check_result(result, tmp_path, "torchrl", ("torchrl", "tensordict"))
    info = result["pipeline_info"]
    assert info["opponents"] == "self-play" and info["updates"] >= 1
    assert result["decisions"] == info["ppo_decisions"] and info["imitation_decisions"] == 0
    assert 0 < result["decisions"] <= info["env_steps"]  # each seat's last decision of a batch is dropped
    entropy = info["policy_entropy"]  # the policy's entropy over the legal moves, at most uniform play's over all
    assert set(entropy) == {"first_update", "last_update"}
    assert all(0 < value < math.log(NUM_ACTIONS) for value in entropy.values()), entropy
    assert legal_first_move(load_agent(result["saved"]))


@pytest.mark.slow
def test_torchrl_pipeline_against_heuristics(tmp_path: Path) -> None:
    settings = Settings(out=tmp_path, progress=False)
    options = {
        "opponents": "heuristic",
        "frames_per_batch": 256,
        "num_games": 8,
        "imitation": 1,
        "normalize_advantage": True,
    }
    result = run_benchmark("torchrl", settings, 0.03, 0.03, options=options, **TINY)
    check_result(result, tmp_path, "torchrl", ("torchrl", "tensordict"))
    info = result["pipeline_info"]
    assert info["opponents"] == "heuristic" and info["updates"] >= 1 and info["imitation_decisions"] > 0
    assert info["ppo_decisions"] == info["env_steps"] == 256 * info["updates"]  # one learner's decision a frame
    assert result["decisions"] == info["imitation_decisions"] + info["ppo_decisions"]
    assert legal_first_move(load_agent(result["saved"]))


def test_torchrl_pipeline_refuses_unknown_opponents() -> None:
    with pytest.raises(OptionError, match="opponents must be one of"):
        check_options("torchrl", {"opponents": "heuristics"})


LIBRARY_PIPELINES = {
    "rllib": ({"hidden": [32], "batch": 400, "minibatch": 200, "epochs": 1, "num_envs": 8}, ("ray",)),
    "rllib-heuristic": ({"hidden": [32], "batch": 400, "minibatch": 200, "epochs": 1, "num_envs": 8}, ("ray",)),
    "openspiel": (
        {"hidden": [32], "min_buffer": 32, "batch_size": 32, "learn_every": 8, "anticipatory": 0.5},
        ("open_spiel",),
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(LIBRARY_PIPELINES))
def test_library_pipelines_run_in_the_harness(name: str, tmp_path: Path) -> None:
    options, libraries = LIBRARY_PIPELINES[name]
    settings = Settings(out=tmp_path, progress=False)
    result = run_benchmark(name, settings, 0.05, 0.05, options=options, **TINY)
    check_result(result, tmp_path, name, libraries)
    assert legal_first_move(load_agent(result["saved"], expect_config=rams_env.make_config("mattmar", 4)))
    if name.startswith("rllib"):  # the policy's entropy over the legal moves, at most uniform play's over all
        entropy = result["pipeline_info"]["policy_entropy"]
        assert set(entropy) == {"first_update", "last_update"}
        assert all(0 < value < math.log(NUM_ACTIONS) for value in entropy.values()), entropy


@pytest.mark.slow
def test_rllib_goes_on_from_the_imitation_of_the_heuristic(tmp_path: Path) -> None:
    options = {**LIBRARY_PIPELINES["rllib-heuristic"][0], "imitation": 1}  # one imitation chunk, then PPO
    settings = Settings(out=tmp_path, progress=False)
    result = run_benchmark("rllib-heuristic", settings, 0.05, 0.05, options=options, **TINY)
    check_result(result, tmp_path, "rllib-heuristic", ("ray",))
    info = result["pipeline_info"]
    assert info["imitation_decisions"] > 0 and info["ppo_decisions"] >= 400 and info["activation"] == "relu"
    assert result["decisions"] == info["imitation_decisions"] + info["ppo_decisions"]
    agent = load_agent(result["saved"], expect_config=rams_env.make_config("mattmar", 4))
    assert agent.module.activation == "relu" and legal_first_move(agent)


@pytest.mark.slow
def test_command_line(tmp_path: Path) -> None:
    argv = ["rams", "--minutes", "0.02", "--eval-decks", "2", "--final-decks", "2", "--out", str(tmp_path)]
    argv += ["--set", "imitation=1", "--set", "num_games=16", "--no-progress"]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.learning", *argv], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    result = json.loads((tmp_path / "rams" / "result.json").read_text())
    assert result["command"] == "python -m benchmarks.learning " + " ".join(argv)
    assert result["options"] == RAMS_TINY and result["minutes"] == 0.02
    assert result["decisions"] > 0
    assert "rams: 0." in done.stdout and "vs heuristic over 8 ramsar: win " in done.stdout
    assert "final over 8 ramsar" in done.stdout


@pytest.mark.slow
@pytest.mark.parametrize("argv", BAD_COMMANDS)
def test_bad_command_line(argv: list[str], capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main([*argv, "--out", str(tmp_path)])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    if argv[0] == "nosuch":
        assert "unknown pipeline 'nosuch'" in err and all(name in err for name in PIPELINES)
    else:
        assert f"--minutes must be a positive number of minutes, got {float(argv[2])}" in err
    assert not any(tmp_path.iterdir())  # refused before any work


@pytest.mark.slow
@pytest.mark.parametrize(
    ("option", "message"), [("no_such=1", "unknown option(s) no_such"), ("num_games=0", "num_games")]
)
def test_bad_pipeline_option(option: str, message: str, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["rams", "--minutes", "1", "--set", option, "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "error: --set: rams pipeline:" in err and message in err
    assert not (tmp_path / "rams" / "result.json").exists()


@pytest.mark.slow
def test_bad_arguments_refused(tmp_path: Path) -> None:
    settings = Settings(out=tmp_path, progress=False)
    with pytest.raises(ValueError, match="unknown pipeline 'nosuch'; choose one of rams, improve"):
        run_benchmark("nosuch", settings, 1.0, 1.0, 2, 2)
    with pytest.raises(ValueError, match=r"--minutes must be a positive number of minutes, got 0"):
        run_benchmark("rams", settings, 0, 1.0, 2, 2)
    with pytest.raises(ValueError, match=r"--eval-decks must be a positive integer, got 0"):
        run_benchmark("rams", settings, 1.0, 1.0, 0, 2)
    assert not any(tmp_path.iterdir())  # refused before any work
    with pytest.raises(ValueError, match="rams pipeline: unknown option"):
        run_benchmark("rams", settings, 0.01, 1.0, 2, 2, options={"no_such_field": 1})
    assert not (tmp_path / "rams" / "result.json").exists()


@pytest.mark.slow
def test_a_missing_library_names_its_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "needs_a_library.py").write_text("import no_such_library_here\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(PIPELINES, "sb3", "needs_a_library:Pipeline")
    with pytest.raises(ValueError, match=r"'sb3' needs no_such_library_here.*pip install -e \"\.\[sb3\]\""):
        pipeline_class("sb3")
    monkeypatch.setitem(PIPELINES, "rllib", "benchmarks.learning.no_such_module:Pipeline")
    with pytest.raises(
        ValueError, match=re.escape("'rllib': its module benchmarks.learning.no_such_module is not there")
    ):
        pipeline_class("rllib")
    monkeypatch.setitem(PIPELINES, "torchrl", "benchmarks.learning.harness:NoSuchClass")
    with pytest.raises(ValueError, match=re.escape("'torchrl': benchmarks.learning.harness defines no NoSuchClass")):
        pipeline_class("torchrl")
