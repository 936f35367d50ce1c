"""The OpenSpiel NFSP example end to end: train briefly, save the average policy as a rams_env
checkpoint, evaluate it with ``rams eval``; the checkpoint plays exactly NFSP's own greedy actions.

Needs the ``openspiel`` extra (installed by .ci/run): a missing pyspiel fails here, it is not skipped.
"""

from __future__ import annotations

import importlib.util
import random
from pathlib import Path

import numpy as np
import pytest

from rams_env.agents import load_agent
from rams_env.envs import RamsEnv
from rams_env.rules import make_config

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "openspiel_nfsp.py"


def _example():
    spec = importlib.util.spec_from_file_location("openspiel_nfsp_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_the_saved_average_policy_plays_nfsps_own_greedy_actions(tmp_path):
    example = _example()
    args = example.parse_args(["--minutes", "0.01", "--hidden", "16", "8", "--out", str(tmp_path / "nfsp.pt")])
    agents = example.train(args)
    config = make_config("mattmar", 4)
    path = example.save_average_policy(agents[0], config, args.out)
    policy, nfsp = load_agent(path, expect_config=config), example.NFSPAgent(agents[0])
    rng, compared = random.Random(3), 0
    env = RamsEnv(variant="mattmar", num_players=4)
    for game in range(3):
        env.reset(seed=game)
        for _ in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            assert policy.act(observation) == nfsp.act(observation)
            compared += 1
            env.step(rng.choice(np.flatnonzero(observation["action_mask"]).tolist()))
    assert compared > 30


@pytest.mark.slow
def test_the_example_runs_and_evaluates_with_rams_eval(tmp_path, capsys):
    out = tmp_path / "nfsp.pt"
    _example().main(["--minutes", "0.01", "--hidden", "16", "--decks", "2", "--baselines", "random", "--out", str(out)])
    text = capsys.readouterr().out
    assert f"rams eval {out} --baseline random" in text
    assert "duplicate against 'random'" in text and out.exists()
