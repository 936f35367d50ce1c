"""The rams equity model (rams_env.equity): shape, normalisation, symmetry (rotations of the table),
monotonicity, terminal states, every preset and table size, bad input, the shipped data, and the figures
of docs/equity.md."""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

import numpy as np
import pytest

from rams_env import equity, make_config
from rams_env.rules import PRESETS

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "equity.md"
CALIBRATION = ROOT / "docs" / "equity-calibration.json"
CONFIGS = [
    make_config(v, n) for v in PRESETS for n in range(make_config(v).min_players, make_config(v).max_players + 1)
]
IDS = [equity.model_key(c) for c in CONFIGS]


def random_states(rules, count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Deal-start states: every score from 1 to the start score (russian: up to 150)."""
    rng = np.random.default_rng(seed)
    top = rules.start_score if rules.swedish else 150
    return rng.integers(1, top + 1, (count, rules.num_players)), rng.integers(0, rules.num_players, count)


@pytest.mark.parametrize("rules", CONFIGS, ids=IDS)
def test_shape_normalisation_and_range_for_every_preset_and_size(rules):
    scores, dealers = random_states(rules, 200, 1)
    p = equity.equity(rules, scores, dealers)
    assert p.shape == (200, rules.num_players)
    assert np.all((p > 0) & (p < 1))
    np.testing.assert_allclose(p.sum(axis=1), 1.0, atol=1e-12)
    one = equity.equity(rules, list(scores[0]), int(dealers[0]))
    assert one.shape == (rules.num_players,)
    np.testing.assert_allclose(one, p[0])


@pytest.mark.parametrize("rules", CONFIGS, ids=IDS)
def test_renumbering_the_seats_renumbers_the_chances(rules):
    """Seats are numbered round the table, so the renumberings that keep the table are the rotations:
    rotating the scores and the dealer rotates the chances."""
    n = rules.num_players
    scores, dealers = random_states(rules, 50, 2)
    p = equity.equity(rules, scores, dealers)
    for shift in range(1, n):
        q = equity.equity(rules, np.roll(scores, shift, axis=1), (dealers + shift) % n)
        np.testing.assert_allclose(q, np.roll(p, shift, axis=1), atol=1e-12)


@pytest.mark.parametrize("rules", CONFIGS, ids=IDS)
def test_seats_at_the_same_place_after_the_dealer_swap_with_their_scores(rules):
    """Swapping two seats' scores swaps their chances once their places after the dealer are swapped too:
    the chances depend on a seat's score, the others' scores and its place, not on its number."""
    n = rules.num_players
    scores, dealers = random_states(rules, 50, 5)
    p = equity.equity(rules, scores, dealers)
    a, b = 0, n - 1
    swapped = scores.copy()
    swapped[:, [a, b]] = swapped[:, [b, a]]
    q = equity.equity(rules, swapped, dealers)
    model = equity.parameters(equity.model_key(rules))
    position = model[-n:]
    place = (np.arange(n)[None, :] - dealers[:, None] - 1) % n
    # undo the place effect of each seat, then the swap: the rest of the utilities must match
    utility_p = np.log(p) - position[place]
    utility_q = np.log(q) - position[place]
    utility_q[:, [a, b]] = utility_q[:, [b, a]]
    diff = utility_p - utility_q
    np.testing.assert_allclose(diff - diff.mean(axis=1, keepdims=True), 0.0, atol=1e-9)


@pytest.mark.parametrize("rules", CONFIGS, ids=IDS)
def test_a_lower_score_never_loses_equity(rules):
    """Lowering one seat's score (all else equal) does not lower its chance, and at equal scores
    the seat with the lower one is ahead on average."""
    scores, dealers = random_states(rules, 300, 4)
    step = 1 if rules.swedish else 5
    gains = []
    for seat in range(rules.num_players):
        lower = scores.copy()
        lower[:, seat] = np.maximum(lower[:, seat] - step, 1)
        moved = lower[:, seat] < scores[:, seat]
        before = equity.equity(rules, scores[moved], dealers[moved])[:, seat]
        after = equity.equity(rules, lower[moved], dealers[moved])[:, seat]
        assert np.all(after >= before - 1e-12), rules
        gains.append((after - before).mean())
    assert min(gains) > 0


@pytest.mark.parametrize("variant", ["mattmar", "rams32", "russian"])
def test_a_seat_at_or_below_zero_has_won(variant):
    rules = make_config(variant, 4)
    top = 10 if rules.swedish else 100
    assert equity.equity(rules, [3, 0, top, 5], 2).tolist() == [0.0, 1.0, 0.0, 0.0]
    assert equity.equity(rules, [-1, -1, 4, top], 0).tolist() == [0.5, 0.5, 0.0, 0.0]


def test_norrlandsknack_ends_at_zero_exactly():
    rules = make_config("norrlandsknack", 5)
    assert equity.equity(rules, [0, 1, 1, 1, 1], 4).tolist() == [1.0, 0.0, 0.0, 0.0, 0.0]
    with pytest.raises(ValueError, match="stop at 0"):
        equity.equity(rules, [-1, 1, 1, 1, 1], 4)


def test_equal_scores_differ_only_by_position():
    rules = make_config("mattmar", 4)
    p = equity.equity(rules, [10, 10, 10, 10], 0)
    rolled = equity.equity(rules, [10, 10, 10, 10], 1)
    np.testing.assert_allclose(rolled, np.roll(p, 1), atol=1e-12)


@pytest.mark.parametrize(
    ("rules", "scores", "dealer", "message"),
    [
        (make_config("mattmar", 4), [10, 10, 10], 0, "one entry per seat"),
        (make_config("mattmar", 4), [10, 10, 10, 11], 0, "flight cap 10"),
        (make_config("mattmar", 4), [10, 9.5, 10, 10], 0, "whole numbers"),
        (make_config("mattmar", 4), ["a", "b", "c", "d"], 0, "scores must be numbers"),
        (make_config("mattmar", 4), [10, 10, 10, 10], 4, "dealer must be a seat 0..3"),
        (make_config("mattmar", 4), [10, 10, 10, 10], 1.0, "dealer must be an int"),
        (make_config("mattmar", 4), [[10] * 4] * 3, [0, 1], "one per state"),
        (make_config("mattmar", 4, flight_fine=3), [10] * 4, 0, "flight_fine=3"),
        (make_config("russian", 4, start_score=150), [100] * 4, 0, "start_score=150"),
        ("mattmar", [10] * 4, 0, "rules must be a RulesConfig"),
    ],
)
def test_bad_input_is_refused_naming_what_is_wrong(rules, scores, dealer, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        equity.equity(rules, scores, dealer)


def test_the_shipped_data_loads_and_has_every_model_in_the_expected_shape():
    data = equity.load_data()
    assert data["format"] == equity.FORMAT
    assert data["knots"] == {family: list(k) for family, k in equity.KNOTS.items()}
    assert sorted(data["models"]) == sorted(IDS)
    for rules in CONFIGS:
        model = data["models"][equity.model_key(rules)]
        k = len(equity.KNOTS[rules.family])
        table = np.asarray(model["table"])
        assert table.shape == (k, k)
        assert len(model["position"]) == rules.num_players
        assert equity.parameters(equity.model_key(rules)).shape == (equity.num_parameters(rules),)
        # falling in the seat's own score (rows), rising in the others' lowest (columns)
        assert np.all(np.diff(table, axis=0) <= 1e-9) and np.all(np.diff(table, axis=1) >= -1e-9)
    assert (ROOT / "rams_env" / "data" / equity.DATA_FILE).stat().st_size < 100_000


@pytest.mark.slow
def test_simulated_ramsar_are_reproducible_and_end_with_a_winner():
    rules = make_config("norrlandsknack", 3)
    first = equity.simulate_ramsar(rules, 20, seed=5, random_start=0.5)
    again = equity.simulate_ramsar(rules, 20, seed=5, random_start=0.5)
    for name in first:
        np.testing.assert_array_equal(first[name], again[name])
    assert np.all(first["winners"] > 0) and np.all(first["winners"] < 8)
    assert np.all(first["scores"] >= 1) and np.all(first["scores"] <= 10)
    assert set(np.unique(first["rams"])) == set(range(20))
    starts = first["scores"][np.r_[0, np.flatnonzero(np.diff(first["rams"])) + 1]]
    assert np.any(np.all(starts == 10, axis=1)) and np.any(np.any(starts < 10, axis=1))


@pytest.mark.parametrize("key", ["mattmar-4p", "russian-5p"])
def test_the_model_beats_uniform_on_fresh_simulated_ramsar(key):
    """A recomputation on ramsar the fit never saw: the model's Brier score is below uniform's."""
    rules = make_config(key.split("-")[0], int(key.split("-")[1][:-1]))
    sim = equity.simulate_ramsar(rules, 300, seed=99)
    shares = equity.win_shares(sim["winners"], rules.num_players)[sim["rams"]]
    p = equity.equity(rules, sim["scores"], sim["dealer"])
    model = ((p - shares) ** 2).sum(axis=1).mean()
    uniform = ((1 / rules.num_players - shares) ** 2).sum(axis=1).mean()
    assert model < uniform - 0.03


def _page_table() -> dict[str, list[float]]:
    """The calibration table of docs/equity.md: model key -> the numbers of its row."""
    rows = {}
    for line in PAGE.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells and re.fullmatch(r"`?[a-z0-9]+-\dp`?", cells[0]):
            rows[cells[0].strip("`")] = [float(c) for c in cells[1:]]
    return rows


def test_the_calibration_figures_on_the_page_match_their_json():
    calibration = json.loads(CALIBRATION.read_text())["models"]
    rows = _page_table()
    assert sorted(rows) == sorted(IDS) == sorted(calibration)
    for key, numbers in rows.items():
        c = calibration[key]
        expected = [
            c["test_ramsar"],
            c["test_deal_starts"],
            *(round(c["brier"][m], 4) for m in ("uniform", "rank", "model")),
            *(round(c["log_loss"][m], 4) for m in ("uniform", "rank", "model")),
        ]
        assert numbers == expected, key


@pytest.mark.slow
def test_the_calibration_json_recomputes_from_the_shipped_model():
    """The model's held-out Brier score of one row, recomputed from the shipped data and the same
    simulated ramsar (the fit script's seed for that model's test set)."""
    from rams_training import fit_equity

    settings = json.loads(CALIBRATION.read_text())["settings"]
    args = fit_equity.Args(**settings)
    key = "rams32-3p"
    rules = make_config("rams32", 3)
    row = json.loads(CALIBRATION.read_text())["models"][key]
    scores, dealers, shares = fit_equity.records(rules, row["test_ramsar"], fit_equity.model_seed(args, key, 1), 0.0)
    assert scores.shape[0] == row["test_deal_starts"]
    p = equity.equity(rules, scores, dealers)
    assert fit_equity.brier(p, shares) == pytest.approx(row["brier"]["model"], abs=1e-9)
    assert fit_equity.brier(np.full_like(p, 1 / 3), shares) == pytest.approx(row["brier"]["uniform"], abs=1e-9)


def test_all_ties_and_positions_are_covered():
    rules = make_config("mattmar", 3)
    for scores in itertools.product(range(1, 11), repeat=3):
        p = equity.equity(rules, list(scores), 0)
        assert abs(p.sum() - 1) < 1e-12


# ----------------------------------------------------------------------------- the match
MATTMAR = make_config("mattmar", 4)


def test_match_equity_sums_to_one_and_is_reproducible():
    p = equity.match_equity(MATTMAR, [3, 7, 10, 6], 1, [20, 25, 30, 22], [1, 2, 0, 3], 4, simulations=300, seed=1)
    q = equity.match_equity(MATTMAR, [3, 7, 10, 6], 1, [20, 25, 30, 22], [1, 2, 0, 3], 4, simulations=300, seed=1)
    assert p.shape == (4,) and abs(p.sum() - 1) < 1e-12 and p.tolist() == q.tolist()
    assert p.argmax() == 0  # lowest total and lowest score


def test_a_decided_match_is_won_for_certain():
    """At the last rams a lead of 50 points cannot be lost: a rams ends at most 10 points up."""
    p = equity.match_equity(MATTMAR, [10, 10, 10, 10], 0, [0, 50, 60, 70], [9, 0, 0, 0], 5, simulations=200)
    assert p.tolist() == [1.0, 0.0, 0.0, 0.0]


@pytest.mark.parametrize(("rules", "rams_number"), [(MATTMAR, 5), (make_config("russian", 4), 0)])
def test_the_last_rams_of_a_match_is_the_rams(rules, rams_number):
    """With level totals and flights the last rams decides the match, so the match's chances are the
    rams's (the model's, within its calibration and the simulation's noise)."""
    scores = [3, 7, 10, 6] if rules.swedish else [30, 70, 100, 60]
    p = equity.match_equity(rules, scores, 1, [12] * 4 if rams_number else [0] * 4, [0] * 4, rams_number, 1500)
    np.testing.assert_allclose(p, equity.equity(rules, scores, 1), atol=0.06)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (dict(rams_number=6), "rams_number must be 0..5"),
        (dict(rams_number=1.0), "rams_number must be an int"),
        (dict(totals=[0, 0, 0]), "totals must be 4 ints"),
        (dict(flights=[0, -1, 0, 0]), "flights must not be negative"),
        (dict(totals=[1, 0, 0, 0], rams_number=0), "the totals are all 0"),
        (dict(scores=[0, 5, 5, 5]), "every score above 0"),
        (dict(simulations=0), "simulations must be a positive int"),
    ],
)
def test_match_equity_refuses_bad_input(kwargs, message):
    state = dict(scores=[5, 5, 5, 5], dealer=0, totals=[10, 10, 10, 10], flights=[0] * 4, rams_number=2)
    with pytest.raises(ValueError, match=re.escape(message)):
        equity.match_equity(MATTMAR, **{**state, **kwargs})


def test_the_data_file_is_package_data():
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    section = pyproject[pyproject.index("[tool.setuptools.package-data]") :]
    assert '"data/*.json"' in section.split("\n[", 1)[0]
