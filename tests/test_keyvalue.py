"""The one key=value parser of the command lines and agent specs (rams_env.keyvalue)."""

from __future__ import annotations

import pytest

from rams_env.keyvalue import parse_bool, parse_pair, parse_pairs, parse_value


def test_values_are_read_as_bool_int_float_then_text() -> None:
    assert [parse_value(t) for t in ("TRUE", "false", "150", "-3", "0.5", "1e3", "unanimous")] == [
        True,
        False,
        150,
        -3,
        0.5,
        1000.0,
        "unanimous",
    ]
    assert type(parse_value("1")) is int  # "1" is a number here; parse_bool reads it as true


def test_pairs_strip_whitespace_and_later_keys_win() -> None:
    assert parse_pair(" simulations = 200 ") == ("simulations", 200)
    assert parse_pairs(["a=1", "b=x", "a=2"]) == {"a": 2, "b": "x"}


@pytest.mark.parametrize("item", ["bogus", "=1", "start_score=", " = ", ""])
def test_an_item_that_is_no_pair_is_refused_by_name(item: str) -> None:
    with pytest.raises(ValueError, match="expected key=value") as err:
        parse_pair(item)
    assert repr(item) in str(err.value)


def test_booleans_take_the_usual_words_and_refuse_others() -> None:
    assert [parse_bool(t) for t in ("true", "1", "Yes", "ON", "false", "0", "no", "off")] == [True] * 4 + [False] * 4
    with pytest.raises(ValueError, match="expected true or false"):
        parse_bool("maybe")
