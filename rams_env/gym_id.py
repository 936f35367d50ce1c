"""The Gymnasium id of :class:`rams_env.envs.gym_env.RamsGymEnv`, registered by ``import rams_env``.

Registering imports Gymnasium only: the env's module (and with it PettingZoo and the compiled engine)
is loaded by ``gymnasium.make`` through the entry point, which then lists its action-mask wrapper on
the spec before ``make`` applies the spec's wrappers (``rams_env.envs.gym_env._wrap_made_envs``).
"""

from __future__ import annotations

ENV_ID = "rams_env/Rams-v1"
ENTRY_POINT = "rams_env.envs.gym_env:RamsGymEnv"
# The vector id: gymnasium.make_vec(VECTOR_ENV_ID, num_envs=N) builds rams_env.envs.gym_vector.RamsVectorEnv (its
# vector entry point), gymnasium.make(VECTOR_ENV_ID) one RamsGymEnv. A separate id, because a vector entry point
# makes make_vec refuse a spec's additional wrappers, and ENV_ID has one (ActionMasks).
VECTOR_ENV_ID = "rams_env/RamsVec-v1"
VECTOR_ENTRY_POINT = "rams_env.envs.gym_vector:RamsVectorEnv"


def register() -> None:
    """Register :data:`ENV_ID` and :data:`VECTOR_ENV_ID` with Gymnasium (once; an id already registered is
    left as it is)."""
    import gymnasium

    if ENV_ID not in gymnasium.registry:
        gymnasium.register(id=ENV_ID, entry_point=ENTRY_POINT)
    if VECTOR_ENV_ID not in gymnasium.registry:
        gymnasium.register(id=VECTOR_ENV_ID, entry_point=ENTRY_POINT, vector_entry_point=VECTOR_ENTRY_POINT)
