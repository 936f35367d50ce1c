"""Distillation of a search into the network (training/distill.py): the shards, resuming, the fine-tuning."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from rams_env.agents import load_agent
from rams_env.policy.checkpoint import load_checkpoint, network_from_checkpoint
from rams_env.policy.network import MaskedCategorical
from rams_env.rules import make_config
from rams_env.zoo import locate
from rams_training import distill
from rams_training.shards import SHARD, write_shard

EXPERT = "search:simulations=1,base=mattmar-4p,opponent_model=heuristic"


def test_a_tiny_distillation_collects_resumes_and_writes_a_loadable_checkpoint(tmp_path):
    argv = ["--student", "mattmar-4p", "--variant", "mattmar", "--expert", EXPERT, "--decisions", "30"]
    argv += ["--shard", "15", "--epochs", "1", "--out", str(tmp_path)]
    assert distill.main(argv) == 0
    shards = sorted((tmp_path / "data").glob("shard-*.npz"))
    assert len(shards) == 2
    data = distill.read_shards(tmp_path / "data")
    assert data["observation"].shape[0] == 30 and data["mask"][np.arange(30), data["expert"]].all()
    assert data["mask"][np.arange(30), data["student"]].all()
    report = json.loads((tmp_path / "distill.json").read_text())
    assert report["decisions"] == 30 and 0.0 <= report["expert_differs"] <= 1.0
    agent = load_agent(tmp_path / "distilled.pt", expect_config=make_config("mattmar", 4))
    assert agent.variant == "mattmar"
    # Resuming keeps the shards written: the same data, not collected again.
    before = [p.stat().st_mtime_ns for p in shards]
    assert distill.main(argv) == 0
    assert [p.stat().st_mtime_ns for p in shards] == before
    # Resuming with another expert would mix its shards in: refused, naming the option.
    other = [a if a != EXPERT else "heuristic" for a in argv]
    with pytest.raises(SystemExit, match="expert"):
        distill.main(other)


def test_fine_tuning_moves_the_policy_to_the_expert_and_the_kl_holds_it_back(tmp_path):
    """A made-up dataset whose expert always plays the last legal action: the fine-tuned network gives it
    more probability than the student did, and less with a large KL weight than without."""
    config = make_config("mattmar", 4)
    payload = load_checkpoint(locate("mattmar-4p"), expect_config=config)
    data = distill.read_shards(_relabelled_shards(tmp_path))
    target = torch.from_numpy(data["expert"])

    def expert_probability(net):
        with torch.no_grad():
            dist = MaskedCategorical(net(torch.from_numpy(data["observation"]))[0], torch.from_numpy(data["mask"]))
        return float(dist.probs.gather(1, target[:, None]).mean())

    start = expert_probability(network_from_checkpoint(payload))
    free, losses = distill.fine_tune(payload, data, epochs=4, lr=1e-3, kl=0.0, seed=0)
    held, _ = distill.fine_tune(payload, data, epochs=4, lr=1e-3, kl=10.0, seed=0)
    assert losses[-1] < losses[0]
    assert expert_probability(free) > expert_probability(held) > start


def _relabelled_shards(tmp_path):
    """One shard of the student's own decisions, relabelled: the expert plays the last legal action."""
    folder = tmp_path / "data"
    folder.mkdir()
    shard = distill.collect_shard(make_config("mattmar", 4), load_agent("mattmar-4p"), "heuristic", 200, seed=3)
    shard["expert"] = np.array([np.flatnonzero(m)[-1] for m in shard["mask"]])
    write_shard(folder / SHARD.format(0), shard)
    return folder


@pytest.mark.parametrize("flag", ["--decisions", "--shard", "--epochs"])
def test_sizes_below_one_are_refused(tmp_path, flag, capsys):
    argv = ["--student", "mattmar-4p", "--variant", "mattmar", "--expert", EXPERT, "--out", str(tmp_path), flag, "0"]
    with pytest.raises(SystemExit):
        distill.main(argv)
    assert flag in capsys.readouterr().err


def test_a_missing_cuda_device_is_refused_by_name(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    argv = ["--student", "mattmar-4p", "--variant", "mattmar", "--expert", EXPERT, "--out", str(tmp_path)]
    with pytest.raises(SystemExit):
        distill.main([*argv, "--device", "cuda"])
    assert "no CUDA device" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        distill.main([*argv, "--device", "tpu"])
