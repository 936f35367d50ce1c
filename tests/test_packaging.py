"""How the package installs and imports: under ``python -OO`` (no docstrings), and the wheel of the multi-node
instructions (docs/integrations.md, "On several machines"), built here, holding both packages: ``rams_env``
and the folder ``training/`` as ``rams_training``, and the model zoo, which loads from it in a fresh
environment."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_import_works_without_docstrings():
    """Issue 13 item 14: ``python -OO`` strips docstrings; importing must not format a None."""
    done = subprocess.run(
        [sys.executable, "-OO", "-c", "import rams_env, rams_env.obs.encoding"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]


def _source_files(package: str) -> set[str]:
    return {p.relative_to(ROOT).as_posix() for p in (ROOT / package).rglob("*.py") if "__pycache__" not in p.parts}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel of ``pip wheel --no-deps -w dist .``, built from a copy of this checkout (so that the build
    leaves nothing, build/ or egg-info, in it): the packages, the files pyproject.toml names and the zoo."""
    import shutil

    tmp_path = tmp_path_factory.mktemp("wheel")
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, src / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info", "*.nbi", "*.nbc")
    for folder in ("rams_env", "training", "checkpoints"):
        shutil.copytree(ROOT / folder, src / folder, ignore=ignore)
    dist = tmp_path / "dist"
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w", str(dist), str(src)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    [found] = dist.glob("rams_env-*.whl")
    return found


@pytest.mark.slow
def test_the_wheel_of_the_multi_node_instructions_builds_and_holds_both_packages(wheel: Path) -> None:
    import zipfile

    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        [entry_points] = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
        [metadata] = [n for n in names if n.endswith(".dist-info/METADATA")]
        entry_text = archive.read(entry_points).decode()
        metadata_text = archive.read(metadata).decode()
    for package, installed in (("rams_env", "rams_env"), ("training", "rams_training")):
        missing = {installed + name.removeprefix(package) for name in _source_files(package)} - names
        assert not missing, f"the wheel lacks {sorted(missing)[:5]}"
    assert "rams_env/integrations/rllib.py" in names and "rams_training/cli.py" in names
    assert not any(n.startswith(("training/", "checkpoints/")) for n in names)  # no top-level folder of a generic name
    assert "rams = rams_env.apps.cli:main" in entry_text and "train = rams_training.cli:COMMAND" in entry_text
    assert "Provides-Extra: rllib" in metadata_text and "Provides-Extra: train" in metadata_text


def _fresh_env(folder: Path, wheel: Path) -> tuple[Path, dict[str, str]]:
    """A new virtual environment with the wheel installed in it (``pip install --no-deps``), its Python and
    the environment to run it in. The dependencies (numpy, torch...) are this interpreter's site-packages on
    PYTHONPATH: rams_env is not importable from there (its editable install is a .pth hook, which a folder on
    PYTHONPATH does not run), so ``import rams_env`` finds the wheel's."""
    import sysconfig
    import venv

    venv.create(folder, with_pip=False)
    python = folder / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")
    installed = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index", str(wheel)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert installed.returncode == 0, installed.stdout[-2000:] + installed.stderr[-2000:]
    deps = os.pathsep.join(dict.fromkeys(sysconfig.get_paths()[key] for key in ("purelib", "platlib")))
    return python, {**os.environ, "PYTHONPATH": deps, "OMP_NUM_THREADS": "1", "RAMS_ZOO": ""}


def _run(python: Path, code: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(python), "-c", code], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_the_wheel_carries_the_zoo_and_load_agent_works_from_a_fresh_environment(wheel: Path, tmp_path: Path) -> None:
    """checkpoints/ stays the zoo's home here; the wheel carries it as ``rams_env/zoo_data/``."""
    import zipfile

    checkpoints = ROOT / "checkpoints"
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    zoo_files = {p.relative_to(checkpoints).as_posix() for p in checkpoints.rglob("*") if p.is_file()}
    assert any(name.endswith(".pt") for name in zoo_files)
    missing = {"rams_env/zoo_data/" + name for name in zoo_files} - names
    assert not missing, f"the wheel lacks {sorted(missing)[:5]}"
    python, env = _fresh_env(tmp_path / "venv", wheel)
    where = _run(
        python, "import rams_env.zoo as z; print(z.__file__, z.zoo_root(), z.resolve('mattmar').path)", tmp_path, env
    )
    assert where.returncode == 0, where.stderr[-2000:]
    module, root, path = (Path(p) for p in where.stdout.split())
    site = module.parents[1]
    assert site.is_relative_to(tmp_path / "venv") and root == site / "rams_env" / "zoo_data"
    assert path.is_relative_to(root)
    load = "from rams_env.agents import load_agent; a = load_agent('mattmar'); print(a.variant, len(a.nets))"
    loaded = _run(python, load, tmp_path, env)
    assert loaded.returncode == 0, loaded.stderr[-2000:]
    assert loaded.stdout.split() == ["mattmar", "2"]
    search = "from rams_env.agents import load_agent; a = load_agent('mattmar-search'); print(type(a).__name__)"
    named = _run(python, search, tmp_path, env)  # a named agent of the zoo: its file and its networks from the wheel
    assert named.returncode == 0, named.stderr[-2000:]
    assert named.stdout.split() == ["SearchAgent"]
    elsewhere = tmp_path / "empty-zoo"  # RAMS_ZOO still comes first
    elsewhere.mkdir()
    missing_zoo = _run(python, load, tmp_path, {**env, "RAMS_ZOO": str(elsewhere)})
    assert (
        missing_zoo.returncode != 0 and f"no model zoo found to resolve 'mattmar' ({elsewhere})" in missing_zoo.stderr
    )


def test_the_multi_node_instructions_install_a_wheel_built_here_not_an_unpublished_package() -> None:
    import re

    readme = (ROOT / "docs" / "integrations.md").read_text(encoding="utf-8")
    start = readme.index("On several machines")
    block = re.search(r"```bash\n(.*?)```", readme[start:], re.DOTALL).group(1)
    assert "pip wheel --no-deps" in block
    installs = [line for line in block.splitlines() if re.match(r"\s*pip install", line)]
    assert installs and all("rams_env[" not in line.split("#")[0] or ".whl" in line for line in installs), installs
