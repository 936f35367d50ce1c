"""Rams through other libraries' own PettingZoo and Gymnasium support (issue 61, item 8): every block of the
section "Through other libraries' own PettingZoo and Gymnasium support" of docs/integrations.md runs here, with
checks of what it gives; and Tianshou's reward credit (tianshou#399) with and without the recipe of that page."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import pytest
import supersuit as ss
import torch
from pettingzoo.utils.conversions import turn_based_aec_to_parallel
from tianshou.env import PettingZooEnv

import rams_env
from benchmarks.outside_libraries import cleanrl_ppo

PAGE = Path(__file__).resolve().parents[2] / "docs" / "integrations.md"
SECTION = "## Through other libraries' own PettingZoo and Gymnasium support"
# A block belongs to the library whose import it holds.
LIBRARIES = {
    "supersuit": "import supersuit",
    "tianshou": "from tianshou",
    "torchrl": "from torchrl.envs import PettingZooWrapper",
    "cleanrl": "class Agent(nn.Module)",
}


def section_blocks() -> dict[str, str]:
    """The Python block of each library in the section (one each)."""
    text = PAGE.read_text(encoding="utf-8")
    start = text.index("\n" + SECTION + "\n")
    end = text.find("\n## ", start + len(SECTION))
    blocks = re.findall(r"^```python\n(.*?)^```", text[start : None if end < 0 else end], re.DOTALL | re.MULTILINE)
    found: dict[str, str] = {}
    for code in blocks:
        [library] = [name for name, mark in LIBRARIES.items() if mark in code]
        assert library not in found, f"two blocks for {library}"
        found[library] = code
    return found


BLOCKS = section_blocks()


@pytest.fixture(autouse=True)
def one_thread() -> Iterator[None]:
    """One torch thread (small MLPs on a busy machine); torch's global generator restored afterwards."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    with torch.random.fork_rng():
        yield
    torch.set_num_threads(threads)


def run_block(library: str) -> dict[str, Any]:
    """Runs the library's block of docs/integrations.md; returns its names."""
    names: dict[str, Any] = {"__name__": f"outside_{library}"}
    exec(compile(BLOCKS[library], f"docs/integrations.md ({library})", "exec"), names)
    return names


def test_the_section_has_one_block_per_library():
    assert sorted(BLOCKS) == sorted(LIBRARIES)


# ----------------------------------------------------------------------------- SuperSuit
def test_supersuit_concat_vec_envs_in_worker_processes():
    names = run_block("supersuit")
    assert names["ended"] > 0 and names["ended"] % 4 == 0  # whole games: every seat's row ends with it
    assert type(names["envs"]).__name__ == "ProcConcatVec"  # the envs were pickled to worker processes


def _play(envs: Any, steps: int) -> list[tuple[np.ndarray, ...]]:
    """``steps`` steps of the first legal action in every row; each step's observations, masks and rewards."""
    obs, _ = envs.reset(seed=7)
    seen = []
    for _ in range(steps):
        masks = obs["action_mask"]
        assert ((masks.reshape(-1, 4, masks.shape[-1]).any(-1)).sum(-1) <= 1).all()  # one seat to act a game
        actions = np.array([np.flatnonzero(m)[0] if m.any() else 0 for m in masks])
        obs, rewards, terminated, _, _ = envs.step(actions)
        seen.append((obs["observation"].copy(), obs["action_mask"].copy(), rewards.copy(), terminated.copy()))
    envs.close()
    return seen


def test_supersuit_worker_copies_play_the_games_of_the_env_in_this_process():
    def make(num_cpus: int) -> Any:
        parallel = turn_based_aec_to_parallel(rams_env.env(variant="mattmar", num_players=4))
        return ss.concat_vec_envs_v1(ss.pettingzoo_env_to_vec_env_v1(parallel), 2, num_cpus=num_cpus)

    here, workers = _play(make(0), 60), _play(make(2), 60)
    assert sum(int(t.sum()) for *_, t in here) > 0
    for a, b in zip(here, workers, strict=True):
        for x, y in zip(a, b, strict=True):
            np.testing.assert_array_equal(x, y)


def test_supersuit_observation_wrappers_work_on_the_gymnasium_env():
    env = ss.frame_stack_v1(ss.dtype_v0(gymnasium.make("rams_env/Rams-v1", variant="mattmar"), np.float16), 2)
    obs, info = env.reset(seed=0)
    assert obs.shape == (2 * env.unwrapped.observation_space.shape[0],) and obs.dtype == np.float16
    obs, *_ = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert obs.dtype == np.float16


def test_supersuit_observation_wrappers_refuse_the_aec_dict_observation():
    with pytest.raises((AttributeError, AssertionError)):  # SuperSuit#145/#252: Box and Discrete only
        ss.dtype_v0(rams_env.env(), np.float16)


