"""Files have one reader and one migration: ``torch.load`` is called in one module, always with
``weights_only=True`` (:func:`~rams_env.policy.checkpoint.read_plain`), and every model file of an older
encoder goes through :func:`~rams_env.policy.checkpoint.migrate_first_layer`."""

from __future__ import annotations

import ast
import io
from pathlib import Path

import pytest
import torch

from rams_env.obs.encoding import ENCODER_VERSION, OBS_SIZE
from rams_env.obs.layouts import LAYOUT_SIZES, migrate_inputs
from rams_env.policy import CheckpointError
from rams_env.policy.checkpoint import HOLDS_OBJECTS, migrate_first_layer, read_plain

ROOT = Path(__file__).resolve().parents[2]
READER = "rams_env/policy/checkpoint.py"


def _torch_loads() -> dict[str, list[ast.Call]]:
    """The ``torch.load(...)`` calls of rams_env/, training/ and benchmarks/, by module."""
    found: dict[str, list[ast.Call]] = {}
    for folder in ("rams_env", "training", "benchmarks"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                func = node.func if isinstance(node, ast.Call) else None
                if isinstance(func, ast.Attribute) and func.attr == "load" and getattr(func.value, "id", "") == "torch":
                    found.setdefault(path.relative_to(ROOT).as_posix(), []).append(node)
    return found


def test_torch_load_is_called_in_one_module_and_never_runs_code():
    calls = _torch_loads()
    assert READER in calls and set(calls) == {READER}, sorted(calls)
    for call in calls[READER]:
        weights_only = [k.value for k in call.keywords if k.arg == "weights_only"]
        assert len(weights_only) == 1 and isinstance(weights_only[0], ast.Constant) and weights_only[0].value is True


def test_bytes_read_as_the_file_does_and_a_refusal_opens_with_the_callers_words(tmp_path):
    torch.save({"w": torch.arange(3.0)}, tmp_path / "plain.pt")
    data = (tmp_path / "plain.pt").read_bytes()
    assert torch.equal(read_plain(data, "policy")["w"], read_plain(tmp_path / "plain.pt", "policy")["w"])
    with pytest.raises(CheckpointError, match=r"^'x\.zip': its entry is bad \(RuntimeError: "):
        read_plain(data[:100], "policy", "'x.zip': its entry is bad")


@pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore:'torch.load' received a zip file:UserWarning")
def test_a_torchscript_archive_is_refused_as_code_without_torchs_advice(tmp_path):
    torch.jit.save(torch.jit.script(torch.nn.Linear(2, 2)), tmp_path / "script.pt")
    for source in (tmp_path / "script.pt", (tmp_path / "script.pt").read_bytes()):
        with pytest.raises(CheckpointError) as info:
            read_plain(source, "checkpoint")
        assert HOLDS_OBJECTS in str(info.value) and "weights_only" not in str(info.value)


def test_a_pickled_object_is_refused_by_type_not_by_its_text(tmp_path):
    buffer = io.BytesIO()
    torch.save({"w": torch.nn.Linear(2, 2)}, buffer)  # a module object: weights_only refuses it
    with pytest.raises(CheckpointError, match="Python objects") as info:
        read_plain(buffer.getvalue(), "policy", "'m.zip': its policy.pth is damaged")
    assert "weights_only" not in str(info.value)


def _layer(version: int) -> torch.Tensor:
    return torch.randn(4, LAYOUT_SIZES[version], generator=torch.Generator().manual_seed(version))


def test_the_migration_of_a_file_that_records_its_version():
    old = _layer(2)
    header = {"encoder_version": 2, "obs_size": LAYOUT_SIZES[2]}
    assert torch.equal(migrate_first_layer(old, "f", header), migrate_inputs(old, 2))
    assert migrate_first_layer(torch.zeros(4, OBS_SIZE), "f", {"encoder_version": ENCODER_VERSION}) is None
    assert migrate_first_layer(old, "f", {**header, "obs_size": 7}) is None  # its version check refuses it
    assert migrate_first_layer(old, "f", {"encoder_version": [2]}) is None
    v1 = {"encoder_version": 1, "obs_size": LAYOUT_SIZES[1]}
    assert migrate_first_layer(_layer(1), "f", v1) is None  # not exact: a warm start only
    assert migrate_first_layer(_layer(1), "f", v1, warm_start=True).shape == (4, OBS_SIZE)
    with pytest.raises(CheckpointError, match=f"'f' is damaged: no first-layer weight of {LAYOUT_SIZES[2]} inputs"):
        migrate_first_layer(old[:, :-1], "f", header)
    with pytest.raises(CheckpointError, match="damaged"):
        migrate_first_layer(None, "f", header)


def test_the_migration_of_a_file_whose_width_tells_its_version():
    old = _layer(2)
    assert torch.equal(migrate_first_layer(old, "f"), migrate_inputs(old, 2))
    assert torch.equal(torch.from_numpy(migrate_first_layer(old.numpy(), "f")), migrate_inputs(old, 2))
    assert migrate_first_layer(torch.zeros(4, OBS_SIZE), "f") is None
    assert migrate_first_layer(torch.zeros(4, 7), "f") is None  # the caller's shape check names it
    with pytest.raises(CheckpointError, match="'f' was trained on observations of encoder version 1 "):
        migrate_first_layer(_layer(1), "f")
