"""Sphinx configuration of the rams_env documentation (Furo theme, MyST Markdown, autodoc)."""

from __future__ import annotations

import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path[:0] = [str(DOCS.parent), str(DOCS / "_ext")]  # this checkout's rams_env, and the docs' own extension

project = "rams_env"
author = "the rams_env authors"
copyright = "2026, the rams_env authors"
release = "0.1.0"

extensions = ["myst_parser", "sphinx.ext.autodoc", "sphinx.ext.napoleon", "sphinx.ext.viewcode", "rams_docs"]
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "_ext", "make_table_png.py"]
myst_heading_anchors = 3
myst_enable_extensions = ["colon_fence"]

html_theme = "furo"
html_title = "rams_env"
html_static_path: list[str] = []

autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"members": True, "undoc-members": False, "show-inheritance": False}
nitpicky = False
autodoc_inherit_docstrings = False  # docstrings inherited from the libraries (Gymnasium) are not ours
