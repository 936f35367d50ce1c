"""The batched envs play exactly the games of the AEC env: same seeds, same actions, same
observations, masks, rewards and scores (issue 5's differential test)."""

from __future__ import annotations

import random

import numpy as np
import pytest

import rams_env
from rams_env.envs import BatchedRamsEnv, ReferenceBatchedRamsEnv, SubprocBatchedRamsEnv, game_seeds
from rams_env.rules import IllegalActionError

PRESETS = [("mattmar", 4), ("norrlandsknack", 5), ("rams32", 3), ("russian", 4)]


class _Reference:
    """One AEC env per batched game, seeded the same way, with its per-seat rewards collected."""

    def __init__(self, seed: int, **kwargs) -> None:
        self.env = rams_env.raw_env(engine="reference", **kwargs)
        self.env.reset(seed=seed)
        self._skip_empty()

    def _skip_empty(self) -> None:
        while all(self.env.terminations.values()):  # an episode with no decision: batched skips it
            self.env.reset()

    def decision(self) -> tuple[int, np.ndarray, np.ndarray]:
        agent = self.env.agent_selection
        obs = self.env.observe(agent)
        return self.env.possible_agents.index(agent), obs["observation"], obs["action_mask"]

    def step(self, action: int) -> tuple[list[float], bool, list[int]]:
        env = self.env
        env.step(action)
        rewards = [env.rewards[a] for a in env.possible_agents]
        scores = list(env.game.scores)
        done = all(env.terminations.values())
        if done:
            env.reset()
            self._skip_empty()
        return rewards, done, scores


def _play_both(num_games: int, episodes: int, seed: int, batched=None, **kwargs) -> int:
    """Play both until ``episodes`` episodes ended; every step compares every game. Returns steps."""
    env = batched or BatchedRamsEnv(num_games, seed=seed, **kwargs)
    references = [_Reference(s, **kwargs) for s in game_seeds(seed, num_games)]
    out = env.reset()
    chooser = random.Random(seed)
    ended = steps = 0
    while ended < episodes:
        actions = []
        hands = getattr(env, "hands", None)  # the compiled env's hidden hands, for training critics
        for i, ref in enumerate(references):
            seat, obs, mask = ref.decision()
            if out.seats[i] != seat or not np.array_equal(out.observations[i], obs):
                raise AssertionError(f"step {steps}, game {i}: seat or observation differs")
            if hands is not None:
                expected_hands = [sum(1 << c for c in hand) for hand in ref.env.game.hands]
                assert hands[i].tolist() == expected_hands, f"step {steps}, game {i}: hands differ"
            assert np.array_equal(out.action_masks[i], mask), f"step {steps}, game {i}: mask differs"
            actions.append(chooser.choice(np.flatnonzero(mask).tolist()))
        out = env.step(actions)
        batched_scores = getattr(env, "scores", None)
        for i, ref in enumerate(references):
            rewards, done, scores = ref.step(actions[i])
            expected = np.asarray(rewards, np.float32)  # the batched arrays are float32
            assert np.array_equal(out.rewards[i], expected), f"step {steps}, game {i}: rewards differ"
            assert bool(out.done[i]) == done, f"step {steps}, game {i}: episode end differs"
            if batched_scores is not None and not done:
                assert batched_scores[i].tolist() == scores, f"step {steps}, game {i}: scores differ"
            ended += done
        steps += 1
    return steps


@pytest.mark.slow
@pytest.mark.parametrize(("variant", "players"), PRESETS)
def test_batched_equals_reference_over_10000_deals(variant, players):
    _play_both(64, 10_000, seed=3, variant=variant, num_players=players)


LONG = [("mattmar", "match", "win"), ("russian", "rams", "win"), ("rams32", "rams", "points")]


@pytest.mark.parametrize(("variant", "episode", "reward"), LONG)
def test_batched_equals_reference_long_episodes(variant, episode, reward):
    steps = _play_both(8, 8, seed=5, variant=variant, num_players=4, episode=episode, reward=reward)
    assert steps > 100


