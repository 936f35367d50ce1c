"""Trained policies: the network, its checkpoints on disk and ensembles of checkpoints.

- :mod:`~rams_env.policy.network`: :class:`PolicyNet` (an MLP torso, a policy head, a value head) and
  :class:`MaskedCategorical`, the distribution over the legal actions only;
- :mod:`~rams_env.policy.checkpoint`: checkpoint I/O, the layout of a checkpoint and every check a
  loaded one passes (:func:`load_checkpoint`, :func:`save_checkpoint`, :class:`CheckpointError`);
- :mod:`~rams_env.policy.ensemble`: JSON manifests naming several checkpoints played as one
  (:func:`write_ensemble`, :func:`load_ensemble`).

Training scripts (``training/``) and the trained-policy agent (:mod:`rams_env.agents.neural`, behind
:func:`rams_env.agents.load_agent`) import this one package, so they cannot drift apart. It needs
torch (the ``torch`` extra); ``import rams_env`` and the non-neural agents do not import it. It reads
the observation layout (:mod:`rams_env.obs`) and the rules, never :mod:`rams_env.agents`: the agents
depend on the policy, never the reverse. What only training needs (the opponent pool of self-play)
lives in ``training/``.
"""

from __future__ import annotations

from .checkpoint import (
    CHECKPOINT_FORMAT,
    CHECKPOINT_VERSION,
    CheckpointError,
    RulesMismatchError,
    checkpoint_config,
    config_at_size,
    expected_shapes,
    load_checkpoint,
    make_checkpoint,
    model_digest,
    network_from_checkpoint,
    rules_mismatch,
    save_checkpoint,
    table_configs,
)
from .ensemble import ENSEMBLE_FORMAT, ENSEMBLE_VERSION, MAX_MEMBERS, load_ensemble, write_ensemble
from .network import DEFAULT_HIDDEN, MaskedCategorical, PolicyNet, mlp_torso

__all__ = [
    "CheckpointError",
    "MaskedCategorical",
    "PolicyNet",
    "RulesMismatchError",
    "load_checkpoint",
    "load_ensemble",
    "make_checkpoint",
    "network_from_checkpoint",
    "save_checkpoint",
    "write_ensemble",
]
