"""The shards (training/shards.py): the one collector, stopped and resumed, writes the files of a collection never
stopped; shards read back are checked: a damaged or truncated file is named in one line, a resumed run collects it
again and says so, and the training never reads it."""

from __future__ import annotations

import time
import zipfile
from functools import partial
from types import SimpleNamespace

import numpy as np
import pytest

from rams_env.obs.encoding import OBS_SIZE
from rams_env.policy.checkpoint import write_atomically
from rams_env.rules.actions import NUM_ACTIONS
from rams_training import beliefs, distill, improve
from rams_training.shards import (
    DISTILL_SHARD,
    IMPROVE_SHARD,
    SHARD,
    DamagedFileError,
    collect_shards,
    read_shard,
    shard_seed,
    write_shard,
)


def damage(path, at: float = 0.5, size: int = 8) -> None:
    """Overwrite ``size`` bytes of the file at ``path`` in place, at a share ``at`` of its length."""
    data = bytearray(path.read_bytes())
    start = int(len(data) * at)
    data[start : start + size] = bytes(b ^ 0xFF for b in data[start : start + size])
    path.write_bytes(bytes(data))


def distill_shard(rows: int = 5, seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    mask = np.ones((rows, NUM_ACTIONS), bool)
    return {
        "observation": rng.random((rows, OBS_SIZE)).astype(np.float32),
        "mask": mask,
        "expert": rng.integers(0, NUM_ACTIONS, rows),
        "student": rng.integers(0, NUM_ACTIONS, rows),
    }


def test_a_whole_shard_reads_back(tmp_path):
    path = tmp_path / "shard-00000.npz"
    write_shard(path, distill_shard())
    data = read_shard(path, DISTILL_SHARD)
    assert data["observation"].shape == (5, OBS_SIZE)


@pytest.mark.parametrize("at", [0.3, 0.5, 0.8])
def test_overwritten_bytes_are_named(tmp_path, at):
    path = tmp_path / "shard-00000.npz"
    write_shard(path, distill_shard(50))
    damage(path, at)
    with pytest.raises(DamagedFileError, match=r"shard-00000\.npz: damaged") as err:
        read_shard(path, DISTILL_SHARD)
    assert "\n" not in str(err.value) and "again" in str(err.value)


def test_a_truncated_shard_is_named(tmp_path):
    path = tmp_path / "shard-00000.npz"
    write_shard(path, distill_shard())
    path.write_bytes(path.read_bytes()[:300])
    with pytest.raises(DamagedFileError, match=r"shard-00000\.npz: damaged or truncated"):
        read_shard(path, DISTILL_SHARD)
    path.write_bytes(b"")
    with pytest.raises(DamagedFileError, match="truncated"):
        read_shard(path, DISTILL_SHARD)


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda s: s.pop("expert"), "no expert"),
        (lambda s: s.update(student=s["student"][:3]), "student has 3 rows"),
        (lambda s: s.update(expert=s["expert"] + NUM_ACTIONS), "action id outside"),
        (lambda s: s.update(mask=s["mask"][:, :10]), "mask has 10 columns"),
        (lambda s: s.update(observation=s["observation"].astype(np.int64)), "observation is int64"),
        (lambda s: s.update(expert=np.array(["x"] * 5)), "expert is <U1"),
    ],
)
def test_foreign_or_inconsistent_arrays_are_named(tmp_path, change, message):
    shard = distill_shard()
    change(shard)
    path = tmp_path / "shard-00000.npz"
    np.savez(path, **shard)
    with pytest.raises(DamagedFileError, match=message):
        read_shard(path, DISTILL_SHARD)


def test_a_pickled_array_is_refused_not_unpickled(tmp_path):
    shard = distill_shard()
    shard["expert"] = np.array([object()] * 5, dtype=object)
    path = tmp_path / "shard-00000.npz"
    np.savez(path, **shard)
    with pytest.raises(DamagedFileError, match=r"shard-00000\.npz"):
        read_shard(path, DISTILL_SHARD)


