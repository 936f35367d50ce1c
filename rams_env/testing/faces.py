"""One function per face: what ``check_env`` runs on it (see :mod:`rams_env.testing`)."""

from __future__ import annotations

import copy
import pickle
import random
from typing import Any

import numpy as np

from ..envs.contracts import AutoresetMode, BatchedEnv
from .driver import Driver, missing_members
from .drivers import AECDriver, BatchedDriver, RLlibDriver, SelfPlayDriver
from .learner import check_single, check_vector_env
from .report import CheckReport
from .seats import SeedErrors, as_bytes, check_bad_seeds, check_seat_face, choose


def _episode(env: Any, episode: str | None, reward: str | None) -> tuple[str | None, str | None]:
    return (
        episode if episode is not None else getattr(env, "episode", None),
        reward if reward is not None else getattr(env, "reward_kind", None),
    )


def check_driver(
    report: CheckReport,
    driver: Driver,
    *,
    seed: int,
    steps: int,
    episode: Any,
    reward: Any,
    copies: bool,
    seed_errors: SeedErrors,
    **_: Any,
) -> None:
    """A face of the user's own, through the :class:`~rams_env.testing.Driver` its author wrote."""
    missing = missing_members(driver)
    report.expect(not missing, "protocol", f"{type(driver).__name__} lacks {missing} of the Driver Protocol")
    report.ran("protocol")
    if missing:
        return  # the other checks would only fail for the same reason
    episode, reward = _episode(driver.env, episode, reward)
    check_seat_face(
        report, driver, seed=seed, steps=steps, episode=episode, reward=reward, copies=copies, seed_errors=seed_errors
    )


def check_aec(
    report: CheckReport,
    env: Any,
    *,
    seed: int,
    steps: int,
    episode: Any,
    reward: Any,
    copies: bool,
    seed_errors: SeedErrors,
    **_: Any,
) -> None:
    """PettingZoo AEC: ``rams_env.env()``, ``raw_env()``, ``RamsEnv`` (either engine)."""
    raw = env.unwrapped
    report.expect(
        hasattr(raw, "config") and hasattr(env, "observe") and hasattr(raw, "episode"),
        "protocol",
        "an AEC env of rams_env has config, episode and observe()",
    )
    report.ran("protocol")
    driver = AECDriver(env)
    episode, reward = _episode(raw, episode, reward)
    check_seat_face(
        report, driver, seed=seed, steps=steps, episode=episode, reward=reward, copies=copies, seed_errors=seed_errors
    )
    report.expect(not driver.zero_masks_seen, "action_mask", "; ".join(driver.zero_masks_seen[:1]))


def check_batched(
    report: CheckReport,
    env: Any,
    *,
    seed: int,
    steps: int,
    episode: Any,
    reward: Any,
    copies: bool,
    seed_errors: SeedErrors,
    **_: Any,
) -> None:
    """The ``BatchedEnv`` Protocol: ``BatchedRamsEnv`` (also with heuristic seats), ``ReferenceBatchedRamsEnv``,
    ``SubprocBatchedRamsEnv``."""
    missing = [
        name
        for name in (
            "autoreset_mode",
            "config",
            "num_games",
            "num_players",
            "scores",
            "reset",
            "reset_games",
            "step",
            "close",
        )
        if not hasattr(type(env), name) and not hasattr(env, name)
    ]
    report.expect(not missing, "protocol", f"{type(env).__name__} lacks {missing} of the BatchedEnv Protocol")
    report.expect(isinstance(env, BatchedEnv) or bool(missing), "protocol", "isinstance(env, BatchedEnv) is False")
    mode = getattr(env, "autoreset_mode", None)
    report.expect(mode == AutoresetMode.SAME_STEP, "autoreset", f"a batched env declares SAME_STEP, this one {mode}")
    report.ran("protocol")
    driver = BatchedDriver(env)
    episode, reward = _episode(env, episode, reward)
    check_seat_face(
        report, driver, seed=seed, steps=steps, episode=episode, reward=reward, copies=copies, seed_errors=seed_errors
    )
    if "scores" not in missing and "reset_games" not in missing and report.wants("protocol", "seeding"):
        _check_batched_extras(report, env, seed)


def _check_batched_extras(report: CheckReport, env: Any, seed: int) -> None:
    """``reset_games`` seeds game ``i`` as ``reset`` does with the derived seeds; ``scores`` has its shape."""
    from ..envs.vector import game_seeds

    with report.check("protocol"):
        first = env.reset(seed=seed)
        scores = np.asarray(env.scores)
        report.expect(scores.shape == (env.num_games, env.num_players), "protocol", f"scores has shape {scores.shape}")
        again = env.reset_games(game_seeds(seed, env.num_games))
        report.expect(
            np.array_equal(first.observations, again.observations)
            and np.array_equal(first.action_masks, again.action_masks),
            "seeding",
            "reset_games(game_seeds(seed, N)) deals otherwise than reset(seed=seed)",
        )


