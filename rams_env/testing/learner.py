"""Checks of the one-learner faces: ``RamsGymEnv`` (``gymnasium.make("rams_env/Rams-v1")``) and
``RamsVectorEnv`` (``gymnasium.make_vec("rams_env/RamsVec-v1")``) in each autoreset mode.

The single env is checked against the reference engine through its AEC env's game (with the compiled
engine, a ``Game`` replayed by the reference rules); the vector env game by game against
``RamsGymEnv(engine="reference")`` seeded ``game_seeds(seed, N)[i]`` (tests/envs/test_gym_vector.py
proves the two play the same games)."""

from __future__ import annotations

import copy
import pickle
import random
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode

from ..envs.vector import game_seeds
from ..obs.encoding import ObservationEncoder
from ..rules import Game
from .report import CheckReport
from .seats import SeedErrors, as_bytes, check_bad_seeds, choose


def _compare_runs(report: CheckReport, name: str, first: list, second: list, what: str) -> None:
    if first != second:
        step = next(
            (k for k, (a, b) in enumerate(zip(first, second, strict=False)) if a != b), min(len(first), len(second))
        )
        report.fail(name, f"{what} differ at step {step}")


# ---------------------------------------------------------------------------------------------- single env


class _Single:
    """A one-learner Gymnasium env played with random legal actions; ``reset()`` after an episode ends."""

    def __init__(self, env: Any) -> None:
        self.env = env
        self.raw = env.unwrapped

    def play(self, seed: int, steps: int, observe: Any = None) -> list[tuple[bytes, ...]]:
        rng = random.Random(seed)
        obs, info = self.env.reset(seed=seed)
        trace = [as_bytes(obs, info["action_mask"])]
        for step in range(steps):
            if observe is not None:
                observe(step, obs, info, None)
            action = int(choose(rng, info["action_mask"][None])[0])
            obs, reward, terminated, truncated, info = self.env.step(action)
            trace.append(as_bytes(obs, info["action_mask"], reward, terminated, truncated, info["score"]))
            if observe is not None:
                observe(step, obs, info, (reward, terminated, truncated))
            if terminated or truncated:
                obs, info = self.env.reset()
                trace.append(as_bytes(obs, info["action_mask"]))
        return trace


def check_single(
    report: CheckReport, env: Any, *, seed: int, steps: int, copies: bool, seed_errors: SeedErrors = ()
) -> None:
    """Every check of a one-learner Gymnasium env (``RamsGymEnv``, bare or made by ``gymnasium.make``)."""
    single = _Single(env)
    if report.wants("seeding"):
        with report.check("seeding"):
            _compare_runs(
                report, "seeding", single.play(seed, steps), single.play(seed, steps), "two runs of the same seed"
            )
            first = as_bytes(env.reset(seed=seed)[0])
            report.expect(
                any(as_bytes(env.reset(seed=seed + k)[0]) != first for k in (1, 2, 3)),
                "seeding",
                f"seeds {seed + 1}..{seed + 3} deal exactly what seed {seed} deals",
            )
    check_bad_seeds(report, lambda s: env.reset(seed=s), seed_errors)
    aec = single.raw.aec
    encoder = ObservationEncoder(aec.config)
    episode, reward_kind, start = aec.episode, aec.reward_kind, aec.config.start_score
    state = {"sum": 0.0, "rewards": [], "ended": 0}

    def observe(step: int, obs: Any, info: dict, result: Any) -> None:
        where = f"step {step}"
        if result is None:  # a decision of the learner: against the reference game
            game = aec.game
            game = game if isinstance(game, Game) else game.clone()
            seat = int(info["seat"])
            legal = np.flatnonzero(info["action_mask"]).tolist()
            report.expect(
                game.current == seat,
                "reference_play",
                f"{where}: the learner is seat {seat}, the game's is {game.current}",
            )
            report.expect(
                legal == game.legal_actions(),
                "action_mask",
                f"{where}: mask allows {legal}, the rules allow {game.legal_actions()}",
            )
            report.expect(
                np.array_equal(obs, encoder.encode(game, seat)), "reference_play", f"{where}: observation differs"
            )
            return
        reward, terminated, truncated = result
        report.expect(
            not truncated, "terminated_truncated", f"{where}: truncated is True (Rams episodes are never truncated)"
        )
        report.expect(
            bool(terminated) == (not np.asarray(info["action_mask"]).any()),
            "terminated_truncated",
            f"{where}: terminated {terminated} with {int(np.asarray(info['action_mask']).sum())} legal actions",
        )
        state["sum"] += float(reward)
        state["rewards"].append(float(reward))
        if terminated:
            state["ended"] += 1
            if reward_kind == "points" and episode != "match":
                expected = start - int(info["score"])
                report.expect(
                    abs(state["sum"] - expected) < 1e-4,
                    "reward_sum",
                    f"{where}: the learner's rewards sum to {state['sum']}, its score fell by {expected}",
                )
            elif reward_kind == "win":
                shares = {1.0 / k for k in range(1, 8)} | {-1.0 / k for k in range(1, 8)}
                report.expect(
                    all(r == 0.0 for r in state["rewards"][:-1]) and any(abs(reward - s) < 1e-6 for s in shares),
                    "reward_sum",
                    f"{where}: win rewards {state['rewards']} are not 0 until a winner's or loser's share at the end",
                )
            state["sum"], state["rewards"] = 0.0, []

    if report.wants("reference_play", "action_mask", "terminated_truncated", "reward_sum"):
        with report.check("reference_play"):
            single.play(seed, steps, observe)
    report.ran("action_mask", "terminated_truncated", "reward_sum")
    if reward_kind == "points" and episode == "match":
        report.skip(
            "reward_sum",
            "points over a match: a new rams' fresh scores hide the score decrease from the learner's info",
        )
    elif not state["ended"]:
        report.skip("reward_sum", f"no episode ended within {steps} steps (raise steps=)")
    report.skip("autoreset", "a single env does not reset itself")
    if copies:
        _check_single_copies(report, env, seed, steps)