def test_distill_reads_no_damaged_shard(tmp_path):
    for k in range(2):
        write_shard(tmp_path / SHARD.format(k), distill_shard(50))
    damage(tmp_path / SHARD.format(1))
    with pytest.raises(DamagedFileError, match=r"shard-00001\.npz"):
        distill.read_shards(tmp_path)


def test_improve_names_a_damaged_shard_and_a_resume_collects_it_again(tmp_path, capsys):
    argv = ["--variant", "rams32", "--ramsar", "4", "--shard", "2", "--epochs", "1", "--hidden", "8"]
    argv += ["--out", str(tmp_path), "--collect-only"]
    assert improve.main(argv) == 0
    data_dir = tmp_path / "data"
    shards = sorted(data_dir.glob("shard-*.npz"))
    assert len(shards) == 2
    whole = read_shard(shards[1], IMPROVE_SHARD)
    damage(shards[1])
    # The training reads every shard checked: one line naming the file, no traceback, no training.
    with pytest.raises(SystemExit) as stop:
        improve.read_shards(data_dir)
    message = str(stop.value.code)
    assert message.startswith(f"{shards[1]}: damaged") and "\n" not in message and "again" in message
    # The same command again (a resume) sets the damaged shard aside, says so, and collects it again.
    before = shards[0].stat().st_mtime_ns
    capsys.readouterr()
    assert improve.main(argv[:-1]) == 0
    err = capsys.readouterr().err
    assert f"{shards[1]}: damaged" in err and "collecting it again" in err
    assert (data_dir / "shard-00001.npz.damaged").exists()
    assert shards[0].stat().st_mtime_ns == before  # the whole shard is kept
    again = read_shard(shards[1], IMPROVE_SHARD)
    assert all(np.array_equal(again[k], whole[k], equal_nan=k == "q") for k in whole)  # seeded: the same data
    assert (tmp_path / "improved.pt").exists()


def test_a_run_folder_of_another_encoder_version_is_refused_on_resume(tmp_path):
    """Shards of two observation layouts pack to the same width, so the folder records the encoder version and a
    resume with another one (or a folder from before the version was recorded) is refused by name."""
    import json
    from types import SimpleNamespace

    from rams_env.obs.encoding import ENCODER_VERSION
    from rams_training.shards import COLLECTION, check_collection

    args = SimpleNamespace(variant="mattmar", seed=1)
    check_collection(tmp_path, args, ("variant", "seed"))
    recorded = json.loads((tmp_path / COLLECTION).read_text())
    assert recorded["encoder_version"] == str(ENCODER_VERSION)
    check_collection(tmp_path, args, ("variant", "seed"))  # the same: resumes
    (tmp_path / COLLECTION).write_text(json.dumps({"variant": "mattmar", "seed": "1"}))  # an older folder
    with pytest.raises(SystemExit, match="encoder_version"):
        check_collection(tmp_path, args, ("variant", "seed"))


@pytest.fixture
def still_clock(monkeypatch):
    """Every zip member stamped with one time: a shard's bytes then depend on its arrays alone (np.savez stamps
    each member with the clock, so two collections of the same arrays differ in those bytes only)."""
    monkeypatch.setattr(zipfile, "time", SimpleNamespace(time=lambda: 1_500_000_000.0, localtime=time.localtime))


def files(folder) -> dict[str, bytes]:
    """Every file of ``folder`` (temporary files of an interrupted write included), by name."""
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


class Stop(BaseException):
    """An interruption (as Ctrl-C's KeyboardInterrupt: not an Exception)."""