OPTIONS = [
    dict(variant="mattmar", num_players=7, better_cards="unanimous"),
    dict(variant="mattmar", num_players=3, start_score=1, forced_trump_lead=False, flight_cap=12),
    dict(variant="norrlandsknack", num_players=4, episode="match", reward="win", ramsar_per_match=2),
    dict(variant="rams32", num_players=6, overtake_duty=False, trump_ace_lead=False),
    dict(variant="russian", num_players=7, start_score=150, forced_knock_with_ace=False),
    dict(variant="russian", num_players=3, jacks=False, episode="rams", reward="win"),
]


@pytest.mark.slow
@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: "-".join(f"{v}" for v in o.values()))
def test_batched_equals_reference_with_rule_options(options):
    _play_both(16, 1_000, seed=11, **options)


def test_reference_batched_env_equals_reference():
    env = ReferenceBatchedRamsEnv(16, seed=4, variant="russian", num_players=4)
    _play_both(16, 500, seed=4, batched=env, variant="russian", num_players=4)


@pytest.mark.slow
@pytest.mark.parametrize("copy", [True, False])
def test_subprocess_env_equals_reference(copy):
    env = SubprocBatchedRamsEnv(6, workers=2, seed=9, copy=copy, variant="russian", num_players=3)
    try:
        _play_both(6, 300, seed=9, batched=env, variant="russian", num_players=3)
    finally:
        env.close()


def test_subprocess_env_reports_a_dead_worker():
    env = SubprocBatchedRamsEnv(4, workers=2, seed=1)
    try:
        out = env.reset()
        env._processes[1].kill()
        env._processes[1].join()
        with pytest.raises(RuntimeError, match="worker process for games 2-3 died"):
            env.step([int(np.flatnonzero(m)[0]) for m in out.action_masks])
    finally:
        env.close()


def test_subprocess_env_reports_an_illegal_action():
    env = SubprocBatchedRamsEnv(4, workers=2, seed=1)
    try:
        out = env.reset()
        bad = [int(np.flatnonzero(m == 0)[0]) for m in out.action_masks]
        with pytest.raises(IllegalActionError, match=r"^game 0: illegal action"):
            env.step(bad)
    finally:
        env.close()


@pytest.mark.parametrize("cls", [BatchedRamsEnv, ReferenceBatchedRamsEnv])
def test_bad_arguments_are_refused(cls):
    with pytest.raises(ValueError, match="num_games"):
        cls(0)
    with pytest.raises(ValueError, match="episode"):
        cls(2, episode="forever")
    with pytest.raises(ValueError, match="unknown"):
        cls(2, colour="red")
    env = cls(2, seed=0)
    with pytest.raises(RuntimeError, match="reset"):
        env.step([0, 0])
    out = env.reset()
    with pytest.raises(ValueError, match="one action per game"):
        env.step([0])
    with pytest.raises(IllegalActionError, match="int action ids"):
        env.step([0.5, 1.5])
    illegal = [int(np.flatnonzero(m == 0)[0]) for m in out.action_masks]
    with pytest.raises(IllegalActionError, match=r"game 0: illegal action .* by player \d in phase \w+; legal: "):
        env.step(illegal)
    with pytest.raises(ValueError, match="workers"):
        SubprocBatchedRamsEnv(2, workers=3)


def test_seeding_is_per_game_and_reproducible():
    a, b = BatchedRamsEnv(4, seed=1), BatchedRamsEnv(4, seed=1)
    np.testing.assert_array_equal(a.reset().observations, b.reset().observations)
    assert len(set(game_seeds(1, 100))) == 100
    assert game_seeds(1, 3) != game_seeds(2, 3)


# ------------------------------------------------------ errors leave every game as it was (issue 13)
def _legal(out) -> np.ndarray:
    return np.array([int(np.flatnonzero(m)[0]) for m in out.action_masks], np.int64)


def _illegal(out, game: int) -> np.ndarray:
    actions = _legal(out)
    actions[game] = int(np.flatnonzero(out.action_masks[game] == 0)[0])
    return actions


def _assert_same(a, b) -> None:
    for name in ("observations", "action_masks", "seats", "rewards", "done"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)


