"""Checkpoint I/O: a trained :class:`~rams_env.policy.network.PolicyNet` and the rules it plays, on disk.

Checkpoint layout (plain data only, read with ``torch.load(..., weights_only=True)``)::

    {"format": "rams_env.checkpoint", "format_version": 1,
     "encoder_version": int, "obs_size": int, "num_actions": int,
     "config": {rules options as plain data}, "network": {"hidden": [int, ...]},
     "model": state_dict, "model_sha256": str, ...}

A model file of an older encoder loads through one migration, :func:`migrate_first_layer` (every
reader's: checkpoints, SB3 zips, RLlib checkpoints, NFSP policy files): its first layer's columns move to
this layout's inputs (:mod:`rams_env.obs.layouts`), so the network computes what it computed before.
Every torch file is read by one function, :func:`read_plain` (``torch.load(weights_only=True)``).

``model_sha256`` is a SHA-256 digest of the model's tensors (names, dtypes, shapes and bytes), so that
a flipped byte in the weights is refused; checkpoints written before it existed carry none and still
load. Before any network is built, the stored tensors are checked against the shapes that
``network.hidden`` implies. Training adds more keys (optimizer state, step counters, RNG states,
arguments); loading ignores them.
"""

from __future__ import annotations

import hashlib
import io
import os
import pickle
import tempfile
import warnings
import zipfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import IO, Any

import torch

from ..obs.encoding import ENCODER_VERSION, OBS_SIZE
from ..obs.layouts import LAYOUT_SIZES, exact_migration, migrate_inputs, version_of_size
from ..rules import RulesConfig, make_config
from ..rules.actions import NUM_ACTIONS
from .network import PolicyNet

CHECKPOINT_FORMAT = "rams_env.checkpoint"
CHECKPOINT_VERSION = 1


class CheckpointError(ValueError):
    """A file that is not a usable rams_env checkpoint (missing, damaged, foreign or mismatched)."""


class RulesMismatchError(CheckpointError):
    """An intact checkpoint trained for rules other than those asked for (:func:`rules_mismatch` says how)."""


def make_checkpoint(net: PolicyNet, config: RulesConfig, **extra: Any) -> dict[str, Any]:
    """The checkpoint payload of ``net`` trained for ``config``; ``extra`` keys are added as given."""
    reserved = {
        "format",
        "format_version",
        "encoder_version",
        "obs_size",
        "num_actions",
        "config",
        "network",
        "model",
        "model_sha256",
    }
    clash = sorted(reserved & set(extra))
    if clash:
        raise ValueError(f"extra checkpoint keys {clash} are reserved by the checkpoint format")
    model = {k: v.detach().cpu() for k, v in net.state_dict().items()}
    return {
        "format": CHECKPOINT_FORMAT,
        "format_version": CHECKPOINT_VERSION,
        "encoder_version": ENCODER_VERSION,
        "obs_size": net.obs_size,
        "num_actions": net.num_actions,
        "config": config.to_dict(),
        "network": {"hidden": list(net.hidden)},
        "model": model,
        "model_sha256": model_digest(model),
        **extra,
    }


def model_digest(model: Mapping[str, Any]) -> str:
    """SHA-256 (hex) of a state dict's tensors: each name, dtype, shape and bytes, in name order."""
    digest = hashlib.sha256()
    for name in sorted(model):
        tensor = model[name]
        if not isinstance(tensor, torch.Tensor):
            raise TypeError(f"model entry {name!r} is not a tensor ({type(tensor).__name__})")
        flat = tensor.detach().cpu().contiguous().reshape(-1)
        digest.update(f"{name}\0{flat.dtype}\0{tuple(tensor.shape)}\0".encode())
        digest.update(flat.view(torch.uint8).numpy().tobytes())
    return digest.hexdigest()


