"""``rams_env.testing.check_env`` passes on every face of the project, and fails, naming the check, on
deliberately broken envs (a checker that cannot fail is a defect)."""

from __future__ import annotations

import copy

import gymnasium
import numpy as np
import pytest

import rams_env
from rams_env.envs import BatchedRamsEnv, RamsEnv, RamsGymEnv, RamsVectorEnv, ReferenceBatchedRamsEnv
from rams_env.testing import EnvCheckError, check_env

# ---------------------------------------------------------------------------------------------- faces that pass

FAST = {
    "env": lambda: rams_env.env(),
    "raw_env-russian-rams-win": lambda: rams_env.raw_env(
        variant="russian", num_players=5, episode="rams", reward="win"
    ),
    "RamsEnv-compiled": lambda: RamsEnv(variant="rams32", num_players=3, engine="compiled"),
    "RamsEnv-reference": lambda: RamsEnv(variant="norrlandsknack", engine="reference"),
    "RamsGymEnv": lambda: RamsGymEnv(),
    "make-Rams-v1-heuristic": lambda: gymnasium.make("rams_env/Rams-v1", opponents=rams_env.agents.HeuristicAgent()),
    "RamsGymEnv-random-agent-match": lambda: RamsGymEnv(
        opponents=rams_env.agents.RandomAgent(), learner_seat="random", episode="match"
    ),
    "make_vec-next-step-heuristic": lambda: gymnasium.make_vec(
        "rams_env/RamsVec-v1", num_envs=3, opponents="heuristic"
    ),
    "make_vec-same-step-random": lambda: gymnasium.make_vec(
        "rams_env/RamsVec-v1", num_envs=3, autoreset_mode="SameStep"
    ),
    "make_vec-disabled-dict": lambda: gymnasium.make_vec(
        "rams_env/RamsVec-v1", num_envs=3, autoreset_mode="Disabled", observation_mode="dict", episode="rams"
    ),
    "BatchedRamsEnv": lambda: BatchedRamsEnv(4, seed=1, variant="russian", episode="rams", reward="win"),
    "BatchedRamsEnv-heuristic-seats": lambda: BatchedRamsEnv(3, heuristic_seats=np.array([False, True, True, True])),
    "ReferenceBatchedRamsEnv": lambda: ReferenceBatchedRamsEnv(3, variant="mattmar", num_players=5),
}


@pytest.mark.parametrize("name", list(FAST))
def test_every_fast_face_passes(name):
    import rams_env.agents  # noqa: F401  (the lambdas name it)

    env = FAST[name]()
    report = check_env(env)
    assert report.passed and not report.failed
    for required in ("seeding", "bad_seed", "reference_play", "terminated_truncated"):
        assert required in report.passed, (required, report.skipped)


def test_a_vector_env_built_directly_is_checked_given_its_episode_and_reward():
    env = RamsVectorEnv(3, opponents="heuristic", episode="rams", reward="win")
    report = check_env(env, episode="rams", reward="win", opponents="heuristic")
    assert "reference_play" in report.passed and "autoreset" in report.passed
    assert "reference_play" in check_env(RamsVectorEnv(2), raise_on_failure=False).skipped  # says why


def test_outside_opponents_skip_only_the_replay_of_their_games():
    env = RamsVectorEnv(2, opponents=rams_env.agents.RandomAgent(seed=1), episode="deal", reward="points")
    report = check_env(env, episode="deal", reward="points")
    assert "outside agents" in report.skipped["reference_play"]


@pytest.mark.slow
def test_subprocess_batched_env_fits_the_batched_protocol():
    """SubprocBatchedRamsEnv has scores and reset_games, as BatchedEnv declares (issue 62 item 3)."""
    from rams_env.envs import SubprocBatchedRamsEnv

    env = SubprocBatchedRamsEnv(4, workers=2, seed=3)
    try:
        check_env(env, episode="deal", reward="points", steps=60)
    finally:
        env.close()


@pytest.mark.slow
def test_sb3_vec_env_passes():
    from rams_env.integrations.sb3_vector import RamsVecEnv

    check_env(RamsVecEnv(3, opponents="heuristic"), episode="deal", reward="points", opponents="heuristic")


@pytest.mark.slow
def test_torchrl_vector_env_passes():
    from rams_env.integrations.torchrl_vector import RamsBatchedEnv

    report = check_env(RamsBatchedEnv(3, opponents="heuristic"), episode="deal", reward="points", opponents="heuristic")
    assert "reference_play" in report.passed