@pytest.mark.parametrize("cls", [BatchedRamsEnv, ReferenceBatchedRamsEnv])
@pytest.mark.parametrize("bad", [0, 2, 4])
def test_an_illegal_action_steps_no_game(cls, bad):
    """Issue 13 items 1-2: the in-process envs check every action before stepping any game."""
    env, twin = cls(5, seed=7, variant="russian"), BatchedRamsEnv(5, seed=7, variant="russian")
    out, expected = env.reset(), twin.reset()
    for _ in range(3):
        with pytest.raises(IllegalActionError, match=rf"^game {bad}: illegal action"):
            env.step(_illegal(out, bad))
        actions = _legal(out)
        out, expected = env.step(actions), twin.step(actions)
        _assert_same(out, expected)
        np.testing.assert_array_equal(env.scores, twin.scores)


@pytest.mark.slow
@pytest.mark.parametrize("reference", [False, True])
@pytest.mark.parametrize("bad", [0, 3, 5])
def test_subprocess_illegal_action_steps_no_game_and_names_the_global_game(reference, bad):
    """Issue 13 item 1: an illegal action anywhere steps no game in any worker, the error names the
    game's index in the whole batch with the in-process env's words, and the env stays in step."""
    env = SubprocBatchedRamsEnv(6, workers=3, seed=2, reference=reference)
    twin = BatchedRamsEnv(6, seed=2)
    try:
        out, expected = env.reset(), twin.reset()
        _assert_same(out, expected)
        for _ in range(3):
            with pytest.raises(IllegalActionError) as err:
                env.step(_illegal(out, bad))
            with pytest.raises(IllegalActionError) as twin_err:
                twin.step(_illegal(out, bad))
            assert str(err.value) == str(twin_err.value)
            with pytest.raises(IllegalActionError, match="int action ids"):
                env.step(np.zeros(6) + 0.5)
            actions = _legal(out)
            out, expected = env.step(actions), twin.step(actions)
            _assert_same(out, expected)
    finally:
        env.close()


def test_subprocess_step_before_reset_leaves_no_reply_behind():
    """Issue 13 item 1: a refused call leaves no unread reply; the next call gets its own answer."""
    env = SubprocBatchedRamsEnv(4, workers=2, seed=1)
    try:
        with pytest.raises(RuntimeError, match="reset"):
            env.step([0, 0, 0, 0])
        out = env.reset()
        _assert_same(out, BatchedRamsEnv(4, seed=1).reset())
        out = env.step(_legal(out))
        assert out.observations.shape == (4, out.observations.shape[1])
    finally:
        env.close()


def test_subprocess_worker_errors_are_all_read(monkeypatch):
    """Every worker's reply is read before an error is raised (both workers refuse a reset here)."""
    env = SubprocBatchedRamsEnv(4, workers=2, seed=1)
    try:
        env._send("reset", [["x", 1], ["y", 2]])  # bad seeds in both workers
        with pytest.raises(ValueError, match=r"seeds\[0\] must be .* got 'x'"):
            env._replies()
        _assert_same(env.reset(), BatchedRamsEnv(4, seed=1).reset())
    finally:
        env.close()


@pytest.mark.slow
def test_subprocess_env_blames_the_dead_worker_only():
    """Issue 13 item 1: after a worker died, later calls say the env is closed and why, and never
    blame the games of a live worker."""
    env = SubprocBatchedRamsEnv(6, workers=3, seed=1)
    try:
        out = env.reset()
        env._processes[1].kill()
        env._processes[1].join()
        with pytest.raises(RuntimeError, match="worker process for games 2-3 died"):
            env.step(_legal(out))
        for call in (lambda: env.step(_legal(out)), env.reset):
            with pytest.raises(RuntimeError, match="closed") as err:
                call()
            assert "games 2-3" in str(err.value) and "games 0-1" not in str(err.value)
    finally:
        env.close()


def test_subprocess_checks_actions_against_the_workers_legal_sets_not_the_shared_masks():
    """With ``copy=False`` the caller holds the shared arrays; writing into them changes no check."""
    env, twin = SubprocBatchedRamsEnv(4, workers=2, seed=3, copy=False), BatchedRamsEnv(4, seed=3)
    try:
        out = env.reset()
        twin.reset()
        actions = _legal(out)
        bad = _illegal(out, 1)
        out.action_masks[:] = 1 - out.action_masks  # the caller scribbles over the shared masks
        with pytest.raises(IllegalActionError, match=r"^game 1: illegal action"):
            env.step(bad)
        _assert_same(env.step(actions), twin.step(actions))
    finally:
        env.close()
