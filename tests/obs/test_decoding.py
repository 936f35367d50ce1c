"""decode() is the inverse of the encoder: random states of every preset, decoded fields against the engine."""

from __future__ import annotations

import random

import numpy as np
import pytest

from rams_env.obs import OBS_SIZE, SLICES, ObservationEncoder, decode
from rams_env.rules import Game, Phase, card_index, make_config
from rams_env.rules.actions import Action
from rams_env.rules.cards import rank_of, suit_of

PLAYERS = {"mattmar": (3, 4, 7), "norrlandsknack": (3, 5), "rams32": (4, 6), "russian": (3, 4, 7)}
CASES = [(v, n) for v, counts in PLAYERS.items() for n in counts]


def random_states(variant: str, n: int, seed: int, limit: int = 300) -> list[Game]:
    """Clones of about a third of the states met in random legal play (bids favoured, to see answers)."""
    game = Game(make_config(variant, n), seed=seed)
    rng = random.Random(seed)
    states = []
    for _ in range(limit):
        if game.phase == Phase.GAME_OVER:
            states.append(game.clone())
            break
        if rng.random() < 0.35:
            states.append(game.clone())
        if game.phase == Phase.DEAL_OVER:
            game.next_deal()
            continue
        legal = game.legal_actions()
        bids = [a for a in legal if a in (Action.BID_BETTER, Action.BID_SWING)]
        game.apply(rng.choice(bids) if bids and rng.random() < 0.5 else rng.choice(legal))
    return states


def check(game: Game, seat: int) -> None:
    """Every decoded field of ``seat``'s observation equals what the engine and view() say."""
    n, cfg = game.n, game.config
    d = decode(ObservationEncoder(cfg).encode(game, seat))
    view = game.view(seat)
    rel = lambda s: (s - seat) % n
    absolute = [(seat + r) % n for r in range(n)]

    assert (d.variant, d.num_players, d.deck_size) == (cfg.variant, n, cfg.deck_size)
    assert [card_index(c) for c in view["hand"]] == list(d.hand)
    assert "CDHS"[d.trump] == view["trump"] and d.turned_card == game.turned
    assert d.turned_at == view["turned_card_at"]
    assert d.phase == view["phase"]
    assert d.to_act == (rel(view["to_act"]) if view["to_act"] is not None else None)
    assert d.dealer == rel(game.dealer) and d.forehand == rel(game.forehand)
    bids = {b["bid"]: b for b in view["bids"]}
    for name, info in (("better", d.better), ("swing", d.swing)):
        bid = bids.get(name)
        assert info.made == (bid is not None)
        assert info.pending == (bid is not None and not bid["done"])
        assert info.happened == bool(bid and bid["happened"])
        answers = bid["answers"] if bid else []
        assert info.accepted == tuple(sorted(rel(s) for s, a in answers if a))
        assert info.rejected == tuple(sorted(rel(s) for s, a in answers if not a))
    assert d.active == tuple(view["active"][s] for s in absolute)
    assert d.discarded == tuple(view["discarded"][s] for s in absolute)
    assert d.drawn == tuple(view["drawn"][s] for s in absolute)
    assert d.pending_discards == view["pending_discards"] and d.take_pending == view["take_pending"]
    assert [[absolute[r], card] for r, card in d.trick] == [[s, card_index(c)] for s, c in view["trick"]]
    assert d.trick_leader == (rel(game.trick[0][0]) if game.trick else None)
    for r, s in enumerate(absolute):
        mine = sorted(card_index(c) for t in view["completed_tricks"] for p, c in t["cards"] if p == s)
        assert list(d.played[r]) == mine
    known_out = {card_index(c) for c in view["out_of_play_public"] + view["own_out_of_play"]}
    assert set(d.out_of_play) == known_out
    assert set(d.shown) == {card_index(c) for s in view["shown"] for c in s["cards"]}
    assert d.shown_by == tuple(any(x["seat"] == s for x in view["shown"]) for s in absolute)
    assert d.tricks == tuple(view["tricks"][s] for s in absolute)
    assert d.tricks_done == len(view["completed_tricks"])
    scores = [view["scores"][s] / cfg.start_score for s in absolute]
    assert d.scores == pytest.approx([min(2.0, max(-2.0, x)) for x in scores])
    assert d.at_one == tuple(view["scores"][s] == 1 for s in absolute)
    assert d.flights == tuple(min(10, view["rams_flights"][s]) for s in absolute)
    assert d.passed_last_deal == tuple(view["passed_last_deal"][s] for s in absolute)
    must = game.phase == Phase.KNOCK and game.current_player == seat and game.must_knock(seat)
    assert d.must_knock == must and d.queen_due == (game.queen_due == seat)
    assert d.talon == view["talon"]
    assert d.own_jacks == game.jacks[seat]
    aces = sum((10, 15, 20, 5)[suit_of(c)] for c in game.hands[seat] if rank_of(c) == 12)
    assert d.own_aces == (aces if cfg.russian_specials else 0)
    assert d.rams_progress == pytest.approx(view["rams"] / cfg.ramsar_per_match)
    assert d.deal_in_rams == min(20, view["deal"])
    total_scale = cfg.start_score * cfg.ramsar_per_match
    assert d.totals == pytest.approx([min(2.0, max(-2.0, view["totals"][s] / total_scale)) for s in absolute])
    assert d.start_score == cfg.start_score
    assert d.near_zero == tuple(max(1, view["scores"][s]) if view["scores"][s] <= 5 else 0 for s in absolute)
    if cfg.swedish:
        costs = [max(0, min(cfg.flight_fine, cfg.flight_cap - view["scores"][s])) for s in absolute]
    else:
        costs = [cfg.flight_fine] * n
    assert d.flight_cost == tuple(costs)


@pytest.mark.parametrize(("variant", "n"), CASES)
def test_decode_inverts_the_encoder(variant, n):
    seen_phases = set()
    for seed in range(4):
        for game in random_states(variant, n, seed):
            seen_phases.add(game.phase)
            for seat in range(n):
                check(game, seat)
    assert {Phase.KNOCK, Phase.BUY, Phase.PLAY} <= seen_phases


def test_decode_reads_every_field_of_the_layout():
    """Rewriting any one slice of the layout changes the decoded observation (no slice is ignored)."""
    game = Game(make_config("mattmar", 4), seed=0)
    base_vector = ObservationEncoder(game.config).encode(game, 0)
    base = decode(base_vector)
    skip = {"seats", "variant", "trump", "turned_card", "phase", "dealer"}  # structural, checked above
    for name, part in SLICES.items():
        if name in skip:
            continue
        vector = base_vector.copy()
        vector[part] = 0.0
        vector[min(part.start + 1, part.stop - 1)] = 1.0
        assert decode(vector) != base, name


def test_decode_refuses_what_is_not_an_observation():
    with pytest.raises(ValueError, match="shape"):
        decode(np.zeros(10, np.float32))
    with pytest.raises(ValueError, match="not an encoded rams_env observation"):
        decode(np.zeros(OBS_SIZE, np.float32))
