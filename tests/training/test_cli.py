"""``rams train``: a one-line summary of the arguments (all of them in ``args.json``), a line before the
engine compiles, and the final tables named apart from the periodic evaluation's deal set."""

from __future__ import annotations

import argparse
import dataclasses
import json
from pathlib import Path

import pytest

from rams_env.eval import agent_source, evaluate
from rams_env.options import FieldType, field_type
from rams_env.rules import make_config
from rams_training import cli
from rams_training.config import FIELD_TYPES, TrainArgs, field_docs, heuristic_fraction_at, stage_value

TINY = ["--total-steps", "1", "--num-games", "6", "--hidden", "16", "--minibatch", "64", "--epochs", "1",
        "--eval-decks", "1", "--final-decks", "1", "--no-progress", "--threads", "1"]  # fmt: skip


def _namespace(run_dir: Path) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    cli.configure(parser)
    return parser.parse_args(["quick", *TINY, "--run-dir", str(run_dir)])


def test_a_run_prints_a_summary_line_and_says_when_it_compiles(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setattr(cli, "engine_compiled", lambda: False)  # as on the first run of an install
    run_dir = tmp_path / "run"
    assert cli.run(_namespace(run_dir)) == 0
    lines = capsys.readouterr().out.splitlines()
    summary = lines[0]
    assert summary.startswith("rams train quick: mattmar, 4 players, episode rams, reward win, 1 steps")
    assert len(summary) <= 200 and "{" not in summary and str(run_dir / "args.json") in summary
    assert lines[1].startswith("compiling the rules engine, once per install")
    saved = json.loads((run_dir / "args.json").read_text())
    assert set(saved) == {f.name for f in dataclasses.fields(TrainArgs)}  # the full arguments are there
    final = next(line for line in lines if line.startswith("final evaluation:"))
    assert f"deal set {saved['eval_seed'] + 1}" in final and f"deal set {saved['eval_seed']}:" in final


def test_a_compiled_engine_is_not_announced(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setattr(cli, "engine_compiled", lambda: True)
    args = cli.args_from(_namespace(tmp_path / "run"))
    monkeypatch.setattr(cli, "Trainer", _Stop)
    with pytest.raises(_Stopped):
        cli.run(_namespace(tmp_path / "run"))
    out = capsys.readouterr().out
    assert "compiling" not in out and out.startswith(cli.summary("quick", args))


def test_engine_compiled_reads_numbas_cache(tmp_path: Path) -> None:
    from rams_env.agents import load_agent
    from rams_env.envs import BatchedRamsEnv
    from rams_env.obs import OBS_SIZE
    from rams_env.policy import PolicyNet, make_checkpoint, save_checkpoint
    from rams_env.rules.actions import NUM_ACTIONS

    config = make_config("mattmar", 4)
    BatchedRamsEnv(1).reset(seed=0)  # compiles or loads the engine, leaving it in the cache
    save_checkpoint(tmp_path / "p.pt", make_checkpoint(PolicyNet(OBS_SIZE, NUM_ACTIONS, hidden=(8,)), config))
    policy = load_agent(tmp_path / "p.pt")  # a greedy policy against heuristics: the compiled games of the final tables
    evaluate({"policy": policy}, agent_source("heuristic", config), config, decks=1, progress=False, resamples=10)
    assert cli.engine_compiled() is True


def test_every_option_is_a_documented_field_read_by_its_type() -> None:
    docs = field_docs()  # at run time, from the fields themselves: no source is parsed
    assert list(docs) == [f.name for f in dataclasses.fields(TrainArgs)] and all(docs.values())
    assert list(cli.OPTION_PARSERS) == list(FIELD_TYPES) == list(docs)
    assert cli.OPTION_PARSERS["late_lr"]("1e-4") == 1e-4 and cli.OPTION_PARSERS["hidden"]("32,16") == (32, 16)
    assert cli.OPTION_PARSERS["resume"]("true") is True and FIELD_TYPES["reward_scale"] == FieldType(float, True)


def test_a_field_type_the_command_line_cannot_read_is_refused() -> None:
    assert field_type(int | None) == FieldType(int, optional=True)  # read as an int; unset: the default
    assert cli.PARSERS[field_type(int | None).base]("3") == 3
    assert field_type(tuple[int, ...]) == FieldType(tuple, optional=False)
    for hint in (list[int], dict[str, int], tuple[int, int], int | str, None | float | str, bytes):
        with pytest.raises(TypeError, match="cannot be typed"):
            field_type(hint)


def test_no_training_module_reads_source_code() -> None:
    for path in Path(cli.__file__).parent.glob("*.py"):  # the options come from the fields, not from parsing
        text = path.read_text(encoding="utf-8")
        assert "import ast" not in text and "getsource" not in text and "PARSERS[str(" not in text, path.name


def test_the_second_stage_starts_at_heuristic_after() -> None:
    args = TrainArgs(heuristic_after=100, heuristic_fraction=0.5, late_lr=1e-4, late_points_weight=0.0)
    assert [stage_value(args, 99, k) for k in ("lr", "ent_coef", "points_weight")] == [3e-4, 0.01, 0.0]
    assert [stage_value(args, 100, k) for k in ("lr", "ent_coef", "points_weight")] == [1e-4, 0.01, 0.0]
    assert (heuristic_fraction_at(args, 99), heuristic_fraction_at(args, 100)) == (0.0, 0.5)
    with pytest.raises(KeyError, match="does not change between stages"):
        stage_value(args, 100, "clip")


class _Stopped(Exception):
    pass


class _Stop:
    def __init__(self, args: TrainArgs) -> None:
        raise _Stopped
