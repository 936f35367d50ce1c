"""The rules file of an RLlib checkpoint folder (rams_env.integrations.rllib), read as user JSON: a deep,
huge or wrong-typed one is a ``CheckpointError`` naming the file, not a ``RecursionError`` or ``TypeError``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rams_env.integrations import rllib
from rams_env.policy import CheckpointError
from rams_env.rules import make_config


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"a":' * 5_000 + "1" + "}" * 5_000, "nested too deeply"),
        ('{"variant": ["mattmar"]}', "invalid rule option variant="),
        ("[1, 2]", "must be a JSON object of rule options"),
        ('{"bids": "' + "x" * 100_000 + '"}', "larger than"),
    ],
    ids=["deep", "variant-list", "list", "huge"],
)
def test_a_bad_rules_file_is_named(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / rllib.RULES_FILE).write_text(text)
    with pytest.raises(CheckpointError, match=message):
        rllib._checkpoint_rules(tmp_path, str(tmp_path))


def test_a_good_rules_file_reads_back(tmp_path: Path) -> None:
    config = make_config("rams32", 3)
    (tmp_path / rllib.RULES_FILE).write_text(json.dumps(config.to_dict()))
    assert rllib._checkpoint_rules(tmp_path, str(tmp_path)) == config


def test_the_rules_of_an_env_config_with_a_config(tmp_path: Path) -> None:
    """``env_config={"config": RulesConfig}`` (the envs' ``config=``) is what ``save_rules`` writes."""
    config = make_config("russian", 5, start_score=150)
    rllib.save_rules(tmp_path, {"config": config, "episode": "rams", "reward": "win"})
    assert rllib._checkpoint_rules(tmp_path, str(tmp_path)) == config
    strings = {"variant": "russian", "num_players": 5, "start_score": 150}
    assert rllib.rules_of_env_config(strings) == config
    with pytest.raises(ValueError, match=r"variant 'mattmar' and config \(russian, 5 players\) disagree"):
        rllib.rules_of_env_config({"config": config, "variant": "mattmar"})
