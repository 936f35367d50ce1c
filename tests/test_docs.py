"""The README documents the observation layout exactly as the encoder builds it."""

import itertools
from pathlib import Path

from rams_env.encoding import OBS_SIZE, SLICES, layout_table

ROOT = Path(__file__).resolve().parents[1]


def test_readme_holds_the_current_layout_table():
    assert layout_table() in (ROOT / "README.md").read_text(encoding="utf-8")


def test_slices_tile_the_vector_without_gaps():
    edges = sorted((s.start, s.stop) for s in SLICES.values())
    assert edges[0][0] == 0 and edges[-1][1] == OBS_SIZE
    assert all(a[1] == b[0] for a, b in itertools.pairwise(edges))


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    command = 'pip install torch==2.13.0 -e ".[dev,sb3,rllib,torchrl,openspiel]" && python -m pytest -q'
    assert command in readme
    assert command in (ROOT / ".ci" / "run").read_text(encoding="utf-8")
