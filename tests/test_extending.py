"""The recipes of docs/extending.md, done end to end: a new preset (registered, played by both engines, checked by
``check_env``), a new opponent, a new reward and a new library adapter (``examples/dm_env_face.py``, which plays
the games of the face below it)."""

from __future__ import annotations

import importlib.util
import random
import re
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

import rams_env
from rams_env.envs import BatchedRamsEnv
from rams_env.obs import OBS_SIZE, SLICES
from rams_env.obs.encoding import PRESET_SLOTS, preset_slot
from rams_env.rules.config import OPTION_NAMES, PRESETS, make_config
from rams_env.testing import check_env

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "extending.md"


# ----------------------------------------------------------------------------- a new preset
def recipe_block(title: str) -> str:
    """The first Python block under the heading ``title`` of docs/extending.md."""
    text = PAGE.read_text(encoding="utf-8")
    section = text[text.index(title) :]
    return re.search(r"^```python\n(.*?)^```", section, re.M | re.S).group(1)


@pytest.fixture
def quickmar(monkeypatch: pytest.MonkeyPatch) -> str:
    """The page's new preset, appended to PRESETS for this test only (as the recipe's edit of config.py does)."""
    namespace: dict = {"PRESETS": {**PRESETS}}
    exec(recipe_block("## A new rules preset"), namespace)
    [(name, options)] = [(k, v) for k, v in namespace["PRESETS"].items() if k not in PRESETS]
    monkeypatch.setitem(PRESETS, name, options)
    return name


def transcript(env, seed: int) -> list:
    """Every observation, reward and end of one episode with seeded random legal moves."""
    env.reset(seed=seed)
    rng, out = random.Random(seed), []
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        out.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward, terminated))
        env.step(None if terminated or truncated else rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
    return out


def test_a_new_preset_takes_a_free_slot_and_both_engines_and_check_env_agree(quickmar: str) -> None:
    config = make_config(quickmar)
    assert config.variant == quickmar and quickmar not in ("mattmar", "norrlandsknack", "rams32", "russian")
    assert preset_slot(quickmar) == len(PRESETS) - 1 < PRESET_SLOTS  # the next free slot; nothing moves
    assert SLICES["variant"].stop == OBS_SIZE
    for seed in range(3):
        compiled = transcript(rams_env.env(variant=quickmar, episode="rams", reward="win"), seed)
        reference = transcript(rams_env.env(variant=quickmar, episode="rams", reward="win", engine="reference"), seed)
        assert compiled == reference, seed
        observation = np.frombuffer(compiled[0][1], np.float32)
        assert observation[SLICES["variant"]].tolist() == [float(k == preset_slot(quickmar)) for k in range(8)]
    check_env(rams_env.env(variant=quickmar, episode="rams"))
    check_env(BatchedRamsEnv(4, variant=quickmar, episode="rams", reward="win"))
    check_env(rams_env.envs.RamsVectorEnv(4, variant=quickmar, episode="rams", opponents="heuristic"))


def test_the_compiled_twin_reads_every_option_but_the_table_size_bounds() -> None:
    """The recipe's step for a new option: config_array gives the engine a column for it (as for these)."""
    source = (ROOT / "rams_env" / "compiled" / "layout.py").read_text(encoding="utf-8")
    body = source[source.index("def config_array") : source.index("return cfg")]
    read = set(re.findall(r"config\.(\w+)", body)) | ({"family"} if "config.swedish" in body else set())
    assert set(OPTION_NAMES) - read == {"min_players", "max_players"}


# ----------------------------------------------------------------------------- a new library adapter
def dm_env_face() -> ModuleType:
    spec = importlib.util.spec_from_file_location("dm_env_face", ROOT / "examples" / "dm_env_face.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["dm_env_face"] = module
    spec.loader.exec_module(module)
    return module


def test_the_adapter_is_about_a_hundred_lines_and_the_page_shows_it() -> None:
    assert len((ROOT / "examples" / "dm_env_face.py").read_text().splitlines()) <= 130
    assert "../examples/dm_env_face.py" in PAGE.read_text(encoding="utf-8")


@pytest.mark.parametrize(("variant", "episode", "reward"), [("russian", "deal", "points"), ("mattmar", "rams", "win")])
def test_the_dm_env_face_plays_the_games_of_the_batched_env(variant: str, episode: str, reward: str) -> None:
    face, games, steps = dm_env_face(), 6, 600
    dm = face.DmRamsEnv(games, variant=variant, episode=episode, reward=reward)
    batched = BatchedRamsEnv(games, variant=variant, episode=episode, reward=reward)
    mine: list[list] = [[] for _ in range(games)]
    theirs: list[list] = [[] for _ in range(games)]
    pick = [random.Random(i) for i in range(games)], [random.Random(i) for i in range(games)]

    def decide(k: int, masks: np.ndarray) -> list[int]:
        return [pick[k][i].choice(np.flatnonzero(m).tolist()) if m.any() else 0 for i, m in enumerate(masks)]

    step = batched.reset(seed=11)
    for i in range(games):
        theirs[i].append(("decide", step.observations[i].tobytes(), step.action_masks[i].tobytes(), step.seats[i]))
    for _ in range(steps):
        step = batched.step(decide(0, step.action_masks))
        for i in range(games):
            theirs[i].append(("paid", step.rewards[i].tolist(), bool(step.terminated[i])))
            theirs[i].append(("decide", step.observations[i].tobytes(), step.action_masks[i].tobytes(), step.seats[i]))

    timestep = dm.reset(seed=11)
    assert (timestep.step_type == face.StepType.FIRST).all()
    for _ in range(steps):
        observation = timestep.observation
        for i in range(games):
            if timestep.step_type[i] != face.StepType.LAST:
                mask = observation["action_mask"][i]
                mine[i].append(
                    ("decide", observation["observation"][i].tobytes(), mask.tobytes(), observation["seat"][i])
                )
        before = timestep.step_type.copy()
        timestep = dm.step(decide(1, np.where((before == face.StepType.LAST)[:, None], 0, observation["action_mask"])))
        for i in range(games):
            kind = timestep.step_type[i]
            assert (kind == face.StepType.FIRST) == (before[i] == face.StepType.LAST), "FIRST follows LAST, only"
            assert timestep.discount[i] == (0.0 if kind == face.StepType.LAST else 1.0)
            if kind == face.StepType.LAST:
                assert not timestep.observation["action_mask"][i].any()
            if kind != face.StepType.FIRST:
                mine[i].append(("paid", timestep.reward[i].tolist(), bool(kind == face.StepType.LAST)))
            else:
                assert not timestep.reward[i].any()
    ended = 0
    for i in range(games):
        n = min(len(mine[i]), len(theirs[i]))
        assert n > steps and mine[i][:n] == theirs[i][:n], i
        ended += sum(1 for event in mine[i] if event[0] == "paid" and event[2])
    assert ended >= games  # episodes ended and the next ones were played the same way


# ----------------------------------------------------------------------------- a new opponent, a new reward
def run_recipe(title: str) -> dict:
    """The namespace the page's block under ``title`` leaves behind."""
    namespace: dict = {}
    exec(recipe_block(title), namespace)
    return namespace


def random_actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks], np.int64)


