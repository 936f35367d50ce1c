"""Rule configuration and game set-up: presets, player ranges, options, deck / scores / dealer checks, seeding.

Expectations come from docs/rules.md ("The four presets") and docs/contract.md ("Reset"; a ValueError naming
the offender).
"""

from __future__ import annotations

import random
import re

import numpy as np
import pytest

import rams_env
from rams_env.envs import BatchedRamsEnv, ReferenceBatchedRamsEnv
from rams_env.rules import PRESETS, Game, Phase, card_name, deck_cards, make_config

SWEDISH = ["mattmar", "norrlandsknack", "rams32"]
ALL = [*SWEDISH, "russian"]
PLAYERS = {"mattmar": (3, 7), "norrlandsknack": (3, 7), "rams32": (3, 6), "russian": (3, 7)}


def full_deck(size):
    return [card_name(c) for c in deck_cards(size)]


# --------------------------------------------------------------------------- presets
def test_the_four_presets_exist():
    assert set(PRESETS) == set(ALL)


@pytest.mark.parametrize(
    ("variant", "deck_size", "start_score"),
    [("mattmar", 52, 10), ("norrlandsknack", 52, 10), ("rams32", 32, 10), ("russian", 52, 100)],
)
def test_preset_defaults(variant, deck_size, start_score):
    cfg = make_config(variant)
    assert cfg.variant == variant
    assert cfg.num_players == 4  # the default of every preset
    assert cfg.deck_size == deck_size
    assert cfg.start_score == start_score


def test_default_variant_is_mattmar():
    assert make_config().variant == "mattmar"


def test_only_the_swedish_presets_have_bids():
    for variant in SWEDISH:
        g = Game(make_config(variant, 4), seed=0, dealer=0)
        assert g.phase == Phase.BID
    g = Game(make_config("russian", 4), seed=0, dealer=0)
    assert g.phase == Phase.KNOCK


@pytest.mark.parametrize("variant", ALL)
def test_num_players_range(variant):
    low, high = PLAYERS[variant]
    for n in range(low, high + 1):
        cfg = make_config(variant, n)
        assert cfg.num_players == n
        g = Game(cfg, seed=n)
        assert all(len(g.view(s)["hand"]) >= 5 for s in range(n))
    for n in (low - 1, high + 1, 0, -1):
        with pytest.raises(ValueError, match="num_players"):
            make_config(variant, n)


@pytest.mark.parametrize(("n", "deck_size"), [(3, 32), (4, 52), (5, 52), (6, 52), (7, 52)])
def test_russian_deck_size_follows_the_number_of_players(n, deck_size):
    assert make_config("russian", n).deck_size == deck_size


# --------------------------------------------------------------------------- errors naming the offender
def test_unknown_variant_is_named():
    with pytest.raises(ValueError, match="whist"):
        make_config("whist")


@pytest.mark.parametrize("variant", ALL)
def test_unknown_option_is_named(variant):
    with pytest.raises(ValueError, match="trumps_wild"):
        make_config(variant, 4, trumps_wild=True)


@pytest.mark.parametrize(
    ("variant", "options"),
    [
        ("rams32", {}),
        ("mattmar", {"deck_size": 32}),
        ("norrlandsknack", {"deck_size": 32}),
        ("russian", {"deck_size": 32}),
    ],
)
def test_seven_players_with_32_cards_is_refused(variant, options):
    with pytest.raises(ValueError, match=r"num_players|deck_size"):
        make_config(variant, 7, **options)


def test_six_players_with_32_cards_is_allowed():
    assert make_config("rams32", 6).deck_size == 32
    assert make_config("russian", 6, deck_size=32).deck_size == 32


def test_options_are_overridden_by_keyword():
    assert make_config("mattmar", 4, start_score=7).start_score == 7
    assert make_config("russian", 4, start_score=150).start_score == 150
    assert make_config("russian", 4, start_score=200).start_score == 200


@pytest.mark.parametrize("start", [0, 10, 99, 101, 120, 250, -100])
def test_russian_start_score_is_100_150_or_200(start):
    with pytest.raises(ValueError, match="start_score"):
        make_config("russian", 4, start_score=start)


@pytest.mark.parametrize("variant", SWEDISH)
@pytest.mark.parametrize("start", [0, 11, 100])
def test_swedish_start_score_is_1_to_10(variant, start):
    with pytest.raises(ValueError, match="start_score"):
        make_config(variant, 4, start_score=start)


def test_impossible_combination_is_named():
    with pytest.raises(ValueError, match="bids"):
        make_config("russian", 4, bids=True)


def test_config_is_frozen():
    cfg = make_config("russian")
    with pytest.raises(AttributeError):
        cfg.start_score = 150