def check_gym(
    report: CheckReport, env: Any, *, seed: int, steps: int, copies: bool, seed_errors: SeedErrors, **_: Any
) -> None:
    """A one-learner Gymnasium env: ``RamsGymEnv`` or ``gymnasium.make("rams_env/Rams-v1")``."""
    report.expect(hasattr(env.unwrapped, "aec"), "protocol", f"{type(env.unwrapped).__name__} is not a RamsGymEnv")
    report.ran("protocol")
    check_single(report, env, seed=seed, steps=steps, copies=copies, seed_errors=seed_errors)


def check_vector(
    report: CheckReport,
    env: Any,
    *,
    seed: int,
    steps: int,
    episode: Any,
    reward: Any,
    opponents: Any,
    copies: bool,
    seed_errors: SeedErrors,
) -> None:
    """A one-learner Gymnasium vector env: ``RamsVectorEnv`` or ``gymnasium.make_vec("rams_env/RamsVec-v1")``."""
    raw = env.unwrapped
    report.expect(hasattr(raw, "autoreset_mode"), "protocol", "a vector env declares its autoreset_mode")
    report.ran("protocol")
    check_vector_env(
        report,
        env,
        seed=seed,
        steps=steps,
        copies=copies,
        episode=episode,
        reward=reward,
        opponents=opponents,
        seed_errors=seed_errors,
    )


def check_rllib(
    report: CheckReport, env: Any, *, episode: Any, reward: Any, seed_errors: SeedErrors, **kwargs: Any
) -> None:
    """RLlib's ``RamsMultiAgentEnv``; RLlib's own seed check (Gymnasium's ``error.Error``) refuses bad seeds."""
    import gymnasium

    report.expect(hasattr(env, "aec"), "protocol", "RamsMultiAgentEnv holds its AEC env as aec")
    report.ran("protocol")
    episode, reward = _episode(env.aec, episode, reward)
    errors = (*seed_errors, gymnasium.error.Error)
    check_driver(report, RLlibDriver(env), episode=episode, reward=reward, seed_errors=errors, **kwargs)


def check_torchrl_selfplay(
    report: CheckReport,
    env: Any,
    *,
    seed: int,
    steps: int,
    episode: Any,
    reward: Any,
    copies: bool,
    seed_errors: SeedErrors,
    **_: Any,
) -> None:
    """TorchRL's ``RamsSelfPlayEnv``: every seat's decisions, through TorchRL's calls."""
    mode = getattr(env, "autoreset_mode", None)
    report.expect(mode == AutoresetMode.SAME_STEP, "autoreset", f"declares {mode}, its engine resets SAME_STEP")
    report.ran("protocol")
    episode, reward = _episode(env.games, episode, reward)
    check_seat_face(
        report,
        SelfPlayDriver(env),
        seed=seed,
        steps=steps,
        episode=episode,
        reward=reward,
        copies=copies,
        seed_errors=seed_errors,
    )


def check_torchrl_aec(report: CheckReport, env: Any, *, seed: int, steps: int, copies: bool, **kwargs: Any) -> None:
    """TorchRL's ``PettingZooWrapper`` of ``rams_env.env()`` (``integrations.torchrl.make_env``): the AEC env
    inside, then TorchRL's seeded rollouts."""
    inner = env._env  # TorchRL keeps the wrapped env here
    check_aec(report, inner, seed=seed, steps=steps, copies=copies, **kwargs)
    import torch

    def rollout(s: int) -> list[tuple[bytes, ...]]:
        env.set_seed(s)
        td = env.reset()
        rng, trace = random.Random(s), []
        for _ in range(steps):
            mask = td["agents", "action_mask"].numpy()
            acting = td["agents", "mask"].numpy()
            actions = np.zeros(len(acting), np.int64)
            for seat in np.flatnonzero(acting):
                actions[seat] = choose(rng, mask[seat][None].astype(np.int8))[0]
            td.set(("agents", "action"), torch.as_tensor(actions))
            stepped, td = env.step_and_maybe_reset(td)
            nxt = stepped["next"]
            report.expect(
                not nxt["agents", "truncated"].any(), "terminated_truncated", "TorchRL's truncated is True for a seat"
            )
            trace.append(as_bytes(nxt["agents", "observation", "observation"].numpy(), nxt["agents", "reward"].numpy()))
        return trace

    if report.wants("seeding", "terminated_truncated"):
        with report.check("seeding"):
            report.expect(rollout(seed) == rollout(seed), "seeding", "two TorchRL rollouts after set_seed(seed) differ")


