"""The environment card's layout table is the encoder's own slices, the docs use only directives the docs
extension defines, and CI runs exactly the README's test command."""

from __future__ import annotations

import importlib.util
import itertools
import os
import re
import shlex
import subprocess
from pathlib import Path
from typing import Any

from rams_env.obs import OBS_SIZE, SLICES, layout_table

ROOT = Path(__file__).resolve().parents[2]
DIRECTIVE = re.compile(r"^```\{(rams-[a-z-]+)\}", re.M)


def docs_directives() -> dict[str, Any]:
    """The directives the docs extension (docs/_ext/rams_docs.py) registers, by name."""
    spec = importlib.util.spec_from_file_location("rams_docs", ROOT / "docs" / "_ext" / "rams_docs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    directives: dict[str, Any] = {}

    class App:
        def add_directive(self, name: str, directive: Any) -> None:
            directives[name] = directive

        def connect(self, event: str, callback: Any) -> None:
            pass

    module.setup(App())
    return directives


def test_the_layout_table_gives_each_slice_its_indices_and_size():
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in layout_table().splitlines()[2:]]
    table = {row[0].strip("`*"): (row[1], int(row[2].strip("*"))) for row in rows}
    assert table.pop("total")[1] == OBS_SIZE
    assert table == {name: (f"{s.start}-{s.stop - 1}", s.stop - s.start) for name, s in SLICES.items()}


def test_the_environment_card_shows_the_layout_table_the_docs_extension_makes_from_the_encoder():
    directives = docs_directives()
    card = (ROOT / "docs" / "environment.md").read_text(encoding="utf-8")
    used = DIRECTIVE.findall(card)
    assert "rams-observation-table" in used and set(used) <= set(directives)
    assert directives["rams-observation-table"].make() == layout_table()


def test_every_generated_table_the_docs_use_is_one_the_extension_defines():
    directives = docs_directives()
    pages = [ROOT / "README.md", *(ROOT / "docs").glob("*.md")]
    used = {name for page in pages for name in DIRECTIVE.findall(page.read_text(encoding="utf-8"))}
    assert used and used <= set(directives)
    for name in used:
        assert directives[name].make().strip(), name  # each makes a table


def test_slices_tile_the_vector_without_gaps():
    edges = sorted((s.start, s.stop) for s in SLICES.values())
    assert edges[0][0] == 0 and edges[-1][1] == OBS_SIZE
    assert all(a[1] == b[0] for a, b in itertools.pairwise(edges))


def readme_test_command() -> list[list[str]]:
    """The README's test command (the line after "Install and run the tests"), as the commands it chains."""
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    at = next(i for i, line in enumerate(lines) if "Install and run the tests" in line)
    return [shlex.split(part) for part in lines[at + 1].split("&&")]


def test_ci_runs_the_readme_test_command(tmp_path: Path):
    # .ci/run with every program it calls replaced by a stub that logs its arguments: it must call exactly
    # the README's commands, in order (the browser is there, so nothing is installed for it).
    log = tmp_path / "calls"
    for program in ("pip", "python", "chromium", "chromedriver", "apt-get"):
        stub = tmp_path / program
        stub.write_text(f'#!/bin/sh\nprintf "%s\\n" "{program} $*" >> "{log}"\n')
        stub.chmod(0o755)
    env = {**os.environ, "PATH": f"{tmp_path}{os.pathsep}/usr/bin{os.pathsep}/bin"}
    subprocess.run(["bash", str(ROOT / ".ci" / "run")], env=env, check=True, timeout=60)
    calls = [shlex.split(line) for line in log.read_text().splitlines()]
    assert calls == readme_test_command()
