"""SearchAgent: objective="win" (rollouts scored by the rams equity), its policy rollouts, the knock's worlds
filtered by an opponent model, another base agent and the phases searched, a numpy seed, and the error of
act() without env=."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import rams_env
from rams_env.agents import HeuristicAgent, OracleAgent, SearchAgent
from rams_env.agents.deal_sampler import DealSampler
from rams_env.agents.search import KNOCK, believed_worlds, policy_rollouts, rams_chances, rollout
from rams_env.equity import equity
from rams_env.eval import agent_source
from rams_env.rules import Game, Phase, make_config
from rams_env.rules.determinize import knock_turn, play_start


class LowestLegal:
    """A stand-in policy: the lowest legal action of every row (records its batch sizes)."""

    def __init__(self) -> None:
        self.batches: list[int] = []

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        self.batches.append(len(masks))
        return np.argmax(masks != 0, axis=1)


def _played_out(variant: str, players: int, seed: int) -> Game:
    game = Game(make_config(variant, players), seed)
    rollout(game, random.Random(seed))
    return game


def test_rams_chances_are_the_equity_after_the_deal_or_the_share_of_a_finished_rams():
    config = make_config("mattmar", 4)
    games = [_played_out("mattmar", 4, seed) for seed in range(6)]
    chances = rams_chances(games, 2)
    for game, chance in zip(games, chances, strict=True):
        assert not game.rams_over
        assert chance == pytest.approx(equity(config, game.scores, game.forehand)[2])
    # A rams that ends: the seat's share of the win, not the model.
    game = Game(config, 3, scores=[1, 1, 5, 5])
    while not game.rams_over:
        if game.phase >= Phase.DEAL_OVER:
            game.next_deal()
        rollout(game, random.Random(1))
    winners = game.rams_winners()
    for seat in range(4):
        expected = 1.0 / len(winners) if seat in winners else 0.0
        assert rams_chances([game], seat) == [expected]


def test_win_objective_scores_every_rollout_as_a_chance_and_plays_legally():
    config = make_config("mattmar", 4)
    game = Game(config, 8, scores=[2, 6, 4, 9])
    agent = SearchAgent(simulations=3, seed=5, objective="win")
    while game.phase < Phase.DEAL_OVER:
        action, legal, results = agent.search(game, game.current)
        assert action in legal
        for row in results:
            assert len(row) == len(legal) and all(0.0 <= v <= 1.0 for v in row)
        game.apply(action)


def test_policy_rollouts_play_each_game_as_the_policy_would_one_at_a_time():
    config = make_config("russian", 4)
    batched = [Game(config, seed) for seed in range(5)]
    one_by_one = [g.clone() for g in batched]
    policy = LowestLegal()
    policy_rollouts(batched, policy)
    for game in one_by_one:
        while game.phase < Phase.DEAL_OVER:
            game.apply(game.legal_actions()[0])
    for a, b in zip(batched, one_by_one, strict=True):
        assert a.phase >= Phase.DEAL_OVER and a.scores == b.scores and a.tricks_won == b.tricks_won
    assert max(policy.batches) > 1, "the games' decisions were batched"


def test_a_search_with_policy_rollouts_asks_the_policy_and_keeps_the_paired_results():
    config = make_config("mattmar", 4)
    game = Game(config, 2)
    while game.phase != Phase.KNOCK:
        game.apply(game.legal_actions()[-1])
    policy = LowestLegal()
    agent = SearchAgent(simulations=2, seed=1, rollout_policy=policy, objective="win")
    action, legal, results = agent.search(game, game.current)
    assert action in legal and policy.batches
    assert len(results) == 2 * 4 and all(len(row) == len(legal) for row in results)  # the knock's extra worlds


def test_policy_rollouts_a_policy_base_and_a_policy_opponent_model_by_name_load_the_zoo_policy_once():
    agent = SearchAgent(simulations=1, rollout_policy="mattmar-4p", base="mattmar-4p", opponent_model="mattmar-4p")
    assert callable(agent.rollout_agent.act_batch)
    assert agent.base is agent.rollout_agent is agent.opponent_model


@pytest.mark.parametrize(
    "kwargs, named",
    [
        ({"objective": "rams"}, "objective"),
        ({"rollout_policy": 3}, "rollout_policy"),
        ({"rollout_policy": LowestLegal(), "time_limit": 1.0}, "time_limit"),
        ({"phases": "dance"}, "phases"),
        ({"phases": ()}, "phases"),
        ({"base": 3}, "base"),
        ({"base": None}, "base"),
        ({"opponent_model": LowestLegal()}, "opponent_model"),
        ({"belief_noise": 0.5}, "belief_noise"),
        ({"belief_noise": 0}, "belief_noise"),
        ({"belief_draws": 0}, "belief_draws"),
        ({"belief_draws": 2.0}, "belief_draws"),
    ],
)
def test_bad_search_options_are_refused(kwargs, named):
    with pytest.raises(ValueError, match=named):
        SearchAgent(**kwargs)


def test_agent_specs_take_the_objective_and_the_oracle_shares_it():
    config = make_config("mattmar", 4)
    source = agent_source("search:simulations=2,objective=win", config)
    assert source(seed=1).objective == "win"
    oracle = agent_source("oracle:simulations=2,objective=win", config)(seed=1)
    assert isinstance(oracle, OracleAgent) and oracle.objective == "win"
    with pytest.raises(ValueError, match="objective"):
        agent_source("search:objective=best", config)


def test_search_agent_takes_a_numpy_seed():
    env = rams_env.env()
    env.reset(seed=0)
    a = SearchAgent(simulations=2, seed=np.int64(4), env=env).act(env.observe(env.agent_selection))
    b = SearchAgent(simulations=2, seed=4, env=env).act(env.observe(env.agent_selection))
    assert a == b


def test_search_agent_without_env_says_how_to_use_it():
    """SearchAgent needs the game's public history: act(observation) without env= is an explicit,
    documented error (the contract promises no-argument agents only for RandomAgent and HeuristicAgent)."""
    env = rams_env.env()
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"SearchAgent\(env=") as info:
        SearchAgent(simulations=2).act(env.observe(env.agent_selection))
    assert "act_game" in str(info.value)
    for doc in (SearchAgent.__doc__, SearchAgent.act.__doc__):
        assert "env=" in doc and "act_game" in doc


class FirstLegal:
    """A stand-in base agent: the first legal action (records the phases it was asked in)."""

    def __init__(self) -> None:
        self.asked: list[Phase] = []

    def act_game(self, game: Game, seat: int) -> int:
        self.asked.append(game.phase)
        return game.legal_actions()[0]


def _at_knock_after_others(variant: str, seed: int) -> Game | None:
    """A 4-player deal of ``variant`` played by heuristics up to the dealer's knock (the others decided)."""
    config = make_config(variant, 4)
    heuristic = HeuristicAgent(config)
    game = Game(config, seed)
    while game.phase < Phase.DEAL_OVER and not (game.phase == Phase.KNOCK and game.current == game.dealer):
        game.apply(heuristic.act_game(game, game.current))
    return game if game.phase == Phase.KNOCK else None


