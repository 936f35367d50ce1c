"""The environment card documents the observation layout exactly as the encoder builds it, and CI runs the
README's test command."""

import itertools
from pathlib import Path

from rams_env.obs import OBS_SIZE, SLICES, layout_table

ROOT = Path(__file__).resolve().parents[2]


def test_the_environment_card_generates_its_layout_table_from_the_encoder():
    # The docs extension turns the directive into layout_table() at build time (tests/docs/test_site.py
    # checks the built page); no hand-written copy of the table is left to drift.
    card = (ROOT / "docs" / "environment.md").read_text(encoding="utf-8")
    assert "```{rams-observation-table}\n```" in card
    assert layout_table().splitlines()[2] not in card and "| `hand` |" not in (ROOT / "README.md").read_text()


def test_slices_tile_the_vector_without_gaps():
    edges = sorted((s.start, s.stop) for s in SLICES.values())
    assert edges[0][0] == 0 and edges[-1][1] == OBS_SIZE
    assert all(a[1] == b[0] for a, b in itertools.pairwise(edges))


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    command = 'pip install torch==2.13.0 -e ".[dev,sb3,rllib,torchrl,openspiel]" && python -m pytest -q'
    assert command in readme
    assert command in (ROOT / ".ci" / "run").read_text(encoding="utf-8")
