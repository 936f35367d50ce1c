"""The average policy of an OpenSpiel NFSP agent as a file that ``load_agent`` and ``rams eval`` read.

``save_nfsp_policy`` writes ``torch.save`` of a plain dict: the marker ``kind`` (:data:`KIND`), the
format version, the encoder's version and sizes, the rules (``config``), the hidden widths and the
weights and biases of the MLP's linear layers in order (tensors). ``load_nfsp_agent`` reads it with
``torch.load(weights_only=True)`` (the one reader, :func:`~rams_env.policy.checkpoint.read_plain`), so no
code from the file runs, and plays it as a :class:`~rams_env.agents.neural.PolicyAgent`: NFSP's MLP
(linear layers with ReLU between them) is a ``PolicyNet`` torso and policy head; its value head is zero,
as NFSP has none. The input is the information state tensor of ``python_rams``, which is the project's
observation vector, so the agent plays from the observation ``rams eval`` gives it. The file is named
``*.nfsp.pt`` (the loader registered in :mod:`rams_env.integrations` recognises the suffix); it has no
``format`` key, so ``rams_env.policy.load_checkpoint`` refuses it as not a project checkpoint.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch
from torch import nn

from ...agents.neural import PolicyAgent
from ...obs.encoding import ENCODER_VERSION, OBS_SIZE
from ...policy import CheckpointError, PolicyNet, RulesMismatchError, rules_mismatch
from ...policy.checkpoint import migrate_first_layer, read_plain
from ...rules import RulesConfig
from ...rules.actions import NUM_ACTIONS

KIND = "rams_env.nfsp_average_policy"
VERSION = 1
SUFFIX = ".nfsp.pt"


def _linear_layers(source: Any) -> list[nn.Linear]:
    """The linear layers, in order, of an NFSP agent's average network or of that network itself."""
    net = getattr(source, "_avg_network", source)
    if not isinstance(net, nn.Module):
        raise TypeError(f"save_nfsp_policy needs an NFSP agent or its average network, got {type(source).__name__}")
    return [m for m in net.modules() if isinstance(m, nn.Linear)]


def policy_payload(nfsp_agent_or_avg_net: Any, config: RulesConfig, hidden: Sequence[int]) -> dict[str, Any]:
    """The plain dict that :func:`save_nfsp_policy` writes: markers, rules, widths, copies of the weights."""
    layers = _linear_layers(nfsp_agent_or_avg_net)
    widths = [m.out_features for m in layers[:-1]]
    if widths != [int(h) for h in hidden]:
        raise ValueError(f"the network's hidden widths are {widths}, not the hidden={list(hidden)} given")
    if not layers or layers[0].in_features != OBS_SIZE or layers[-1].out_features != NUM_ACTIONS:
        raise ValueError(f"the network must map {OBS_SIZE} observations to {NUM_ACTIONS} actions")
    return {
        "kind": KIND,
        "version": VERSION,
        "encoder_version": ENCODER_VERSION,
        "obs_size": OBS_SIZE,
        "num_actions": NUM_ACTIONS,
        "config": config.to_dict(),
        "hidden": widths,
        "weights": [m.weight.detach().cpu().clone() for m in layers],
        "biases": [m.bias.detach().cpu().clone() for m in layers],
    }


def save_nfsp_policy(
    path: str | os.PathLike[str], nfsp_agent_or_avg_net: Any, config: RulesConfig, hidden: Sequence[int]
) -> Path:
    """Write the average policy of an NFSP agent (or its ``_avg_network``) trained for ``config`` to ``path``.

    ``hidden`` is the agent's hidden layer widths, checked against the network. ``path`` must end in
    ``.nfsp.pt``. Returns the path.
    """
    out = Path(path)
    if not out.name.endswith(SUFFIX):
        raise ValueError(f"an NFSP policy file must be named *{SUFFIX} (load_agent recognises it so), got {out.name!r}")
    payload = policy_payload(nfsp_agent_or_avg_net, config, hidden)
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.save(payload, out)
    return out


