"""``Game.from_json`` / ``Game.from_dict`` of text that is no saved state: one ``ValueError`` saying what is
wrong (a missing or wrong-typed field, deep nesting), never a ``KeyError``, ``TypeError`` or ``RecursionError``."""

from __future__ import annotations

import json

import pytest

from rams_env.rules import Game, make_config


def _state() -> dict:
    game = Game(make_config("mattmar"), 3)
    game.apply(game.legal_actions()[0])
    return game.to_dict()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda s: s.pop("phase"), "it lacks phase"),
        (lambda s: s.update(config=[1]), "'config' must be a dict"),
        (lambda s: s.update(config={"variant": ["mattmar"]}), "invalid rule option variant="),
        (lambda s: s.update(phase="bid"), "not a Game state"),
        (lambda s: s.update(rng=5), "not a Game state"),
        (lambda s: s.update(turned_at=7), "not a Game state"),
        (lambda s: s.update(hands=5), "not a Game state"),
    ],
    ids=["missing", "config-list", "variant-list", "phase", "rng", "turned-at", "hands"],
)
def test_a_damaged_state_is_one_value_error(change, message: str) -> None:  # type: ignore[no-untyped-def]
    state = _state()
    change(state)
    with pytest.raises(ValueError, match=message):
        Game.from_json(json.dumps(state))


@pytest.mark.parametrize("text", ["[1, 2]", "5", "[" * 100_000 + "]" * 100_000, "{"])
def test_text_that_is_no_state_is_one_value_error(text: str) -> None:
    with pytest.raises(ValueError):
        Game.from_json(text)


def test_a_saved_state_still_continues() -> None:
    state = _state()
    assert Game.from_json(json.dumps(state)).to_dict() == state
