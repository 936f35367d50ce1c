"""docs/extending.md, "A new training algorithm", end to end: the page's toy algorithm (examples/reinforce.py)
registers itself, ``rams train --algorithm reinforce`` trains a few updates with it and writes a checkpoint that
plays; the registry names what it knows."""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest
import torch

from rams_env.agents import load_agent
from rams_training import algorithms
from rams_training.algorithms import ALGORITHMS, algorithm_class, register_algorithm
from rams_training.cli import args_from, configure
from rams_training.config import TrainArgs
from rams_training.run import Trainer

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "extending.md"
EXAMPLE = ROOT / "examples" / "reinforce.py"

torch.set_num_threads(1)


@pytest.fixture
def reinforce(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """examples/reinforce.py imported, so ``reinforce`` is registered (for this test only)."""
    algorithms.load_algorithms()  # the built-in ones first, then a copy of the registry that leaves with the test
    monkeypatch.setattr(algorithms, "ALGORITHMS", dict(ALGORITHMS))
    spec = importlib.util.spec_from_file_location("reinforce_example", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "reinforce_example", module)
    spec.loader.exec_module(module)
    return module


def test_the_page_shows_the_example_and_names_the_test() -> None:
    text = PAGE.read_text(encoding="utf-8")
    assert "../examples/reinforce.py" in text and "tests/training/test_new_algorithm.py" in text
    assert len(EXAMPLE.read_text().splitlines()) <= 80


def test_a_registered_toy_algorithm_trains_through_rams_train(reinforce: ModuleType, tmp_path: Path) -> None:
    assert algorithm_class("reinforce") is reinforce.Reinforce
    parser = argparse.ArgumentParser()
    configure(parser)
    run_dir = tmp_path / "run"
    argv = ["quick", "--algorithm", "reinforce", "--imitation", "0", "--total-steps", "1", "--num-games", "4"]
    argv += ["--hidden", "16", "--eval-decks", "1", "--threads", "1", "--no-progress", "--run-dir", str(run_dir)]
    args = args_from(parser.parse_args(argv))
    trainer = Trainer(args)
    before = {k: v.clone() for k, v in trainer.net.state_dict().items()}
    best = trainer.run()
    assert trainer.updates == 1 and trainer.steps > 0
    assert any(not torch.equal(v, before[k]) for k, v in trainer.net.state_dict().items())  # it learnt
    saved = torch.load(run_dir / "latest.pt", weights_only=True)
    assert saved["args"]["algorithm"] == "reinforce" and "optimizer" in saved
    agent = load_agent(best)
    assert agent.config.variant == "mattmar"
    # A resumed run continues with the registered algorithm from its checkpoint.
    resumed = Trainer(TrainArgs(**{**saved["args"], "hidden": (16,), "resume": True, "total_steps": 10**6}))
    assert isinstance(resumed.algorithm, reinforce.Reinforce) and resumed.updates == trainer.updates
    assert resumed.train_update()["update"] == 2
    resumed.close()


def test_the_registry_names_the_known_algorithms_and_takes_a_name_once(
    reinforce: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(ValueError, match="algorithm must be one of ppo, dmc, reinforce, got 'a2c'"):
        TrainArgs(algorithm="a2c")
    with pytest.raises(ValueError, match="already registered"):
        register_algorithm("ppo")(reinforce.Reinforce)
    with pytest.raises(ValueError, match="privileged_critic"):
        TrainArgs(algorithm="reinforce", privileged_critic=True)


def test_an_installed_package_registers_through_its_entry_point(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    algorithms.load_algorithms()
    monkeypatch.setattr(algorithms, "ALGORITHMS", dict(ALGORITHMS))
    (tmp_path / "outside_algorithm.py").write_text(
        "from rams_training.algorithms import register_algorithm\n\n\n"
        "@register_algorithm('outside')\nclass Outside:\n    pass\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    entry = importlib.metadata.EntryPoint("outside", "outside_algorithm", algorithms.ENTRY_POINTS)
    monkeypatch.setattr(importlib.metadata, "entry_points", lambda group: [entry] if group == entry.group else [])
    try:
        assert algorithm_class("outside").__name__ == "Outside"
    finally:
        sys.modules.pop("outside_algorithm", None)