# --------------------------------------------------------------------------- the deck option
@pytest.mark.parametrize(("variant", "n"), [("mattmar", 4), ("rams32", 4), ("russian", 3), ("russian", 5)])
def test_a_full_deck_in_any_order_is_accepted(variant, n):
    cfg = make_config(variant, n)
    deck = full_deck(cfg.deck_size)
    random.Random(1).shuffle(deck)
    g = Game(cfg, deck=deck, dealer=0)
    # Dealing order (docs/rules.md "Dealing"): 3 cards each from forehand, the turned card, 2 each, the talon.
    assert set(g.view(1)["hand"]) == set(deck[0:3] + deck[3 * n + 1 : 3 * n + 3])
    assert g.view(0)["turned_card"] == deck[3 * n]
    assert g.view(0)["talon"] == cfg.deck_size - 5 * n - 1


def test_duplicate_card_is_reported_with_the_missing_one():
    deck = full_deck(52)
    deck[deck.index("AS")] = "2C"
    with pytest.raises(ValueError, match=r"(?i)duplicate") as err:
        Game(make_config("mattmar", 4), deck=deck, dealer=0)
    assert "2C" in str(err.value)
    assert "AS" in str(err.value)
    assert "missing" in str(err.value).lower()


def test_missing_card_is_reported():
    deck = full_deck(52)
    deck.remove("TH")
    with pytest.raises(ValueError, match="missing") as err:
        Game(make_config("russian", 4), deck=deck, dealer=0)
    assert "TH" in str(err.value)


@pytest.mark.parametrize("variant", ["rams32", "russian"])
def test_foreign_card_is_reported(variant):
    n = 3 if variant == "russian" else 4
    deck = full_deck(32)
    deck[deck.index("7C")] = "2C"  # no twos in the 32-card deck
    with pytest.raises(ValueError) as err:
        Game(make_config(variant, n), deck=deck, dealer=0)
    assert "2C" in str(err.value)


def test_too_many_cards_are_reported():
    deck = [*full_deck(52), "AS"]
    with pytest.raises(ValueError, match="AS"):
        Game(make_config("mattmar", 4), deck=deck, dealer=0)


@pytest.mark.parametrize("bad", ["XX", "1C", "AZ", 52, -1, None, 3.5])
def test_a_deck_entry_that_is_no_card_is_refused(bad):
    deck = full_deck(52)
    deck[5] = bad
    with pytest.raises(ValueError):
        Game(make_config("mattmar", 4), deck=deck, dealer=0)


def test_a_deck_that_is_no_list_is_refused():
    with pytest.raises(ValueError):
        Game(make_config("mattmar", 4), deck="".join(full_deck(52)), dealer=0)


# --------------------------------------------------------------------------- the scores option
@pytest.mark.parametrize("variant", SWEDISH)
def test_swedish_scores_are_1_to_10(variant):
    g = Game(make_config(variant, 4), seed=0, scores=[1, 10, 5, 2])
    assert g.scores == [1, 10, 5, 2]
    for bad in ([0, 10, 10, 10], [10, 11, 10, 10], [10, 10, 10, -3]):
        with pytest.raises(ValueError, match="scores"):
            Game(make_config(variant, 4), seed=0, scores=bad)


def test_russian_scores_are_at_least_1():
    g = Game(make_config("russian", 4), seed=0, scores=[1, 500, 100, 37])
    assert g.scores == [1, 500, 100, 37]
    assert g.view(2)["scores"] == [1, 500, 100, 37]
    for bad in ([0, 100, 100, 100], [100, 100, -5, 100]):
        with pytest.raises(ValueError, match="scores"):
            Game(make_config("russian", 4), seed=0, scores=bad)


@pytest.mark.parametrize("variant", ALL)
@pytest.mark.parametrize("bad", [[5, 5, 5], [5, 5, 5, 5, 5], [5, 5, 5, "5"], [5, 5, 5, 5.0], [5, 5, True, 5], 5])
def test_scores_must_be_one_int_per_seat(variant, bad):
    with pytest.raises(ValueError):
        Game(make_config(variant, 4), seed=0, scores=bad)


# --------------------------------------------------------------------------- the dealer option
@pytest.mark.parametrize("variant", ALL)
def test_dealer_option(variant):
    for dealer in range(4):
        g = Game(make_config(variant, 4), seed=0, dealer=dealer)
        assert g.dealer == dealer
        assert g.view(0)["dealer"] == dealer
        assert g.current_player == (dealer + 1) % 4  # forehand acts first
    for bad in (-1, 4, 7, True, "1", 1.0):
        with pytest.raises(ValueError):
            Game(make_config(variant, 4), seed=0, dealer=bad)


# --------------------------------------------------------------------------- seeding
def run(variant, n, seed, deals=4):
    """Play ``deals`` deals (or to the end) with a seeded random policy; the actions and the final state."""
    g = Game(make_config(variant, n), seed=seed)
    policy = random.Random(seed)
    actions = []
    for _ in range(deals):
        while g.phase not in (Phase.DEAL_OVER, Phase.GAME_OVER):
            a = policy.choice(g.legal_actions())
            actions.append(a)
            g.apply(a)
        if g.phase == Phase.GAME_OVER:
            break
        g.next_deal()
    return g.dealer, actions, g.to_json(), g.result()


