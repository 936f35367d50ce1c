"""Shared training pieces: the policy network, the masked categorical, checkpoint I/O, ensemble manifests
(JSON naming several checkpoints played as one, :func:`load_ensemble`), the opponent pool.

Training scripts and the trained-policy agent (:mod:`rams_env.agents.neural`, behind
:func:`rams_env.agents.load_agent`) import this one module, so they cannot drift apart. It imports torch
(the ``torch`` extra); ``rams_env`` and its non-neural agents do not. It imports nothing from
:mod:`rams_env.agents`: the agents depend on the policy, never the reverse.

Checkpoint layout (plain data only, read with ``torch.load(..., weights_only=True)``)::

    {"format": "rams_env.checkpoint", "format_version": 1,
     "encoder_version": int, "obs_size": int, "num_actions": int,
     "config": {rules options as plain data}, "network": {"hidden": [int, ...]},
     "model": state_dict, "model_sha256": str, ...}

``model_sha256`` is a SHA-256 digest of the model's tensors (names, dtypes, shapes and bytes), so that
a flipped byte in the weights is refused; checkpoints written before it existed carry none and still
load. Before any network is built, the stored tensors are checked against the shapes that
``network.hidden`` implies. Training adds more keys (optimizer state, step counters, RNG states,
arguments); loading ignores them.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import tempfile
import warnings
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import IO, Any

import torch
from torch import nn

from .. import jsoncheck
from ..obs.encoding import ENCODER_VERSION, OBS_SIZE
from ..rules import RulesConfig, make_config
from ..rules.actions import NUM_ACTIONS

CHECKPOINT_FORMAT = "rams_env.checkpoint"
CHECKPOINT_VERSION = 1
DEFAULT_HIDDEN = (256, 256)


class CheckpointError(ValueError):
    """A file that is not a usable rams_env checkpoint (missing, damaged, foreign or mismatched)."""


def mlp_torso(width: int, hidden: Sequence[int]) -> nn.Sequential:
    """Linear + ReLU layers of the given widths on ``width`` inputs (state-dict keys ``0.weight``, ``2.weight``...)."""
    layers: list[nn.Module] = []
    for h in hidden:
        layers += [nn.Linear(width, h), nn.ReLU()]
        width = h
    return nn.Sequential(*layers)


class PolicyNet(nn.Module):
    """MLP torso with a policy-logits head and a value head."""

    def __init__(self, obs_size: int, num_actions: int, hidden: Sequence[int] = DEFAULT_HIDDEN) -> None:
        super().__init__()
        hidden = tuple(int(h) for h in hidden)
        if obs_size < 1 or num_actions < 1 or not hidden or min(hidden) < 1:
            raise ValueError(
                f"PolicyNet needs positive sizes: obs_size={obs_size}, num_actions={num_actions}, hidden={hidden}"
            )
        self.obs_size, self.num_actions, self.hidden = obs_size, num_actions, hidden
        self.torso = mlp_torso(obs_size, hidden)
        self.policy_head = nn.Linear(hidden[-1], num_actions)
        self.value_head = nn.Linear(hidden[-1], 1)

    def forward(self, obs: torch.Tensor, bf16_torso: bool = False) -> tuple[torch.Tensor, torch.Tensor]:
        """``(logits [..., num_actions], value [...])`` for a batch of observations ``[..., obs_size]``.

        ``bf16_torso`` runs the hidden layers under bfloat16 autocast (float32 weights, about 3.5x
        faster training on CPUs with AVX-512 BF16, measured) and the two heads in float32, so that
        log-probabilities and values keep full precision.
        """
        with torch.autocast(obs.device.type, dtype=torch.bfloat16, enabled=bf16_torso):
            features = self.torso(obs)
        features = features.float()
        return self.policy_head(features), self.value_head(features).squeeze(-1)


class MaskedCategorical:
    """A categorical over the legal actions only: illegal actions get probability exactly zero.

    ``mask`` is boolean (or 0/1) with the shape of ``logits``; every row needs a legal action.
    Entropy and log-probabilities are computed over the legal actions alone.
    """

    def __init__(self, logits: torch.Tensor, mask: torch.Tensor) -> None:
        mask = mask.to(dtype=torch.bool, device=logits.device)
        if mask.shape != logits.shape:
            raise ValueError(f"mask shape {tuple(mask.shape)} differs from logits shape {tuple(logits.shape)}")
        if not bool(mask.any(dim=-1).all()):
            raise ValueError("every row of the mask needs at least one legal action")
        self.mask = mask
        # A finite floor (not -inf) keeps 0 * log p at 0 in the entropy and its gradient free of NaN;
        # exp of it underflows to exactly 0.
        self.logits = torch.where(mask, logits, torch.finfo(logits.dtype).min)
        self.log_probs = torch.log_softmax(self.logits, dim=-1)
        # exp of the floor's huge negative log-probabilities takes a slow path (17x slower than exp of
        # ordinary values, measured): those entries get exp(0) and are then zeroed by the mask.
        self.probs = torch.where(mask, self.log_probs, 0.0).exp() * mask

    def sample(self, generator: torch.Generator | None = None) -> torch.Tensor:
        """Actions drawn from the distribution (shape of the batch)."""
        flat = self.probs.reshape(-1, self.probs.shape[-1])
        drawn = torch.multinomial(flat, 1, generator=generator).squeeze(-1)
        return drawn.reshape(self.probs.shape[:-1])

    def log_prob(self, actions: torch.Tensor) -> torch.Tensor:
        """Log-probability of ``actions`` (shape of the batch)."""
        return self.log_probs.gather(-1, actions.long().unsqueeze(-1)).squeeze(-1)

    def entropy(self) -> torch.Tensor:
        """Entropy over the legal actions (shape of the batch)."""
        return -torch.where(self.mask, self.probs * self.log_probs, 0.0).sum(-1)

    def mode(self) -> torch.Tensor:
        """The most probable legal action (shape of the batch)."""
        return self.logits.argmax(dim=-1)


# ---------------------------------------------------------------------------- checkpoints
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
    _write_atomically(Path(path), lambda f: torch.save(dict(payload), f))


def _write_atomically(target: Path, write: Callable[[IO[bytes]], None]) -> None:
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


# Older encoder versions whose layout is a prefix of this one (later versions only appended fields):
# version -> its observation size. Only a warm start (``migrate=True``) reads them.
PREFIX_LAYOUTS: dict[int, int] = {1: 1102}


def load_checkpoint(
    path: str | os.PathLike[str], expect_config: RulesConfig | None = None, *, migrate: bool = False
) -> dict[str, Any]:
    """Read and check a checkpoint; ``CheckpointError`` says what is wrong with a refused file.

    ``migrate=True`` (warm starts only, never ``load_agent``) also accepts a checkpoint of an older
    encoder whose layout is a prefix of this one: the first layer gets zero weights for the appended
    inputs, so the network computes exactly what it computed before.
    """
    where = str(path)
    if not os.path.isfile(path):  # os.path's test says False for an over-long name; Path's raises OSError
        raise CheckpointError(f"checkpoint {where!r} does not exist (or is not a file)")
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="Detected pickle protocol", category=UserWarning)
            payload = torch.load(path, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError:
        raise CheckpointError(
            f"{where!r} is not a rams_env checkpoint: it is damaged, or it holds Python objects rather "
            "than plain data (refused without unpickling anything)"
        ) from None
    except Exception as err:  # torch.load of arbitrary bytes fails with many exception types
        raise CheckpointError(
            f"{where!r} is damaged or not a torch checkpoint file ({type(err).__name__}: {err})"
        ) from None
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
    old = payload.get("encoder_version")
    if migrate and old in PREFIX_LAYOUTS and payload.get("obs_size") == PREFIX_LAYOUTS[old]:
        payload = _pad_inputs(payload, where)
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
        raise CheckpointError(rules_mismatch(where, same_size[0] if same_size else config, expect_config))
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


def _pad_inputs(payload: dict[str, Any], where: str) -> dict[str, Any]:
    """``payload`` for this encoder: zero first-layer weights for the inputs its layout lacks."""
    model = payload.get("model")
    first = model.get("torso.0.weight") if isinstance(model, dict) else None
    if not isinstance(first, torch.Tensor) or first.dim() != 2 or first.shape[1] != payload["obs_size"]:
        raise CheckpointError(f"{where!r} is damaged: no first-layer weight of {payload['obs_size']} inputs")
    padded = torch.zeros(first.shape[0], OBS_SIZE, dtype=first.dtype)
    padded[:, : first.shape[1]] = first
    model = {**model, "torso.0.weight": padded}
    digest = {"model_sha256": model_digest(model)} if "model_sha256" in payload else {}
    return {
        **payload,
        **digest,
        "model": model,
        "obs_size": OBS_SIZE,
        "encoder_version": ENCODER_VERSION,
        "migrated_from_encoder": payload["encoder_version"],
    }


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


# ---------------------------------------------------------------------------- ensembles
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
        digest = _weights_digest(payload)
        entries.append({"path": Path(os.path.relpath(member, target.parent)).as_posix(), "model_sha256": digest})
    manifest = {"format": ENSEMBLE_FORMAT, "format_version": ENSEMBLE_VERSION, "description": description}
    _check_members(str(path), entries)
    text = json.dumps({**manifest, "members": entries}, indent=2) + "\n"
    _write_atomically(target, lambda f: f.write(text.encode()))


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
    except jsoncheck.JsonInputError as err:
        why = f"it is not JSON ({err})" if "not JSON" in str(err) else str(err)
        raise CheckpointError(f"{where!r} is not a rams_env ensemble manifest: {why}") from None
    if not isinstance(manifest, dict) or manifest.get("format") != ENSEMBLE_FORMAT:
        raise CheckpointError(f'{where!r} is not a rams_env ensemble manifest ("format" is not {ENSEMBLE_FORMAT!r})')
    if manifest.get("format_version") != ENSEMBLE_VERSION:
        raise CheckpointError(
            f"{where!r} has ensemble format version {manifest.get('format_version')!r}; "
            f"this rams_env reads version {ENSEMBLE_VERSION}"
        )
    unknown = sorted(set(manifest) - _ENSEMBLE_KEYS)
    if unknown:
        raise CheckpointError(f"{where!r} has unknown keys {unknown}; a manifest has {sorted(_ENSEMBLE_KEYS)}")
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
        digest = _weights_digest(payload)
        if digest != member["model_sha256"]:
            raise CheckpointError(
                f"{where!r}: member {member['path']!r} holds other weights than the ensemble was made of "
                f"(sha256 {digest[:12]}..., recorded {member['model_sha256'][:12]}...)"
            )
        config = config or checkpoint_config(payload, str(member_path))
        payloads.append(payload)
    return payloads


def _weights_digest(payload: Mapping[str, Any]) -> str:
    """The SHA-256 of a checked payload's weights: the recorded one (checked on loading), or computed."""
    return payload.get("model_sha256") or model_digest(payload["model"])


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


