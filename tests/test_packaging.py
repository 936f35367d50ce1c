"""How the package installs and imports: under ``python -OO`` (no docstrings), and the wheel of the multi-node
instructions (docs/integrations.md, "On several machines"), built here, holding both packages: ``rams_env``
and the folder ``training/`` as ``rams_training``."""

from __future__ import annotations

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


@pytest.mark.slow
def test_the_wheel_of_the_multi_node_instructions_builds_and_holds_both_packages(tmp_path: Path) -> None:
    import shutil
    import zipfile

    # Built from a copy, so that the build leaves nothing (build/, egg-info) in the checkout.
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info", "*.nbi", "*.nbc")
    for package in ("rams_env", "training"):
        shutil.copytree(ROOT / package, src / package, ignore=ignore)
    dist = tmp_path / "dist"
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w", str(dist), str(src)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    [wheel] = dist.glob("rams_env-*.whl")
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
    assert not any(n.startswith("training/") for n in names)  # no top-level package of a generic name
    assert "rams = rams_env.apps.cli:main" in entry_text and "train = rams_training.cli:COMMAND" in entry_text
    assert "Provides-Extra: rllib" in metadata_text and "Provides-Extra: train" in metadata_text


def test_the_multi_node_instructions_install_a_wheel_built_here_not_an_unpublished_package() -> None:
    import re

    readme = (ROOT / "docs" / "integrations.md").read_text(encoding="utf-8")
    start = readme.index("On several machines")
    block = re.search(r"```bash\n(.*?)```", readme[start:], re.DOTALL).group(1)
    assert "pip wheel --no-deps" in block
    installs = [line for line in block.splitlines() if re.match(r"\s*pip install", line)]
    assert installs and all("rams_env[" not in line.split("#")[0] or ".whl" in line for line in installs), installs
