"""The learning benchmark's checks before any work: every pipeline's settings (one schema each), the seeds,
the folders, and a refused run beside an earlier one, which is left exactly as it was."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

import pytest

from benchmarks.learning.__main__ import main
from benchmarks.learning.harness import PIPELINES, Settings, check_run
from benchmarks.learning.schemas import SCHEMAS, check_options, schema_fields, settings_help, settings_tables
from rams_training.improve import ImproveArgs

ROOT = Path(__file__).resolve().parents[2]
PIPELINE_NAMES = list(PIPELINES)

# (pipeline, KEY=VALUE, words the error line holds): wrong types, zero or negative sizes and rates,
# probabilities above 1, negative imitation budgets, what relates two settings
BAD_VALUES = [
    ("rams", "num_games=0", "num_games must be a positive integer, got 0"),
    ("rams", "lr=-1", "lr must be a number > 0, got -1"),
    ("rams", "imitation=-5", "imitation must be an integer >= 0, got -5"),
    ("rams", "gamma=1.5", "gamma must be a number in [0, 1], got 1.5"),
    ("rams", "num_games=many", "num_games must be a positive integer, got 'many'"),
    ("rams", "seed=3", "seed is set by the harness (--seed)"),
    ("rams", "run_dir=/tmp/x", "run_dir is set by the harness (--out)"),
    ("improve", "shard=0", "shard must be a positive integer, got 0"),
    ("improve", "explore=1.5", "explore must be a number in [0, 1], got 1.5"),
    ("improve", "held_out=1", "held_out must be a number in [0, 1), got 1"),
    ("improve", "lr=0", "lr must be a number > 0, got 0"),
    ("improve", "collect_share=1", "collect_share must be a number in (0, 1), got 1"),
    ("improve", "shard=2.5", "shard must be a positive integer, got 2.5"),
    ("sb3", "imitation=-1", "imitation must be an integer >= 0, got -1"),
    ("sb3", "n_envs=0", "n_envs must be a positive integer, got 0"),
    ("sb3", "batch_size=1", "batch_size must be an integer >= 2, got 1"),
    ("sb3", "learning_rate=0", "learning_rate must be a number > 0, got 0"),
    ("sb3", "gamma=2", "gamma must be a number in [0, 1], got 2"),
    ("sb3", "n_steps=true", "n_steps must be a positive integer, got True"),
    ("rllib", "batch=0", "batch must be a positive integer, got 0"),
    ("rllib", "minibatch=5000", "minibatch must be at most batch (4000), got 5000"),
    ("rllib", "hidden=64,x", "hidden must be positive integers joined by commas, got '64,x'"),
    ("rllib", "hidden=0", "hidden must be positive integers joined by commas, got (0,)"),
    ("rllib", "entropy=-0.1", "entropy must be a number >= 0, got -0.1"),
    ("rllib", "episode=forever", "episode"),
    ("rllib-heuristic", "imitation=-1", "imitation must be an integer >= 0, got -1"),
    ("rllib-heuristic", "lr=nan", "lr must be a number > 0, got nan"),
    ("torchrl", "frames_per_batch=0", "frames_per_batch must be a positive integer, got 0"),
    ("torchrl", "lmbda=1.1", "lmbda must be a number in [0, 1], got 1.1"),
    ("torchrl", "max_grad_norm=0", "max_grad_norm must be a number > 0, got 0"),
    ("torchrl", "imitation=-1", "imitation must be an integer >= 0, got -1"),
    ("torchrl", "frames_per_batch=100", "frames_per_batch must be a multiple of num_games (32), got 100"),
    ("openspiel", "anticipatory=1.5", "anticipatory must be a number in [0, 1], got 1.5"),
    ("openspiel", "batch_size=0", "batch_size must be a positive integer, got 0"),
    ("openspiel", "rl_lr=-0.01", "rl_lr must be a number > 0, got -0.01"),
    ("openspiel", "reward=lots", "reward"),
]
BAD_RUNS = [  # (arguments after the pipeline, words of the error line)
    (["--seed", "-1"], "--seed must be a non-negative int below 2**64, got -1"),
    (["--seed", str(2**64)], "--seed must be a non-negative int below 2**64"),
    (["--eval-seed", "-3"], "--eval-seed must be a non-negative int below 2**64, got -3"),
    (["--final-seed", str(2**64)], "--final-seed must be a non-negative int below 2**64"),
    (["--threads", "5000"], "--threads must be an integer from 1 to 1024"),
    (["--variant", "nope"], "--variant: unknown variant 'nope'"),
    (["--num-players", "9"], "--num-players"),
]


def refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """The one error line of a refused command line (exit status 2, no traceback)."""
    capsys.readouterr()
    try:
        code = main(argv)
    except SystemExit as exit_:  # argparse's own refusals
        code = exit_.code
    err = capsys.readouterr().err
    assert code == 2, err
    assert "Traceback" not in err and err.count("\n") == 1, err
    assert err.startswith("python -m benchmarks.learning: error: "), err
    return err.strip()


def snapshot(folder: Path) -> dict[str, bytes | None]:
    """Every file and folder under ``folder``, with each file's bytes."""
    found: dict[str, bytes | None] = {}
    for path in sorted(folder.rglob("*")):
        found[str(path.relative_to(folder))] = path.read_bytes() if path.is_file() else None
    return found


