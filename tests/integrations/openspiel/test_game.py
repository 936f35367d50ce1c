"""Rams as an OpenSpiel game (rams_env.integrations.openspiel) and OpenSpiel's ISMCTS as an agent.

Needs the ``openspiel`` extra (installed by .ci/run): a missing pyspiel fails here, it is not
skipped. Kept short: about 20-40 s in all on a busy 2-core machine.
"""

from __future__ import annotations

import json
import random

import numpy as np
import pyspiel
import pytest

from rams_env.envs import next_deal_or_end, win_rewards
from rams_env.eval import agent_source, build_agent, evaluate
from rams_env.integrations import openspiel as ros
from rams_env.rules import Game, Phase, card_name, make_config
from tests.states import openspiel_decisions

PRESETS = ("mattmar", "norrlandsknack", "rams32", "russian")
SAMPLER = pyspiel.UniformProbabilitySampler(0.0, 1.0)


def cards(hand: list[int]) -> str:
    """A hand as the information state string writes it: card names, run together."""
    return "".join(card_name(c) for c in hand)


def engine_deck(game: Game) -> list[int]:
    """A deck that deals ``game``'s current deal (read at its start): hands are sorted, so any packet order does."""
    order = [(game.forehand + i) % game.n for i in range(game.n)]
    packets = {s: [c for c in game.hands[s] if not (game.config.swedish and c == game.turned)] for s in order}
    assert all(len(p) == 5 for p in packets.values())
    first = [c for s in order for c in packets[s][:3]]
    return first + [game.turned] + [c for s in order for c in packets[s][3:]] + list(game.talon)


