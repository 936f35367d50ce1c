"""The equity data read back is checked: a damaged ``equity.json`` (shipped, or kept by ``fit_equity --only``)
is one error naming the file and how to make it again."""

from __future__ import annotations

import json
import types
from pathlib import Path

import pytest

from rams_env import equity, make_config
from rams_training import fit_equity


@pytest.fixture
def shipped(tmp_path, monkeypatch):
    """Point the equity model at ``tmp_path/data/equity.json``; returns that path (caches cleared around)."""
    folder = tmp_path / "data"
    folder.mkdir()
    monkeypatch.setattr(equity, "resources", types.SimpleNamespace(files=lambda package: tmp_path))
    equity._load.cache_clear()
    equity.parameters.cache_clear()
    yield folder / equity.DATA_FILE
    equity._load.cache_clear()
    equity.parameters.cache_clear()


def good_data() -> dict:
    return json.loads((Path(equity.__file__).parent / "data" / equity.DATA_FILE).read_text())


@pytest.mark.parametrize(
    "damage, message",
    [
        (lambda text, data: text[: len(text) // 2], "is not JSON"),
        (lambda text, data: b"\xff\xfe" + text, "not UTF-8"),
        (lambda text, data: b"[]", "is not equity data"),
        (lambda text, data: json.dumps({**data, "format": 99}).encode(), "has format 99"),
    ],
)
def test_a_damaged_file_is_named(shipped, damage, message):
    data = good_data()
    text = json.dumps(data).encode()
    shipped.write_bytes(damage(text, data))
    with pytest.raises(ValueError, match=message) as err:
        equity.equity(make_config("mattmar", 4), [10, 10, 10, 10], 0)
    assert "equity.json" in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda m: m.update(table="x"), "is damaged"),
        (lambda m: m.pop("position"), "is damaged"),
        (lambda m: m.update(table=[row[:-1] for row in m["table"]]), "is damaged"),
        (lambda m: m.update(table=m["table"][:-1]), "is damaged"),
        (lambda m: m.update(position=[*m["position"], 0.0]), "wrong size"),
    ],
)
def test_a_damaged_model_is_named(shipped, change, message):
    data = good_data()
    change(data["models"]["mattmar-4p"])
    shipped.write_text(json.dumps(data))
    with pytest.raises(ValueError, match=message) as err:
        equity.equity(make_config("mattmar", 4), [10, 10, 10, 10], 0)
    assert "'mattmar-4p'" in str(err.value) and "fit_equity" in str(err.value)


def test_fit_equity_only_refuses_a_damaged_kept_file(tmp_path):
    path = tmp_path / "equity.json"
    path.write_text('{"models": {"mattmar-4p"')
    with pytest.raises(SystemExit, match=r"equity\.json is not JSON.*without --only"):
        fit_equity.kept_models(path)
    path.write_text("[1]")
    with pytest.raises(SystemExit, match="holds no models"):
        fit_equity.kept_models(path)
