"""How the package installs and imports: under ``python -OO`` (no docstrings), and the wheel of the multi-node
instructions (docs/integrations.md, "On several machines"), built here, holding both packages."""

from __future__ import annotations

import subprocess
import sys


def test_import_works_without_docstrings():
    """Issue 13 item 14: ``python -OO`` strips docstrings; importing must not format a None."""
    done = subprocess.run(
        [sys.executable, "-OO", "-c", "import rams_env, rams_env.obs.encoding"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
