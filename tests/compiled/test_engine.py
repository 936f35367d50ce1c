"""The compiled engine's pieces against their Python originals: CPython's random generator,
dealing, and the observation of every seat (the whole-game comparison is tests/envs/test_vector.py); scores
too large for its int64 state refused."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rams_env
from rams_env import compiled
from rams_env.compiled.random_policy import random_legal_actions
from rams_env.compiled.workspace import mt_states
from rams_env.obs import OBS_SIZE, ObservationEncoder, action_mask
from rams_env.rules import Game, make_config

SEEDS = st.integers(min_value=0, max_value=2**63 - 1)


def _mt(seed: int) -> np.ndarray:
    mt = mt_states()
    compiled.mt_seed(mt, seed)
    return mt


@settings(max_examples=200, deadline=None)
@given(SEEDS)
def test_mersenne_twister_matches_cpython(seed):
    mt, py = _mt(seed), random.Random(seed)
    assert [compiled.mt_next(mt) for _ in range(700)] == [py.getrandbits(32) for _ in range(700)]  # one twist
    assert [compiled.mt_bits63(mt) for _ in range(5)] == [py.getrandbits(63) for _ in range(5)]
    bounds = [1, 2, 3, 7, 32, 52, 1000]
    assert [compiled.mt_randbelow(mt, n) for n in bounds] == [py.randrange(n) for n in bounds]


@settings(max_examples=100, deadline=None)
@given(SEEDS, st.sampled_from([("mattmar", 4), ("rams32", 6), ("russian", 3), ("norrlandsknack", 7)]))
def test_new_game_deals_what_game_deals_and_encodes_every_seat_alike(seed, preset):
    config = make_config(*preset)
    cfg = compiled.config_array(config, "deal", "points")
    state, rng = np.zeros(compiled.STATE_WIDTH, np.int64), mt_states()
    compiled.new_game(state, cfg, rng, seed)
    game = Game(config, seed)
    n = config.num_players
    assert state[compiled.DEALER] == game.dealer and state[compiled.TURNED] == game.turned
    assert state[compiled.PHASE] == game.phase and state[compiled.CURRENT] == game.current
    for seat in range(n):
        hand = [c for c in range(52) if (int(state[compiled.HAND + seat]) >> c) & 1]
        assert hand == game.hands[seat]
    state[compiled.LEGAL] = compiled.legal_set(state, cfg)
    encoder = ObservationEncoder(config)
    obs, mask = np.empty(OBS_SIZE, np.float32), np.empty(60, np.int8)
    for seat in range(n):
        compiled.encode(state, cfg, seat, obs)
        compiled.write_mask(state, seat, mask)
        assert np.array_equal(obs, encoder.encode(game, seat)), f"seat {seat}"
        assert np.array_equal(mask, action_mask(game, seat)), f"seat {seat}"


def test_random_legal_actions_are_legal_and_cover_the_legal_set():
    masks = np.zeros((3000, 60), np.int8)
    masks[:, [3, 17, 59]] = 1
    out = np.empty(3000, np.int64)
    random_legal_actions(masks, _mt(1), out)
    counts = np.bincount(out, minlength=60)
    assert set(np.flatnonzero(counts)) == {3, 17, 59}
    assert all(800 < counts[a] < 1200 for a in (3, 17, 59))


def test_rule_constants_and_observation_scales_come_from_the_rules_and_fields():
    from rams_env.obs import FIELD, config_scale
    from rams_env.rules import Action, Phase, TurnedAt
    from rams_env.rules.episode import EpisodeKind

    assert (compiled.BID, compiled.KNOCK_PHASE, compiled.GAME_OVER) == (Phase.BID, Phase.KNOCK, Phase.GAME_OVER)
    assert (compiled.A_PASS, compiled.A_DRAW) == (Action.PASS, Action.DRAW)
    assert tuple(TurnedAt) == (compiled.AT_DEALER, compiled.ON_TABLE, compiled.GONE)
    assert (compiled.EPISODE_DEAL, compiled.EPISODE_RAMS) == (EpisodeKind.DEAL, EpisodeKind.RAMS)
    config = make_config("mattmar", 5, start_score=7)
    cfg = compiled.config_array(config, "match", "win")
    assert cfg[compiled.C_EPISODE] == EpisodeKind.MATCH
    for column, name in ((compiled.C_SCORES_SCALE, "scores"), (compiled.C_TOTALS_SCALE, "totals")):
        assert cfg[column] == config_scale(FIELD[name].scale_at(), config)
    assert cfg[compiled.C_TOTALS_SCALE] == 7 * config.ramsar_per_match


def test_one_cache_stamp_covers_the_package_and_the_rules(tmp_path):
    """numba checks only a function's own file: the package's functions share one stamp, so that a
    rule edited in ``rules.py`` (or a constant the twins share) also recompiles ``step_batch`` of
    ``drivers.py``, which holds it."""
    from rams_env.compiled import compiler

    package = Path(compiler.__file__).parent
    assert [path for path in compiler.SOURCES if not path.exists()] == []
    assert package in compiler.SOURCES and package.parent / "rules" in compiler.SOURCES
    assert compiler.source_stamp() == compiler.stamp_of(compiler.SOURCES)
    copy = tmp_path / "compiled"
    shutil.copytree(package, copy, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(package.parent / "rules", tmp_path / "rules", ignore=shutil.ignore_patterns("__pycache__"))
    sources = (copy, tmp_path / "rules")
    before = compiler.stamp_of(sources)
    (copy / "rules.py").write_text((copy / "rules.py").read_text() + "\n# a rule changed\n")
    after_rule = compiler.stamp_of(sources)
    tunables = tmp_path / "rules" / "heuristic_tunables.py"
    tunables.write_text(tunables.read_text().replace("RUFF_CAP = 0.45", "RUFF_CAP = 0.5"))
    assert len({before, after_rule, compiler.stamp_of(sources)}) == 3


def test_russian_scores_too_large_for_the_compiled_engine_are_a_value_error():
    env = rams_env.env(variant="russian")  # the default engine is the compiled one
    with pytest.raises(ValueError, match="scores"):
        env.reset(seed=1, options={"scores": [2**63, 100, 100, 100]})
