"""``rams psro``: the stages in order, the mixture each iterate trains against, the summary, resume, refusals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from rams_env.apps.cli import main
from rams_env.obs import OBS_SIZE
from rams_env.policy import PolicyNet, make_checkpoint, save_checkpoint
from rams_env.rules import make_config
from rams_env.rules.actions import NUM_ACTIONS

TINY = ["--variant", "mattmar", "--iterations", "1", "--exploit-decisions", "64", "--exploit-imitation", "64",
        "--train-decisions", "64", "--num-games", "4", "--report-decks", "1", "--threads", "1",
        "--no-progress"]  # fmt: skip


def tiny_policy(path: Path) -> Path:
    torch.manual_seed(0)
    save_checkpoint(path, make_checkpoint(PolicyNet(OBS_SIZE, NUM_ACTIONS, (16,)), make_config("mattmar", 4)))
    return path


@pytest.mark.slow
def test_one_iteration_exploits_trains_against_the_mixture_exploits_again_and_resumes(tmp_path, capsys):
    agent, run = str(tiny_policy(tmp_path / "start.pt")), tmp_path / "psro"
    assert main(["psro", agent, *TINY, "--run-dir", str(run)]) == 0
    out = capsys.readouterr().out
    commands = [line for line in out.splitlines() if line.startswith("psro: rams ")]
    assert [c.split()[2] for c in commands] == ["exploit", "train", "exploit", "eval", "eval"]
    mixture = f"heuristic+{agent}+{run / '0-exploit' / 'best.pt'}"
    # the start's weights and widths, against the mixture
    assert f"--target {mixture} --init-from {agent} --hidden 16" in commands[1]
    assert f"exploit {run / '1-train'}" in commands[2]  # the new iterate is exploited
    summary = json.loads((run / "psro.json").read_text())
    rows = summary["iterates"]
    assert [row["iterate"] for row in rows] == [0, 1] and rows[0]["agent"] == agent
    for row in rows:
        lo, hi = row["exploitability_ci"]
        assert lo <= row["exploitability"] <= hi and Path(row["exploiter"]).is_file()
        assert 0 <= row["win_share_vs_heuristics"] <= 1
    for stage in ("0-exploit", "1-train", "1-exploit", "1-eval", "0-eval"):
        assert (run / stage / "stage.done").is_file(), stage
    # Run again: every stage finished, so nothing trains; the summary is written again.
    assert main(["psro", agent, *TINY, "--run-dir", str(run)]) == 0
    out = capsys.readouterr().out
    assert out.count("finished earlier, skipped") == 5 and "psro: rams " not in out


def test_refusals_name_the_option(tmp_path, capsys):
    agent = str(tiny_policy(tmp_path / "start.pt"))
    assert main(["psro", agent, *TINY, "--iterations", "0", "--run-dir", str(tmp_path / "a")]) == 1
    assert "--iterations" in capsys.readouterr().err
    run = tmp_path / "b"
    run.mkdir()
    (run / "options.json").write_text("{}\n")  # a run made with other options
    assert main(["psro", agent, *TINY, "--run-dir", str(run)]) == 1
    assert "holds a PSRO run with other options" in capsys.readouterr().err
    assert main(["psro", "no-such-agent", *TINY, "--run-dir", str(tmp_path / "c")]) == 1
    assert "no-such-agent" in capsys.readouterr().err and not (tmp_path / "c").exists()  # refused before any file


class _Stopped(Exception):
    """Raised by the first stage: the run got past its options."""


def test_a_run_again_with_other_threads_continues_and_other_options_are_named(tmp_path, capsys, monkeypatch):
    """``--threads`` changes no result, so a run goes on with other threads; any other option is refused by name."""
    import rams_training.psro as psro  # the module the command runs (training/ installs as rams_training)

    commands: list[list[str]] = []

    def first_stage(stage, progress):
        commands.append(stage.command)
        raise _Stopped

    monkeypatch.setattr(psro.Stage, "run", first_stage)
    agent, run = str(tiny_policy(tmp_path / "start.pt")), tmp_path / "psro"
    with pytest.raises(_Stopped):
        main(["psro", agent, *TINY, "--run-dir", str(run)])
    with pytest.raises(_Stopped):
        main(["psro", agent, *TINY, "--threads", "2", "--run-dir", str(run)])
    assert "--threads 2" in " ".join(commands[-1]) and json.loads((run / "options.json").read_text())["threads"] == 2
    assert main(["psro", agent, *TINY, "--seed", "5", "--run-dir", str(run)]) == 1
    err = capsys.readouterr().err
    assert "holds a PSRO run with other options" in err and "--seed 5 (saved 0)" in err and "threads" not in err
