"""Adapters for outside RL libraries; each submodule imports its optional extra.

- :mod:`rams_env.integrations.sb3`: a trained sb3-contrib ``MaskablePPO`` as a Rams agent (``rams_env[sb3]``).
- :mod:`rams_env.integrations.rllib`: Rams as an RLlib ``MultiAgentEnv`` and a masked PPO RLModule
  (``rams_env[rllib]``).
- :mod:`rams_env.integrations.torchrl`: Rams as a TorchRL env and a masked policy (``rams_env[torchrl]``).
- :mod:`rams_env.integrations.openspiel`: Rams as the OpenSpiel game ``python_rams`` and OpenSpiel's ISMCTS
  as an agent (``rams_env[openspiel]``).

``import rams_env`` never imports these; it imports this package, which registers the loader of
RLlib's checkpoint folders (:mod:`rams_env.loaders`), so that ``load_agent`` reads them, and the class of
the ``ismcts`` agent spec (OpenSpiel's ISMCTS, imported when a spec asks for it).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..loaders import Loader, register_agent_class, register_loader


def is_rllib_folder(path: Path) -> bool:
    """Whether ``path`` is a folder saved by RLlib (``algo.save_to_path``)."""
    return path.is_dir() and (path / "rllib_checkpoint.json").is_file()


def load_rllib(path: Path, expect_config: Any) -> Any:
    """:func:`rams_env.integrations.rllib.load_rllib_agent`, or ``CheckpointError`` without the rllib extra."""
    try:
        from .rllib import load_rllib_agent
    except ImportError as err:
        from ..policy import CheckpointError

        message = f"{str(path)!r} is an RLlib checkpoint; reading it needs the rllib extra ({err})"
        raise CheckpointError(message) from None
    return load_rllib_agent(path, expect_config)


register_loader(Loader("rllib", is_rllib_folder, load_rllib, "rllib"))


def ismcts_class() -> type:
    """OpenSpiel's ISMCTS agent class; ``ValueError`` naming the openspiel extra without it."""
    try:
        from .openspiel import ISMCTSAgent
    except ImportError as err:
        raise ValueError(f"needs OpenSpiel: pip install 'rams_env[openspiel]' ({err})") from None
    return ISMCTSAgent


register_agent_class("ismcts", ismcts_class)
