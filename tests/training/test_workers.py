"""Env worker processes play the in-process env's games: shaping, equity shaping and the privileged critic
read the subprocess env's scores, hands, dealers and deal numbers, so ``workers=2`` makes the same batches."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from rams_training.rollout import episode_rows
from rams_training.run import Trainer
from tests.training.test_run import tiny

torch.set_num_threads(1)

SHAPED = dict(episode="rams", reward="win", num_games=4, episodes_per_game=1, total_steps=10**9)


def _batches(run_dir, workers: int, updates: int, **overrides) -> list[dict[str, np.ndarray]]:
    """The rollout columns of ``updates`` updates of a run with ``workers`` env processes."""
    trainer = Trainer(tiny(run_dir, workers=workers, **{**SHAPED, **overrides}))
    batches = []
    try:
        for _ in range(updates):
            episodes, _ = trainer.collect()
            rows = episode_rows(episodes)
            rollout = trainer.rollout
            batch = {name: getattr(rollout, name)[rows].copy() for name in ("obs", "action", "reward", "ret", "seat")}
            if rollout.hidden is not None:
                batch["hidden"] = rollout.hidden[rows].copy()
            batches.append(batch)
            trainer.update(rows)
            trainer.updates += 1
            trainer.steps += len(rows)
    finally:
        trainer.close()
    return batches


@pytest.mark.parametrize(
    "shaping",
    [
        dict(points_weight=1.0, late_points_weight=0.5, heuristic_after=1, heuristic_fraction=0.5),
        dict(equity_shaping=True, privileged_critic=True, pool_fraction=0.5),
    ],
    ids=["points_weight", "equity_and_critic"],
)
def test_two_workers_make_the_batches_of_one(tmp_path, shaping):
    one = _batches(tmp_path / "one", 1, 2, **shaping)
    two = _batches(tmp_path / "two", 2, 2, **shaping)
    assert len(one) == len(two) == 2
    for a, b in zip(one, two, strict=True):
        assert a.keys() == b.keys() and len(a["action"]) > 0
        for name in a:
            np.testing.assert_array_equal(a[name], b[name], err_msg=name)
    assert any(np.any(batch["reward"] != 0) for batch in one)