def save_checkpoint(path: str | os.PathLike[str], payload: Mapping[str, Any]) -> None:
    """Write ``payload`` atomically: a temporary file in the same folder, flushed, fsynced, renamed."""
    if not isinstance(payload, Mapping) or payload.get("format") != CHECKPOINT_FORMAT:
        raise ValueError(f'a checkpoint payload must be a dict with "format": {CHECKPOINT_FORMAT!r} (make_checkpoint)')
    write_atomically(Path(path), lambda f: torch.save(dict(payload), f))


def write_atomically(target: Path, write: Callable[[IO[bytes]], None]) -> None:
    """``write`` into a temporary file in ``target``'s folder, flushed and fsynced, then renamed to ``target``."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        os.chmod(tmp, 0o644)  # mkstemp's 0600 would make the file private to its writer
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


HOLDS_OBJECTS = "it holds Python objects rather than plain data; refused without unpickling anything"


def load_error(err: BaseException) -> str:
    """What went wrong in loading weights, in one line: the exception's type and the start of its text. A
    refused object is no such error: :func:`read_plain` names it (:data:`HOLDS_OBJECTS`), never passing on
    torch's advice to load with ``weights_only=False``, which would run the file's code."""
    text = " ".join(str(err).split())[:200]
    return f"{type(err).__name__}: {text}" if text else type(err).__name__


def read_plain(source: str | os.PathLike[str] | bytes, what: str, refusal: str | None = None) -> Any:
    """The plain data of a torch file, or of its bytes, by ``torch.load(weights_only=True)`` (no code runs;
    the one reader of torch files), or a :class:`CheckpointError` naming ``what`` was asked for and what is
    wrong (missing, damaged, objects). ``refusal`` opens the message for data that does not load (default:
    ``'path' is damaged or not a torch <what> file``); the reason follows in brackets."""
    where = what if isinstance(source, bytes) else str(source)
    if not isinstance(source, bytes) and not os.path.isfile(source):  # False for an over-long name, not OSError
        raise CheckpointError(f"{what} {where!r} does not exist (or is not a file)")
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="Detected pickle protocol", category=UserWarning)
            data = io.BytesIO(source) if isinstance(source, bytes) else source
            return torch.load(data, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError:  # weights_only refused an object, or the pickle is damaged
        if refusal is None:
            raise CheckpointError(
                f"{where!r} is not a rams_env {what}: it is damaged, or it holds Python objects rather "
                "than plain data (refused without unpickling anything)"
            ) from None
        why = HOLDS_OBJECTS
    except Exception as err:  # torch.load of arbitrary bytes fails with many exception types
        why = HOLDS_OBJECTS if _is_torchscript(source) else load_error(err)
    opening = refusal or f"{where!r} is damaged or not a torch {what} file"
    raise CheckpointError(f"{opening} ({why})")


def _is_torchscript(source: str | os.PathLike[str] | bytes) -> bool:
    """Whether ``source`` is a TorchScript archive (compiled code, which ``weights_only`` refuses): a zip
    whose top folder holds ``constants.pkl``, the test torch makes."""
    try:
        with zipfile.ZipFile(io.BytesIO(source) if isinstance(source, bytes) else source) as archive:
            return any(name.split("/", 1)[-1] == "constants.pkl" for name in archive.namelist())
    except (zipfile.BadZipFile, OSError, EOFError, ValueError):
        return False


def load_checkpoint(
    path: str | os.PathLike[str], expect_config: RulesConfig | None = None, *, migrate: bool = False
) -> dict[str, Any]:
    """Read and check a checkpoint; ``CheckpointError`` says what is wrong with a refused file.

    A checkpoint of an older encoder that saw every field of this one (version 2: only the preset field
    moved) is migrated wherever it is loaded: its first layer's columns move to this layout
    (:func:`migrate_first_layer`), and the network computes exactly what it computed on
    the old observations. ``migrate=True`` (warm starts only, never ``load_agent``) also accepts an
    encoder whose layout lacks fields of this one (version 1): they get zero weights. A migrated payload
    records ``migrated_from`` (the file's encoder version and weights digest, :func:`file_digest`) and
    holds no ``optimizer`` or ``critic`` (shaped by the old layout): a training run of an older encoder
    does not resume, and a new run starts from its weights (``--init-from``).
    """
    where = str(path)
    payload = read_plain(path, "checkpoint")
    if not isinstance(payload, dict) or "format" not in payload:
        raise CheckpointError(f'{where!r} is not a rams_env checkpoint (no "format" marker)')
    if payload["format"] != CHECKPOINT_FORMAT:
        raise CheckpointError(
            f'{where!r} is not a rams_env checkpoint ("format" is {payload["format"]!r}, not {CHECKPOINT_FORMAT!r})'
        )
    version = payload.get("format_version")
    if version != CHECKPOINT_VERSION:
        raise CheckpointError(
            f"{where!r} has checkpoint format version {version!r}; this rams_env reads version {CHECKPOINT_VERSION}"
        )
    _check_digest(payload, where)
    payload = _to_this_encoder(payload, where, warm_start=migrate)
    for key, ours in (("encoder_version", ENCODER_VERSION), ("obs_size", OBS_SIZE), ("num_actions", NUM_ACTIONS)):
        if payload.get(key) != ours:
            raise CheckpointError(
                f"{where!r} was written for {key}={payload.get(key)!r}; this rams_env has {key}={ours} "
                "(the network does not fit these observations or actions)"
            )
    for key in ("config", "network", "model"):
        if not isinstance(payload.get(key), dict):
            raise CheckpointError(f"{where!r} is damaged: {key!r} is missing or not a dict")
    config = checkpoint_config(payload, where)
    configs = table_configs(payload, where)
    if expect_config is not None and expect_config not in configs:
        same_size = [c for c in configs if c.num_players == expect_config.num_players]
        raise RulesMismatchError(rules_mismatch(where, same_size[0] if same_size else config, expect_config))
    return payload


def table_configs(payload: Mapping[str, Any], where: str = "checkpoint") -> list[RulesConfig]:
    """The rules a checkpoint plays: its ``config``, and the same rules at each of its ``table_sizes``
    (a policy trained for several table sizes; the observation is padded to ``MAX_PLAYERS``)."""
    config = checkpoint_config(payload, where)
    sizes = payload.get("table_sizes", [config.num_players])
    if not isinstance(sizes, list) or not all(isinstance(n, int) and not isinstance(n, bool) for n in sizes):
        raise CheckpointError(f"{where!r} is damaged: 'table_sizes' {sizes!r} is not a list of ints")
    try:
        return [config_at_size(config, n) for n in sizes]
    except (TypeError, ValueError) as err:
        raise CheckpointError(f"{where!r} records table sizes {sizes!r} its rules do not allow: {err}") from None


def config_at_size(config: RulesConfig, num_players: int) -> RulesConfig:
    """``config``'s rules at ``num_players``: the options in which it differs from its preset, applied to
    the preset at that size, so that what the preset sets by size follows it (russian: 32 cards at 3)."""
    if num_players == config.num_players:
        return config
    ours, preset = config.to_dict(), make_config(config.variant, config.num_players).to_dict()
    options = {k: v for k, v in ours.items() if k not in ("variant", "num_players") and v != preset[k]}
    return make_config(config.variant, num_players, **options)


def rules_mismatch(where: str, config: RulesConfig, expect_config: RulesConfig) -> str:
    """The message for a checkpoint of ``config`` offered where ``expect_config`` is played."""
    ours, theirs = expect_config.to_dict(), config.to_dict()
    diff = ", ".join(f"{k}={theirs[k]!r} (expected {ours[k]!r})" for k in ours if ours[k] != theirs.get(k))
    return f"{where!r} was trained for other rules: {diff}"


def _check_digest(payload: Mapping[str, Any], where: str) -> None:
    """Refuse weights whose digest differs from the recorded ``model_sha256`` (none recorded: nothing to check)."""
    recorded = payload.get("model_sha256")
    if recorded is None:
        return
    model = payload.get("model")
    if not isinstance(recorded, str) or not isinstance(model, dict):
        raise CheckpointError(f"{where!r} is damaged: 'model_sha256' or 'model' has the wrong type")
    try:
        actual = model_digest(model)
    except (TypeError, RuntimeError) as err:
        raise CheckpointError(f"{where!r} is damaged: {err}") from None
    if actual != recorded:
        raise CheckpointError(
            f"{where!r} is damaged: its weights do not match the checksum recorded when it was written "
            f"(sha256 {actual[:12]}..., recorded {recorded[:12]}...)"
        )


def migrate_first_layer(
    weight: Any, where: str, header: Mapping[str, Any] | None = None, *, warm_start: bool = False
) -> Any | None:
    """The one migration of a model file of an older encoder, which every reader applies: its first layer's
    ``weight`` (hidden, inputs) with the columns moved to this layout, zero for inputs the old layout lacks
    (:func:`rams_env.obs.layouts.migrate_inputs`); None where none applies.

    ``header`` holds the ``encoder_version`` and ``obs_size`` the file records; None for a file that records
    neither (an SB3 zip, an RLlib checkpoint), whose width tells its version. A version whose layout lacks
    fields of this one (:func:`rams_env.obs.layouts.exact_migration`) migrates only for a ``warm_start``;
    else None when the file records it (its reader's version check refuses it), ``CheckpointError`` naming
    it when the width told it. ``CheckpointError`` too for a header of an older layout that ``weight``
    (a tensor or an array) does not take.
    """
    width = weight.shape[1] if getattr(weight, "ndim", None) == 2 else None
    if header is None:
        version = version_of_size(width) if width is not None else None
    else:
        version = header.get("encoder_version")
    if type(version) is not int or version == ENCODER_VERSION or version not in LAYOUT_SIZES:
        return None
    size = LAYOUT_SIZES[version]
    if not (warm_start or exact_migration(version)):
        if header is not None:
            return None
        raise CheckpointError(
            f"{where!r} was trained on observations of encoder version {version} ({size} floats); this rams_env "
            f"observes encoder version {ENCODER_VERSION} ({OBS_SIZE} floats), which has fields that version lacks, "
            "so the model cannot play it (train it again, or warm-start a rams_env checkpoint from its weights)"
        )
    if header is not None and header.get("obs_size") != size:
        return None
    if width != size:
        raise CheckpointError(f"{where!r} is damaged: no first-layer weight of {size} inputs")
    return migrate_inputs(weight, version)


def first_layer_for_this_encoder(weight: Any, where: str) -> Any:
    """The first layer's weight of a model file that records no encoder version (an SB3 zip, an RLlib
    checkpoint) for this layout: :func:`migrate_first_layer` of it, or it as it is where none applies."""
    migrated = migrate_first_layer(weight, where)
    return weight if migrated is None else migrated


_LAYOUT_BOUND_STATE = ("optimizer", "critic")  # training state a migration does not carry over


def _to_this_encoder(payload: dict[str, Any], where: str, warm_start: bool) -> dict[str, Any]:
    """``payload`` with its first layer migrated (:func:`migrate_first_layer`) and the file's digest kept in
    ``migrated_from``; as it is where no migration applies."""
    model = payload.get("model")
    first = model.get("torso.0.weight") if isinstance(model, dict) else None
    first = first if isinstance(first, torch.Tensor) else None
    weight = migrate_first_layer(first, where, payload, warm_start=warm_start)
    if weight is None:
        return payload
    old, recorded = payload["encoder_version"], payload.get("model_sha256")
    source = {"encoder_version": old, "model_sha256": recorded or model_digest(model)}
    model = {**model, "torso.0.weight": weight}
    digest = {"model_sha256": model_digest(model)} if "model_sha256" in payload else {}
    # Training state shaped by the old layout (the optimizer's moments of the first layer, the privileged
    # critic's inputs) is left behind: such a run does not resume (it says so), a new one starts from it.
    dropped = [key for key in _LAYOUT_BOUND_STATE if key in payload]
    if dropped:
        source["dropped"] = dropped
    return {
        **{k: v for k, v in payload.items() if k not in _LAYOUT_BOUND_STATE},
        **digest,
        "model": model,
        "obs_size": OBS_SIZE,
        "encoder_version": ENCODER_VERSION,
        "migrated_from": source,
    }


def file_digest(payload: Mapping[str, Any]) -> str:
    """The SHA-256 of a checked payload's weights as its file holds them (before any migration): what an
    ensemble manifest records of a member."""
    source = payload.get("migrated_from")
    if isinstance(source, Mapping) and isinstance(source.get("model_sha256"), str):
        return source["model_sha256"]
    return payload.get("model_sha256") or model_digest(payload["model"])


def checkpoint_config(payload: Mapping[str, Any], where: str = "checkpoint") -> RulesConfig:
    """The rules configuration recorded in a checkpoint payload."""
    try:
        return RulesConfig(**payload["config"])
    except (TypeError, ValueError) as err:
        raise CheckpointError(f"{where!r} records an invalid rules configuration: {err}") from None


def network_from_checkpoint(payload: Mapping[str, Any], where: str = "checkpoint") -> PolicyNet:
    """The :class:`PolicyNet` of a checked payload, its weights loaded."""
    hidden = payload["network"].get("hidden")
    if (
        not isinstance(hidden, (list, tuple))
        or not hidden
        or not all(isinstance(h, int) and not isinstance(h, bool) and h > 0 for h in hidden)
    ):
        raise CheckpointError(f"{where!r} is damaged: network hidden sizes {hidden!r} are not a list of positive ints")
    # Compare with the stored tensors before building anything: a forged "hidden" must not allocate.
    _check_weights(payload["model"], expected_shapes(payload["obs_size"], payload["num_actions"], hidden), where)
    net = PolicyNet(payload["obs_size"], payload["num_actions"], hidden)
    try:
        net.load_state_dict(payload["model"])
    except (RuntimeError, KeyError, TypeError) as err:
        raise CheckpointError(f"{where!r} is damaged: its weights do not fit the network ({err})") from None
    net.eval()
    return net


def expected_shapes(obs_size: int, num_actions: int, hidden: Sequence[int]) -> dict[str, tuple[int, ...]]:
    """The state-dict shapes of ``PolicyNet(obs_size, num_actions, hidden)``, computed without building it."""
    shapes: dict[str, tuple[int, ...]] = {}
    width = obs_size
    for k, h in enumerate(hidden):
        shapes[f"torso.{2 * k}.weight"], shapes[f"torso.{2 * k}.bias"] = (h, width), (h,)
        width = h
    shapes["policy_head.weight"], shapes["policy_head.bias"] = (num_actions, width), (num_actions,)
    shapes["value_head.weight"], shapes["value_head.bias"] = (1, width), (1,)
    return shapes


def _check_weights(model: Mapping[str, Any], shapes: Mapping[str, tuple[int, ...]], where: str) -> None:
    """``CheckpointError`` unless ``model`` holds exactly the tensors of ``shapes``, finite floats of those shapes."""

    def refuse(why: str) -> CheckpointError:
        return CheckpointError(f"{where!r} is damaged: its weights do not fit the network ({why})")

    missing, unexpected = sorted(set(shapes) - set(model)), sorted(set(model) - set(shapes))
    if missing or unexpected:
        parts = [f"missing {missing[:4]}"] if missing else []
        parts += [f"unexpected {[str(k)[:40] for k in unexpected[:4]]}"] if unexpected else []
        raise refuse(", ".join(parts))
    for name, shape in shapes.items():
        tensor = model[name]
        if not isinstance(tensor, torch.Tensor) or not tensor.is_floating_point():
            raise refuse(f"{name} is not a floating-point tensor")
        if tuple(tensor.shape) != shape:
            raise refuse(f"{name} has shape {tuple(tensor.shape)}, the network needs {shape}")
        if not bool(torch.isfinite(tensor).all()):
            raise refuse(f"{name} holds NaN or infinite values")
