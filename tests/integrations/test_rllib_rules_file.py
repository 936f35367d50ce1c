"""The rules file of an RLlib checkpoint folder (rams_env.integrations.rllib), read as user JSON: a deep,
huge or wrong-typed one is a ``CheckpointError`` naming the file, not a ``RecursionError`` or ``TypeError``."""

from __future__ import annotations

import json
import pickle
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


def _vector_env_config() -> dict:
    """A ``vector_ppo_config`` env config: its env keywords (``observation_mode`` added by it) beside rules."""
    from rams_env.integrations.rllib_vector import vector_env_config

    given = {"variant": "russian", "num_players": 5, "start_score": 150, "opponents": "heuristic"}
    given |= {"learner_seat": "random", "illegal_action": "raise", "illegal_reward": -2.0, "episode": "rams"}
    config = vector_env_config(given)
    assert config["observation_mode"] == "dict"
    return config


def test_the_rules_of_a_vector_env_config_leave_its_env_keywords_out(tmp_path: Path) -> None:
    """``vector_ppo_config``'s env config holds keywords of RamsVectorEnv that RamsEnv lacks: not rules."""
    env_config = _vector_env_config()
    assert rllib.rules_of_env_config(env_config) == make_config("russian", 5, start_score=150)
    rllib.save_rules(tmp_path, env_config)
    assert rllib._checkpoint_rules(tmp_path, str(tmp_path)) == make_config("russian", 5, start_score=150)


def test_a_vector_checkpoint_without_a_rules_file_reads_its_env_config(tmp_path: Path) -> None:
    """No rams_env_rules.json: the rules come from the env_config pickled in the algorithm's configuration."""
    (tmp_path / "class_and_ctor_args.pkl").write_bytes(pickle.dumps({"config": {"env_config": _vector_env_config()}}))
    assert rllib._checkpoint_rules(tmp_path, str(tmp_path)) == make_config("russian", 5, start_score=150)


def test_an_env_config_key_that_is_neither_an_env_keyword_nor_a_rule_option_is_named(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"'bogus'.*neither a keyword of RamsEnv or RamsVectorEnv nor a rule option"):
        rllib.rules_of_env_config({"variant": "mattmar", "bogus": 1})
    (tmp_path / "class_and_ctor_args.pkl").write_bytes(pickle.dumps({"config": {"env_config": {"bogus": 1}}}))
    with pytest.raises(CheckpointError, match=r"records invalid rules: .*'bogus'"):
        rllib._checkpoint_rules(tmp_path, str(tmp_path))
