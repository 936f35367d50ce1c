"""``benchmarks.vector_speed`` at a tiny size: every row it is asked for is measured and written with the machine."""

from __future__ import annotations

import json

import pytest

from benchmarks import vector_speed


@pytest.mark.slow
def test_tiny_run_writes_every_row_asked_for(tmp_path, monkeypatch):
    for name, value in dict(GAMES=8, STEPS=8, ROLLOUT=64, MINIBATCH=32, HIDDEN=(16,)).items():
        monkeypatch.setattr(vector_speed, name, value)
    out = tmp_path / "speed.json"
    argv = ["--updates", "1", "--env-steps", "5", "--only", "env,rams,rllib-selfplay,rllib-selfplay-aec"]
    results = vector_speed.main([*argv, "--json", str(out)])
    record = json.loads(out.read_text())
    assert set(record["results"]) == {
        "env BatchedRamsEnv",
        "env RamsVectorEnv same-step",
        "env RamsVectorEnv next-step",
        "train rams",
        "train rllib-selfplay",
        "train rllib-selfplay-aec",
    }
    assert all(v["wall"] > 0 and v["cpu"] > 0 for v in record["results"].values())
    assert record["cpu"] and isinstance(record["native_bf16"], bool) and record["command"].endswith(str(out))
    assert set(results) == {"env", "rams", "rllib-selfplay", "rllib-selfplay-aec"}


def test_unknown_rows_are_refused_by_name(capsys):
    with pytest.raises(SystemExit):
        vector_speed.main(["--only", "rams,nosuch"])
    assert "unknown ['nosuch']" in capsys.readouterr().err
