"""``rams_env.testing.check_env`` passes on every face of the project, and fails, naming the check, on
deliberately broken envs (a checker that cannot fail is a defect); ``checks=`` chooses the checks, and a face
of the user's own is checked through its driver (docs/extending.md, "Checking your own face")."""

from __future__ import annotations

import copy
import re
import sys
import types
from pathlib import Path

import gymnasium
import numpy as np
import pytest

import rams_env
from rams_env.envs import BatchedRamsEnv, RamsEnv, RamsGymEnv, RamsVectorEnv, ReferenceBatchedRamsEnv
from rams_env.testing import CHECKS, Driver, EnvCheckError, check_env
from rams_env.testing.drivers import AECDriver, BatchedDriver, RLlibDriver, SelfPlayDriver

ROOT = Path(__file__).resolve().parents[1]

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

    env = RamsSelfPlayEnv(3, episode="rams", reward="win")
    assert isinstance(SelfPlayDriver(env), Driver)
    check_env(env)
    check_env(make_env(variant="russian", num_players=4))


@pytest.mark.slow
def test_rllib_multi_agent_env_passes():
    from rams_env.integrations.rllib import RamsMultiAgentEnv

    env = RamsMultiAgentEnv({"variant": "mattmar", "num_players": 4})
    assert isinstance(RLlibDriver(env), Driver)
    report = check_env(env)
    assert "bad_seed" in report.passed and "reference_play" in report.passed
    for bad in (-1, "x"):  # refused by RLlib's own seed check (Gymnasium's), naming the seed
        with pytest.raises(gymnasium.error.Error, match="Seed must"):
            env.reset(seed=bad)


# ---------------------------------------------------------------------------------------------- broken envs fail


class LibraryError(Exception):
    """A library's own seed error: neither SeedError nor a ValueError."""


REFUSALS = {  # ways to refuse a bad seed, other than SeedError
    "value_error_naming_the_seed": lambda seed: ValueError(f"Seed must be a non-negative int, got {seed!r}"),
    "vague_value_error": lambda seed: ValueError("expected non-negative integer"),
    "library_error": lambda seed: LibraryError(f"bad seed {seed!r}"),
}


class _Broken(RamsEnv):
    """A RamsEnv that breaks one rule of its contract, chosen by ``how``."""

    def __init__(self, how: str, **kwargs) -> None:
        super().__init__(**kwargs)
        self.how = how

    def reset(self, seed=None, options=None):
        bad = seed is not None and (not isinstance(seed, int) or seed < 0)
        if bad and self.how in REFUSALS:
            raise REFUSALS[self.how](seed)
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


def test_a_bad_seed_may_be_refused_by_any_clear_error_naming_the_seed():
    def bad_seed(how: str, **kwargs) -> dict[str, str]:
        env = _Broken(how, variant="mattmar", num_players=4, engine="reference")
        return check_env(env, checks=["bad_seed"], raise_on_failure=False, **kwargs).failed

    assert bad_seed("value_error_naming_the_seed") == {}
    assert "not SeedError" in bad_seed("vague_value_error")["bad_seed"]
    assert "bad_seed" in bad_seed("library_error")
    assert bad_seed("library_error", seed_errors=(LibraryError,)) == {}


# ---------------------------------------------------------------------------------------------- checks=


def test_checks_runs_only_the_checks_named():
    report = check_env(rams_env.env(), checks=["seeding", "bad_seed"])
    assert report.passed == ["seeding", "bad_seed"] and not report.skipped
    assert check_env(RamsGymEnv(), "pickle").passed == ["pickle"]
    broken = _Broken("doubles_rewards", variant="mattmar", num_players=4, engine="reference")
    assert check_env(broken, checks=["seeding", "deepcopy"]).passed == ["seeding", "deepcopy"]  # rewards unchecked


def test_an_unknown_check_is_refused_naming_it_and_the_known_ones():
    with pytest.raises(ValueError, match=r"unknown check\(s\) \['seeing'\].*'seeding', 'bad_seed'"):
        check_env(rams_env.env(), checks=["seeding", "seeing"])


class HalvedObservation(gymnasium.ObservationWrapper):
    """Shows half the observation: a face of its own observation, which the reference engine does not show."""

    def observation(self, observation):
        return observation * 0.5


def test_an_observation_wrapper_fails_reference_play_and_passes_without_it():
    with pytest.raises(EnvCheckError) as caught:
        check_env(HalvedObservation(RamsGymEnv()))
    assert set(caught.value.failures) == {"reference_play"}, caught.value.failures
    report = check_env(HalvedObservation(RamsGymEnv()), checks=[c for c in CHECKS if c != "reference_play"])
    assert {"seeding", "bad_seed", "action_mask", "terminated_truncated", "pickle"} <= set(report.passed)
    assert "reference_play" not in report.passed and not report.failed


# ---------------------------------------------------------------------------------------------- your own face


@pytest.fixture
def own_face(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> types.ModuleType:
    """The block of docs/extending.md, "Checking your own face", run as a module (so that its classes pickle)."""
    text = (ROOT / "docs" / "extending.md").read_text(encoding="utf-8")
    section = text[text.index("## Checking your own face") :]
    code = re.search(r"^```python\n(.*?)^```", section, re.M | re.S).group(1)
    module = types.ModuleType("checking_your_own_face")
    monkeypatch.setitem(sys.modules, module.__name__, module)
    exec(compile(code, "docs/extending.md (Checking your own face)", "exec"), module.__dict__)
    module.printed = capsys.readouterr().out
    return module


def test_the_docs_face_passes_every_check_through_its_driver(own_face: types.ModuleType):
    assert own_face.report.face == "TurnFace (driver TurnDriver)"
    assert not own_face.report.failed and not own_face.report.skipped
    assert set(own_face.report.passed) == set(CHECKS) - {"observation"}
    assert "reference_play" in own_face.printed
    assert isinstance(own_face.TurnDriver(own_face.TurnFace()), Driver)


def test_a_broken_face_of_ones_own_fails_by_name(own_face: types.ModuleType):
    class Doubling(own_face.TurnDriver):
        def step(self, actions):
            outcome = super().step(actions)
            outcome.rewards = 2 * outcome.rewards
            return outcome

    with pytest.raises(EnvCheckError) as caught:
        check_env(own_face.TurnFace(), driver=Doubling, episode="deal", reward="points", steps=120, copies=False)
    assert {"reference_play", "reward_sum"} <= set(caught.value.failures)

    class Forgetful(own_face.TurnDriver):  # no game_seeds
        game_seeds = None

    with pytest.raises(EnvCheckError, match=r"protocol: Forgetful lacks \['game_seeds'\] of the Driver Protocol"):
        check_env(own_face.TurnFace(), driver=Forgetful)


def test_an_unknown_object_is_a_type_error_saying_how_to_pass_a_driver(own_face: types.ModuleType):
    with pytest.raises(TypeError, match=r"TurnFace is no face.*driver=MyDriver.*rams_env\.testing\.Driver"):
        check_env(own_face.TurnFace())


def test_the_drivers_of_the_shipped_faces_implement_the_protocol():
    assert isinstance(AECDriver(rams_env.env()), Driver)
    assert isinstance(BatchedDriver(BatchedRamsEnv(2)), Driver)
