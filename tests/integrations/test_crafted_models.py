"""Model files crafted to break the loaders rather than to run code: an SB3 zip whose ``data`` JSON has the
wrong shape or is nested very deeply, a ``policy.pth`` that holds objects, an RLlib checkpoint whose recorded
settings have the wrong type. Each is one ``CheckpointError`` naming the file and what is wrong (one line of
``rams eval``), never a TypeError or RecursionError, and never torch's advice to load with
``weights_only=False``, which would run the file's code."""

from __future__ import annotations

import io
import json
import pickle
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from rams_env.agents import load_agent
from rams_env.apps.cli import main
from rams_env.obs import OBS_SIZE
from rams_env.policy import CheckpointError
from rams_env.rules.actions import NUM_ACTIONS

HIDDEN = 8
RELU = "<class 'torch.nn.modules.activation.ReLU'>"


class Hostile:
    """What a hostile file would hold: an object whose unpickling calls a function."""

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return (print, ("this ran",))


def policy_state() -> dict[str, torch.Tensor]:
    """The weights of a one-layer SB3 MlpPolicy's policy network, as ``policy.pth`` holds them."""
    return {
        "mlp_extractor.policy_net.0.weight": torch.zeros(HIDDEN, OBS_SIZE),
        "mlp_extractor.policy_net.0.bias": torch.zeros(HIDDEN),
        "action_net.weight": torch.zeros(NUM_ACTIONS, HIDDEN),
        "action_net.bias": torch.zeros(NUM_ACTIONS),
    }


def sb3_zip(path: Path, data: str | bytes, policy: Any = None) -> Path:
    buffer = io.BytesIO()
    torch.save(policy_state() if policy is None else policy, buffer)
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("data", data)
        archive.writestr("policy.pth", buffer.getvalue())
    return path


SB3_DATA = [  # (data entry, words of the error)
    (json.dumps({"policy_kwargs": {"activation_fn": [RELU]}}), "activation_fn must be a string"),
    (json.dumps({"policy_kwargs": {"activation_fn": {"a": 1}}}), "activation_fn must be a string"),
    (json.dumps({"policy_kwargs": [1, 2]}), "policy_kwargs are not a JSON object"),
    (json.dumps([1, 2]), "'data' entry is not a JSON object"),
    ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ('{"policy_kwargs": ' + "[" * 60 + "]" * 60 + "}", "nested too deeply"),
    ('{"policy_kwargs": {"activation_fn": ' + "9" * 5000 + "}}", "digits"),
    (b"\xff\xfe", "not UTF-8"),
]


def refused(path: Path, capsys: pytest.CaptureFixture[str], message: str) -> None:
    """``load_agent`` and ``rams eval`` refuse ``path`` in one line naming it and ``message``."""
    with pytest.raises(CheckpointError) as info:
        load_agent(path)
    text = str(info.value)
    assert str(path) in text and message in text, text
    assert "weights_only" not in text and "\n" not in text, text
    capsys.readouterr()
    try:
        code = main(["eval", str(path), "--decks", "1", "--no-progress"])
    except SystemExit as exit_:
        code = exit_.code
    captured = capsys.readouterr()
    assert code not in (0, None) and "Traceback" not in captured.err, captured.err
    last = captured.err.strip().splitlines()
    assert len(last) == 1 and last[0].startswith("rams eval: error: "), captured.err
    assert str(path) in last[0] and message in last[0] and "weights_only" not in captured.err
    assert "this ran" not in captured.out + captured.err


def test_a_well_formed_zip_loads(tmp_path: Path) -> None:
    agent = load_agent(sb3_zip(tmp_path / "good.zip", json.dumps({"policy_kwargs": {"activation_fn": RELU}})))
    assert agent.net[0].out_features == HIDDEN