# ---------------------------------------------------------------------------- opponent pool
class OpponentPool:
    """Frozen past snapshots of a policy for self-play, each a checkpoint file in ``folder``.

    The run's checkpoint records :meth:`references` (the file names) and :meth:`restore` reloads
    them, so the pool is saved with the run. The oldest snapshot leaves the pool beyond
    ``capacity``; its file stays until :meth:`prune` is told no checkpoint refers to it (a run
    interrupted between a snapshot and its next checkpoint must still find the old pool).
    """

    def __init__(
        self, folder: str | os.PathLike[str], capacity: int, config: RulesConfig, device: str | torch.device = "cpu"
    ) -> None:
        if capacity < 1:
            raise ValueError(f"the opponent pool needs a capacity of at least 1, got {capacity}")
        self.folder, self.capacity, self.config = Path(folder), capacity, config
        self.device = torch.device(device)
        self._names: list[str] = []
        self._nets: dict[str, PolicyNet] = {}

    def __len__(self) -> int:
        return len(self._names)

    def add(self, net: PolicyNet, update: int) -> Path:
        """Freeze a copy of ``net`` as the snapshot of ``update``."""
        name = f"snapshot_{update:06d}.pt"
        path = self.folder / name
        save_checkpoint(path, make_checkpoint(net, self.config, snapshot_of_update=update))
        self._names.append(name)
        self._nets[name] = self._load(name)
        while len(self._names) > self.capacity:
            self._nets.pop(self._names.pop(0), None)
        return path

    def prune(self, keep: set[str]) -> None:
        """Delete the snapshot files that are neither in the pool nor in ``keep``."""
        for path in self.folder.glob("snapshot_*.pt"):
            if path.name not in keep and path.name not in self._names:
                path.unlink(missing_ok=True)

    def network(self, index: int) -> PolicyNet:
        """The frozen network of snapshot ``index`` (0 = oldest kept)."""
        return self._nets[self._names[index]]

    def references(self) -> list[str]:
        """File names of the snapshots, oldest first (stored in the run's checkpoint)."""
        return list(self._names)

    def restore(self, names: Sequence[str]) -> None:
        """Reload the snapshots a checkpoint refers to; ``CheckpointError`` if one is missing or bad."""
        self._names = [str(n) for n in names]
        self._nets = {name: self._load(name) for name in self._names}

    def _load(self, name: str) -> PolicyNet:
        path = self.folder / name
        payload = load_checkpoint(path, expect_config=self.config)
        return network_from_checkpoint(payload, str(path)).to(self.device).eval()
