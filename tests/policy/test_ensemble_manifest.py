"""Ensemble manifests from a hostile hand (rams_env.policy.load_ensemble, write_ensemble): repeated members by
path and by weights digest, over-long paths, absurd member counts, deep or huge JSON. Each is refused with a
``CheckpointError`` naming the cause, before any member is loaded, and ``rams eval`` says it in one line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import torch

from rams_env.apps.cli import main
from rams_env.obs import OBS_SIZE
from rams_env.policy import (
    ENSEMBLE_FORMAT,
    ENSEMBLE_VERSION,
    MAX_MEMBERS,
    CheckpointError,
    PolicyNet,
    ensemble,
    load_ensemble,
    make_checkpoint,
    model_digest,
    save_checkpoint,
    write_ensemble,
)
from rams_env.rules import make_config
from rams_env.rules.actions import NUM_ACTIONS


def _member(folder: Path, name: str, seed: int) -> Path:
    torch.manual_seed(seed)
    net = PolicyNet(OBS_SIZE, NUM_ACTIONS, hidden=(8,))
    path = folder / name
    save_checkpoint(path, make_checkpoint(net, make_config("mattmar")))
    return path


def _digest(path: Path) -> str:
    return model_digest(torch.load(path, weights_only=True)["model"])


def _manifest(folder: Path, members: list[dict], name: str = "ens.json") -> Path:
    path = folder / name
    path.write_text(json.dumps({"format": ENSEMBLE_FORMAT, "format_version": ENSEMBLE_VERSION, "members": members}))
    return path


@pytest.fixture
def nothing_loaded(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every checkpoint ``load_ensemble`` reads, recorded (a refused manifest must read none)."""
    read: list[str] = []
    real = ensemble.load_checkpoint

    def spy(path, *args, **kwargs):  # type: ignore[no-untyped-def]
        read.append(str(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(ensemble, "load_checkpoint", spy)  # the name load_ensemble calls
    return read


def test_the_same_member_path_twice_is_refused_before_loading(tmp_path: Path, nothing_loaded: list[str]) -> None:
    a = _member(tmp_path, "a.pt", 1)
    entry = {"path": "a.pt", "model_sha256": _digest(a)}
    for second in ("a.pt", "./a.pt", "sub/../a.pt"):
        manifest = _manifest(tmp_path, [entry, dict(entry, path=second)])
        with pytest.raises(CheckpointError, match=r"members 0 and 1 name the same file"):
            load_ensemble(manifest)
    assert nothing_loaded == []


def test_the_same_weights_under_two_paths_are_refused_before_loading(tmp_path: Path, nothing_loaded: list[str]) -> None:
    a = _member(tmp_path, "a.pt", 1)
    shutil.copy(a, tmp_path / "copy.pt")
    (tmp_path / "link.pt").symlink_to("a.pt")
    digest = _digest(a)
    manifest = _manifest(
        tmp_path, [{"path": "a.pt", "model_sha256": digest}, {"path": "copy.pt", "model_sha256": digest}]
    )
    with pytest.raises(CheckpointError, match=r"members 0 and 1 hold the same weights \(sha256 "):
        load_ensemble(manifest)
    # A link to a member is the same file, whatever digest the manifest claims for it.
    linked = _manifest(
        tmp_path, [{"path": "a.pt", "model_sha256": digest}, {"path": "link.pt", "model_sha256": "0" * 64}]
    )
    with pytest.raises(CheckpointError, match="name the same file"):
        load_ensemble(linked)
    assert nothing_loaded == []


def test_write_ensemble_refuses_a_repeated_member(tmp_path: Path) -> None:
    a, b = _member(tmp_path, "a.pt", 1), _member(tmp_path, "b.pt", 2)
    with pytest.raises(CheckpointError, match="name the same file"):
        write_ensemble(tmp_path / "twice.json", [a, a])
    shutil.copy(a, tmp_path / "copy.pt")
    with pytest.raises(CheckpointError, match="hold the same weights"):
        write_ensemble(tmp_path / "copy.json", [a, tmp_path / "copy.pt"])
    write_ensemble(tmp_path / "pair.json", [a, b])
    assert len(load_ensemble(tmp_path / "pair.json")) == 2


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("x" * 300 + ".pt", "has a name of 303 bytes"),
        ("a/" * 600 + "a.pt", "characters long; a path may have at most"),
        ("a\0.pt", "NUL"),
        ("", "non-empty path"),
        (5, "non-empty path"),
    ],
    ids=["long-name", "long-path", "nul", "empty", "int"],
)
def test_unusable_member_paths_are_named(tmp_path: Path, nothing_loaded: list[str], path: object, message: str) -> None:
    manifest = _manifest(tmp_path, [{"path": path, "model_sha256": "0" * 64}])
    with pytest.raises(CheckpointError, match=message):
        load_ensemble(manifest)
    assert nothing_loaded == []


def test_an_absurd_member_count_is_refused(tmp_path: Path, nothing_loaded: list[str]) -> None:
    members = [{"path": f"m{k}.pt", "model_sha256": f"{k:064x}"} for k in range(MAX_MEMBERS + 1)]
    with pytest.raises(CheckpointError, match=f"has {MAX_MEMBERS + 1} members; an ensemble has at most {MAX_MEMBERS}"):
        load_ensemble(_manifest(tmp_path, members))
    assert nothing_loaded == []


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"members": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested too deeply"),
        ('{"format": "rams_env.ensemble", "members": ' + "[" * 40 + "]" * 40 + "}", "nested too deeply"),
        ('{"description": "' + "x" * (2 * 1024 * 1024) + '"}', "larger than"),
    ],
    ids=["deep-recursion", "deep", "huge"],
)
def test_deep_or_huge_manifests_are_refused(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(CheckpointError, match=message):
        load_ensemble(path)


@pytest.mark.parametrize("kind", ["deep", "long-path", "twice"])
def test_rams_eval_of_a_hostile_manifest_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    a = _member(tmp_path, "a.pt", 1)
    entry = {"path": "a.pt", "model_sha256": _digest(a)}
    if kind == "deep":
        path = tmp_path / "ens.json"
        path.write_text("[" * 100_000 + "]" * 100_000)
    elif kind == "long-path":
        path = _manifest(tmp_path, [dict(entry, path="y" * 5000)])
    else:
        path = _manifest(tmp_path, [entry, entry])
    assert main(["eval", str(path), "--decks", "1", "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("rams eval: error:") and err.count("\n") == 1 and "Traceback" not in err, err