@pytest.mark.parametrize(("data", "message"), SB3_DATA, ids=[m for _, m in SB3_DATA])
def test_a_zip_whose_data_is_crafted_is_one_line(
    tmp_path: Path, data: str | bytes, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    refused(sb3_zip(tmp_path / "crafted.zip", data), capsys, message)


def test_a_zip_whose_weights_hold_objects_is_refused_without_torchs_advice(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = sb3_zip(tmp_path / "hostile.zip", "{}", policy={"weights": Hostile()})
    refused(path, capsys, "holds more than weights")


def test_a_checkpoint_that_holds_objects_is_refused_without_torchs_advice(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "hostile.pt"
    torch.save({"format": "rams_env.checkpoint", "model": Hostile()}, path)
    refused(path, capsys, "Python objects")


# ----------------------------------------------------------------------------- RLlib checkpoints
def rllib_checkpoint(root: Path, model_config: Any, rules: Any = None, env_config: Any = None) -> Path:
    """A folder laid out as ``algo.save_to_path`` writes it, holding a MaskedPPOModule's weights and what
    the crafted file records: ``model_config`` in the module's constructor arguments, ``rules`` (the rules
    file) or ``env_config`` (in the algorithm's)."""
    from rams_env.integrations.rllib import RULES_FILE, SHARED_POLICY, MaskedPPOModule

    module = root / "learner_group" / "learner" / "rl_module" / SHARED_POLICY
    module.mkdir(parents=True)
    (root / "rllib_checkpoint.json").write_text("{}")
    state = {
        "torso.0.weight": np.zeros((HIDDEN, OBS_SIZE), np.float32),
        "torso.0.bias": np.zeros(HIDDEN, np.float32),
        "pi.weight": np.zeros((NUM_ACTIONS, HIDDEN), np.float32),
        "pi.bias": np.zeros(NUM_ACTIONS, np.float32),
        "vf.weight": np.zeros((1, HIDDEN), np.float32),
        "vf.bias": np.zeros(1, np.float32),
    }
    (module / "module_state.pkl").write_bytes(pickle.dumps(state))
    described = {"class": MaskedPPOModule, "ctor_args_and_kwargs": ((), {"model_config": model_config})}
    (module / "class_and_ctor_args.pkl").write_bytes(pickle.dumps(described))
    if rules is not None:
        (root / RULES_FILE).write_text(json.dumps(rules))
    (root / "class_and_ctor_args.pkl").write_bytes(pickle.dumps({"config": {"env_config": env_config or {}}}))
    return root


RLLIB = [  # (model_config, rules file, env_config, words of the error)
    ({"activation": ["relu"]}, None, None, "model_config['activation'] must be one of"),
    ({"activation": {"relu": 1}}, None, None, "model_config['activation'] must be one of"),
    ({"activation": "relu"}, {"variant": ["mattmar"]}, None, "records invalid rules"),
    ({"activation": "relu"}, {"num_players": "4"}, None, "records invalid rules"),
    ({"activation": "relu"}, [1, 2], None, "must be a JSON object"),
    ({"activation": "relu"}, None, {"variant": {"a": 1}}, "records invalid rules"),
    ({"activation": "relu"}, None, {"num_players": [4]}, "records invalid rules"),
    ({"activation": "relu"}, None, {1: 2}, "records invalid rules"),
]


@pytest.mark.parametrize(("model_config", "rules", "env_config", "message"), RLLIB, ids=[str(r) for r in RLLIB])
def test_an_rllib_checkpoint_whose_settings_have_the_wrong_type_is_one_line(
    tmp_path: Path, model_config: Any, rules: Any, env_config: Any, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    refused(rllib_checkpoint(tmp_path / "ckpt", model_config, rules, env_config), capsys, message)


def test_a_well_formed_rllib_checkpoint_loads(tmp_path: Path) -> None:
    agent = load_agent(rllib_checkpoint(tmp_path / "ckpt", {"activation": "relu"}, {"variant": "mattmar"}))
    assert agent.module.activation == "relu"
