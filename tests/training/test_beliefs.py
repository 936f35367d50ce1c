"""Training a belief network (training/beliefs.py): collection in shards, resuming, the file it writes."""

from __future__ import annotations

import json

import numpy as np
import pytest

from rams_env.agents import SearchAgent
from rams_env.obs.beliefs import NOT_HIDDEN, NUM_PLACES
from rams_env.obs.encoding import OBS_SIZE
from rams_env.policy.beliefs import load_beliefs
from rams_training import beliefs

ARGV = ["--variant", "russian", "--decisions", "60", "--shard", "30", "--hidden", "8", "--batch", "16"]


def test_a_tiny_run_collects_trains_resumes_and_writes_a_network_the_search_takes(tmp_path):
    argv = [*ARGV, "--epochs", "2", "--out", str(tmp_path)]
    assert beliefs.main(argv) == 0
    data = beliefs.read_data(tmp_path / "data", 2)
    assert data["observation"].shape == (60, OBS_SIZE) and data["room"].shape == (60, NUM_PLACES)
    hidden = (data["places"] != NOT_HIDDEN).sum(1)
    assert (hidden == data["room"].sum(1)).all(), "every hidden card labelled, as many as the places hold"
    report = json.loads((tmp_path / "beliefs.json").read_text())
    assert [h["epoch"] for h in report["history"]] == [1, 2] and report["decisions"] == 60
    first = report["history"]
    # Resuming with more epochs keeps the epochs done and the shards collected.
    shards = sorted((tmp_path / "data").glob("shard-*.npz"))
    stamps = [p.stat().st_mtime_ns for p in shards]
    assert beliefs.main([*ARGV, "--epochs", "3", "--out", str(tmp_path)]) == 0
    report = json.loads((tmp_path / "beliefs.json").read_text())
    assert report["history"][:2] == first and len(report["history"]) == 3
    assert [p.stat().st_mtime_ns for p in shards] == stamps
    net = load_beliefs(tmp_path / "russian-beliefs.beliefs.pt", variant="russian")
    assert SearchAgent(simulations=2, beliefs=net).beliefs.net is net
    # A damaged shard is set aside and collected again.
    shards[1].write_bytes(b"not a zip")
    assert beliefs.main([*ARGV, "--epochs", "3", "--out", str(tmp_path)]) == 0
    assert (tmp_path / "data" / "shard-00001.npz.damaged").exists()
    assert np.array_equal(beliefs.read_data(tmp_path / "data", 2)["places"][30:], data["places"][30:])
    # Other collection options would mix shards: refused by name.
    with pytest.raises(SystemExit, match="policy_share"):
        beliefs.main([*ARGV, "--policy-share", "0.2", "--out", str(tmp_path)])


@pytest.mark.parametrize(
    "extra, message",
    [(["--variant", "nope"], "variant"), (["--holdout", "0.9"], "holdout"), (["--hidden", "0"], "hidden")],
)
def test_bad_options_are_refused_by_name(tmp_path, extra, message, capsys):
    with pytest.raises(SystemExit):
        beliefs.main([*ARGV, *extra, "--out", str(tmp_path)])
    assert message in capsys.readouterr().err


def test_every_preset_has_its_table_sizes_and_a_policy_for_each():
    assert beliefs.table_sizes("mattmar") == [3, 4, 5, 6, 7]
    assert beliefs.table_sizes("rams32") == [3, 4, 5, 6]
    assert set(beliefs.MULTI_SIZE) == set(beliefs.FLAGSHIPS)


def test_the_belief_cards_show_their_files_figures():
    """Each zoo card is what `python -m rams_training.belief_cards` writes from its file and docs/beliefs/."""
    from rams_training import belief_cards

    assert belief_cards.main(["--check"]) == 0
