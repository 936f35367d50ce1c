"""Checks of a face that hands out every seat's decisions (the AEC env, the batched envs, the self-play
adapters, a face of the user's own): each game is played, through its :class:`~rams_env.testing.Driver`,
against a :class:`~rams_env.testing.referee.Referee`."""

from __future__ import annotations

import copy
import pickle
import random
from collections.abc import Callable
from typing import Any

import numpy as np

from ..rules.seeding import SeedError
from .driver import Decisions, Driver, Outcome
from .referee import Referee
from .report import CheckReport

BAD_SEEDS: tuple[Any, ...] = (-1, "x")
SeedErrors = tuple[type[BaseException], ...]


def is_seed_error(err: BaseException, seed_errors: SeedErrors = ()) -> bool:
    """Whether ``err`` refuses a bad seed clearly: rams_env's ``SeedError``, one of ``seed_errors``, or a
    ``ValueError`` or ``TypeError`` whose message says "seed"."""
    if isinstance(err, (SeedError, *seed_errors)):
        return True
    return isinstance(err, (ValueError, TypeError)) and "seed" in str(err).lower()


def check_bad_seeds(report: CheckReport, reset: Callable[[Any], Any], seed_errors: SeedErrors = ()) -> None:
    """``bad_seed``: ``reset(seed)`` refuses each of :data:`BAD_SEEDS` with a clear error (:func:`is_seed_error`)."""
    if not report.wants("bad_seed"):
        return
    for bad in BAD_SEEDS:
        try:
            reset(bad)
        except Exception as err:
            report.expect(
                is_seed_error(err, seed_errors),
                "bad_seed",
                f"reset(seed={bad!r}) raised {type(err).__name__} ({err}): not SeedError, a ValueError or "
                "TypeError naming the seed, nor one of seed_errors",
            )
        else:
            report.fail("bad_seed", f"reset(seed={bad!r}) was accepted; a bad seed must raise (SeedError)")
    report.ran("bad_seed")


def as_bytes(*parts: Any) -> tuple[bytes, ...]:
    """Each array's bytes: a step of a trace, compared bit for bit."""
    return tuple(np.ascontiguousarray(np.asarray(p)).tobytes() for p in parts)


def choose(rng: random.Random, masks: np.ndarray) -> np.ndarray:
    """A uniformly random legal action per game (0 where a mask is empty: that is a mask failure)."""
    return np.array([rng.choice(np.flatnonzero(m).tolist()) if m.any() else 0 for m in masks], np.int64)


def _trace(decisions: Decisions, outcome: Outcome | None = None) -> tuple[bytes, ...]:
    parts = [decisions.seats, decisions.observations, decisions.masks]
    if outcome is not None:
        parts += [outcome.rewards, outcome.terminated, outcome.truncated]
    return as_bytes(*parts)


def _play(driver: Driver, seed: int, steps: int) -> list[tuple[bytes, ...]]:
    rng = random.Random(seed)
    decisions = driver.reset(seed)
    trace = [_trace(decisions)]
    for _ in range(steps):
        outcome = driver.step(choose(rng, decisions.masks))
        decisions = outcome.decisions
        trace.append(_trace(decisions, outcome))
    return trace


def check_seeding(report: CheckReport, driver: Driver, seed: int, steps: int) -> None:
    """The seed rule: the same seed and actions replay bit for bit, another seed deals otherwise."""
    if not report.wants("seeding"):
        return
    with report.check("seeding"):
        first, again = _play(driver, seed, steps), _play(driver, seed, steps)
        if first != again:
            step = next(k for k, (a, b) in enumerate(zip(first, again, strict=True)) if a != b)
            report.fail("seeding", f"reset(seed={seed}) twice with the same actions differs at step {step}")
        others = [_trace(driver.reset(seed + k)) for k in (1, 2, 3)]
        report.expect(
            any(o[:2] != first[0][:2] for o in others),
            "seeding",
            f"seeds {seed + 1}..{seed + 3} deal exactly what seed {seed} deals",
        )


def _referees(driver: Driver, seed: int, episode: str, reward: str) -> list[Referee]:
    heuristic = driver.heuristic_seats()
    referees = []
    for i, game_seed in enumerate(driver.game_seeds(seed)):
        agents = {}
        if heuristic is not None:
            from ..agents import HeuristicAgent
            from ..envs.heuristic_seats import heuristic_seed

            agents = {
                s: HeuristicAgent(driver.config, seed=heuristic_seed(game_seed, s))
                for s in range(driver.config.num_players)
                if heuristic[i, s]
            }
        referees.append(Referee(driver.config, episode, reward, game_seed, agents))
    return referees


