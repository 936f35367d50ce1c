"""Adapters for outside RL libraries; each submodule imports its optional extra.

- :mod:`rams_env.integrations.sb3`: a trained sb3-contrib ``MaskablePPO`` as a Rams agent (``rams_env[sb3]``);
  :mod:`~rams_env.integrations.sb3_vector`: SB3's ``VecEnv`` over the compiled vector env.
- :mod:`rams_env.integrations.rllib`: Rams as an RLlib ``MultiAgentEnv`` and a masked PPO RLModule
  (``rams_env[rllib]``); :mod:`~rams_env.integrations.rllib_vector`: env runners on the vector env (one seat
  against opponents); :mod:`~rams_env.integrations.rllib_selfplay`: an env runner for self-play on the
  batched engine.
- :mod:`rams_env.integrations.torchrl`: Rams as a TorchRL env and a masked policy (``rams_env[torchrl]``);
  :mod:`~rams_env.integrations.torchrl_vector` and :mod:`~rams_env.integrations.torchrl_selfplay`: batched
  ``EnvBase`` s over the vector env and over the batched self-play engine.
- :mod:`rams_env.integrations.openspiel`: Rams as the OpenSpiel game ``python_rams`` and OpenSpiel's ISMCTS
  as an agent (``rams_env[openspiel]``).

``import rams_env`` never imports these; it imports this package, which registers the loaders
(:mod:`rams_env.loaders`) of RLlib's checkpoint folders, of SB3's saved ``.zip`` models and of NFSP
policy files (``.nfsp.pt``), so that ``load_agent`` reads them, and the class of the ``ismcts`` agent
spec (OpenSpiel's ISMCTS, imported when a spec asks for it). Each loader imports its integration only
when a file of its kind is loaded.
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


def _missing_extra(path: Path, what: str, extra: str, err: ImportError) -> Exception:
    from ..policy import CheckpointError

    return CheckpointError(f"{str(path)!r} is {what}; reading it needs the {extra} extra ({err})")


def is_sb3_zip(path: Path) -> bool:
    """Whether ``path`` is a ``.zip`` file, as SB3's ``model.save`` writes (its loader checks the contents)."""
    return path.suffix == ".zip" and path.is_file()


def load_sb3(path: Path, expect_config: Any) -> Any:
    """:func:`rams_env.integrations.sb3.load_sb3_agent`, or ``CheckpointError`` without the sb3 extra."""
    try:
        from .sb3 import load_sb3_agent
    except ImportError as err:
        raise _missing_extra(path, "a saved SB3 model", "sb3", err) from None
    return load_sb3_agent(path, expect_config)


register_loader(Loader("sb3", is_sb3_zip, load_sb3, "sb3"))

NFSP_SUFFIX = ".nfsp.pt"


def is_nfsp_file(path: Path) -> bool:
    """Whether ``path`` is a file named ``*.nfsp.pt`` (``save_nfsp_policy``'s; its loader checks the kind)."""
    return path.name.endswith(NFSP_SUFFIX) and path.is_file()


def load_nfsp(path: Path, expect_config: Any) -> Any:
    """:func:`rams_env.integrations.openspiel.policy_file.load_nfsp_agent`, or ``CheckpointError`` without
    the openspiel extra."""
    try:
        from .openspiel.policy_file import load_nfsp_agent
    except ImportError as err:
        raise _missing_extra(path, "an NFSP policy file", "openspiel", err) from None
    return load_nfsp_agent(path, expect_config)


register_loader(Loader("nfsp", is_nfsp_file, load_nfsp, "openspiel"))


def ismcts_class() -> type:
    """OpenSpiel's ISMCTS agent class; ``ValueError`` naming the openspiel extra without it."""
    try:
        from .openspiel import ISMCTSAgent
    except ImportError as err:
        raise ValueError(f"needs OpenSpiel: pip install 'rams_env[openspiel]' ({err})") from None
    return ISMCTSAgent


register_agent_class("ismcts", ismcts_class)
