"""Shards read back are checked (training/shards.py): a damaged or truncated file is named in one line,
a resumed run collects it again and says so, and the training never reads it."""

from __future__ import annotations

import numpy as np
import pytest

from rams_env.obs.encoding import OBS_SIZE
from rams_env.rules.actions import NUM_ACTIONS
from rams_training import distill, improve
from rams_training.shards import DISTILL_SHARD, IMPROVE_SHARD, DamagedFileError, read_shard


def damage(path, at: float = 0.5, size: int = 8) -> None:
    """Overwrite ``size`` bytes of the file at ``path`` in place, at a share ``at`` of its length."""
    data = bytearray(path.read_bytes())
    start = int(len(data) * at)
    data[start : start + size] = bytes(b ^ 0xFF for b in data[start : start + size])
    path.write_bytes(bytes(data))


def distill_shard(rows: int = 5) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    mask = np.ones((rows, NUM_ACTIONS), bool)
    return {
        "observation": rng.random((rows, OBS_SIZE)).astype(np.float32),
        "mask": mask,
        "expert": rng.integers(0, NUM_ACTIONS, rows),
        "student": rng.integers(0, NUM_ACTIONS, rows),
    }


def test_a_whole_shard_reads_back(tmp_path):
    path = tmp_path / "shard-00000.npz"
    distill.write_shard(path, distill_shard())
    data = read_shard(path, DISTILL_SHARD)
    assert data["observation"].shape == (5, OBS_SIZE)


@pytest.mark.parametrize("at", [0.3, 0.5, 0.8])
def test_overwritten_bytes_are_named(tmp_path, at):
    path = tmp_path / "shard-00000.npz"
    distill.write_shard(path, distill_shard(50))
    damage(path, at)
    with pytest.raises(DamagedFileError, match=r"shard-00000\.npz: damaged") as err:
        read_shard(path, DISTILL_SHARD)
    assert "\n" not in str(err.value) and "again" in str(err.value)


def test_a_truncated_shard_is_named(tmp_path):
    path = tmp_path / "shard-00000.npz"
    distill.write_shard(path, distill_shard())
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
        distill.write_shard(tmp_path / distill.SHARD.format(k), distill_shard(50))
    damage(tmp_path / distill.SHARD.format(1))
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
