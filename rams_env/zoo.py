"""The model zoo: trained policies by name, so that ``load_agent("mattmar")`` and ``rams eval mattmar-4p`` work.

A zoo is a folder with one folder per model, ``<zoo>/<preset>/<model>/``, holding the weights
(``<model>.pt``) or an ensemble manifest (``<model>.json``), the model card (``README.md``) and the
card's evaluation files. A model's name is its folder's name; a preset's name (``mattmar``) stands
for that preset's flagship, :data:`FLAGSHIPS`.

Where the registry looks, first hit wins (:func:`zoo_root`):

1. the folder named by the environment variable ``RAMS_ZOO``;
2. ``rams_env/zoo_data/`` of an installed wheel, which carries the zoo (pyproject.toml ships
   ``checkpoints/`` there);
3. ``checkpoints/`` of the source tree this package was imported from (a clone, or an editable
   install of one), whatever the working directory.

Belief networks (:mod:`rams_env.agents.beliefs`) live in the zoo beside the policies, one folder each,
``<zoo>/<preset>/<preset>-beliefs/`` with ``<preset>-beliefs.beliefs.pt`` and a model card. They are not
agents: :func:`models` leaves them out, :func:`belief_models` and :func:`resolve_beliefs` find them (a
preset's name gives its shipped network).

``python -m rams_env.zoo`` says which folder it uses and lists the names.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from . import jsoncheck

ZOO_ENV = "RAMS_ZOO"
SOURCE_ZOO = Path(__file__).resolve().parents[1] / "checkpoints"  # the zoo of a source checkout
WHEEL_ZOO = Path(__file__).resolve().parent / "zoo_data"  # the zoo of an installed wheel (its checkpoints/)
CARD = "README.md"
BELIEFS_SUFFIX = ".beliefs.pt"  # a belief network's file in its zoo folder: <name>.beliefs.pt
AGENT_SUFFIX = ".agent.json"  # a named agent's file in its zoo folder: <name>.agent.json, the spec it stands for
AGENT_FORMAT, AGENT_FORMAT_VERSION = "rams_env.agent", 1
_AGENT_KEYS = {"format", "format_version", "description", "spec"}

# The best agent of each preset (whole ramsar against heuristics, in docs/zoo.md); a preset's name loads it.
FLAGSHIPS: dict[str, str] = {
    "mattmar": "mattmar-4p-ensemble",
    "norrlandsknack": "norrlandsknack-4p-ensemble",
    "rams32": "rams32-4p",
    "russian": "russian-4p-ensemble",
}

# The strongest agent measured in a preset, where its named search beat the flagship: slower (a search per
# decision), its paired gain's 95% interval above 0 in docs/beliefs/gain-<preset>.json (tests/test_zoo_search.py
# keeps it so). A preset whose search is not measured yet has none here.
STRONGEST: dict[str, str] = {
    "mattmar": "mattmar-search",
    "norrlandsknack": "norrlandsknack-search",
    "rams32": "rams32-search",
    "russian": "russian-search",
}

_NAME = re.compile(r"[a-z0-9][a-z0-9-]*")
_FLAT = re.compile(r"(?P<model>[a-z0-9][a-z0-9-]*?)(?:\.pt|\.json|\.md|_[\w.]+)")  # a file of the old flat layout


class ZooError(ValueError):
    """A zoo name that does not resolve, or a path of the old flat layout; the message says what to use."""


@dataclass(frozen=True)
class ZooModel:
    """One model of the zoo: its name, preset and folder."""

    name: str
    preset: str
    folder: Path

    @property
    def ensemble(self) -> bool:
        """Whether the model is an ensemble manifest (several checkpoints played as one)."""
        return (self.folder / f"{self.name}.json").is_file()

    @property
    def beliefs(self) -> bool:
        """Whether the model is a belief network (not an agent: :mod:`rams_env.agents.beliefs`)."""
        return (self.folder / f"{self.name}{BELIEFS_SUFFIX}").is_file()

    @property
    def named(self) -> bool:
        """Whether the model is a named agent: an agent spec over the zoo's networks (``<name>.agent.json``)."""
        return (self.folder / f"{self.name}{AGENT_SUFFIX}").is_file()

    @property
    def path(self) -> Path:
        """The file a loader reads: weights, an ensemble manifest, a belief network, or a named agent's spec."""
        if self.beliefs:
            return self.folder / f"{self.name}{BELIEFS_SUFFIX}"
        if self.named:
            return self.folder / f"{self.name}{AGENT_SUFFIX}"
        return self.folder / f"{self.name}.{'json' if self.ensemble else 'pt'}"

    @property
    def card(self) -> Path:
        """The model card."""
        return self.folder / CARD