@pytest.mark.slow
def test_torchrl_self_play_and_pettingzoo_wrapper_pass():
    from rams_env.integrations.torchrl import make_env
    from rams_env.integrations.torchrl_selfplay import RamsSelfPlayEnv

    check_env(RamsSelfPlayEnv(3, episode="rams", reward="win"))
    check_env(make_env(variant="russian", num_players=4))


@pytest.mark.slow
def test_rllib_multi_agent_env_passes():
    from rams_env.integrations.rllib import RamsMultiAgentEnv

    check_env(RamsMultiAgentEnv({"variant": "mattmar", "num_players": 4}))


# ---------------------------------------------------------------------------------------------- broken envs fail


class _Broken(RamsEnv):
    """A RamsEnv that breaks one rule of its contract, chosen by ``how``."""

    def __init__(self, how: str, **kwargs) -> None:
        super().__init__(**kwargs)
        self.how = how

    def reset(self, seed=None, options=None):
        if self.how == "ignores_seed" and seed is not None:
            seed = int(np.random.default_rng().integers(2**32))  # a fresh deal whatever the seed
        if self.how == "accepts_bad_seed" and (not isinstance(seed, int | type(None)) or seed == -1):
            seed = 0
        super().reset(seed=seed, options=options)

    def observe(self, agent):
        obs = super().observe(agent)
        if self.how == "corrupts_mask" and obs["action_mask"].any():
            obs["action_mask"][52] = 1  # PASS, legal or not
        return obs

    def step(self, action):
        super().step(action)
        if self.how == "flips_truncated" and all(self.terminations.values()):
            self.truncations = dict.fromkeys(self.truncations, True)
        if self.how == "doubles_rewards":
            self.rewards = {a: 2 * r for a, r in self.rewards.items()}

    def __deepcopy__(self, memo):
        if self.how != "shares_state_when_copied":
            cls = type(self)
            twin = cls.__new__(cls)
            memo[id(self)] = twin
            twin.__dict__.update(copy.deepcopy(self.__dict__, memo))
            return twin
        return self  # a "copy" that is the original


BROKEN = {
    "ignores_seed": "seeding",
    "accepts_bad_seed": "bad_seed",
    "corrupts_mask": "action_mask",
    "flips_truncated": "terminated_truncated",
    "doubles_rewards": "reward_sum",
    "shares_state_when_copied": "deepcopy",
}


@pytest.mark.parametrize(("how", "check"), list(BROKEN.items()))
def test_a_broken_aec_env_fails_the_named_check(how, check):
    env = _Broken(how, variant="mattmar", num_players=4, engine="reference")
    with pytest.raises(EnvCheckError) as caught:
        check_env(env, steps=120)
    assert check in caught.value.failures, caught.value.failures
    assert check in str(caught.value)


class _TruncatingBatch(BatchedRamsEnv):
    """Says ``truncated`` where an episode ended, and declares the wrong autoreset mode."""

    autoreset_mode = gymnasium.vector.AutoresetMode.NEXT_STEP

    def step(self, actions, out=None):
        out = super().step(actions, out)
        out.truncated[:] = out.terminated
        return out


def test_a_broken_batched_env_fails_by_name():
    report = check_env(_TruncatingBatch(3, seed=2), raise_on_failure=False, steps=120)
    assert {"autoreset", "terminated_truncated"} <= set(report.failed), report.failed


class _StaleMask(gymnasium.Wrapper):
    """Hands out the mask of the decision before."""

    def __init__(self, env) -> None:
        super().__init__(env)
        self.last = None

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        stale, self.last = self.last, info["action_mask"].copy()
        if stale is not None and not terminated:
            info = {**info, "action_mask": stale}
        return obs, reward, terminated, truncated, info


def test_a_gym_wrapper_with_stale_masks_fails_the_mask_check():
    report = check_env(_StaleMask(RamsGymEnv()), raise_on_failure=False, copies=False)
    assert "action_mask" in report.failed


def test_a_protocol_gap_is_named():
    class Partial:
        autoreset_mode = gymnasium.vector.AutoresetMode.SAME_STEP

        def __init__(self) -> None:
            self.inner = BatchedRamsEnv(2, seed=1)
            self.config, self.num_games, self.num_players = self.inner.config, 2, 4
            self.episode, self.reward_kind = "deal", "points"

        def reset(self, seed=None):
            return self.inner.reset(seed=seed)

        def step(self, actions):
            return self.inner.step(actions)

        def close(self) -> None:
            pass

    with pytest.raises(EnvCheckError, match=r"protocol.*lacks \['scores', 'reset_games'\]"):
        check_env(Partial(), copies=False)
