"""OpenSpiel's ``python_rams`` parameters out of range or of the wrong type: every one is a ``ValueError`` that
names the parameter (rams_env.integrations.openspiel.check_parameters, ``load_game``, ``RamsGame``).

Needs the ``openspiel`` extra (installed by .ci/run): a missing pyspiel fails here, it is not skipped.
"""

from __future__ import annotations

import pyspiel
import pytest

from rams_env.integrations import openspiel as ros
from rams_env.rules import make_config

MOST_DEALS = (2**31 - 1) // make_config("mattmar").max_deal_actions


@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"episode": "rams", "max_deals": 10**9}, r"max_deals must be 0 .* or 1 to [\d,]+ \(the longest game"),
        ({"episode": "match", "max_deals": MOST_DEALS + 1}, "max_deals must be"),
        ({"episode": "rams", "max_deals": -5}, "max_deals must be"),
        ({"players": 99}, "players: invalid rule option num_players=99"),
        ({"players": 2}, "players: "),
        ({"variant": "nope"}, "variant: unknown variant"),
        ({"rules": "start_score:100000000000000000000"}, "rules: invalid rule option start_score"),
        ({"rules": "x:" + "1" * 5000}, "rules must be a string of at most 2000 characters"),
        ({"scores": "1;" * 3000}, "scores must be a string of at most 2000 characters"),
        ({"scores": "1;2"}, "scores must give 4 scores"),
        ({"scores": "1;2;3;99"}, "scores: "),
        ({"dealer": 7}, "dealer must be -1"),
    ],
)
def test_pyspiel_load_game_names_the_bad_parameter(params: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        pyspiel.load_game("python_rams", params)


def test_the_longest_allowed_game_loads() -> None:
    game = pyspiel.load_game("python_rams", {"episode": "match", "max_deals": MOST_DEALS})
    assert game.max_game_length() == MOST_DEALS * make_config("mattmar").max_deal_actions <= 2**31 - 1


@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"players": "4"}, "players must be an integer"),
        ({"players": True}, "players must be an integer"),
        ({"dealer": 1.5}, "dealer must be an integer"),
        ({"max_deals": 2**40}, "max_deals must be an integer from"),
        ({"variant": ["mattmar"]}, "variant must be a string"),
        ({"rules": {"bids": False}}, "rules must be a string"),
        ({"scores": [1, 2, 3, 4]}, "scores must be a string"),
    ],
)
def test_the_game_class_checks_types_and_int_ranges(params: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        ros.RamsGame(params)


@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"max_deals": 10**12}, "max_deals must be an integer from"),  # beyond a C++ int: pybind11 named nothing
        ({"max_deals": 10**9}, "max_deals must be 0"),
        ({"dealer": 10**12}, "dealer must be an integer from"),
        ({"dealer": 9}, "dealer must be -1"),
        ({"scores": [1, 2]}, "scores must give 4 scores"),
        ({"bogus": 1}, r"unknown parameter\(s\) \['bogus'\]"),
    ],
)
def test_load_game_checks_its_parameters_before_pyspiel(params: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        ros.load_game(make_config("mattmar"), "rams", **params)


def test_load_game_passes_good_parameters_on() -> None:
    game = ros.load_game(make_config("mattmar"), "rams", dealer=2, scores=[3, 5, 7, 10], max_deals=3)
    assert game.max_game_length() == 3 * make_config("mattmar").max_deal_actions
    state = game.new_initial_state()
    assert state.is_chance_node() and len(state.chance_outcomes()) == 52  # the dealer is given: cards at once
