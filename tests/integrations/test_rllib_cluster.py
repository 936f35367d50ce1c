"""RLlib's PPO on the vector env over a two-node Ray cluster on loopback: a head and a second node started on
this machine, one env runner on each; it trains, checkpoints and resumes (``benchmarks/rllib_cluster.py``)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # two Ray nodes and a training run
ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def two_nodes(tmp_path):
    """A Ray head and a second node on 127.0.0.1, one CPU each; stopped afterwards (``ray stop`` stops every
    Ray node of this machine: do not run this test beside a Ray cluster of your own)."""
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    env["RAY_AUTH_MODE"] = "disabled"  # a cluster on loopback for this test alone
    port = _free_port()
    address = f"127.0.0.1:{port}"
    common = ["--num-cpus", "1", "--disable-usage-stats", "--node-ip-address", "127.0.0.1"]
    ray = [sys.executable, "-m", "ray.scripts.scripts"]
    try:
        subprocess.run(
            [*ray, "start", "--head", "--port", str(port), "--include-dashboard", "false", *common],
            check=True,
            env=env,
            capture_output=True,
            timeout=120,
        )
        subprocess.run(
            [*ray, "start", "--address", address, *common], check=True, env=env, capture_output=True, timeout=120
        )
        yield address, env
    finally:
        subprocess.run([*ray, "stop", "--force"], env=env, capture_output=True, timeout=120)


def test_ppo_on_the_vector_env_samples_on_both_nodes_checkpoints_and_resumes(two_nodes, tmp_path):
    address, env = two_nodes
    out = tmp_path / "record.json"
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "benchmarks.rllib_cluster",
            "--address",
            address,
            "--env-runners",
            "2",
            "--envs",
            "8",
            "--iterations",
            "1",
            "--batch",
            "256",
            "--checkpoint",
            str(tmp_path / "ckpt"),
            "--json",
            str(out),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    record = json.loads(out.read_text())
    assert record["nodes"] == 2  # one env runner on each node
    assert record["rates"][0] > 0
    assert record["steps_after"] > record["steps_before"] >= 256  # the resumed run went on from the checkpoint
