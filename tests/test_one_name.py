"""The training package has one name, ``rams_training`` (pyproject.toml): nothing imports or runs it as
``training``, and from a checkout ``rams_training`` is the folder ``training/``."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CODE_FOLDERS = ("tests", "benchmarks", "examples", "training", "rams_env", "docs")
# in Markdown: an import, a python -m, or a dotted name in code (`training.export`, ``training.x``)
OLD_NAME = re.compile(r"(?:\b(?:from|import)\s+training\b|python -m training\.|[`~]training\.[a-z_])")


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append(node.module)
    return found


def test_no_python_file_imports_training_by_its_folder_name() -> None:
    files = [p for folder in CODE_FOLDERS for p in (ROOT / folder).rglob("*.py")]
    assert len(files) > 100
    bad = [
        f"{path.relative_to(ROOT)}: {name}"
        for path in files
        for name in _imports(path)
        if name == "training" or name.startswith("training.")
    ]
    assert not bad, bad


def test_no_document_names_the_training_package_by_its_folder_name() -> None:
    pages = [ROOT / "README.md", *(ROOT / "docs").rglob("*.md"), *(ROOT / "checkpoints").rglob("*.md")]
    pages += [*(ROOT / "docs").rglob("*.rst")]
    bad = [
        f"{page.relative_to(ROOT)}:{number}: {line.strip()}"
        for page in pages
        for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1)
        if OLD_NAME.search(line)
    ]
    assert not bad, bad
    assert OLD_NAME.search("python -m training.improve") and OLD_NAME.search("`training.export`")
    assert not OLD_NAME.search("python -m rams_training.improve") and not OLD_NAME.search("training.reset()")


@pytest.mark.parametrize("module", ["rams_training", "rams_training.rollout"])
def test_from_a_checkout_rams_training_is_the_folder(module: str) -> None:
    code = f"import {module} as m; print(m.__file__)"
    found = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert found.returncode == 0, found.stderr[-2000:]
    expected = ROOT / "training" / ("__init__.py" if module == "rams_training" else "rollout.py")
    assert Path(found.stdout.strip()).resolve() == expected


def test_the_folder_name_refuses_to_import() -> None:
    """From the checkout's root ``training`` is on the path too; importing it by that name says which to use."""
    found = subprocess.run(
        [sys.executable, "-c", "import training"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert found.returncode == 1 and "import rams_training" in found.stderr


def test_numba_caches_gae() -> None:
    """The one compiled function of the training package is cached (it has one module name)."""
    from rams_training.rollout import gae

    assert gae._cache.__class__.__name__ != "NullCache"