def zoo_root() -> Path | None:
    """The zoo folder in use: ``$RAMS_ZOO`` if set, else an installed wheel's zoo, else a source checkout's
    ``checkpoints/``; None if none is there."""
    configured = os.environ.get(ZOO_ENV)
    if configured:
        return Path(configured).expanduser()
    return next((folder for folder in (WHEEL_ZOO, SOURCE_ZOO) if folder.is_dir()), None)


def models(root: str | os.PathLike[str] | None = None) -> dict[str, ZooModel]:
    """Every model of the zoo at ``root`` (default :func:`zoo_root`), by name."""
    folder = Path(root) if root is not None else zoo_root()
    if folder is None or not folder.is_dir():
        return {}
    found: dict[str, ZooModel] = {}
    for model in sorted(folder.glob("*/*/")):
        name = model.name
        if (model / f"{name}.pt").is_file() or (model / f"{name}.json").is_file():
            found[name] = ZooModel(name, model.parent.name, model)
    return found


def belief_models(root: str | os.PathLike[str] | None = None) -> dict[str, ZooModel]:
    """Every belief network of the zoo at ``root`` (default :func:`zoo_root`), by name."""
    return _models_with(BELIEFS_SUFFIX, root)


def named_agents(root: str | os.PathLike[str] | None = None) -> dict[str, ZooModel]:
    """Every named agent of the zoo at ``root`` (default :func:`zoo_root`), by name."""
    return _models_with(AGENT_SUFFIX, root)


def _models_with(suffix: str, root: str | os.PathLike[str] | None) -> dict[str, ZooModel]:
    """The zoo's models at ``root`` whose folder holds ``<name><suffix>``, by name."""
    folder = Path(root) if root is not None else zoo_root()
    if folder is None or not folder.is_dir():
        return {}
    return {
        model.name: ZooModel(model.name, model.parent.name, model)
        for model in sorted(folder.glob("*/*/"))
        if (model / f"{model.name}{suffix}").is_file()
    }


def named_agent(spec: str | os.PathLike[str]) -> ZooModel | None:
    """The named agent ``spec`` gives: its name in the zoo in use, or the path of a ``<name>.agent.json``; else None."""
    if is_name(spec):
        return named_agents().get(str(spec))
    path = Path(spec)
    if path.name.endswith(AGENT_SUFFIX) and path.is_file():
        return ZooModel(path.name[: -len(AGENT_SUFFIX)], path.parent.parent.name, path.parent)
    return None


def agent_spec(model: ZooModel) -> str:
    """The agent spec a named agent stands for, read from its ``<name>.agent.json``; :class:`ZooError` if bad.

    Layout (JSON, plain data)::

        {"format": "rams_env.agent", "format_version": 1, "description": str, "spec": "search:..."}
    """
    where = str(model.path)
    try:
        data = jsoncheck.read(model.path, max_depth=2, max_bytes=64 * 1024)
    except jsoncheck.JsonInputError as err:
        raise ZooError(f"{where!r} is not a named agent's file: {err}") from None
    file = ("a named agent's file", "named-agent", "a named agent's file")
    problem = jsoncheck.header_problem(data, where, file, AGENT_FORMAT, AGENT_FORMAT_VERSION, _AGENT_KEYS)
    if problem:
        raise ZooError(problem)
    spec = data.get("spec")
    if not isinstance(spec, str) or not spec.strip() or not isinstance(data.get("description", ""), str):
        raise ZooError(f"{where!r}: 'spec' must be a non-empty agent spec and 'description' a string")
    return spec


def resolve_beliefs(name: str, root: str | os.PathLike[str] | None = None) -> ZooModel:
    """The belief network called ``name`` (a preset's name gives ``<preset>-beliefs``), or :class:`ZooError`."""
    found = belief_models(root)
    model = found.get(f"{name}-beliefs" if name in FLAGSHIPS else name)
    if model is None:
        raise ZooError(f"unknown belief network {name!r}; the zoo knows: {', '.join([*FLAGSHIPS, *found]) or 'none'}")
    return model