def _agrees(world: Game, model: HeuristicAgent) -> bool:
    """Whether every knock and pass so far in ``world`` is the one ``model`` makes in its hands."""
    order = [(world.forehand + i) % 4 for i in range(4)]
    for j in order[: order.index(world.current)]:
        before = knock_turn(world, j)
        if len(before.legal_actions()) > 1 and (model.act_game(before, j) == KNOCK) != world.active[j]:
            return False
    return True


def test_believed_worlds_agree_with_the_opponent_model_far_more_often_than_uniform_ones():
    """Russian knocks tell a lot (a player dealt an ace must knock): uniformly re-dealt worlds agree
    with the heuristics' knocks and passes less than half the time, the filtered ones nearly always."""
    model = HeuristicAgent(make_config("russian", 4))
    uniform = believed = 0
    for seed in range(12):
        game = _at_knock_after_others("russian", seed)
        assert game is None or _agrees(game, model), "the true deal agrees with the model that played it"
        if game is None:
            continue
        sample = DealSampler(game, game.current).sample
        filtered = believed_worlds(sample, game, model, 0.1)
        rng = random.Random(seed)
        uniform += sum(_agrees(sample(rng), model) for _ in range(10))
        believed += sum(_agrees(filtered(rng), model) for _ in range(10))
    assert believed >= 0.85 * 120 and believed > uniform + 0.3 * 120, (uniform, believed)


