"""Each library's own checker on its wrapper: SB3's ``check_env``, TorchRL's ``check_env_specs``, RLlib's
``check_multiagent_environments`` and OpenSpiel's ``random_sim_test``."""

from __future__ import annotations

import warnings
from pathlib import Path

import gymnasium
import pyspiel
import pytest
import ray
from ray.rllib.utils.pre_checks.env import check_multiagent_environments
from stable_baselines3.common.env_checker import check_env
from torchrl.envs.utils import check_env_specs

import rams_env
import rams_env.integrations.openspiel  # noqa: F401  (registers python_rams)
from rams_env import IllegalActionError
from rams_env.agents import RandomAgent
from rams_env.integrations.rllib import RamsMultiAgentEnv, ppo_config
from rams_env.integrations.torchrl import make_env

# Library checkers that step whole games: CI runs them, -m 'not slow' skips them.
pytestmark = pytest.mark.slow


@pytest.mark.parametrize("variant", ["mattmar", "russian"])
def test_sb3_check_env_passes_on_the_gymnasium_wrapper(variant):
    env = gymnasium.make("rams_env/Rams-v1", variant=variant, num_players=4, opponents=RandomAgent(seed=0))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # SB3 reports most of its findings as warnings
        check_env(env.unwrapped, warn=True)
    check_env(env, warn=False)


# TorchRL warns on every wrapper that it was tested with PettingZoo 1.24.3; the TorchRL tests cover 1.27.
@pytest.mark.filterwarnings("ignore:PettingZoo in TorchRL is tested using version:UserWarning")
def test_torchrl_check_env_specs_passes_on_make_env():
    check_env_specs(make_env(seed=0, variant="mattmar", num_players=4), seed=0)


def test_rllib_checker_passes_on_the_default_multi_agent_env():
    ended = 0
    for seed in range(8):
        env = RamsMultiAgentEnv({"variant": "mattmar", "num_players": 4})
        for space in env.action_spaces.values():
            space.seed(seed)  # the checker steps with a sampled action: mostly illegal, sometimes legal
        check_multiagent_environments(env)
        ended += any("illegal_action" in info for info in env.aec.infos.values())
    assert ended > 0  # the checker's illegal action ended an episode, and the checker passed


def test_an_rllib_config_with_the_env_check_on_builds_and_samples():
    config = (
        ppo_config({"variant": "mattmar", "num_players": 4}, hidden=[16])
        .environment(disable_env_checking=False)  # the env runner runs check_multiagent_environments
        .env_runners(num_env_runners=0, rollout_fragment_length=50)
        .training(train_batch_size_per_learner=50, minibatch_size=50, num_epochs=1)
    )
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    try:
        algo = config.build_algo()
        try:
            assert algo.train()["env_runners"]["num_env_steps_sampled_lifetime"] >= 50
        finally:
            algo.stop()
    finally:
        ray.shutdown()


def test_rllib_checker_sees_an_illegal_action_end_the_episode_with_the_penalty():
    env = RamsMultiAgentEnv({"illegal_reward": -2.0})
    observations, _ = env.reset(seed=0)
    [agent] = observations
    illegal = next(a for a in range(60) if not observations[agent]["action_mask"][a])
    observations, rewards, terminateds, _, infos = env.step({agent: illegal})
    assert terminateds["__all__"] and set(observations) == set(env.possible_agents)
    assert rewards[agent] == -2.0 and all(r == 0.0 for a, r in rewards.items() if a != agent)
    assert "illegal_action" in infos[agent] and infos[agent]["legal_actions"]


def test_rllib_checker_on_the_raising_env_shows_the_setting_in_the_message_the_user_sees():
    env = RamsMultiAgentEnv({"illegal_action": "raise"})
    with pytest.raises(ValueError, match="gymnasium-style API") as caught:
        for seed in range(20):  # some seed's sampled action is illegal
            for space in env.action_spaces.values():
                space.seed(seed)
            check_multiagent_environments(env)
    cause = caught.value.__cause__
    assert isinstance(cause, IllegalActionError)
    assert '{"illegal_action": "raise"}' in str(cause) and '"terminate"' in str(cause)


@pytest.mark.parametrize(
    ("params", "sims"),
    [
        ({"variant": "mattmar", "players": 4}, 3),
        ({"variant": "russian", "players": 3, "episode": "rams", "reward": "win"}, 1),
    ],
)
def test_openspiel_random_sim_test_passes_on_python_rams(params, sims):
    game = pyspiel.load_game("python_rams", params)
    pyspiel.random_sim_test(game, num_sims=sims, serialize=True, verbose=False)


@pytest.mark.filterwarnings("ignore:PettingZoo in TorchRL is tested using version:UserWarning")
def test_the_checkers_snippet_of_docs_integrations_md_runs(capsys):
    text = (Path(__file__).resolve().parents[2] / "docs" / "integrations.md").read_text(encoding="utf-8")
    section = text[text.index("\n## The libraries' own checkers") :]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    exec(compile(code, "docs/integrations.md checkers section", "exec"), {"__name__": "docs_snippet"})
    assert "checkers passed" in capsys.readouterr().out
