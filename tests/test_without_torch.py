"""An install without torch (``pip install rams_env``): the env, the engine, the non-neural agents and
``rams eval`` with them work, and a checkpoint is refused with the extra to install.

Each test runs Python in a subprocess whose import system stands for an install without torch: every
import of ``torch`` or a submodule fails as it would there, and is recorded, so a torch import that
creeps into the non-neural path fails the test even where the caller would tolerate its failure.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

WITHOUT_TORCH = """
import sys


class NoTorch:
    '''A meta path finder that makes torch absent: its imports fail and are recorded.'''

    attempts = []

    def find_spec(self, name, path=None, target=None):
        if name == "torch" or name.startswith("torch."):
            self.attempts.append(name)
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.modules.pop("torch", None)
sys.meta_path.insert(0, NoTorch())
"""


def run_without_torch(code: str) -> subprocess.CompletedProcess[str]:
    """Run ``code`` (after the torch blocker) in a fresh interpreter at the repository root."""
    script = WITHOUT_TORCH + textwrap.dedent(code)
    return subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=600, check=False
    )


def test_the_blocker_makes_torch_absent():
    done = run_without_torch(
        """
        try:
            from torch import nn
        except ModuleNotFoundError as err:
            print(err.name, NoTorch.attempts)
        """
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["torch", "['torch']"]


def test_env_engine_agents_and_rams_eval_never_import_torch():
    done = run_without_torch(
        """
        import json

        import numpy as np

        import rams_env
        from rams_env.agents import HeuristicAgent, RandomAgent, SearchAgent
        from rams_env.apps.cli import main
        from rams_env.eval import play_episode
        from rams_env.envs import BatchedRamsEnv

        env = rams_env.env(variant="mattmar", num_players=4)
        env.reset(seed=1)
        search = SearchAgent(simulations=2, seed=0, env=env)
        agents = [RandomAgent(seed=0), HeuristicAgent(), search, RandomAgent(seed=1)]
        seats = {name: agents[k] for k, name in enumerate(env.possible_agents)}
        for name in env.agent_iter():
            observation, _, termination, truncation, _ = env.last()
            env.step(None if termination or truncation else seats[name].act(observation))
        play_episode(rams_env.Game(rams_env.make_config("russian", 3), 2), agents[:3])

        batched = BatchedRamsEnv(4, variant="rams32", num_players=4)
        out = batched.reset(seed=3)
        rng = np.random.default_rng(0)
        for _ in range(20):
            noise = rng.random(out.action_masks.shape) + out.action_masks
            out = batched.step(noise.argmax(axis=1))
        batched.close()

        code = main(["eval", "heuristic", "--baseline", "random", "--decks", "1", "--no-progress"])
        print(json.dumps({"eval": code, "torch_imports": NoTorch.attempts, "loaded": "torch" in sys.modules}))
        """
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result == {"eval": 0, "torch_imports": [], "loaded": False}


@pytest.fixture
def checkpoint(tmp_path):
    from rams_env.obs import OBS_SIZE
    from rams_env.policy import PolicyNet, make_checkpoint, save_checkpoint
    from rams_env.rules import make_config
    from rams_env.rules.actions import NUM_ACTIONS

    path = tmp_path / "policy.pt"
    save_checkpoint(path, make_checkpoint(PolicyNet(OBS_SIZE, NUM_ACTIONS, hidden=(8,)), make_config("mattmar", 4)))
    return path


def test_a_checkpoint_without_torch_names_the_extra_to_install(checkpoint):
    done = run_without_torch(
        f"""
        from rams_env.agents import MissingExtraError, load_agent
        from rams_env.apps.cli import main

        try:
            load_agent({str(checkpoint)!r})
        except MissingExtraError as err:
            assert isinstance(err, ImportError) and isinstance(err, ValueError) and err.name == "torch"
            print("load_agent:", err)
        print("exit", main(["eval", {str(checkpoint)!r}, "--decks", "1", "--no-progress"]))
        try:
            main(["--help"])
        except SystemExit as exit:
            print("help exit", exit.code)
        print("train exit", main(["train", "quick", "--variant", "russian"]))
        """
    )
    assert done.returncode == 0, done.stderr
    assert f"load_agent: loading the trained policy {str(checkpoint)!r} needs torch" in done.stdout
    assert 'pip install "rams_env[torch]"' in done.stdout
    # rams eval reports it in one line, not a traceback
    assert "exit 1" in done.stdout
    assert "rams eval: error: loading the trained policy" in done.stderr and "Traceback" not in done.stderr
    # the help lists every command; rams train says what to install, in one line
    assert "help exit 0" in done.stdout
    assert all(command in done.stdout for command in ("eval", "play", "replay", "train"))
    assert "warning" not in done.stderr
    assert "train exit 1" in done.stdout
    assert """rams train: error: needs 'torch', which is not installed: pip install "rams_env[train]\"""" in done.stderr