def nfsp_policy_agent(nfsp_agent_or_avg_net: Any, config: RulesConfig, hidden: Sequence[int]) -> PolicyAgent:
    """The greedy agent of an NFSP average policy in memory, on a copy of its weights (what the file plays)."""
    return PolicyAgent(_network(policy_payload(nfsp_agent_or_avg_net, config, hidden), "NFSP policy"), config)


def _read(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The checked payload of an NFSP policy file (:func:`~rams_env.policy.checkpoint.read_plain`), of this
    encoder (:func:`~rams_env.policy.checkpoint.migrate_first_layer`)."""
    where = str(path)
    payload = read_plain(path, "NFSP policy file", f"{where!r} is damaged or not a torch file")
    if not isinstance(payload, dict) or payload.get("kind") != KIND:
        raise CheckpointError(f"{where!r} is not an NFSP policy file (no kind {KIND!r})")
    if payload.get("version") != VERSION:
        found = payload.get("version")
        raise CheckpointError(f"{where!r} has NFSP policy file version {found!r}; this rams_env reads {VERSION}")
    weights = payload.get("weights")
    first = weights[0] if isinstance(weights, list) and weights else None
    migrated = migrate_first_layer(first if isinstance(first, torch.Tensor) else None, where, payload)
    if migrated is not None:
        weights = [migrated, *weights[1:]]
        payload = {**payload, "weights": weights, "encoder_version": ENCODER_VERSION, "obs_size": OBS_SIZE}
    for key, ours in (("encoder_version", ENCODER_VERSION), ("obs_size", OBS_SIZE), ("num_actions", NUM_ACTIONS)):
        if payload.get(key) != ours:
            raise CheckpointError(f"{where!r} was written for {key}={payload.get(key)!r}; this rams_env has {ours}")
    return payload


def _network(payload: dict[str, Any], where: str) -> PolicyNet:
    hidden, weights, biases = payload.get("hidden"), payload.get("weights"), payload.get("biases")
    if not isinstance(hidden, list) or not hidden or not all(type(h) is int and h > 0 for h in hidden):
        raise CheckpointError(f"{where!r} is damaged: hidden widths {hidden!r} are not positive ints")
    widths = [OBS_SIZE, *hidden, NUM_ACTIONS]
    layers = len(hidden) + 1
    if not isinstance(weights, list) or not isinstance(biases, list) or not len(weights) == len(biases) == layers:
        raise CheckpointError(f"{where!r} is damaged: it needs {layers} weights and biases")
    for k, (weight, bias) in enumerate(zip(weights, biases, strict=True)):
        for name, tensor, shape in (("weight", weight, (widths[k + 1], widths[k])), ("bias", bias, (widths[k + 1],))):
            if not isinstance(tensor, torch.Tensor) or not tensor.is_floating_point() or tuple(tensor.shape) != shape:
                raise CheckpointError(f"{where!r} is damaged: layer {k}'s {name} is not {shape} floats")
            if not torch.isfinite(tensor).all():
                raise CheckpointError(f"{where!r}: layer {k}'s {name} holds NaN or infinite values")
    net = PolicyNet(OBS_SIZE, NUM_ACTIONS, hidden)
    linears = [*(m for m in net.torso if isinstance(m, nn.Linear)), net.policy_head]
    with torch.no_grad():
        for layer, weight, bias in zip(linears, weights, biases, strict=True):
            layer.weight.copy_(weight)
            layer.bias.copy_(bias)
        net.value_head.weight.zero_()
        net.value_head.bias.zero_()
    return net


def load_nfsp_agent(path: str | os.PathLike[str], expect_config: RulesConfig | None = None) -> PolicyAgent:
    """The greedy agent of an NFSP policy file; ``CheckpointError`` naming the file for a refused one."""
    where = str(path)
    payload = _read(path)
    try:
        config = RulesConfig(**payload["config"])
    except (KeyError, TypeError, ValueError) as err:
        raise CheckpointError(f"{where!r} records invalid rules: {err}") from None
    if expect_config is not None and config != expect_config:
        raise RulesMismatchError(rules_mismatch(where, config, expect_config))
    return PolicyAgent(_network(payload, where), config)