def check_reference_play(
    report: CheckReport, driver: Driver, seed: int, steps: int, episode: str | None, reward: str | None
) -> None:
    """Play every game alongside the reference engine: seats, observations, masks, rewards, ends and the
    same-step autoreset, and each episode's reward sums as the rules pay them."""
    names = ("reference_play", "action_mask", "reward_sum", "terminated_truncated", "autoreset")
    if not report.wants(*names):
        return
    if episode is None or reward is None:
        for name in names:
            report.skip(name, "the env does not record its episode and reward: pass episode= and reward= to check_env")
        return
    with report.check("reference_play"):
        referees = _referees(driver, seed, episode, reward)
        decisions = driver.reset(seed)
        rng = random.Random(seed)
        n = driver.config.num_players
        sums = np.zeros((driver.num_games, n))
        expected = np.zeros((driver.num_games, n))
        ended = 0
        outcome: Outcome | None = None
        for step in range(steps + 1):
            after_end = np.zeros(driver.num_games, bool) if outcome is None else np.asarray(outcome.terminated)
            for i, ref in enumerate(referees):
                name = "autoreset" if after_end[i] else "reference_play"
                where = f"step {step}, game {i}" + (" (first decision after its episode ended)" if after_end[i] else "")
                if not report.expect(
                    int(decisions.seats[i]) == ref.seat,
                    name,
                    f"{where}: seat {decisions.seats[i]}, expected {ref.seat}",
                ):
                    report.ran(*names)
                    return  # the face left the reference game: later comparisons mean nothing
                report.expect(
                    np.array_equal(decisions.observations[i], ref.observation()), name, f"{where}: observation differs"
                )
                legal = np.flatnonzero(decisions.masks[i]).tolist()
                report.expect(
                    legal == ref.legal(), "action_mask", f"{where}: mask allows {legal}, the rules allow {ref.legal()}"
                )
            if step == steps:
                break
            actions = choose(rng, decisions.masks)
            outcome = driver.step(actions)
            report.expect(
                not np.asarray(outcome.truncated).any(),
                "terminated_truncated",
                f"step {step}: truncated is True in games {np.flatnonzero(outcome.truncated).tolist()} "
                "(Rams episodes are never truncated)",
            )
            for i, ref in enumerate(referees):
                rewards, over = ref.step(int(actions[i]))
                where = f"step {step}, game {i}"
                got = np.asarray(outcome.rewards[i], np.float64)
                report.expect(
                    np.allclose(got, rewards, atol=1e-5),
                    "reference_play",
                    f"{where}: rewards {got}, expected {rewards}",
                )
                report.expect(
                    bool(outcome.terminated[i]) == over,
                    "terminated_truncated",
                    f"{where}: terminated {bool(outcome.terminated[i])}, the episode {'ended' if over else 'goes on'}",
                )
                sums[i] += got
                expected[i] += rewards
                if over:
                    ended += 1
                    _check_episode_sum(report, f"{where}", sums[i], expected[i], reward)
                    sums[i] = expected[i] = 0.0
            decisions = outcome.decisions
        if ended == 0:
            report.skip("reward_sum", f"no episode ended within {steps} steps (raise steps=)")
            report.skip("autoreset", f"no episode ended within {steps} steps (raise steps=)")
    report.ran(*names)


def _check_episode_sum(report: CheckReport, where: str, got: np.ndarray, expected: np.ndarray, reward: str) -> None:
    report.expect(
        np.allclose(got, expected, atol=1e-4),
        "reward_sum",
        f"{where}: the episode's rewards sum to {got.tolist()} by seat, the rules pay {expected.tolist()}",
    )
    if reward == "win":
        won = got[got > 0].sum()
        report.expect(abs(won - 1.0) < 1e-4, "reward_sum", f"{where}: the winners share {won}, not 1")


def check_copies(report: CheckReport, driver: Driver, seed: int, steps: int) -> None:
    """A deep copy and a pickle round trip of a mid-episode env play on exactly as the original, and
    share nothing with it (each plays its whole continuation before the next starts)."""
    for name, clone in (("deepcopy", copy.deepcopy), ("pickle", lambda env: pickle.loads(pickle.dumps(env)))):
        if not report.wants(name):
            continue
        with report.check(name):
            rng = random.Random(seed)
            decisions = driver.reset(seed)
            for _ in range(steps // 2):
                decisions = driver.step(choose(rng, decisions.masks)).decisions
            try:
                twin = driver.rebind(clone(driver.env))
            except Exception as err:
                report.fail(name, f"{name} of a mid-episode env raised {type(err).__name__}: {err}")
                continue
            state = rng.getstate()
            runs = []
            for player in (twin, driver):
                rng.setstate(state)
                masks, trace = decisions.masks, []
                for _ in range(steps):
                    outcome = player.step(choose(rng, masks))
                    masks = outcome.decisions.masks
                    trace.append(_trace(outcome.decisions, outcome))
                runs.append(trace)
            close = getattr(twin, "close", None)
            if close is not None:
                close()
            if runs[0] != runs[1]:
                step = next(k for k, (a, b) in enumerate(zip(*runs, strict=True)) if a != b)
                report.fail(name, f"the {name} and the original differ {step} steps after the copy")


def check_seat_face(
    report: CheckReport,
    driver: Driver,
    *,
    seed: int,
    steps: int,
    episode: str | None,
    reward: str | None,
    copies: bool = True,
    seed_errors: SeedErrors = (),
) -> None:
    """Every check of a face that hands out every seat's decisions."""
    check_seeding(report, driver, seed, steps)
    check_bad_seeds(report, driver.reset, seed_errors)
    check_reference_play(report, driver, seed, steps, episode, reward)
    if copies:
        check_copies(report, driver, seed, steps)
    else:
        report.skip("deepcopy", "not checked (copies=False)")
