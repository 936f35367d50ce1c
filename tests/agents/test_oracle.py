"""The omniscient reference agent (rams_env.agents.oracle): the search of SearchAgent on the true deal.

It must equal the fair search where the seat can deduce every card its search reads, see the true
deal elsewhere, build from ``oracle`` agent specs, and be labelled as seeing hidden cards."""

from __future__ import annotations

import functools
import random

import pytest

from rams_env import make_config
from rams_env.agents import OracleAgent, SearchAgent
from rams_env.agents.deal_sampler import DealSampler
from rams_env.eval import AGENT_SPEC_HELP, agent_label, agent_source, evaluate, sees_hidden_cards
from rams_env.rules import Game, Phase
from rams_env.rules.actions import Action

KNOCK, PASS, DRAW = int(Action.KNOCK), int(Action.PASS), int(Action.DRAW)
RUSSIAN = make_config("russian", 4)
SEAT, DEALER = 0, 3


def deducible(game: Game, seat: int) -> bool:
    """Whether every card in the hands of ``seat``'s active opponents is one the seat can place there
    and nowhere else (each such hand is filled by cards whose only possible place it is)."""
    sampler = DealSampler(game, seat)
    others = [j for j in range(game.n) if j != seat and game.active[j] and game.hands[j]]
    return all(sum(1 for c in sampler.cards if sampler.allowed[c] == [j]) == len(game.hands[j]) for j in others)


def endgames(count: int = 120) -> list[Game]:
    """Russian deals where seat 0 and the dealer play alone, played at random to the fourth trick, kept
    where seat 0 chooses between two or more cards and can deduce the dealer's last card (the turned
    trump, which he took up in view of everyone)."""
    found = []
    for seed in range(count):
        rng = random.Random(seed)
        game = Game(RUSSIAN, seed, dealer=DEALER)
        while game.phase < Phase.DEAL_OVER:
            player, legal = game.current_player, game.legal_actions()
            if game.phase == Phase.KNOCK:
                action = KNOCK if player in (SEAT, DEALER) and KNOCK in legal else PASS if PASS in legal else legal[0]
            elif game.phase == Phase.BUY:
                action = DRAW if DRAW in legal else rng.choice(legal)
            elif game.phase == Phase.PLAY:
                if player == SEAT and len(legal) > 1 and len(game.hands[SEAT]) == 2 and deducible(game, SEAT):
                    found.append(game.clone())
                keep = [c for c in legal if c != game.turned] if player == DEALER else legal
                action = rng.choice(keep or legal)
            else:
                action = rng.choice(legal)
            game.apply(action)
    return found


@functools.cache
def positions() -> tuple[Game, ...]:
    return tuple(endgames())


def test_there_are_deducible_positions_and_the_fair_worlds_agree_there_with_the_truth():
    games = positions()
    assert len(games) >= 5
    rng = random.Random(0)
    for game in games:
        for _ in range(5):
            world = DealSampler(game, SEAT).sample(rng)
            for j in range(game.n):
                if j != SEAT and game.active[j]:
                    assert world.hands[j] == game.hands[j]


def test_the_oracle_equals_the_fair_search_where_the_seat_can_deduce_every_card():
    for game in positions():
        fair = SearchAgent(simulations=6, seed=11).search(game.clone(), SEAT)
        oracle = OracleAgent(simulations=6, seed=11).search(game.clone(), SEAT)
        assert oracle == fair  # the same action, legal actions and every world's rollout results
        assert len(fair[2]) == 6 and len(fair[1]) >= 2


def test_the_oracle_searches_the_true_deal_and_the_fair_search_does_not():
    game = Game(make_config("mattmar", 4), 5)
    seat = game.current_player
    oracle_world = OracleAgent()._worlds(game, seat)(random.Random(1))
    fair_worlds = [SearchAgent()._worlds(game, seat)(random.Random(k)) for k in range(5)]
    others = [j for j in range(game.n) if j != seat]
    assert all(oracle_world.hands[j] == game.hands[j] for j in range(game.n))
    assert oracle_world.to_dict() == game.to_dict()
    assert any(world.hands[j] != game.hands[j] for world in fair_worlds for j in others)
    assert all(world.hands[seat] == game.hands[seat] for world in fair_worlds)


def test_oracle_specs_build_like_search_specs():
    for spec, simulations in (("oracle", 40), ("oracle:7", 7), ("oracle:simulations=3,confidence=0.5", 3)):
        source = agent_source(spec, RUSSIAN)
        agent = source(seed=1)
        assert type(agent) is OracleAgent and agent.simulations == simulations
    with pytest.raises(ValueError, match="oracle:bogus=1"):
        agent_source("oracle:bogus=1", RUSSIAN)
    with pytest.raises(ValueError, match="the seed is set per game"):
        agent_source("oracle:seed=3", RUSSIAN)


def test_the_oracle_is_labelled_as_seeing_hidden_cards():
    assert "oracle" in AGENT_SPEC_HELP and "sees hidden cards" in AGENT_SPEC_HELP
    oracle, search = agent_source("oracle:2", RUSSIAN), agent_source("search:2", RUSSIAN)
    assert sees_hidden_cards(oracle) and sees_hidden_cards(OracleAgent()) and not sees_hidden_cards(search)
    assert agent_label("oracle:2", oracle) == "oracle:2 (sees hidden cards)"
    assert agent_label("oracle:2 (sees hidden cards)", oracle) == "oracle:2 (sees hidden cards)"
    assert agent_label("search:2", search) == "search:2"


def test_an_evaluation_report_labels_the_oracle():
    config = make_config("mattmar", 3)
    result = evaluate(
        {"oracle:1": agent_source("oracle:1", config)},
        agent_source("heuristic", config),
        config,
        decks=1,
        baseline_name="heuristic",
        resamples=10,
        progress=False,
    )
    assert [r.name for r in result.agents] == ["oracle:1 (sees hidden cards)"]
    assert "oracle:1 (sees hidden cards)" in result.table()


def test_rams_play_labels_an_oracle_seat(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):
    import io

    from rams_env.apps.cli import main

    monkeypatch.setattr("sys.stdin", io.StringIO(""))  # leave at the first prompt
    main(["play", "--agents", "oracle:2", "heuristic", "--num-players", "3", "--seed", "1"])
    out = capsys.readouterr().out
    assert "player_1 = oracle:2 (sees hidden cards), player_2 = heuristic" in out