def play_random(state, rng: random.Random, stop=None):
    """Play ``state`` to the end with random chance outcomes and random legal actions."""
    while not state.is_terminal():
        if stop is not None and stop(state):
            return state
        if state.is_chance_node():
            state.apply_action(rng.choice(state.chance_outcomes())[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return state


def without_rng(game: Game) -> dict:
    d = game.to_dict()
    d.pop("rng")
    return d


# ----------------------------------------------------------------------------- the game
def test_registered_with_parameters() -> None:
    game = pyspiel.load_game("python_rams(variant=russian,rules=start_score:150,scores=3;5;7;10,dealer=2,episode=rams)")
    assert game.get_type().short_name == "python_rams"
    assert game.num_players() == 4 and game.num_distinct_actions() == 60 and game.max_chance_outcomes() == 52
    assert game.config == make_config("russian", 4, start_score=150)
    state = game.new_initial_state()
    assert state.is_chance_node() and len(state.chance_outcomes()) == 52  # the dealer is given: cards at once
    play_random(state, random.Random(0), stop=lambda s: not s.is_chance_node())
    assert state.game.dealer == 2 and state.game.scores == [3, 5, 7, 10]
    first = pyspiel.load_game("python_rams", {"players": 5}).new_initial_state()
    assert first.chance_outcomes() == [(s, 0.2) for s in range(5)]  # the first dealer is drawn
    assert ros.rules_string(make_config("mattmar", 5, bids=False, flight_fine=3)) == "bids:false;flight_fine:3"
    assert ros.load_game(make_config("mattmar", 5, bids=False)).config == make_config("mattmar", 5, bids=False)


@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"variant": "nope"}, "unknown variant"),
        ({"rules": "flight_fin:3"}, "flight_fin"),
        ({"rules": "start_score"}, "option:value"),
        ({"rules": "num_players:5"}, "players parameters"),
        ({"players": 8}, "num_players"),
        ({"scores": "1;2;3"}, "scores"),
        ({"episode": "deal", "reward": "win"}, "win"),
        ({"dealer": 4}, "dealer"),
    ],
)
def test_bad_parameters_are_named(params: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        pyspiel.load_game("python_rams", params)


@pytest.mark.parametrize("variant", PRESETS)
def test_openspiel_random_sim_test(variant: str) -> None:
    pyspiel.random_sim_test(pyspiel.load_game("python_rams", {"variant": variant}), 3, True, False)
    params = {"variant": variant, "players": 3, "episode": "rams", "reward": "win", "max_deals": 6}
    pyspiel.random_sim_test(pyspiel.load_game("python_rams", params), 1, True, False)


def test_a_whole_match_passes_random_sim_test() -> None:
    game = pyspiel.load_game("python_rams", {"variant": "rams32", "players": 3, "episode": "match"})
    pyspiel.random_sim_test(game, 1, False, False)


@pytest.mark.parametrize("variant", PRESETS)
def test_plays_exactly_the_engines_games(variant: str) -> None:
    """Differential test: the engine with a seed and python_rams fed the same deals, same random actions."""
    rng = random.Random(variant)
    games = [("deal", "points", n) for n in (3, 4, 5, 6) for _ in range(4)]
    games += [("rams", "points", 4), ("rams", "win", 3), ("match", "points", 5)]
    for k, (episode, reward, n) in enumerate(games):
        cfg = make_config(variant, n)
        spiel = pyspiel.load_game(
            "python_rams", {"variant": variant, "players": n, "episode": episode, "reward": reward}
        )
        engine = Game(cfg, 1000 + k)
        state = spiel.new_initial_state()
        state.apply_action(engine.dealer)  # the first dealer's chance node
        points = [0] * n
        while True:
            for card in engine_deck(engine):
                assert state.is_chance_node()
                state.apply_action(card)
            before = list(engine.scores)
            if engine.phase < Phase.DEAL_OVER and episode == "deal" and k % 3 == 0:
                rebuilt = ros.state_from_game(engine, spiel)  # the agent's view of the same game
                assert all(rebuilt.information_state_string(p) == state.information_state_string(p) for p in range(n))
            while engine.current >= 0:
                assert without_rng(state.game) == without_rng(engine)
                assert state.current_player() == engine.current
                assert state.legal_actions() == engine.legal_actions()
                action = rng.choice(engine.legal_actions())
                engine.apply(action)
                state.apply_action(action)
            points = [p + b - s for p, b, s in zip(points, before, engine.scores, strict=True)]
            if next_deal_or_end(engine, episode):
                break
        assert state.is_terminal() and without_rng(state.game) == without_rng(engine)
        expected = win_rewards(engine) if reward == "win" else points
        assert state.returns() == pytest.approx(expected)


def test_points_and_rewards_add_up() -> None:
    rng = random.Random(5)
    game = pyspiel.load_game("python_rams", {"variant": "mattmar", "episode": "rams"})
    state = game.new_initial_state()
    total = np.zeros(4)
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(rng.choice(state.chance_outcomes())[0])
            continue
        total += state.rewards()
        assert state.returns() == pytest.approx(total)
        state.apply_action(rng.choice(state.legal_actions()))
    total += state.rewards()
    assert state.returns() == pytest.approx(total)
    assert sum(state.returns()) == pytest.approx(sum(10 - s for s in state.game.scores))  # one rams: 10 - end score


def test_truncated_episode_is_terminal() -> None:
    game = pyspiel.load_game("python_rams", {"variant": "russian", "episode": "rams", "reward": "win", "max_deals": 1})
    state = play_random(game.new_initial_state(), random.Random(3))
    assert state._core.deals == 1
    if not state.game.is_over:  # the game went on: truncated, the lowest record wins
        assert state._core.truncated
        low = min(state.game.scores)
        winners = [s for s in range(4) if state.game.scores[s] == low]
        assert [r > 0 for r in state.returns()] == [s in winners for s in range(4)]


def test_observations_hold_only_the_players_knowledge() -> None:
    rng = random.Random(11)
    game = pyspiel.load_game("python_rams", {"variant": "mattmar"})
    state = play_random(game.new_initial_state(), rng, stop=lambda s: s.game is not None and s.game.phase == Phase.PLAY)
    for p in range(4):
        tensor = np.array(state.information_state_tensor(p))
        assert np.array_equal(tensor, np.array(state.observation_tensor(p)))
        assert np.array_equal(tensor, game.encoder.encode(state.game, p))
        text = state.information_state_string(p)
        assert text.startswith(f"p{p} ") and f"h{cards(state.game.hands[p])}" in text
        assert not any(f"h{cards(state.game.hands[j])}" in text for j in range(4) if j != p and state.game.hands[j])
        assert json.loads(state.observation_string(p)) == state.game.view(p)


def test_clone_and_serialisation_continue_identically() -> None:
    rng = random.Random(4)
    game = pyspiel.load_game("python_rams", {"variant": "russian", "episode": "rams"})
    state = play_random(game.new_initial_state(), rng, stop=lambda s: s._core.deals == 2 and not s.is_chance_node())
    text = pyspiel.serialize_game_and_state(game, state)
    _, copy = pyspiel.deserialize_game_and_state(text)
    clone = state.clone()
    for _ in range(200):
        if state.is_terminal():
            break
        action = rng.choice(state.chance_outcomes())[0] if state.is_chance_node() else rng.choice(state.legal_actions())
        for s in (state, copy, clone):
            s.apply_action(action)
    for s in (copy, clone):
        assert str(s) == str(state) and s.returns() == state.returns()
        assert s.information_state_string(1) == state.information_state_string(1)


# ----------------------------------------------------------------------------- resampling
@pytest.mark.parametrize("variant", PRESETS)
def test_resample_from_infostate_keeps_the_information_state(variant: str) -> None:
    """In the style of OpenSpiel's ResampleInfostateTest, plus: the hidden cards do change."""
    rng = random.Random(variant)
    game = pyspiel.load_game("python_rams", {"variant": variant, "episode": "rams", "max_deals": 2})
    moved = checked = 0
    for state in openspiel_decisions(game, rng, episodes=2):
        for p in range(game.num_players()):
            other = state.resample_from_infostate(p, SAMPLER)
            assert other.information_state_string(p) == state.information_state_string(p)
            assert other.information_state_tensor(p) == state.information_state_tensor(p)
            assert other.current_player() == state.current_player()
            assert other.legal_actions() == state.legal_actions() or other.current_player() != p
            assert other.game.hands[p] == state.game.hands[p]
            moved += any(other.game.hands[j] != state.game.hands[j] for j in range(4) if j != p)
            checked += 1
    assert moved > checked // 2


def test_resampled_states_play_on() -> None:
    rng = random.Random(8)
    game = pyspiel.load_game("python_rams", {"variant": "rams32", "episode": "rams"})
    state = play_random(game.new_initial_state(), rng, stop=lambda s: s.game is not None and s.game.phase == Phase.PLAY)
    for _ in range(5):
        other = state.resample_from_infostate(state.current_player(), SAMPLER)
        play_random(other, rng)
        assert other.is_terminal()


# ----------------------------------------------------------------------------- ISMCTS
def test_ismcts_agent_plays_legal_actions() -> None:
    for variant, evaluator in (("mattmar", "random"), ("russian", "heuristic")):
        cfg = make_config(variant, 4)
        agent = ros.ISMCTSAgent(simulations=8, seed=1, evaluator=evaluator)
        game = Game(cfg, 7)
        rng = random.Random(0)
        while game.current >= 0:
            legal = game.legal_actions()
            action = agent.act_game(game, 0) if game.current == 0 else rng.choice(legal)
            assert action in legal
            game.apply(action)
        assert agent.decisions >= 1


def test_ismcts_in_the_evaluation() -> None:
    cfg = make_config("mattmar", 4)
    source = agent_source("ismcts:4", cfg)
    assert build_agent(source, 3).simulations == 4
    assert build_agent(agent_source("ismcts:simulations=3,evaluator=heuristic"), 0).evaluator == "heuristic"
    with pytest.raises(ValueError, match="evaluator"):
        agent_source("ismcts:evaluator=nope")
    result = evaluate({"ismcts": source}, agent_source("heuristic", cfg), cfg, decks=1, progress=False)
    assert result.agents[0].games == 4


def test_ismcts_agent_acts_on_an_env_observation() -> None:
    import rams_env

    env = rams_env.env(variant="rams32", num_players=3)
    env.reset(seed=2)
    agent = ros.ISMCTSAgent(simulations=4, seed=0, env=env)
    with pytest.raises(ValueError, match="env"):
        ros.ISMCTSAgent(simulations=4).act(env.observe(env.agent_selection))
    for _ in range(6):
        if not env.agents:
            break
        observation = env.observe(env.agent_selection)
        action = agent.act(observation)
        assert observation["action_mask"][action] == 1
        env.step(action)


def test_integrations_page_snippet_runs() -> None:
    from pathlib import Path

    text = (Path(__file__).resolve().parents[3] / "docs" / "integrations.md").read_text(encoding="utf-8")
    start = text.index("\n## OpenSpiel (`python_rams`)")
    end = text.find("\n## ", start + 1)
    section = text[start : end if end > 0 else None]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    exec(compile(code, "docs/integrations.md OpenSpiel section", "exec"), {"__name__": "readme_snippet"})


def scripted_resampling(variant: str, hands: dict[int, list[str]], script: list[str], others: list[int]) -> int:
    """Deal a stacked deck (dealer 3), play ``script`` (action names or card names), then random play;
    at every decision resample 8 times for each seat of ``others``. The number of resamples made."""
    from rams_env.rules import Action, card_index
    from tests.decks import stack_deck

    game = pyspiel.load_game("python_rams", {"variant": variant, "dealer": 3})
    state = game.new_initial_state()
    turned = "2S"
    for card in stack_deck(variant, 4, 3, hands, turned):
        state.apply_action(card_index(card))
    rng, made = random.Random(variant), 0
    for step in script:
        state.apply_action(int(Action[step]) if step in Action.__members__ else card_index(step))
    while not state.is_terminal():
        for p in others:
            for _ in range(8):
                other = state.resample_from_infostate(p, SAMPLER)
                assert other.information_state_string(p) == state.information_state_string(p)
                made += 1
        state.apply_action(rng.choice(state.legal_actions()))
    return made


def test_resampling_keeps_the_turned_card_with_a_dealer_who_changed_cards() -> None:
    # Forehand bids better cards, the dealer (seat 3) accepts and keeps the turned 2S, later discards it.
    script = ["BID_BETTER", "REJECT", "REJECT", "ACCEPT", "NO_BID", "KNOCK", "KNOCK", "KNOCK", "KNOCK"]
    script += ["DRAW", "DRAW", "DRAW", "2S", "DRAW"]
    assert scripted_resampling("mattmar", {}, script, [0, 1, 2]) > 0


def test_resampling_shows_russian_jacks_at_the_same_discard() -> None:
    # Seat 1 is dealt the black jacks and shows them when he discards JC, his third discard.
    hands = {1: ["JC", "JS", "2H", "3H", "4D"]}
    script = ["KNOCK", "KNOCK", "KNOCK", "KNOCK", "DRAW", "2H", "3H", "JC", "DRAW", "DRAW", "DRAW"]
    assert scripted_resampling("russian", hands, script, [0, 2, 3]) > 0