@pytest.fixture
def earlier(tmp_path: Path) -> Path:
    """An ``--out`` holding an earlier run of every pipeline: a trainer folder with its best checkpoint,
    shards, results and saved policies."""
    out = tmp_path / "out"
    for name in PIPELINES:
        folder = out / name
        folder.mkdir(parents=True)
        (folder / "result.json").write_text(json.dumps({"pipeline": name}) + "\n")
        (folder / "curve.csv").write_text("train_minutes,decisions\n1.0,100\n")
    (out / "rams" / "trainer").mkdir()
    (out / "rams" / "trainer" / "args.json").write_text("{}\n")
    (out / "rams" / "trainer" / "best.pt").write_bytes(b"the best checkpoint of the earlier run")
    (out / "rams" / "policy.pt").write_bytes(b"weights")
    (out / "improve" / "data").mkdir()
    (out / "improve" / "data" / "shard-00000.npz").write_bytes(b"a shard")
    return out


@pytest.mark.parametrize("name", PIPELINE_NAMES)
def test_an_unknown_setting_is_one_line_in_every_pipeline(
    name: str, earlier: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = snapshot(earlier)
    err = refused([name, "--minutes", "1", "--out", str(earlier), "--set", "no_such=1"], capsys)
    assert f"--set: {name} pipeline: unknown option(s) no_such (known: " in err
    assert snapshot(earlier) == before  # the earlier run exactly as it was


@pytest.mark.parametrize(("name", "item", "message"), BAD_VALUES, ids=[f"{n}-{i}" for n, i, _ in BAD_VALUES])
def test_a_bad_setting_is_one_line_before_any_work(
    name: str, item: str, message: str, earlier: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = snapshot(earlier)
    err = refused([name, "--minutes", "1", "--out", str(earlier), "--set", item], capsys)
    assert f"--set: {name} pipeline: " in err and message in err, err
    assert snapshot(earlier) == before  # no trainer folder deleted, no shard replaced, nothing written


@pytest.mark.parametrize("name", PIPELINE_NAMES)
@pytest.mark.parametrize(("argv", "message"), BAD_RUNS, ids=[m[:30] for _, m in BAD_RUNS])
def test_bad_seeds_and_run_options_are_one_line(
    name: str, argv: list[str], message: str, earlier: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = snapshot(earlier)
    err = refused([name, "--minutes", "1", "--out", str(earlier), *argv], capsys)
    assert message in err, err
    assert snapshot(earlier) == before


@pytest.mark.parametrize("name", PIPELINE_NAMES)
def test_an_out_that_is_a_file_or_under_one_is_one_line(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    afile = tmp_path / "a-file"
    afile.write_text("not a folder")
    for out in (afile, afile / "below"):
        err = refused([name, "--minutes", "1", "--out", str(out)], capsys)
        assert f"--out {out}: {afile} is a file, not a folder" in err, err
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / name).write_text("a file where the pipeline's folder goes")
    err = refused([name, "--minutes", "1", "--out", str(tmp_path / "out")], capsys)
    assert "is a file, not a folder" in err
    assert afile.read_text() == "not a folder" and sorted(os.listdir(tmp_path)) == ["a-file", "out"]


def test_check_run_refuses_before_importing_or_writing(tmp_path: Path) -> None:
    settings = Settings(out=tmp_path / "out", progress=False)
    with pytest.raises(ValueError, match="--eval-seed must be a non-negative int"):
        check_run("rams", settings, 1.0, 1.0, 2, 2, eval_seed=-1)
    with pytest.raises(ValueError, match="unknown option"):
        check_run("sb3", settings, 1.0, 1.0, 2, 2, options={"nope": 1})
    with pytest.raises(ValueError, match="--seed must be a non-negative int below 2"):
        Settings(seed=-1)
    assert not (tmp_path / "out").exists()


def test_every_pipeline_has_a_schema_of_documented_settings() -> None:
    assert set(SCHEMAS) == set(PIPELINES)
    for name in PIPELINES:
        fields = schema_fields(name)
        assert fields and all(f.metadata.get("doc") for f in fields), name
        assert check_options(name, {}) == {f.name: check_options(name, {})[f.name] for f in fields}


IMPROVE_VALUES = {  # values on both sides of each range of python -m rams_training.improve
    "shard": [1, 0, -1, 2.0, True],
    "explore": [0.0, 1.0, 1.01, -0.01, float("nan")],
    "record": [0.5, 1.5],
    "random_start": [0, 1, 2],
    "lr": [1e-3, 0.0, -1.0, float("inf")],
    "scale": [100.0, 0, -3],
    "held_out": [0.0, 0.5, 1.0, 0.999],
}


@pytest.mark.parametrize("key", sorted(IMPROVE_VALUES))
def test_the_improve_pipeline_makes_the_checks_of_training_improve(key: str) -> None:
    for value in IMPROVE_VALUES[key]:
        try:
            ImproveArgs(variant="mattmar", out="unused", **{key: value})
            script = True
        except ValueError:
            script = False
        try:
            check_options("improve", {key: value})
            pipeline = True
        except ValueError:
            pipeline = False
        assert pipeline == script, (key, value)


def test_help_lists_each_pipelines_settings(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["sb3", "--help"])
    out = capsys.readouterr().out
    assert settings_help("sb3") in out and "settings of rams" not in out
    assert "batch_size: an integer >= 2, default 1,024" in out
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert all(f"settings of {name} (--set KEY=VALUE):" in out for name in PIPELINES)


def test_docs_list_every_pipelines_settings_from_the_schema() -> None:
    text = (ROOT / "docs" / "benchmarks.md").read_text()
    begin, end = "<!-- settings: begin (python -m benchmarks.learning.schemas) -->", "<!-- settings: end -->"
    assert begin in text and end in text
    shown = text[text.index(begin) + len(begin) : text.index(end)].strip()
    assert shown == settings_tables(), "docs/benchmarks.md: run python -m benchmarks.learning.schemas"


def test_the_largest_seed_runs(tmp_path: Path) -> None:
    from benchmarks.learning.harness import pipeline_class

    pipeline = pipeline_class("improve")(Settings(out=tmp_path, seed=2**64 - 1, progress=False), shard=2)
    assert pipeline.train_for(0.0) > 0  # its shard seeds and fitting seeds stay below 2**64


def test_schema_values_keep_their_dataclass() -> None:
    for name, schema in SCHEMAS.items():
        assert dataclasses.is_dataclass(schema), name
