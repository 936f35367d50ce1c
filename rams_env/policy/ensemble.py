"""Ensembles: a JSON manifest naming several checkpoints, each with its weights' digest, played as one.

:func:`write_ensemble` writes a manifest, :func:`load_ensemble` reads it and every member (each
checked by :func:`~rams_env.policy.checkpoint.load_checkpoint`); the agent that plays the members
together is :class:`rams_env.agents.neural.EnsembleAgent`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .. import jsoncheck
from ..rules import RulesConfig
from .checkpoint import CheckpointError, checkpoint_config, file_digest, load_checkpoint, write_atomically

ENSEMBLE_FORMAT = "rams_env.ensemble"
ENSEMBLE_VERSION = 1
_ENSEMBLE_KEYS = {"format", "format_version", "members", "description"}
_MEMBER_KEYS = {"path", "model_sha256"}
MAX_MEMBERS = 32  # members of one ensemble (each is a network in memory; the shipped ones have 2)
MANIFEST_DEPTH = jsoncheck.MAX_DEPTH  # a manifest has 3 levels; other JSON is refused by its "format"
MANIFEST_BYTES = 1024 * 1024  # bytes of a manifest file


def write_ensemble(
    path: str | os.PathLike[str], members: Sequence[str | os.PathLike[str]], description: str = ""
) -> None:
    """Write an ensemble manifest: JSON naming member checkpoints (relative to the manifest) and their digests.

    Each member is read and checked first (:func:`load_checkpoint`); the manifest is written atomically.
    """
    target = Path(path)
    if target.suffix != ".json":
        raise ValueError(f"an ensemble manifest is a .json file, got {str(path)!r}")
    entries, config = [], None
    for member in members:
        payload = load_checkpoint(member, config)  # every member must play the first member's rules
        config = config or checkpoint_config(payload, str(member))
        digest = file_digest(payload)
        entries.append({"path": Path(os.path.relpath(member, target.parent)).as_posix(), "model_sha256": digest})
    manifest = {"format": ENSEMBLE_FORMAT, "format_version": ENSEMBLE_VERSION, "description": description}
    _check_members(str(path), entries)
    text = json.dumps({**manifest, "members": entries}, indent=2) + "\n"
    write_atomically(target, lambda f: f.write(text.encode()))


def load_ensemble(path: str | os.PathLike[str], expect_config: RulesConfig | None = None) -> list[dict[str, Any]]:
    """The checked member payloads of an ensemble manifest (``CheckpointError`` says what is wrong).

    Layout (JSON, plain data; member paths relative to the manifest's folder)::

        {"format": "rams_env.ensemble", "format_version": 1, "description": str,
         "members": [{"path": "mattmar-4p.pt", "model_sha256": str}, ...]}

    Every member is read by :func:`load_checkpoint`, must hold exactly the weights whose digest the
    manifest records, and must play the same rules (``expect_config``, or the first member's).
    """
    where = str(path)
    if not Path(path).is_file():
        raise CheckpointError(f"ensemble manifest {where!r} does not exist (or is not a file)")
    try:
        manifest = jsoncheck.read(path, max_depth=MANIFEST_DEPTH, max_bytes=MANIFEST_BYTES)
    except jsoncheck.NotJsonError as err:
        raise CheckpointError(f"{where!r} is not a rams_env ensemble manifest: it is not JSON ({err})") from None
    except jsoncheck.JsonInputError as err:
        raise CheckpointError(f"{where!r} is not a rams_env ensemble manifest: {err}") from None
    file = ("a rams_env ensemble manifest", "ensemble", "a manifest")
    problem = jsoncheck.header_problem(manifest, where, file, ENSEMBLE_FORMAT, ENSEMBLE_VERSION, _ENSEMBLE_KEYS)
    if problem:
        raise CheckpointError(problem)
    if not isinstance(manifest.get("description", ""), str):
        raise CheckpointError(f"{where!r}: 'description' must be a string")
    members = manifest.get("members")
    _check_members(where, members, Path(path).parent)  # before any member is read
    payloads: list[dict[str, Any]] = []
    config = expect_config
    for member in members:
        member_path = Path(path).parent / member["path"]
        try:
            payload = load_checkpoint(member_path, config)
        except CheckpointError as err:
            raise CheckpointError(f"ensemble {where!r}, member {member['path']!r}: {err}") from None
        digest = file_digest(payload)
        if digest != member["model_sha256"]:
            raise CheckpointError(
                f"{where!r}: member {member['path']!r} holds other weights than the ensemble was made of "
                f"(sha256 {digest[:12]}..., recorded {member['model_sha256'][:12]}...)"
            )
        config = config or checkpoint_config(payload, str(member_path))
        payloads.append(payload)
    return payloads


def _check_members(where: str, members: Any, folder: Path | None = None) -> None:
    """``CheckpointError`` unless ``members`` is a non-empty list of at most ``MAX_MEMBERS`` distinct
    {relative path, SHA-256 hex digest}: no path too long to open, no member twice (by its path, resolved
    in the manifest's ``folder`` when given, or by its weights' digest)."""
    if not isinstance(members, list) or not members:
        raise CheckpointError(f"{where!r}: 'members' must be a non-empty list of member checkpoints")
    if len(members) > MAX_MEMBERS:
        raise CheckpointError(f"{where!r} has {len(members)} members; an ensemble has at most {MAX_MEMBERS}")
    paths: dict[str, int] = {}
    digests: dict[str, int] = {}
    for k, member in enumerate(members):
        if not isinstance(member, dict) or set(member) != _MEMBER_KEYS:
            raise CheckpointError(f"{where!r}: member {k} must have exactly the keys {sorted(_MEMBER_KEYS)}")
        path, digest = member["path"], member["model_sha256"]
        try:
            jsoncheck.check_path(path, f"member {k} path")
        except jsoncheck.JsonInputError as err:
            raise CheckpointError(f"{where!r}: {err}") from None
        if Path(path).is_absolute():
            raise CheckpointError(f"{where!r}: member {k} path {path!r} must be a path relative to the manifest")
        if not isinstance(digest, str) or len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest):
            raise CheckpointError(f"{where!r}: member {k} model_sha256 {digest!r} is not a SHA-256 hex digest")
        same = os.path.normpath(path) if folder is None else os.path.realpath(folder / path)
        if same in paths:
            raise CheckpointError(
                f"{where!r}: members {paths[same]} and {k} name the same file ({path!r}); an ensemble names "
                "each member once"
            )
        if digest in digests:
            raise CheckpointError(
                f"{where!r}: members {digests[digest]} and {k} hold the same weights (sha256 {digest[:12]}...); "
                "an ensemble names each member once"
            )
        paths[same], digests[digest] = k, k