@pytest.mark.parametrize("variant", ALL)
@pytest.mark.parametrize("n", [3, 4])
def test_same_seed_gives_the_same_game(variant, n):
    for seed in (0, 1, 12345):
        assert run(variant, n, seed) == run(variant, n, seed)


@pytest.mark.parametrize("variant", ALL)
def test_the_seed_draws_the_deal_and_the_first_dealer(variant):
    games = [Game(make_config(variant, 4), seed=s) for s in range(20)]
    assert len({g.dealer for g in games}) > 1
    assert len({tuple(g.view(0)["hand"]) for g in games}) > 1
    again = [Game(make_config(variant, 4), seed=s) for s in range(20)]
    for g, h in zip(games, again, strict=True):
        assert g.dealer == h.dealer
        assert [g.view(s)["hand"] for s in range(4)] == [h.view(s)["hand"] for s in range(4)]


# --------------------------------------------------------------------------- the option named (issue 13 item 13)
@pytest.mark.parametrize(
    ("variant", "options", "named"),
    [
        ("mattmar", dict(jacks=True), "jacks=True"),
        ("mattmar", dict(russian_specials=True), "russian_specials=True"),
        ("rams32", dict(forced_knock_with_ace=True), "forced_knock_with_ace=True"),
        ("norrlandsknack", dict(honour_leads=True), "honour_leads=True"),
        ("russian", dict(trump_ace_lead=True), "trump_ace_lead=True"),
        ("russian", dict(forced_trump_lead=True), "forced_trump_lead=True"),
        ("russian", dict(overtake_duty=True), "overtake_duty=True"),
        ("russian", dict(end="at_zero"), "end='at_zero'"),
        ("mattmar", dict(family="russian"), "family='russian'"),
        ("russian", dict(family="swedish"), "family='swedish'"),
        ("mattmar", dict(min_players=2), "min_players=2"),
        ("mattmar", dict(max_players=8), "max_players=8"),
        ("rams32", dict(min_players=7), "min_players=7"),
        ("mattmar", dict(max_players=3), "max_players=3"),
        ("mattmar", dict(min_players=5), "min_players=5"),
        ("mattmar", dict(flight_cap=5), "flight_cap=5"),
    ],
)
def test_the_error_names_the_option_given(variant, options, named):
    """``make_config`` blames the option the caller gave, not a preset default it clashes with."""
    with pytest.raises(ValueError, match=f"invalid rule option {re.escape(named)}:"):
        make_config(variant, **options)


def test_the_positional_player_count_is_named():
    with pytest.raises(ValueError, match="invalid rule option num_players=7:"):
        make_config("rams32", 7)
    with pytest.raises(ValueError, match="invalid rule option num_players=7:"):
        make_config("mattmar", 7, deck_size=32)


def test_direct_construction_still_names_an_option():
    """Without ``make_config`` nobody 'gave' an option: the first involved one is named."""
    from rams_env.rules import RulesConfig

    with pytest.raises(ValueError, match="invalid rule option jacks=True:"):
        RulesConfig(jacks=True)
    with pytest.raises(ValueError, match="invalid rule option start_score=10:"):
        RulesConfig(family="russian", bids=False, overtake_duty=False, trump_ace_lead=False, forced_trump_lead=False)


# --------------------------------------------------------------------------- huge int options, from every entry point
@pytest.mark.parametrize(
    ("option", "value"),
    [("flight_cap", 2**70), ("flight_cap", 2**31), ("flight_fine", 2**63), ("ramsar_per_match", 2**64)],
)
def test_huge_int_options_are_refused_by_name(option, value):
    """The compiled engine keeps options in int64: too large a value is a ValueError naming the
    option, from every entry point and for both engines (not an OverflowError from numpy)."""
    pattern = f"invalid rule option {option}={value}:"
    with pytest.raises(ValueError, match=pattern):
        make_config("mattmar", **{option: value})
    for engine in ("compiled", "reference"):
        with pytest.raises(ValueError, match=pattern):
            rams_env.env(engine=engine, **{option: value})
    for cls in (BatchedRamsEnv, ReferenceBatchedRamsEnv):
        with pytest.raises(ValueError, match=pattern):
            cls(2, **{option: value})


def test_large_but_sane_int_options_still_play_alike():
    options = dict(flight_cap=2**31 - 1, flight_fine=2**31 - 1, start_score=2**31 - 1)
    assert make_config("mattmar", **options).flight_cap == 2**31 - 1
    a, b = BatchedRamsEnv(4, seed=2, **options), ReferenceBatchedRamsEnv(4, seed=2, **options)
    np.testing.assert_array_equal(a.reset().observations, b.reset().observations)