# ----------------------------------------------------------------------------- Tianshou
def _credit(env: Any, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """One deal of first legal actions through a Tianshou PettingZooEnv: per seat, the rewards on its own
    transitions (what Tianshou's policy manager gives it), and the rewards of all transitions."""
    obs, _ = env.reset(seed=seed)
    own, every = np.zeros(len(env.agents)), np.zeros(len(env.agents))
    for _ in range(1000):
        seat = env.agent_idx[obs["agent_id"]]
        obs, rewards, terminated, truncated, _ = env.step(int(np.flatnonzero(obs["mask"])[0]))
        rewards = np.asarray(rewards, dtype=float)
        own[seat] += rewards[seat]
        every += rewards
        if terminated or truncated:
            return own, every
    raise AssertionError("the deal did not end")


def test_tianshou_loses_the_rewards_of_other_seats_moves_and_the_recipe_pays_them():
    pay_every_seat = run_block_definitions("tianshou")["PayEverySeat"]
    lost = 0.0
    for seed in range(6):
        own, every = _credit(PettingZooEnv(rams_env.env(variant="mattmar", num_players=4)), seed)
        lost += np.abs(every - own).sum()
        paid_own, paid_every = _credit(pay_every_seat(rams_env.env(variant="mattmar", num_players=4)), seed)
        np.testing.assert_array_equal(paid_every, every)  # the same deal, the same score for every seat
        np.testing.assert_array_equal(paid_own, every)  # all of it on each seat's own transitions
    assert lost > 0  # tianshou#399: without the recipe, seats miss the scores of deals others end


def run_block_definitions(library: str) -> dict[str, Any]:
    """The block's imports and definitions alone (everything before its first top-level call)."""
    code = BLOCKS[library]
    head = code[: code.index("\ntorch.manual_seed(0)\n")]
    names: dict[str, Any] = {"__name__": f"outside_{library}_definitions"}
    exec(compile(head, f"docs/integrations.md ({library}, definitions)", "exec"), names)
    return names


@pytest.mark.slow
def test_tianshou_masked_dqn_seat_trains_and_evaluates():
    names = run_block("tianshou")
    assert names["result"].update_step > 0  # gradient steps were taken
    returns = names["evaluation"].returns
    assert returns.shape == (8, 4) and np.isfinite(returns).all()  # 8 deals; illegal actions would have raised


# ----------------------------------------------------------------------------- TorchRL
# TorchRL warns on every wrapper that it was tested with PettingZoo 1.24.3; the TorchRL tests cover 1.27.
@pytest.mark.filterwarnings("ignore:PettingZoo in TorchRL is tested using version:UserWarning")
def test_torchrl_pettingzoo_wrapper_checks_rolls_out_and_collects():
    names = run_block("torchrl")
    assert names["frames"] == 300
    rollout = names["rollout"]
    acting = rollout["agents", "mask"]  # the seat to act at each step
    assert (acting.sum(-1) == 1).all()
    chosen = rollout["agents", "action"][acting]
    legal = rollout["agents", "action_mask"][acting]
    assert legal.gather(-1, chosen.unsqueeze(-1)).all()  # every action taken was legal


# ----------------------------------------------------------------------------- CleanRL
def test_cleanrl_lines_step_both_gymnasium_faces():
    names = run_block("cleanrl")
    for envs in (names["sync_envs"], names["vector_envs"]):
        assert envs.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.NEXT_STEP
        envs.close()


def test_an_all_zero_mask_gives_nan_with_minus_inf_and_not_with_minus_1e8():
    logits, mask = torch.zeros(2, 5), torch.tensor([[True, False, True, False, False], [False] * 5])
    assert torch.softmax(logits.masked_fill(~mask, -torch.inf), -1)[1].isnan().all()
    probs = torch.softmax(logits.masked_fill(~mask, -1e8), -1)
    assert not probs.isnan().any() and probs[0, 1] == 0


def test_cleanrl_ppo_loop_trains_over_sync_vector_env_and_make_vec():
    names = run_block_definitions_cleanrl()
    for envs in (names["sync_envs"], names["vector_envs"]):
        agent = names["Agent"](envs)
        before = [p.detach().clone() for p in agent.parameters()]
        finished = cleanrl_ppo(agent, envs)
        assert finished and np.isfinite(finished).all()  # episodes ended, through next-step autoreset
        assert any(not torch.equal(a, b) for a, b in zip(before, agent.parameters(), strict=True))  # it learned
        envs.close()


def run_block_definitions_cleanrl() -> dict[str, Any]:
    """The CleanRL block's envs and ``Agent``, without its rollout loop."""
    code = BLOCKS["cleanrl"]
    head = code[: code.index("\nfor envs in ")]
    names: dict[str, Any] = {"__name__": "outside_cleanrl_definitions"}
    exec(compile(head, "docs/integrations.md (cleanrl, definitions)", "exec"), names)
    return names
