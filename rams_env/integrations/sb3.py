"""Stable-Baselines3: a trained sb3-contrib ``MaskablePPO`` model as a Rams agent, live or from its ``.zip``.

Training needs no adapter: ``MaskablePPO("MlpPolicy", gymnasium.make("rams_env/Rams-v1", ...))`` finds
the wrapper's ``action_masks()`` method. ``MaskablePPOAgent(model)`` plays a model in memory;
``load_sb3_agent(path)`` (what ``load_agent`` and ``rams eval`` call for a ``.zip``) plays a model saved
with ``model.save(path)`` without SB3's ``load``, which unpickles the file: it reads the weights of
``policy.pth`` with ``torch.load(weights_only=True)`` (:func:`~rams_env.policy.checkpoint.read_plain`) and
the activation from the readable text of the ``data`` JSON, and rebuilds the policy MLP from the shapes of
the weights. Needs the ``rams_env[sb3]`` extra.
"""

from __future__ import annotations

import os
import zipfile
from collections.abc import Mapping
from typing import Any

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from torch import nn

from .. import jsoncheck
from ..agents.base import Observation, ObservationAgent, legal_from_mask, observation_vector
from ..obs.encoding import OBS_SIZE
from ..policy import CheckpointError
from ..policy.checkpoint import first_layer_for_this_encoder, read_plain
from ..rules import RulesConfig
from ..rules.actions import NUM_ACTIONS

# The activations a saved policy may name, by the repr SB3 writes of the class; SB3's default is Tanh.
ACTIVATIONS: dict[str, type[nn.Module]] = {
    "<class 'torch.nn.modules.activation.ReLU'>": nn.ReLU,
    "<class 'torch.nn.modules.activation.Tanh'>": nn.Tanh,
}
_POLICY_NET = "mlp_extractor.policy_net"
_MAX_DATA_BYTES = 16 * 1024 * 1024


class MaskablePPOAgent(ObservationAgent):
    """Plays the most likely legal action of a ``MaskablePPO`` model trained on ``rams_env/Rams-v1``."""

    greedy = True  # deterministic: the evaluation harness may batch its decisions (act_batch)

    def __init__(self, model: MaskablePPO) -> None:
        if not isinstance(model, MaskablePPO):
            raise TypeError(f"MaskablePPOAgent needs a sb3_contrib.MaskablePPO model, got {type(model).__name__}")
        self.model = model

    def act(self, observation: Observation) -> int:
        """The model's greedy action among the legal ones of ``observation["action_mask"]``."""
        mask = np.zeros(NUM_ACTIONS, dtype=bool)
        mask[legal_from_mask(observation)] = True
        action, _ = self.model.predict(observation_vector(observation), action_masks=mask, deterministic=True)
        return int(action)

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The model's greedy legal actions for a batch, observations (B, OBS_SIZE) and masks (B, 60): the
        evaluation harness then plays it on the compiled engine with its decisions batched."""
        actions, _ = self.model.predict(
            np.asarray(observations, np.float32), action_masks=np.asarray(masks) != 0, deterministic=True
        )
        return np.asarray(actions, np.int64)


def warm_start(model: MaskablePPO, net: Any) -> None:
    """Copy a project ``PolicyNet``'s weights into a ``MaskablePPO`` model of the same widths and ReLU: its
    torso into both of SB3's MLPs (policy and value), its heads into ``action_net`` and ``value_net``.

    A model built with ``policy_kwargs=dict(net_arch=dict(pi=H, vf=H), activation_fn=torch.nn.ReLU)`` for
    the net's hidden widths ``H`` then plays exactly as the net (a checkpoint, a zoo model, the imitation
    of the heuristic): PPO from a warm start. A model of other widths is refused by torch's strict load.
    """
    weights = net.state_dict()
    copied = {}
    for key, value in weights.items():
        if key.startswith("torso."):
            copied["mlp_extractor.policy_net." + key[6:]] = value
            copied["mlp_extractor.value_net." + key[6:]] = value.clone()
    for head, target in (("policy_head", "action_net"), ("value_head", "value_net")):
        copied[f"{target}.weight"], copied[f"{target}.bias"] = weights[f"{head}.weight"], weights[f"{head}.bias"]
    model.policy.load_state_dict(copied)  # strict: every key of the model's policy given


class SB3PolicyAgent(ObservationAgent):
    """The policy MLP of a saved ``MaskablePPO`` (``load_sb3_agent``): plays the masked argmax of its logits.

    ``config`` (optional) is the rules it is asked to play: the ``.zip`` records none.
    """

    def __init__(self, net: nn.Module, config: RulesConfig | None = None) -> None:
        self.net = net.eval()
        self.config = config
        if config is not None:
            self.variant, self.num_players = config.variant, config.num_players

    def act(self, observation: Observation) -> int:
        """The most likely legal action of the policy."""
        legal = torch.from_numpy(legal_from_mask(observation))
        with torch.no_grad():
            logits = self.net(torch.from_numpy(observation_vector(observation)))
        return int(legal[torch.argmax(logits[legal])])


def _read_entry(archive: zipfile.ZipFile, name: str, where: str) -> bytes:
    try:
        info = archive.getinfo(name)
    except KeyError:
        raise CheckpointError(f"{where!r} is damaged or not a saved SB3 model: it has no {name!r} entry") from None
    if info.file_size > 64 * _MAX_DATA_BYTES:
        raise CheckpointError(f"{where!r}: its {name!r} entry is implausibly large ({info.file_size} bytes)")
    try:
        return archive.read(name)
    except (zipfile.BadZipFile, OSError, RuntimeError, ValueError) as err:
        raise CheckpointError(f"{where!r} is damaged: cannot read its {name!r} entry ({err})") from None


def _activation(data: Mapping[str, Any], where: str) -> type[nn.Module]:
    """The policy's activation from the readable repr in ``data["policy_kwargs"]`` (Tanh when unset)."""
    kwargs = data.get("policy_kwargs") or {}
    if not isinstance(kwargs, Mapping):
        raise CheckpointError(f"{where!r}: its policy_kwargs are not a JSON object")
    name = kwargs.get("activation_fn", "<class 'torch.nn.modules.activation.Tanh'>")
    if not isinstance(name, str):
        raise CheckpointError(
            f"{where!r}: activation_fn must be a string (a class's repr), got {jsoncheck.short(name)}"
        )
    if name not in ACTIVATIONS:
        known = ", ".join(cls.__name__ for cls in ACTIVATIONS.values())
        raise CheckpointError(f"{where!r}: activation_fn {name!r} is not one this loader rebuilds ({known})")
    return ACTIVATIONS[name]