def _plays_agree(world: Game, model: HeuristicAgent, seat: int) -> bool:
    """Whether every card the others played so far in ``world`` is the one ``model`` plays in its hands."""
    replay = play_start(world)
    for s, card in [(s, c) for cards, _ in world.completed for s, c in cards] + list(world.trick):
        if s != seat and len(replay.legal_actions()) > 1 and model.act_game(replay, s) != card:
            return False
        replay.apply(card)
    return True


def test_believed_worlds_in_the_play_agree_with_the_cards_the_model_would_have_played():
    """Mattmar, third trick: one uniform world in ten agrees with every card the heuristics played, the
    filtered ones several times as often."""
    config = make_config("mattmar", 4)
    model = HeuristicAgent(config)
    uniform = believed = asked = 0
    for seed in range(12):
        game = Game(config, seed)
        while game.phase < Phase.DEAL_OVER and not (game.phase == Phase.PLAY and len(game.completed) == 2):
            game.apply(model.act_game(game, game.current))
        if game.phase != Phase.PLAY:
            continue
        seat = game.current
        assert _plays_agree(game, model, seat)
        sample = DealSampler(game, seat).sample
        filtered = believed_worlds(sample, game, model, 0.1)
        rng = random.Random(seed)
        uniform += sum(_plays_agree(sample(rng), model, seat) for _ in range(10))
        believed += sum(_plays_agree(filtered(rng), model, seat) for _ in range(10))
        asked += 10
    assert asked >= 80 and believed >= 2 * uniform + 0.1 * asked, (uniform, believed, asked)


def test_an_opponent_model_filters_only_after_someone_decided():
    game = Game(make_config("russian", 4), 4)
    sample = DealSampler(game, game.current).sample
    assert believed_worlds(sample, game, HeuristicAgent(game.config), 0.1) is sample  # forehand: nobody decided
    agent = SearchAgent(simulations=2, seed=3, opponent_model="heuristic")
    game = _at_knock_after_others("russian", 1)
    action, legal, results = agent.search(game, game.current)
    assert action in legal and len(results) == 2 * 4


def test_the_base_agent_is_kept_where_the_phase_is_not_searched():
    config = make_config("mattmar", 4)
    base = FirstLegal()
    agent = SearchAgent(simulations=2, seed=1, base=base, phases="knock")
    game = Game(config, 5)
    searched = 0
    while game.phase < Phase.DEAL_OVER:
        legal = game.legal_actions()
        action, _, results = agent.search(game, game.current)
        if game.phase == Phase.KNOCK and len(legal) > 1:
            searched += bool(results)
        elif len(legal) > 1:
            assert results == [] and action == legal[0], game.phase
        game.apply(action)
    assert searched and Phase.PLAY in base.asked


def test_agent_specs_take_the_phases_the_base_and_the_opponent_model():
    config = make_config("russian", 4)
    agent = agent_source("search:simulations=2,phases=knock+play,base=heuristic,opponent_model=heuristic", config)(
        seed=1
    )
    assert agent.phases == (Phase.KNOCK, Phase.PLAY) and agent.base == agent.opponent_model == "heuristic"
    with pytest.raises(ValueError, match="phases"):
        agent_source("search:phases=buy", config)


def test_the_belief_accuracy_benchmark_prints_a_row_per_setting(tmp_path):
    """The benchmark runs as its docstring says (a script: run, not imported), one row per way of drawing
    the worlds, the same figures in its JSON."""
    root = Path(__file__).resolve().parents[2]
    out = tmp_path / "accuracy.json"
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.belief_accuracy", "--deals", "3", "--json", str(out)],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    names = ("uniform", "filtered,", "learned", "learned,")
    rows = [line for line in done.stdout.splitlines() if line.split() and line.split()[0] in names]
    assert len(rows) == 5  # uniform worlds, filtered at two strengths, learned, learned and filtered
    report = json.loads(out.read_text())
    assert report["beliefs"] == "mattmar" and len(report["rows"]) == 5 and report["net_log_likelihood"] < 0
    for row, figures in zip(rows, report["rows"].values(), strict=True):
        placed, loglik, agrees = (float(v) for v in row.split("[")[0].split()[-3:])
        assert 0.0 <= placed <= 1.0 and loglik < 0 and 0.0 <= agrees <= 1.0
        assert (placed, agrees) == (round(figures["placed"], 3), round(figures["agrees"], 3))
        assert figures["placed_ci"][0] <= figures["placed"] <= figures["placed_ci"][1]
        assert figures["agrees_ci"][0] <= figures["agrees"] <= figures["agrees_ci"][1]
