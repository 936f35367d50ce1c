"""benchmarks.search_gain: the paired gain of a search over its reference, written per chunk and resumed."""

from __future__ import annotations

import json

import numpy as np
import pytest

from benchmarks import search_gain

ARGV = ["--variant", "mattmar", "--reference", "heuristic", "--search", "search:simulations=1", "--chunk", "1"]
ARGV += ["--workers", "1", "--time-decisions", "2"]


def test_it_plays_both_on_the_same_decks_writes_each_chunk_and_resumes(tmp_path):
    out = tmp_path / "gain.json"
    search_gain.main([*ARGV, "--decks", "1", "--out", str(out)])
    first = json.loads(out.read_text())
    assert first["decks"] == 1 and first["ramsar"] == 4 and first["seconds_per_decision"]["mean"] > 0
    # The heuristic against three heuristics on the report set: its figures are those of the deck's games.
    assert first["reference_win_share"] == pytest.approx(np.mean(first["wins"]["reference"]))
    search_gain.main([*ARGV, "--decks", "2", "--out", str(out)])
    second = json.loads(out.read_text())
    assert second["decks"] == 2 and second["wins"]["search"][0] == first["wins"]["search"][0]
    assert second["seconds_per_decision"] == first["seconds_per_decision"], "timed once, kept on a resume"
    with pytest.raises(SystemExit, match="search"):
        search_gain.main([*ARGV[:4], "--search", "search:simulations=2", *ARGV[6:], "--decks", "2", "--out", str(out)])


def test_the_gain_is_paired_by_deck():
    wins = {"reference": [[1, 0, 0, 0], [0, 0, 0, 0]], "search": [[1, 1, 0, 0], [0, 0, 0, 0]]}
    figures = search_gain.summary(wins, seed=0)
    assert figures["gain"] == pytest.approx(0.125) and figures["ramsar"] == 8
    assert figures["gain_ci"][0] <= 0.125 <= figures["gain_ci"][1]
    same = search_gain.summary({"reference": wins["search"], "search": wins["search"]}, seed=0)
    assert same["gain"] == 0 and same["gain_ci"] == [0.0, 0.0], "identical play: a zero-width paired interval"