def _policy_net(state: Mapping[str, Any], activation: type[nn.Module], where: str) -> nn.Sequential:
    """``mlp_extractor.policy_net`` + ``action_net`` of ``state`` as one ``nn.Sequential``, shapes checked."""
    indices = sorted(
        int(key[len(_POLICY_NET) + 1 :].split(".")[0])
        for key in state
        if key.startswith(_POLICY_NET + ".") and key.endswith(".weight")
    )
    layers: list[nn.Module] = []
    weights: dict[str, torch.Tensor] = {}
    width = OBS_SIZE
    first = f"{_POLICY_NET}.0.weight"
    if isinstance(state.get(first), torch.Tensor):  # a model of an older encoder's observations: migrated or refused
        state = {**state, first: first_layer_for_this_encoder(state[first], where)}
    for k, index in enumerate([*indices, None]):
        prefix = "action_net" if index is None else f"{_POLICY_NET}.{index}"
        if index is not None and index != 2 * k:
            raise CheckpointError(f"{where!r}: the policy's layers are not those of SB3's MlpPolicy ({prefix})")
        weight, bias = state.get(f"{prefix}.weight"), state.get(f"{prefix}.bias")
        out = NUM_ACTIONS if index is None else getattr(weight, "shape", (0,))[0]
        for name, tensor, shape in ((f"{prefix}.weight", weight, (out, width)), (f"{prefix}.bias", bias, (out,))):
            if not isinstance(tensor, torch.Tensor) or not tensor.is_floating_point() or tuple(tensor.shape) != shape:
                got = tuple(tensor.shape) if isinstance(tensor, torch.Tensor) else type(tensor).__name__
                raise CheckpointError(
                    f"{where!r}: {name} is {got}, a policy for {OBS_SIZE} observations and "
                    f"{NUM_ACTIONS} actions needs {shape} floats"
                )
            if not torch.isfinite(tensor).all():
                raise CheckpointError(f"{where!r}: {name} holds NaN or infinite values")
        position = len(layers)
        layers.append(nn.Linear(width, out))
        weights |= {f"{position}.weight": weight.float(), f"{position}.bias": bias.float()}
        if index is not None:
            layers.append(activation())
        width = out
    net = nn.Sequential(*layers)
    net.load_state_dict(weights)
    return net


def load_sb3_agent(path: str | os.PathLike[str], expect_config: RulesConfig | None = None) -> SB3PolicyAgent:
    """The greedy agent of a ``MaskablePPO`` saved with ``model.save(path)`` (an ``MlpPolicy``, ReLU or Tanh).

    Nothing from the file is executed: ``policy.pth`` is read with ``torch.load(weights_only=True)``
    and the activation from the text of the ``data`` JSON, never from its pickled blobs.
    ``CheckpointError`` (a ``ValueError``) names the file when it is missing, damaged or not such a
    model. The file records no rules: the agent plays those of ``expect_config``.
    """
    where = str(path)
    if not os.path.isfile(path):
        raise CheckpointError(f"SB3 model {where!r} does not exist (or is not a file)")
    try:
        with zipfile.ZipFile(path) as archive:
            data_bytes = _read_entry(archive, "data", where)
            policy_bytes = _read_entry(archive, "policy.pth", where)
    except (zipfile.BadZipFile, OSError) as err:
        raise CheckpointError(f"{where!r} is damaged or not a zip file saved by SB3 ({err})") from None
    try:
        data = jsoncheck.parse(data_bytes, f"{where!r}: its 'data' entry", max_bytes=_MAX_DATA_BYTES)
    except jsoncheck.JsonInputError as err:  # not JSON, not UTF-8, too deep, too long a number
        raise CheckpointError(str(err)) from None
    if not isinstance(data, dict):
        raise CheckpointError(f"{where!r} is damaged: its 'data' entry is not a JSON object")
    activation = _activation(data, where)
    state = read_plain(policy_bytes, "SB3 policy", f"{where!r}: its policy.pth is damaged or holds more than weights")
    if not isinstance(state, Mapping):
        raise CheckpointError(f"{where!r}: its policy.pth holds no state dict")
    return SB3PolicyAgent(_policy_net(state, activation, where), expect_config)
