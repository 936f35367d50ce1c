"""The registry of agent loaders that ``load_agent`` consults before reading a file as a checkpoint.

An integration (:mod:`rams_env.integrations`) registers a loader for the files or folders its library
saves (RLlib's checkpoint folders, say), so that :func:`rams_env.agents.load_agent` reads them
without the agents importing the integration. Imports nothing of ``rams_env``: any layer may use it.

It also holds the classes of the built-in agent specs (:data:`AGENT_CLASSES`), filled in the same way.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple


class Loader(NamedTuple):
    """How to recognise and load one kind of saved agent."""

    name: str  # what it loads, for messages ("rllib")
    recognises: Callable[[Path], bool]  # whether a path is one of its kind (cheap: no import of the library)
    load: Callable[[Path, Any], Any]  # (path, expect_config) -> the agent
    extra: str  # the pip extra it needs (rams_env[extra])


LOADERS: dict[str, Loader] = {}


def register_loader(loader: Loader) -> None:
    """Add ``loader`` (replacing one of the same name)."""
    LOADERS[loader.name] = loader


def loader_for(path: str | os.PathLike[str]) -> Loader | None:
    """The registered loader that recognises ``path``, or None."""
    return next((loader for loader in LOADERS.values() if loader.recognises(Path(path))), None)


AGENT_CLASSES: dict[str, Callable[[], type]] = {}
"""The built-in agents' classes by the name an agent spec starts with (``search`` of ``search:200``): each
a function returning the class, so that one of an optional library is imported only when asked for
(``ValueError`` naming the extra without it). :mod:`rams_env.agents` registers its own,
:mod:`rams_env.integrations` those of the integrations (OpenSpiel's ISMCTS); rams_env.agents.specs reads them."""


def register_agent_class(name: str, get_class: Callable[[], type]) -> None:
    """Make the spec ``name`` (``name:options``) build agents of the class ``get_class()`` returns."""
    AGENT_CLASSES[name] = get_class