def known_names(root: str | os.PathLike[str] | None = None) -> list[str]:
    """The names that resolve: the presets (their flagships), every model, then the named agents."""
    return [*FLAGSHIPS, *models(root), *named_agents(root)]


def is_name(spec: str | os.PathLike[str]) -> bool:
    """Whether ``spec`` is spelt like a zoo name (lower-case letters, digits and dashes; no path, no suffix)."""
    return isinstance(spec, str) and _NAME.fullmatch(spec) is not None


def resolve(name: str, root: str | os.PathLike[str] | None = None) -> ZooModel:
    """The zoo model or named agent called ``name`` (a preset's name gives its flagship); :class:`ZooError`
    listing the names."""
    found = models(root)
    model = found.get(FLAGSHIPS.get(name, name)) or named_agents(root).get(name)
    if model is not None:
        return model
    if name in belief_models(root):
        raise ZooError(
            f"{name!r} is a belief network, not an agent: search with it, SearchAgent(beliefs={name!r}) "
            f"or rams eval search:beliefs={name}"
        )
    folder = Path(root) if root is not None else zoo_root()
    if not found:
        where = f"{folder}" if folder is not None else f"${ZOO_ENV} is not set; no {WHEEL_ZOO} nor {SOURCE_ZOO}"
        raise ZooError(
            f"no model zoo found to resolve {name!r} ({where}): set {ZOO_ENV} to the checkpoints/ folder of "
            f"a rams_env clone, or pass the path of a checkpoint file"
        )
    raise ZooError(f"unknown model {name!r}; the zoo ({folder}) knows: {', '.join(known_names(root))}")


def locate(spec: str | os.PathLike[str]) -> str | os.PathLike[str]:
    """What ``load_agent`` should read for ``spec``: an existing path as it is, a zoo name's file.

    A missing path of the old flat layout (``checkpoints/mattmar-4p.pt``) raises :class:`ZooError`
    naming the model's new path and its name.
    """
    if os.path.exists(spec):
        return spec
    if is_name(str(spec)):
        return resolve(str(spec)).path
    moved = moved_to(spec)
    if moved is not None:
        raise ZooError(moved)
    return spec


def moved_to(spec: str | os.PathLike[str]) -> str | None:
    """For a missing file of the old flat ``checkpoints/`` layout, a message naming its new place; else None."""
    path = Path(spec)
    if os.path.exists(path) or path.parent.name != "checkpoints":  # os.path's: False for an over-long name
        return None
    match = _FLAT.fullmatch(path.name)
    model = models(path.parent).get(match["model"]) if match else None
    if model is None:
        model = models().get(match["model"]) if match else None
    if model is None:
        return None
    new = model.card if path.suffix == ".md" else model.path if path.suffix in (".pt", ".json") else model.folder
    return (
        f"{str(spec)!r} is the old flat layout of checkpoints/; the model zoo keeps one folder per model: "
        f"use the name {model.name!r} (load_agent({model.name!r}), rams eval {model.name}) or the path {new}"
    )


def main(argv: list[str] | None = None) -> int:
    """``python -m rams_env.zoo``: the zoo folder in use and its names."""
    root = zoo_root()
    found = models(root)
    if not found:
        print(f"no model zoo found: set {ZOO_ENV} to the checkpoints/ folder of a rams_env clone", file=sys.stderr)
        return 1
    print(f"zoo: {root}")
    for preset, name in FLAGSHIPS.items():
        print(f"{preset:<26} -> {name}")
    for name, model in found.items():
        print(f"{name:<26} {model.preset:<15} {'ensemble' if model.ensemble else 'policy'}")
    for name, model in named_agents(root).items():
        strongest = "the strongest measured, " if STRONGEST.get(model.preset) == name else ""
        print(f"{name:<26} {model.preset:<15} named agent ({strongest}slower): {agent_spec(model)}")
    for name, model in belief_models(root).items():
        print(f"{name:<26} {model.preset:<15} beliefs (SearchAgent(beliefs={model.preset!r}))")
    return 0


if __name__ == "__main__":
    sys.exit(main())