@pytest.mark.parametrize("k", [0, 2, 4])
def test_a_collection_stopped_after_k_shards_and_resumed_writes_the_same_files(tmp_path, still_clock, k):
    args, keys, shards = SimpleNamespace(seed=11, variant="mattmar"), ("variant", "seed"), 5
    collect = partial(distill_shard, 7)  # a shard of 7 rows drawn from its seed
    collect_shards(tmp_path / "whole", args, keys, DISTILL_SHARD, shards, collect)
    whole = files(tmp_path / "whole")
    assert sorted(whole) == ["collection.json", *(SHARD.format(j) for j in range(shards))]

    def stopping(seed):  # stops the collection as its shard k is being collected
        if seed == shard_seed(args.seed, k):
            raise Stop
        return collect(seed)

    stopped = tmp_path / "stopped"
    with pytest.raises(Stop):
        collect_shards(stopped, args, keys, DISTILL_SHARD, shards, stopping)
    assert sorted(files(stopped)) == ["collection.json", *(SHARD.format(j) for j in range(k))]
    seeds: list[int] = []
    collect_shards(stopped, args, keys, DISTILL_SHARD, shards, lambda seed: seeds.append(seed) or collect(seed))
    assert seeds == [shard_seed(args.seed, j) for j in range(k, shards)], "only the missing shards are collected"
    assert files(stopped) == whole


def test_a_collection_stopped_inside_a_write_leaves_no_part_and_resumes_to_the_same_files(tmp_path, still_clock):
    args, keys = SimpleNamespace(seed=3), ("seed",)
    collect = partial(distill_shard, 7)  # a shard of 7 rows drawn from its seed
    collect_shards(tmp_path / "whole", args, keys, DISTILL_SHARD, 3, collect)

    def half_written(path, shard):  # the atomic write is stopped midway through shard 1
        if path.name == SHARD.format(1):
            write_atomically(path, half)
        else:
            write_shard(path, shard)

    def half(f):
        f.write(b"PK half a shard")
        raise Stop

    with pytest.raises(Stop):
        collect_shards(tmp_path / "stopped", args, keys, DISTILL_SHARD, 3, collect, write=half_written)
    assert sorted(files(tmp_path / "stopped")) == ["collection.json", SHARD.format(0)]  # no part, no temporary
    collect_shards(tmp_path / "stopped", args, keys, DISTILL_SHARD, 3, collect)
    assert files(tmp_path / "stopped") == files(tmp_path / "whole")


SCRIPTS = {  # each collecting script: its module, the function a stop is put into, a tiny command line
    "improve": (improve, "collect_run_shard", "--variant rams32 --ramsar 5 --shard 2 --collect-only"),
    "distill": (
        distill,
        "collect_shard",
        "--student mattmar-4p --variant mattmar --expert heuristic --decisions 30 --shard 10 --epochs 1",
    ),
    "beliefs": (
        beliefs,
        "collect_shard",
        "--variant russian --decisions 30 --shard 10 --hidden 8 --batch 16 --epochs 1",
    ),
}


@pytest.mark.parametrize("script", SCRIPTS)
def test_each_script_stopped_and_run_again_writes_the_shards_of_a_run_never_stopped(
    tmp_path, still_clock, monkeypatch, script
):
    module, name, line = SCRIPTS[script]
    argv = line.split()
    assert module.main([*argv, "--out", str(tmp_path / "whole")]) == 0
    real, calls = getattr(module, name), []

    def stopping(*args, **kwargs):  # stops the run as its second shard is being collected
        if len(calls) == 1:
            raise Stop
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, stopping)
    with pytest.raises(Stop):
        module.main([*argv, "--out", str(tmp_path / "stopped")])
    assert sorted((tmp_path / "stopped" / "data").glob("shard-*")) == [tmp_path / "stopped" / "data" / SHARD.format(0)]
    monkeypatch.setattr(module, name, real)
    assert module.main([*argv, "--out", str(tmp_path / "stopped")]) == 0
    assert files(tmp_path / "stopped" / "data") == files(tmp_path / "whole" / "data")