def check_sb3(
    report: CheckReport, env: Any, *, seed: int, steps: int, copies: bool, seed_errors: SeedErrors, **kwargs: Any
) -> None:
    """SB3's ``RamsVecEnv``: its vector env (SAME_STEP), then SB3's own calls."""
    report.expect(env.venv.autoreset_mode == AutoresetMode.SAME_STEP, "autoreset", "RamsVecEnv runs SAME_STEP")
    check_vector(
        report,
        env.venv,
        seed=seed,
        steps=steps,
        copies=False,
        seed_errors=seed_errors,
        **{k: kwargs.get(k) for k in ("episode", "reward", "opponents")},
    )

    def run(player: Any, s: int | None, n: int) -> list[tuple[bytes, ...]]:
        rng = random.Random(seed)
        if s is not None:
            player.seed(s)
            obs = player.reset()
        trace = []
        for _ in range(n):
            obs, rewards, dones, infos = player.step(choose(rng, player.action_masks().astype(np.int8)))
            for i in np.flatnonzero(dones):
                report.expect(
                    "terminal_observation" in infos[i], "autoreset", f"game {i}: done without terminal_observation"
                )
                report.expect(
                    infos[i].get("TimeLimit.truncated") is False,
                    "terminated_truncated",
                    f"game {i}: TimeLimit.truncated is not False",
                )
            trace.append(as_bytes(obs, rewards, dones))
        return trace

    if report.wants("seeding", "autoreset", "terminated_truncated"):
        with report.check("seeding"):
            report.expect(
                run(env, seed, steps) == run(env, seed, steps), "seeding", "seed(s); reset() twice plays otherwise"
            )
    check_bad_seeds(report, lambda s: (env.seed(s), env.reset()), seed_errors)
    if copies:
        _copies(report, env, lambda player: run(player, None, steps), lambda: run(env, seed, steps // 4))


def check_torchrl_vector(
    report: CheckReport, env: Any, *, seed: int, steps: int, copies: bool, seed_errors: SeedErrors, **kwargs: Any
) -> None:
    """TorchRL's ``RamsBatchedEnv``: its vector env (DISABLED autoreset, partial resets), then TorchRL's calls."""
    import torch

    check_vector(
        report,
        env.venv,
        seed=seed,
        steps=steps,
        copies=False,
        seed_errors=seed_errors,
        **{k: kwargs.get(k) for k in ("episode", "reward", "opponents")},
    )

    def run(player: Any, s: int | None, n: int, root: list) -> list[tuple[bytes, ...]]:
        rng = random.Random(seed)
        if s is not None:
            player.set_seed(s)
            root[:] = [player.reset()]
        trace = []
        for _ in range(n):
            td = root[0]
            td.set("action", torch.as_tensor(choose(rng, td["action_mask"].numpy().astype(np.int8))))
            stepped, root[0] = player.step_and_maybe_reset(td)
            nxt = stepped["next"]
            report.expect(not nxt["truncated"].any(), "terminated_truncated", "truncated is True")
            report.expect(
                bool((nxt["done"] == (nxt["terminated"] | nxt["truncated"])).all()),
                "terminated_truncated",
                "done != terminated | truncated",
            )
            trace.append(as_bytes(nxt["observation"].numpy(), nxt["reward"].numpy(), nxt["terminated"].numpy()))
        return trace

    if report.wants("seeding", "terminated_truncated"):
        with report.check("seeding"):
            report.expect(
                run(env, seed, steps, []) == run(env, seed, steps, []),
                "seeding",
                "two rollouts after set_seed(seed) differ",
            )
    check_bad_seeds(report, lambda s: (env.set_seed(s), env.reset()), seed_errors)
    if copies:
        root: list = []
        _copies(
            report,
            env,
            lambda player: run(player, None, steps, [root[0].clone()]),
            lambda: run(env, seed, steps // 4, root),
        )


def _copies(report: CheckReport, env: Any, go_on: Any, prepare: Any) -> None:
    """Deepcopy and pickle of ``env`` after ``prepare()``: ``go_on(copy)`` and ``go_on(env)`` give the same trace."""
    for name, clone in (("deepcopy", copy.deepcopy), ("pickle", lambda e: pickle.loads(pickle.dumps(e)))):
        if not report.wants(name):
            continue
        with report.check(name):
            prepare()
            try:
                twin = clone(env)
            except Exception as err:
                report.fail(name, f"{name} of a mid-episode env raised {type(err).__name__}: {err}")
                continue
            report.expect(go_on(twin) == go_on(env), name, f"the {name} and the original play on differently")
