"""A run's ``args.json`` read by rams_training.runargs (``rams train --resume``, the learning-curve plot, the export):
depth, size and every field's type checked, each failure a ``ValueError`` naming the file and the field."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from rams_training.config import TrainArgs
from rams_training.logs import num_players
from rams_training.runargs import read_run_args


def _run(tmp_path: Path, text: str) -> Path:
    (tmp_path / "args.json").write_text(text)
    return tmp_path


def test_the_arguments_a_run_saved_read_back(tmp_path: Path) -> None:
    saved = dataclasses.asdict(TrainArgs(run_dir=str(tmp_path), hidden=(32, 16), num_players=5))
    args = read_run_args(_run(tmp_path, json.dumps(saved)))
    assert args["hidden"] == (32, 16) and args["num_players"] == 5 and TrainArgs(**args).num_players == 5


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"num_players": [4]}', "'num_players' must be an integer, got [4]"),
        ('{"num_players": true}', "'num_players' must be an integer"),
        ('{"lr": "fast"}', "'lr' must be a number"),
        ('{"hidden": [256, "wide"]}', "'hidden' must be a list of integers"),
        ('{"reward_scale": {}}', "'reward_scale' must be a number or null"),
        ('{"progress": 1}', "'progress' must be true or false"),
        ('{"variant": ["mattmar"]}', "'variant' must be a string"),
        ('{"bogus": 1}', "unknown fields ['bogus']"),
        ("[1, 2]", "not the arguments of a training run"),
        ('{"a":' * 50_000 + "1" + "}" * 50_000, "nested too deeply"),
        ('{"hidden": ' + "[" * 40 + "]" * 40 + "}", "nested too deeply"),
        ("{", "is not JSON"),
    ],
)
def test_a_damaged_args_json_is_named(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        read_run_args(_run(tmp_path, text))


def test_a_folder_without_args_json_is_file_not_found(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"holds no args\.json"):
        read_run_args(tmp_path)


def test_the_learning_curve_plot_names_a_damaged_args_json(tmp_path: Path) -> None:
    _run(tmp_path, '{"num_players": [4]}')
    with pytest.raises(ValueError, match="'num_players' must be an integer"):
        num_players(tmp_path / "progress.csv")
    assert num_players(tmp_path / "other" / "progress.csv") == 4  # no args.json: the default table
