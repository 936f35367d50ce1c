"""``rams eval CKPT``: without ``--variant`` or ``--num-players`` it plays the checkpoint's own rules;
a conflicting one is refused with a message naming the option to change. Torch in every process of
``rams eval`` gets the threads asked for (one by default)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rams_env.apps.cli import main
from rams_env.rules import make_config


@pytest.fixture(scope="module")
def russian_checkpoint(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from rams_env.obs import OBS_SIZE
    from rams_env.policy import PolicyNet, make_checkpoint, save_checkpoint
    from rams_env.rules.actions import NUM_ACTIONS

    path = tmp_path_factory.mktemp("ckpt") / "russian-4p.pt"
    save_checkpoint(path, make_checkpoint(PolicyNet(OBS_SIZE, NUM_ACTIONS, hidden=(8,)), make_config("russian", 4)))
    return path


def test_eval_of_a_checkpoint_plays_its_own_rules(russian_checkpoint: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["eval", str(russian_checkpoint), "--decks", "2", "--resamples", "20", "--no-progress"]) == 0
    assert "russian, 4 players, episode deal: 2 decks" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--variant", "mattmar"], "plays russian, not --variant mattmar: change it to --variant russian"),
        (["--num-players", "5"], "plays 4 players, not --num-players 5: change it to --num-players 4"),
        (["--option", "start_score=150"], "start_score=150 (it plays 100); drop those --option"),
    ],
)
def test_a_conflicting_rules_option_is_named(
    russian_checkpoint: Path, options: list[str], message: str, capsys: pytest.CaptureFixture
) -> None:
    assert main(["eval", str(russian_checkpoint), *options, "--decks", "1", "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("rams eval: error: ") and message in err and len(err.splitlines()) == 1


def test_the_checkpoints_own_rules_agree_with_a_matching_option(russian_checkpoint: Path, capsys) -> None:
    argv = ["eval", str(russian_checkpoint), "--variant", "russian", "--num-players", "4", "--decks", "1"]
    assert main([*argv, "--resamples", "20", "--no-progress"]) == 0
    assert "russian, 4 players" in capsys.readouterr().out


def test_without_a_checkpoint_the_defaults_stay_mattmar_4(capsys: pytest.CaptureFixture) -> None:
    assert main(["eval", "random", "--decks", "1", "--resamples", "20", "--no-progress"]) == 0
    assert "mattmar, 4 players" in capsys.readouterr().out


def test_a_zoo_name_plays_its_models_rules(capsys: pytest.CaptureFixture) -> None:
    from rams_env import zoo

    assert "russian-4p" in zoo.known_names()  # the repository ships the zoo
    assert main(["eval", "russian-4p", "--decks", "1", "--resamples", "20", "--no-progress"]) == 0
    assert "russian, 4 players" in capsys.readouterr().out


# ----------------------------------------------------------------------------- each checkpoint read once
def _count_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths ``torch.load`` reads from now on (every checkpoint read goes through it)."""
    import torch

    reads: list[str] = []
    real = torch.load

    def counting(path, *args, **kwargs):  # type: ignore[no-untyped-def]
        reads.append(str(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(torch, "load", counting)
    return reads


@pytest.mark.parametrize(
    "argv",
    [
        ["{ckpt}"],  # its rules read from it, then played: one read
        ["{ckpt}", "--baseline", "{ckpt}"],  # the agent and the baseline: still one
        ["random", "--baseline", "{ckpt}", "--num-players", "4"],
        ["--league", "random", "{ckpt}"],
    ],
)
def test_eval_reads_each_checkpoint_once(
    russian_checkpoint: Path, monkeypatch: pytest.MonkeyPatch, argv: list[str], capsys: pytest.CaptureFixture
) -> None:
    reads = _count_reads(monkeypatch)
    argv = [a.format(ckpt=russian_checkpoint) for a in argv]
    assert main(["eval", *argv, "--decks", "1", "--resamples", "20", "--no-progress"]) == 0
    assert reads == [str(russian_checkpoint)]
    assert "russian, 4 players" in capsys.readouterr().out


def test_a_second_checkpoint_is_checked_against_the_first_ones_rules_without_a_second_read(
    russian_checkpoint: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    from rams_env.obs import OBS_SIZE
    from rams_env.policy import PolicyNet, make_checkpoint, save_checkpoint
    from rams_env.rules.actions import NUM_ACTIONS

    other = tmp_path / "mattmar-4p.pt"
    save_checkpoint(other, make_checkpoint(PolicyNet(OBS_SIZE, NUM_ACTIONS, hidden=(8,)), make_config("mattmar", 4)))
    reads = _count_reads(monkeypatch)
    assert main(["eval", str(russian_checkpoint), str(other), "--decks", "1", "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert f"{str(other)!r} was trained for other rules: variant='mattmar' (expected 'russian')" in err
    assert reads == [str(russian_checkpoint), str(other)]


def test_a_multi_size_checkpoint_plays_the_size_asked_for_from_one_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    from rams_env.obs import OBS_SIZE
    from rams_env.policy import PolicyNet, make_checkpoint, save_checkpoint
    from rams_env.rules.actions import NUM_ACTIONS

    path = tmp_path / "mattmar-3to5p.pt"
    net = PolicyNet(OBS_SIZE, NUM_ACTIONS, hidden=(8,))
    save_checkpoint(path, make_checkpoint(net, make_config("mattmar", 4), table_sizes=[3, 4, 5]))
    reads = _count_reads(monkeypatch)
    assert main(["eval", str(path), "--num-players", "5", "--decks", "1", "--resamples", "20", "--no-progress"]) == 0
    assert "mattmar, 5 players" in capsys.readouterr().out
    assert reads == [str(path)]


# ----------------------------------------------------------------------------- torch threads of rams eval
class ThreadProbe:
    """An agent that plays the first legal action and notes the torch threads of its process in ``log``."""

    def __init__(self, seed: int, log: str) -> None:
        self.log = Path(log)

    def act(self, observation: dict) -> int:
        import os

        import torch

        with (self.log / f"{os.getpid()}.txt").open("a") as f:
            f.write(f"{torch.get_num_threads()}\n")
        return int(observation["action_mask"].nonzero()[0][0])


def _probe_threads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, argv: list[str]) -> dict[int, set[int]]:
    import functools

    from rams_env.agents import ResolvedAgent
    from rams_env.apps.cli import evaluate

    real = evaluate.resolve_agent
    probe = ResolvedAgent("probe", functools.partial(ThreadProbe, log=str(tmp_path)), None)
    monkeypatch.setattr(
        evaluate, "resolve_agent", lambda spec, config=None: probe if spec == "probe" else real(spec, config)
    )
    assert main(["eval", "probe", "--decks", "4", "--no-progress", "--resamples", "10", *argv]) == 0
    return {int(p.stem): {int(line) for line in p.read_text().split()} for p in tmp_path.glob("*.txt")}


@pytest.mark.slow
@pytest.mark.parametrize(("threads", "workers"), [(1, 1), (2, 1), (1, 2), (2, 2)])
def test_eval_gives_torch_the_threads_asked_for_in_every_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, threads: int, workers: int
) -> None:
    import os

    import torch

    before = torch.get_num_threads()
    seen = _probe_threads(tmp_path, monkeypatch, ["--threads", str(threads), "--workers", str(workers)])
    expected = min(threads, os.cpu_count() or 1)  # torch takes no more threads from OMP_NUM_THREADS than cores
    assert seen and all(found == {expected} for found in seen.values()), seen
    assert (os.getpid() in seen) == (workers == 1)
    assert torch.get_num_threads() == before and "OMP_NUM_THREADS" not in os.environ  # restored


def test_eval_defaults_to_one_torch_thread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen = _probe_threads(tmp_path, monkeypatch, [])
    assert seen and all(threads == {1} for threads in seen.values()), seen
