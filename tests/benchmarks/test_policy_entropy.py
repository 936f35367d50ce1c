"""benchmarks.learning.policy_entropy: a policy's mean entropy over the legal moves, beside uniform play's."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
import torch

from benchmarks.learning.policy_entropy import logits_of, main, masked_entropy, mean_entropies
from rams_env.obs import OBS_SIZE
from rams_env.policy import PolicyNet, make_checkpoint, save_checkpoint
from rams_env.rules import make_config
from rams_env.rules.actions import NUM_ACTIONS

SMALL = dict(games=8, steps=10, seed=3)


def test_masked_entropy_is_the_entropy_over_the_legal_moves() -> None:
    mask = np.zeros((2, NUM_ACTIONS), np.int8)
    mask[0, [1, 4, 9]] = 1
    mask[1, 2] = 1
    logits = torch.randn(2, NUM_ACTIONS)
    logits[0, [1, 4, 9]] = 0.7  # uniform over the three legal moves, whatever the illegal logits
    assert masked_entropy(logits, mask).tolist() == pytest.approx([math.log(3), 0.0])


def test_uniform_logits_give_uniform_play_and_sharp_ones_far_less() -> None:
    flat = mean_entropies(lambda obs, _mask: torch.zeros(len(obs), NUM_ACTIONS), **SMALL)
    assert flat.decisions >= 8 * 9 and flat.uniform > 0.5
    assert flat.policy == pytest.approx(flat.uniform, rel=1e-5)
    generator = torch.Generator().manual_seed(0)
    sharp = mean_entropies(lambda obs, _mask: 50 * torch.randn(len(obs), NUM_ACTIONS, generator=generator), **SMALL)
    assert sharp.uniform == flat.uniform and sharp.decisions == flat.decisions  # the same decisions
    assert sharp.policy < 0.2 * sharp.uniform


def test_a_fresh_checkpoint_is_near_uniform_from_the_command_line(tmp_path: Path, capsys) -> None:
    torch.manual_seed(0)
    path = tmp_path / "fresh.pt"
    save_checkpoint(path, make_checkpoint(PolicyNet(OBS_SIZE, NUM_ACTIONS), make_config("mattmar", 4)))
    main([str(path), "--games", "8", "--steps", "10", "--seed", "3"])
    found = json.loads(capsys.readouterr().out)
    assert found["checkpoint"] == str(path)
    assert 0 < found["uniform"] - found["policy"] < 0.05  # small random logits: close to uniform, a little below


def test_an_agent_without_a_distribution_is_refused() -> None:
    with pytest.raises(TypeError, match="exposes no action distribution"):
        logits_of(object())