def test_a_new_opponent_is_asked_and_obeyed() -> None:
    recipe = run_recipe("## A new opponent")
    env, knocker = recipe["env"], recipe["Knocker"]
    asked: list[int] = []
    original = knocker.act
    knocker.act = lambda self, observation: asked.append(original(self, observation)) or asked[-1]
    try:
        _, infos = env.reset(seed=1)
        rng = np.random.default_rng(0)
        for _ in range(200):
            *_, infos = env.step(random_actions(infos["action_mask"], rng))
    finally:
        knocker.act = original
    assert asked and rams_env.Action.KNOCK in asked  # it was asked, and it knocked where it could


def test_a_new_reward_pays_its_bonus_for_each_trick_and_keeps_the_contract() -> None:
    recipe = run_recipe("## A new reward")
    wrapped = recipe["env"]
    plain = rams_env.make("mattmar", "vector", num_envs=8, seats=["learner", "heuristic", "heuristic", "heuristic"])
    (_, infos), _ = wrapped.reset(seed=3), plain.reset(seed=3)
    rng, bonus_paid, tricks = np.random.default_rng(0), 0.0, infos["tricks"].copy()
    for _ in range(300):
        actions = random_actions(infos["action_mask"], rng)
        _, shaped, *_, infos = wrapped.step(actions)
        _, base, *_ = plain.step(actions)
        taken = np.maximum(infos["tricks"] - tricks, 0)
        tricks = infos["tricks"].copy()
        np.testing.assert_allclose(shaped - base, 0.2 * taken, atol=1e-6)
        bonus_paid += float((shaped - base).sum())
    assert bonus_paid > 0
    check_env(wrapped, checks=["protocol", "seeding", "bad_seed", "action_mask", "terminated_truncated", "autoreset"])
