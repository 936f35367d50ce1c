"""The model zoo (``rams_env.zoo``): every name loads, from any working directory and from an installed
package; unknown names and old flat paths fail with a message naming what to use; the command line and
the web page take the names."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from rams_env import zoo
from rams_env.agents import load_agent
from rams_env.eval import agent_source
from rams_env.policy import load_ensemble, model_digest
from rams_env.rules import make_config
from rams_env.rules.config import PRESETS

ROOT = Path(__file__).resolve().parents[1]
CHECKPOINTS = ROOT / "checkpoints"
MODELS = sorted(p.name for p in CHECKPOINTS.glob("*/*/") if p.is_dir() and not p.name.endswith(("-beliefs", "-search")))
BELIEFS = sorted(p.name for p in CHECKPOINTS.glob("*/*/") if p.is_dir() and p.name.endswith("-beliefs"))


@pytest.fixture(autouse=True)
def one_torch_thread(monkeypatch: pytest.MonkeyPatch):
    """One torch thread; the registry's own zoo (no RAMS_ZOO from the caller's shell)."""
    monkeypatch.delenv(zoo.ZOO_ENV, raising=False)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def test_every_folder_of_the_zoo_is_a_model_and_every_preset_has_a_flagship():
    assert zoo.zoo_root() == CHECKPOINTS
    assert sorted(zoo.models()) == MODELS and len(MODELS) == 15
    assert sorted(zoo.belief_models()) == BELIEFS == sorted(f"{p}-beliefs" for p in PRESETS)
    assert sorted(zoo.named_agents()) == sorted(f"{p}-search" for p in PRESETS)  # tests/test_zoo_search.py
    for name, model in zoo.models().items():
        assert model.folder == CHECKPOINTS / model.preset / name and model.preset in PRESETS
        assert model.path.is_file() and model.card.is_file()
    assert sorted(zoo.FLAGSHIPS) == sorted(PRESETS)
    assert set(zoo.FLAGSHIPS.values()) <= set(MODELS)


@pytest.mark.parametrize("name", [*sorted(PRESETS), *MODELS])
def test_every_zoo_name_loads_for_its_preset(name):
    model = zoo.resolve(name)
    agent = load_agent(name)
    assert agent.variant == model.preset == name.split("-")[0]
    assert agent.num_players == 4
    assert type(agent).__name__ == ("EnsembleAgent" if model.ensemble else "PolicyAgent")


def test_a_preset_name_gives_its_flagship():
    for preset, flagship in zoo.FLAGSHIPS.items():
        assert zoo.resolve(preset) == zoo.resolve(flagship)
    assert zoo.resolve("mattmar").path == CHECKPOINTS / "mattmar" / "mattmar-4p-ensemble" / "mattmar-4p-ensemble.json"
    assert zoo.resolve("rams32").path == CHECKPOINTS / "rams32" / "rams32-4p" / "rams32-4p.pt"


def test_an_unknown_name_lists_the_known_ones():
    with pytest.raises(zoo.ZooError) as caught:
        load_agent("mattmar-9p")
    message = str(caught.value)
    assert "unknown model 'mattmar-9p'" in message
    assert all(name in message for name in [*PRESETS, *MODELS])
    with pytest.raises(ValueError, match=r"unknown agent 'mattmar-9p'.*Zoo names: mattmar, norrlandsknack"):
        agent_source("mattmar-9p")


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("checkpoints/mattmar-4p.pt", "checkpoints/mattmar/mattmar-4p/mattmar-4p.pt"),
        ("checkpoints/russian-4p-ensemble.json", "checkpoints/russian/russian-4p-ensemble/russian-4p-ensemble.json"),
        ("checkpoints/rams32-3to6p.md", "checkpoints/rams32/rams32-3to6p/README.md"),
    ],
)
def test_an_old_flat_path_fails_naming_the_new_one(old, new, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(ROOT)
    name = Path(old).stem
    with pytest.raises(zoo.ZooError, match="old flat layout") as caught:
        zoo.locate(old)
    assert f"use the name {name!r}" in str(caught.value) and new in str(caught.value)
    if old.endswith((".pt", ".json")):
        with pytest.raises(ValueError, match=f"use the name {name!r}"):
            load_agent(old)
        with pytest.raises(ValueError, match=f"agent {old!r}: .*{new}"):
            agent_source(old)


def test_paths_still_load_as_paths_and_other_missing_files_say_so(tmp_path: Path):
    path = CHECKPOINTS / "mattmar" / "mattmar-4p" / "mattmar-4p.pt"
    assert zoo.locate(path) == path and load_agent(path).variant == "mattmar"
    assert zoo.locate(str(tmp_path / "nothing.pt")) == str(tmp_path / "nothing.pt")  # load_agent's own message
    with pytest.raises(ValueError, match="no checkpoint file at that path"):
        agent_source("checkpoints/missing.pt")


def test_ensemble_manifests_name_their_members_by_relative_path_and_digest():
    for manifest in sorted(CHECKPOINTS.glob("*/*/*-ensemble.json")):
        data = json.loads(manifest.read_text())
        for member in data["members"]:
            assert member["path"].startswith("../") and not Path(member["path"]).is_absolute()
            target = (manifest.parent / member["path"]).resolve()
            assert target.parent.parent == manifest.parent.parent  # a model of the same preset
            assert model_digest(torch.load(target, weights_only=True)["model"]) == member["model_sha256"]
        assert len(load_ensemble(manifest, make_config(manifest.parent.parent.name, 4))) == len(data["members"])


def _python(code: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "OMP_NUM_THREADS": "1", **env}
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


LOAD = "from rams_env.agents import load_agent; a = load_agent('mattmar'); print(a.variant, len(a.nets))"


@pytest.mark.slow
def test_names_resolve_from_any_working_directory(tmp_path: Path):
    done = _python(LOAD, tmp_path, {"PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["mattmar", "2"]


def test_the_zoo_of_an_installed_wheel_comes_after_rams_zoo_and_before_a_checkout(tmp_path, monkeypatch):
    """An installed wheel carries the zoo as rams_env/zoo_data/ (tests/test_packaging.py builds and installs one)."""
    wheel_zoo = tmp_path / "zoo_data"
    shutil.copytree(CHECKPOINTS / "rams32", wheel_zoo / "rams32")
    monkeypatch.setattr(zoo, "WHEEL_ZOO", wheel_zoo)
    assert zoo.zoo_root() == wheel_zoo and zoo.resolve("rams32").folder.is_relative_to(wheel_zoo)
    monkeypatch.setenv(zoo.ZOO_ENV, str(CHECKPOINTS))
    assert zoo.zoo_root() == CHECKPOINTS


def test_without_any_zoo_a_name_says_to_set_rams_zoo(tmp_path, monkeypatch):
    monkeypatch.setattr(zoo, "WHEEL_ZOO", tmp_path / "no-wheel-zoo")
    monkeypatch.setattr(zoo, "SOURCE_ZOO", tmp_path / "no-checkpoints")
    assert zoo.zoo_root() is None
    with pytest.raises(zoo.ZooError, match=r"no model zoo found to resolve 'mattmar' .*set RAMS_ZOO"):
        zoo.resolve("mattmar")


@pytest.mark.slow
def test_rams_eval_and_play_take_zoo_names(tmp_path: Path):
    rams = [sys.executable, "-m", "rams_env.apps.cli"]
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(ROOT)}
    evaluated = subprocess.run(
        [*rams, "eval", "rams32", "--variant", "rams32", "--baseline", "random", "--decks", "1", "--no-progress"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert evaluated.returncode == 0, evaluated.stderr
    assert "rams32" in evaluated.stdout
    played = subprocess.run(
        [*rams, "play", "--seat", "0", "--agents", "mattmar-4p", "mattmar", "heuristic", "--seed", "3"],
        cwd=tmp_path,
        env=env,
        input="knock\n" + "1\n" * 60,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert played.returncode == 0, played.stderr
    wrong = subprocess.run(
        [*rams, "eval", "mattmar-9p", "--decks", "1"], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert wrong.returncode != 0 and "Zoo names: mattmar" in wrong.stderr


def test_rams_serve_suggests_zoo_names_and_seats_them():
    from rams_env.apps.serve.app import create_app
    from rams_env.apps.serve.state import ServeState

    state = ServeState(checkpoint_dir=CHECKPOINTS)
    suggestions = state.agent_suggestions()
    assert suggestions[4 : 4 + len(PRESETS)] == list(zoo.FLAGSHIPS)
    assert set(MODELS) <= set(suggestions) and not any(s.endswith(".pt") for s in suggestions)
    client = create_app(state).test_client()
    body = {"variant": "russian", "seed": 1, "agents": ["russian", "russian-4p", "heuristic"]}
    created = client.post("/api/games", json=body, headers={"Host": "127.0.0.1"})
    assert created.status_code == 201, created.get_json()
    assert created.get_json()["seats"] == ["you", "russian", "russian-4p", "heuristic"]
    refused = client.post("/api/games", json={"agents": ["russian-9p"]}, headers={"Host": "127.0.0.1"})
    assert refused.status_code == 400 and "Zoo names: mattmar" in refused.get_json()["error"]
