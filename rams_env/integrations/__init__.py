"""Adapters for outside RL libraries; each submodule imports its optional extra.

- :mod:`rams_env.integrations.sb3`: a trained sb3-contrib ``MaskablePPO`` as a Rams agent (``rams_env[sb3]``).
- :mod:`rams_env.integrations.rllib`: Rams as an RLlib ``MultiAgentEnv`` and a masked PPO RLModule
  (``rams_env[rllib]``).
- :mod:`rams_env.integrations.torchrl`: Rams as a TorchRL env and a masked policy (``rams_env[torchrl]``).
- :mod:`rams_env.integrations.openspiel`: Rams as the OpenSpiel game ``python_rams`` and OpenSpiel's ISMCTS
  as an agent (``rams_env[openspiel]``).

``import rams_env`` never imports these.
"""
