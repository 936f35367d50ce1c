r"""The environments: Rams as a PettingZoo AEC env, a Gymnasium env and batched envs for training.

What lives here, one job a module:

- :mod:`~rams_env.envs.aec`: :class:`RamsEnv`, PettingZoo's AEC API (``env``, ``raw_env``; the module
  that ``rams_env.rams_v1`` names);
- :mod:`~rams_env.envs.gym_env`: :class:`RamsGymEnv`, one learning seat, registered as
  ``rams_env/Rams-v1``;
- :mod:`~rams_env.envs.vector` and :mod:`~rams_env.envs.subproc`: many games stepped together
  (in process, or split over worker processes);
- :mod:`~rams_env.envs.gym_vector`: :class:`RamsVectorEnv`, one learning seat a game as a Gymnasium
  vector env over the compiled engine (``gymnasium.make_vec("rams_env/RamsVec-v1")``);
- :mod:`~rams_env.envs.contracts`: the ``Protocol``\ s of an AEC backend and of a batched env;
- :mod:`~rams_env.envs.backends`: the two engines an AEC env can run (compiled, reference);
- the episode rules (when an episode ends and what ``reward="win"`` pays) live in
  :mod:`rams_env.rules.episode`, the one home of those rules for every env, the server and OpenSpiel,
  and are importable from here too;
- :mod:`~rams_env.envs.heuristic_seats`: seats the batched env lets the compiled heuristic play;
- :mod:`~rams_env.envs.render` (text) and :mod:`~rams_env.envs.render_rgb` (pictures, Pillow;
  not imported here, so that ``import rams_env`` loads no drawing code).

The envs drive the engine (:mod:`rams_env.rules`, :mod:`rams_env.compiled`) and encode what a seat
sees with :mod:`rams_env.obs`. They import no agent, policy, evaluation or app, and no torch; the
batched envs' heuristic seats play the compiled heuristic. Inside ``rams_env`` modules import from
the module that defines a name; other code imports from here.
"""

from __future__ import annotations

import importlib
from typing import Any

from ..gym_id import ENV_ID, VECTOR_ENV_ID
from ..rules.episode import EPISODES, REWARDS, EpisodeKind, check_episode, episode_ends, next_deal_or_end, win_rewards
from .aec import RamsEnv, env, raw_env
from .backends import ENGINES, GameMirror
from .gym_env import RamsGymEnv
from .render import render_table

# The batched envs are loaded on first use: their heuristic seats import the compiled heuristic,
# which ``import rams_env`` does not load.
_LAZY = {
    "BatchStep": "vector",
    "BatchedRamsEnv": "vector",
    "ReferenceBatchedRamsEnv": "vector",
    "SubprocBatchedRamsEnv": "subproc",
    "RamsVectorEnv": "gym_vector",
    "game_seeds": "vector",
    "heuristic_seed": "heuristic_seats",
}

__all__ = [
    "ENGINES",
    "ENV_ID",
    "VECTOR_ENV_ID",
    "BatchStep",
    "BatchedRamsEnv",
    "RamsEnv",
    "RamsGymEnv",
    "RamsVectorEnv",
    "ReferenceBatchedRamsEnv",
    "SubprocBatchedRamsEnv",
    "env",
    "game_seeds",
    "heuristic_seed",
    "raw_env",
]


def __getattr__(name: str) -> Any:
    """The names of :data:`_LAZY`, imported from their module when first asked for."""
    if name in _LAZY:
        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
