"""The places of the cards hidden from a seat (rams_env.obs.beliefs): labels and room agree with the deal
sampler and the engine at random states of every preset and table size."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rams_env.agents.deal_sampler import DealSampler
from rams_env.obs.beliefs import (
    FACE_DOWN_PLACE,
    NOT_HIDDEN,
    NUM_PLACES,
    TALON_PLACE,
    hidden_places,
    known_cards,
    place_of_seat,
    place_room,
)
from rams_env.rules import Game, Phase, make_config
from tests.oracle import PRESET_PLAYERS
from tests.states import random_states

CASES = [(variant, n) for variant, counts in PRESET_PLAYERS.items() for n in counts]
PROPERTY = settings(max_examples=12, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow])  # fmt: skip


@PROPERTY
@given(case=st.sampled_from(CASES), seed=st.integers(0, 10_000))
def test_every_hidden_card_has_its_true_place_and_the_places_hold_what_room_says(case, seed):
    variant, n = case
    for game in random_states(variant, n, seed, keep=0.3):
        for seat in range(n):
            labels = hidden_places(game, seat)
            room = place_room(game, seat)
            hidden = set(np.flatnonzero(labels != NOT_HIDDEN).tolist())
            assert hidden == set(DealSampler(game, seat).cards), "the labelled cards are the sampler's hidden ones"
            assert not hidden & known_cards(game, seat)
            assert np.bincount(labels[labels >= 0], minlength=NUM_PLACES).tolist() == room.tolist()
            for j in range(n):
                if j != seat:
                    assert all(labels[c] == place_of_seat(game, seat, j) for c in game.hands[j])
                    assert all(labels[c] == FACE_DOWN_PLACE for c in game.out_hidden[j])
            assert all(labels[c] == TALON_PLACE for c in game.talon[game.talon_pos :])


def test_the_places_are_relative_to_the_observer():
    game = Game(make_config("mattmar", 4), 3)
    while game.phase != Phase.PLAY:
        if game.phase == Phase.DEAL_OVER:
            game.next_deal()
            continue
        game.apply(game.legal_actions()[-1])
    for seat in range(4):
        labels = hidden_places(game, seat)
        nxt = (seat + 1) % 4
        assert {int(labels[c]) for c in game.hands[nxt]} <= {0}
        assert place_room(game, seat)[0] == len(game.hands[nxt])
        assert (labels[game.hands[seat]] == NOT_HIDDEN).all()


@pytest.mark.parametrize("variant", ["mattmar", "russian"])
def test_the_room_of_unused_seats_is_zero(variant):
    game = Game(make_config(variant, 3), 5)
    room = place_room(game, 0)
    assert room[2:TALON_PLACE].sum() == 0 and room[TALON_PLACE] == game.talon_size