def _check_single_copies(report: CheckReport, env: Any, seed: int, steps: int) -> None:
    for name, clone in (("deepcopy", copy.deepcopy), ("pickle", lambda e: pickle.loads(pickle.dumps(e)))):
        if not report.wants(name):
            continue
        with report.check(name):
            rng = random.Random(seed)
            _, info = env.reset(seed=seed)
            for _ in range(steps // 4):
                _, _, terminated, _, info = env.step(int(choose(rng, info["action_mask"][None])[0]))
                if terminated:
                    _, info = env.reset()
            try:
                twin = clone(env)
            except Exception as err:
                report.fail(name, f"{name} of a mid-episode env raised {type(err).__name__}: {err}")
                continue
            state, runs = rng.getstate(), []
            for player, mask in ((twin, info["action_mask"]), (env, info["action_mask"])):
                rng.setstate(state)
                trace = []
                for _ in range(steps):
                    obs, reward, terminated, truncated, info2 = player.step(int(choose(rng, mask[None])[0]))
                    trace.append(as_bytes(obs, reward, terminated, truncated, info2["action_mask"]))
                    if terminated or truncated:
                        obs, info2 = player.reset()
                        trace.append(as_bytes(obs, info2["action_mask"]))
                    mask = info2["action_mask"]
                runs.append(trace)
            _compare_runs(report, name, runs[0], runs[1], f"the {name} and the original")


# ---------------------------------------------------------------------------------------------- vector env


def _array_obs(obs: Any) -> np.ndarray:
    return np.asarray(obs["observation"] if isinstance(obs, dict) else obs)


class _Vector:
    """A one-learner vector env played with random legal actions, as a user drives each autoreset mode
    (``DISABLED``: ``reset(options={"reset_mask": ...})`` of the finished games before the next step)."""

    def __init__(self, env: Any) -> None:
        self.env = env
        self.raw = env.unwrapped
        self.mode = self.raw.autoreset_mode

    def play(self, seed: int, steps: int, observe: Any = None) -> list[tuple[bytes, ...]]:
        rng = random.Random(seed)
        obs, info = self.env.reset(seed=seed)
        trace = [as_bytes(_array_obs(obs), info["action_mask"])]
        for step in range(steps):
            actions = choose(rng, info["action_mask"])
            obs, rewards, terminated, truncated, info = self.env.step(actions)
            trace.append(as_bytes(_array_obs(obs), info["action_mask"], rewards, terminated, truncated))
            if observe is not None:
                observe(step, actions, obs, rewards, terminated, truncated, info)
            if self.mode == AutoresetMode.DISABLED and (terminated | truncated).any():
                obs, info = self.env.reset(options={"reset_mask": terminated | truncated})
                trace.append(as_bytes(_array_obs(obs), info["action_mask"]))
                if observe is not None:
                    observe(step, None, obs, None, terminated | truncated, None, info)
        return trace

    def play_on(self, seed: int, steps: int) -> list[tuple[bytes, ...]]:
        """Go on from where the env is, without a reset (for the copy checks)."""
        rng = random.Random(seed)
        masks = self.raw.action_masks().astype(np.int8)
        trace = []
        for _ in range(steps):
            obs, rewards, terminated, truncated, info = self.env.step(choose(rng, masks))
            trace.append(as_bytes(_array_obs(obs), info["action_mask"], rewards, terminated, truncated))
            masks = np.asarray(info["action_mask"])
            if self.mode == AutoresetMode.DISABLED and (terminated | truncated).any():
                obs, info = self.env.reset(options={"reset_mask": terminated | truncated})
                masks = np.asarray(info["action_mask"])
        return trace


def _twins(raw: Any, spec: dict[str, Any], num: int, seed: int) -> list[Any] | None:
    """``RamsGymEnv(engine="reference")`` for each game, reset with its game seed; None for outside opponents."""
    from ..agents import HeuristicAgent, RandomAgent
    from ..envs.gym_env import RamsGymEnv

    make = {"heuristic": lambda: HeuristicAgent(raw.config), "random": RandomAgent}
    if "opponents" not in spec:
        return None
    opponents = spec["opponents"]
    listed = isinstance(opponents, (list, tuple))
    names = list(opponents) if listed else [opponents]
    if not all(isinstance(o, str) and o in make for o in names):
        return None
    twins = []
    for game_seed in game_seeds(seed, num):
        agents = [make[o]() for o in names]
        twin = RamsGymEnv(
            config=raw.config,
            learner_seat=raw.learner_seat,
            opponents=agents if listed else agents[0],
            episode=spec["episode"],
            reward=spec["reward"],
            illegal_action=raw.illegal_action,
            illegal_reward=raw.illegal_reward,
            engine="reference",
        )
        twin.reset(seed=game_seed)
        twins.append(twin)
    return twins


def vector_spec(env: Any, episode: str | None, reward: str | None) -> dict[str, Any] | None:
    """The vector env's episode, reward and opponents: given, recorded on the env, or in its Gymnasium spec."""
    spec = dict(getattr(getattr(env, "spec", None), "kwargs", None) or {})
    raw = env.unwrapped
    spec.setdefault("episode", getattr(raw, "episode", "deal" if spec else None))
    spec.setdefault("reward", getattr(raw, "reward_kind", "points" if spec else None))
    if episode is not None:
        spec["episode"] = episode
    if reward is not None:
        spec["reward"] = reward
    if "opponents" not in spec and getattr(env, "spec", None) is not None:
        spec["opponents"] = "random"  # make_vec's default
    return spec if spec.get("episode") and spec.get("reward") else None


def check_vector_env(
    report: CheckReport,
    env: Any,
    *,
    seed: int,
    steps: int,
    copies: bool,
    episode: str | None = None,
    reward: str | None = None,
    opponents: Any = None,
    seed_errors: SeedErrors = (),
) -> None:
    """Every check of a one-learner Gymnasium vector env (``RamsVectorEnv``), in its declared autoreset mode."""
    vector = _Vector(env)
    raw, mode = vector.raw, vector.mode
    report.expect(
        env.metadata.get("autoreset_mode") == mode,
        "autoreset",
        f"metadata['autoreset_mode'] is {env.metadata.get('autoreset_mode')}, the env runs {mode}",
    )
    if report.wants("seeding"):
        with report.check("seeding"):
            _compare_runs(
                report, "seeding", vector.play(seed, steps), vector.play(seed, steps), "two runs of the same seed"
            )
            first = as_bytes(_array_obs(env.reset(seed=seed)[0]))
            report.expect(
                as_bytes(_array_obs(env.reset(seed=seed + 1)[0])) != first,
                "seeding",
                f"seed {seed + 1} deals what {seed} deals",
            )
    check_bad_seeds(report, lambda s: env.reset(seed=s), seed_errors)
    spec = vector_spec(env, episode, reward)
    if spec is not None and opponents is not None:
        spec["opponents"] = opponents
    twins = None if spec is None else _twins(raw, spec, raw.num_envs, seed)
    if twins is None:
        why = (
            "the env records neither its episode nor its reward: pass episode= and reward= (and opponents=)"
            if spec is None
            else "opponents unknown (pass opponents=) or outside agents, which play every game in one batch: "
            "no single env replays them"
        )
        report.skip("reference_play", why)
        report.skip("action_mask", why)
    state = {"ended": 0}
    held = np.zeros(raw.num_envs, bool)  # NEXT_STEP / DISABLED: games at their final observation

    def observe(step: int, actions: Any, obs: Any, rewards: Any, terminated: Any, truncated: Any, info: dict) -> None:
        observations, masks = _array_obs(obs), np.asarray(info["action_mask"])
        if isinstance(obs, dict):
            report.expect(
                np.array_equal(obs["action_mask"], masks), "observation", f"step {step}: dict mask != info mask"
            )
        if rewards is None:  # DISABLED: the reset_mask reset of the finished games
            for i in np.flatnonzero(terminated):
                report.expect(masks[i].any(), "autoreset", f"step {step}, game {i}: reset_mask gave no decision")
                if twins is not None:
                    t_obs, t_info = twins[i].reset()
                    _same(
                        report,
                        "autoreset",
                        f"step {step}, game {i} after reset_mask",
                        observations[i],
                        masks[i],
                        t_obs,
                        t_info,
                    )
            held[:] = False
            return
        report.expect(not np.asarray(truncated).any(), "terminated_truncated", f"step {step}: truncated is True")
        state["ended"] += int(np.asarray(terminated).sum())
        for i in range(raw.num_envs):
            where = f"step {step}, game {i}"
            if held[i]:  # NEXT_STEP: this step started game i's next episode, ignoring its action
                report.expect(
                    rewards[i] == 0.0 and not terminated[i] and masks[i].any(),
                    "autoreset",
                    f"{where}: the step after an episode's end gave reward {rewards[i]}, terminated {terminated[i]}",
                )
                if twins is not None:
                    _same(report, "autoreset", where, observations[i], masks[i], *twins[i].reset())
                continue
            if twins is not None:
                t_obs, t_reward, t_term, _, t_info = twins[i].step(int(actions[i]))
                report.expect(
                    abs(float(rewards[i]) - t_reward) < 1e-5,
                    "reference_play",
                    f"{where}: reward {rewards[i]}, expected {t_reward}",
                )
                report.expect(
                    bool(terminated[i]) == t_term,
                    "terminated_truncated",
                    f"{where}: terminated {terminated[i]}, expected {t_term}",
                )
            if terminated[i] and mode == AutoresetMode.SAME_STEP:
                flagged = bool(np.asarray(info.get("_final_obs", np.zeros(raw.num_envs, bool)))[i])
                report.expect(flagged, "autoreset", f"{where}: SAME_STEP episode end without infos['_final_obs']")
                report.expect(masks[i].any(), "autoreset", f"{where}: SAME_STEP gave no next decision")
                if twins is not None and flagged:
                    final = _array_obs(info["final_obs"])[i]
                    _same(
                        report,
                        "autoreset",
                        f"{where} final_obs",
                        final,
                        np.asarray(info["final_info"]["action_mask"])[i],
                        t_obs,
                        t_info,
                    )
                    _same(report, "autoreset", f"{where} next episode", observations[i], masks[i], *twins[i].reset())
            elif terminated[i]:
                report.expect(not masks[i].any(), "autoreset", f"{where}: {mode.name} episode end with a non-zero mask")
                if twins is not None:
                    _same(report, "reference_play", where, observations[i], masks[i], t_obs, t_info)
            elif twins is not None:
                _same(report, "reference_play", where, observations[i], masks[i], t_obs, t_info)
        held[:] = np.asarray(terminated) if mode != AutoresetMode.SAME_STEP else False

    played = ("reference_play", "action_mask", "terminated_truncated", "autoreset", "observation")
    if report.wants(*played):
        with report.check("reference_play"):
            vector.play(seed, steps, observe)
    report.ran(*played[1:])
    if not state["ended"]:
        report.skip("autoreset", f"no episode ended within {steps} steps (raise steps=)")
    if copies:
        _check_vector_copies(report, env, seed, steps)


def _same(report: CheckReport, name: str, where: str, obs: Any, mask: Any, t_obs: Any, t_info: dict) -> None:
    report.expect(np.array_equal(obs, t_obs), name, f"{where}: observation differs from the reference game's")
    legal, t_legal = np.flatnonzero(mask).tolist(), np.flatnonzero(t_info["action_mask"]).tolist()
    report.expect(legal == t_legal, "action_mask", f"{where}: mask allows {legal}, the reference allows {t_legal}")


def _check_vector_copies(report: CheckReport, env: Any, seed: int, steps: int) -> None:
    for name, clone in (("deepcopy", copy.deepcopy), ("pickle", lambda e: pickle.loads(pickle.dumps(e)))):
        if not report.wants(name):
            continue
        with report.check(name):
            vector = _Vector(env)
            vector.play(seed, steps // 4)
            try:
                twin = clone(env)
            except Exception as err:
                report.fail(name, f"{name} of a mid-episode env raised {type(err).__name__}: {err}")
                continue
            runs = [_Vector(player).play_on(seed, steps) for player in (twin, env)]
            _compare_runs(report, name, runs[0], runs[1], f"the {name} and the original")
