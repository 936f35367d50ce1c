"""``examples/cleanrl_ppo.py``: a tiny run trains, plays only legal actions, saves a checkpoint ``load_agent``
reads, and starts from a zoo policy."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
import torch

from rams_env.agents import load_agent

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "cleanrl_ppo.py"
pytestmark = pytest.mark.slow  # a training run


@pytest.fixture(scope="module")
def example():
    spec = importlib.util.spec_from_file_location("cleanrl_ppo_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_a_tiny_run_trains_and_saves_a_checkpoint_rams_eval_reads(example, tmp_path, capsys):
    path = tmp_path / "cleanrl.pt"
    example.main(
        ["--total-steps", "512", "--num-envs", "16", "--num-steps", "16", "--hidden", "32", "--save", str(path)]
    )
    out = capsys.readouterr().out
    assert "trained 512 decisions" in out and "update 2/2" in out
    agent = load_agent(str(path))
    assert (agent.variant, agent.num_players) == ("mattmar", 4)


def test_init_from_starts_from_the_policy_it_names(example):
    start = load_agent("mattmar-4p-imitation").net
    args = example.Args(total_steps=64, num_envs=8, num_steps=8, init_from="mattmar-4p-imitation", learning_rate=0.0)
    net, speed = example.train(args)
    assert speed["decisions"] == 64
    for key, value in start.state_dict().items():  # a learning rate of 0 leaves the start's weights
        assert torch.equal(value, net.state_dict()[key]), key


def test_parse_args_gives_every_field_a_flag_with_its_doc(example, capsys):
    with pytest.raises(SystemExit):
        example.parse_args(["--help"])
    text = capsys.readouterr().out
    assert "--init-from" in text and "a trained policy to start from" in text
