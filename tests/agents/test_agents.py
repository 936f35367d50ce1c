"""Agents: legal play everywhere, the heuristic's club-room habits, and a search that uses no hidden cards."""

from __future__ import annotations

import random

import numpy as np
import pytest

import rams_env
from rams_env.agents import Agent, HeuristicAgent, RandomAgent, SearchAgent, observe
from rams_env.agents.deal_sampler import DealSampler
from rams_env.agents.heuristic import ordered_sum
from rams_env.obs import ObservationEncoder
from rams_env.rules import Action, Game, Phase, card_index, make_config
from rams_env.rules.cards import suit_of
from rams_env.rules.seeding import SeedError
from rams_env.rules.tricks import trick_winner
from tests.decks import stack_deck
from tests.states import random_states

PLAYERS = {"mattmar": (3, 4, 7), "norrlandsknack": (3, 5), "rams32": (3, 6), "russian": (3, 4, 7)}
CASES = [(v, n) for v, counts in PLAYERS.items() for n in counts]
LIVE = (Phase.BID, Phase.ANSWER, Phase.KNOCK, Phase.BUY, Phase.PLAY)


def play_deals(game: Game, agents: list, deals: int, use_act: bool = False) -> int:
    """Play ``deals`` deals (or to the end of the game), checking every action is legal; actions taken."""
    taken = 0
    while game.phase != Phase.GAME_OVER and game.deal_number < deals:
        if game.phase == Phase.DEAL_OVER:
            game.next_deal()
            continue
        seat = game.current_player
        agent = agents[seat]
        action = agent.act(observe(game, seat)) if use_act else agent.act_game(game, seat)
        assert action in game.legal_actions(), (type(agent).__name__, action, game.legal_actions())
        game.apply(action)
        taken += 1
    return taken


# ---------------------------------------------------------------------------- legality
@pytest.mark.parametrize(("variant", "n"), CASES)
def test_random_and_heuristic_agents_play_only_legal_actions(variant, n):
    cfg = make_config(variant, n)
    for seed in range(4):
        agents = [RandomAgent(seed=seed * 10 + s) if s % 2 else HeuristicAgent(seed=s) for s in range(n)]
        assert play_deals(Game(cfg, seed=seed), agents, deals=3, use_act=seed % 2 == 0) > 0
    heuristic = [HeuristicAgent(seed=s) for s in range(n)]
    assert play_deals(Game(cfg, seed=99), heuristic, deals=4) > 0


@pytest.mark.parametrize(("variant", "n"), [("mattmar", 4), ("norrlandsknack", 3), ("rams32", 6), ("russian", 5)])
def test_search_agent_plays_only_legal_actions(variant, n):
    agents = [SearchAgent(simulations=3, seed=s) if s < 2 else HeuristicAgent(seed=s) for s in range(n)]
    assert play_deals(Game(make_config(variant, n), seed=7), agents, deals=2) > 0


@pytest.mark.slow
def test_agents_follow_the_protocol_and_the_env_loop():
    env = rams_env.env(variant="mattmar", num_players=4)
    env.reset(seed=5)
    agents = {
        a: agent
        for a, agent in zip(
            env.possible_agents,
            [RandomAgent(1), HeuristicAgent(), SearchAgent(3, seed=2, env=env), RandomAgent(2)],
            strict=True,
        )
    }
    assert all(isinstance(a, Agent) for a in agents.values())
    for name in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else agents[name].act(obs))


def test_agents_refuse_what_is_not_an_observation():
    with pytest.raises(ValueError, match="observation dict"):
        RandomAgent().act([0, 1, 2])
    with pytest.raises(ValueError, match="allows no action"):
        HeuristicAgent().act({"observation": np.zeros(10), "action_mask": np.zeros(60, np.int8)})
    game = Game(make_config("mattmar", 4), seed=0)
    with pytest.raises(ValueError, match=r"SearchAgent\(env=your_env\) or call act_game"):
        SearchAgent(simulations=2).act(observe(game, game.current_player))
    with pytest.raises(ValueError, match="not to act"):
        SearchAgent(simulations=2).act_game(game, (game.current_player + 1) % 4)
    with pytest.raises(ValueError, match="simulations"):
        SearchAgent(simulations=0)
    with pytest.raises(ValueError, match="built for mattmar with 4 players"):
        other = Game(make_config("rams32", 4), seed=1)
        HeuristicAgent(make_config("mattmar", 4)).act(observe(other, other.current_player))


def test_random_agent_is_uniform_and_seeded():
    game = Game(make_config("mattmar", 4), seed=2, dealer=0)  # forehand (seat 1) bids
    obs = observe(game, 1)
    legal = np.flatnonzero(obs["action_mask"]).tolist()
    picks = [RandomAgent(seed=3).act(obs) for _ in range(2)]
    assert picks[0] == picks[1]
    counts = {a: 0 for a in legal}
    agent = RandomAgent(seed=4)
    for _ in range(3000):
        counts[agent.act(obs)] += 1
    assert all(abs(c / 3000 - 1 / len(legal)) < 0.05 for c in counts.values()), counts


# ---------------------------------------------------------------------------- heuristic habits
def heuristic_action(game: Game, seat: int) -> int:
    return HeuristicAgent(seed=0).act(observe(game, seat))


def knock_round_game(hand: list[str], score: int, turned: str = "2H", variant: str = "mattmar") -> Game:
    """Seat 1 (forehand, dealer 0) holds ``hand`` at ``score`` and is first to knock (bids declined)."""
    deck = stack_deck(variant, 4, 0, {1: hand}, turned)
    scores = [10, score, 10, 10] if variant != "russian" else None
    game = Game(make_config(variant, 4), deck=deck, dealer=0, scores=scores)
    if game.phase == Phase.BID:
        game.apply(int(Action.NO_BID))
    assert game.phase == Phase.KNOCK and game.current_player == 1
    return game


def test_heuristic_knocks_with_strength_and_passes_rubbish_when_a_flight_costs():
    strong = ["AH", "KH", "QH", "AS", "3C"]
    rubbish = ["2C", "4C", "3D", "5D", "7S"]
    assert heuristic_action(knock_round_game(strong, 3), 1) == Action.KNOCK
    assert heuristic_action(knock_round_game(rubbish, 3), 1) == Action.PASS
    assert heuristic_action(knock_round_game(rubbish, 10), 1) == Action.KNOCK  # a flight costs nothing at 10


def test_heuristic_buys_away_weak_side_cards_and_keeps_trumps_and_aces():
    deck = stack_deck("mattmar", 4, 0, {1: ["AH", "3H", "AS", "4C", "6D"]}, "2H")
    game = Game(make_config("mattmar", 4), deck=deck, dealer=0, scores=[10, 10, 10, 10])
    agents = [HeuristicAgent(seed=s) for s in range(4)]
    while game.phase != Phase.BUY or game.current_player != 1:
        seat = game.current_player
        game.apply(int(Action.KNOCK) if game.phase == Phase.KNOCK else agents[seat].act_game(game, seat))
    discarded = []
    while game.current_player == 1 and game.phase == Phase.BUY:
        action = agents[1].act_game(game, 1)
        if action != Action.DRAW:
            discarded.append(action)
        game.apply(action)
    assert sorted(discarded) == sorted(card_index(c) for c in ("4C", "6D"))


def test_heuristic_takes_the_trick_cheaply_when_last_and_throws_low_when_it_cannot_win():
    """Last to a trick: win it with the lowest winning card of a suit; unable to win, play a suit's lowest."""
    cfg = make_config("mattmar", 3)
    seen = 0
    for seed in range(40):
        game = Game(cfg, seed=seed, scores=[6, 6, 6])
        agents = [HeuristicAgent(seed=s) for s in range(3)]
        while game.phase < Phase.DEAL_OVER:
            seat, legal = game.current_player, game.legal_actions()
            action = agents[seat].act_game(game, seat)
            if game.phase == Phase.PLAY and len(game.trick) == len(game.play_order) - 1 and len(legal) > 1:
                seen += 1
                winners = [c for c in legal if trick_winner([*game.trick, (seat, c)], game.trump) == seat]
                if winners:
                    assert action in winners
                    assert action == min(c for c in winners if suit_of(c) == suit_of(action))
                else:
                    assert action == min(c for c in legal if suit_of(c) == suit_of(action))
            game.apply(action)
    assert seen >= 20


def test_heuristic_goes_for_five_of_a_suit_in_russian():
    deck = stack_deck("russian", 4, 0, {1: ["2D", "5D", "9D", "KD", "4S"]}, "3C")
    game = Game(make_config("russian", 4), deck=deck, dealer=0)
    agents = [HeuristicAgent(seed=s) for s in range(4)]
    while game.phase != Phase.BUY or game.current_player != 1:
        seat = game.current_player
        game.apply(int(Action.KNOCK) if game.phase == Phase.KNOCK else agents[seat].act_game(game, seat))
    assert agents[1].act_game(game, 1) == card_index("4S")


# ---------------------------------------------------------------------------- search: no hidden information
def redeal_hidden(game: Game, seat: int, rng: random.Random) -> Game:
    """A clone whose cards hidden from ``seat`` are permuted among the places ``seat`` cannot see.

    Cards whose place is public stay put (shown cards, the turned card while it is known to be in
    the dealer's hand); the turned card, once private, stays with the dealer (hand or face-down pile).
    """
    clone = game.clone()
    n = game.n
    places = [("hand", j) for j in range(n) if j != seat] + [("out", j) for j in range(n) if j != seat]
    content = {p: list(game.hands[p[1]] if p[0] == "hand" else game.out_hidden[p[1]]) for p in places}
    content[("talon", -1)] = game.talon[game.talon_pos :]
    fixed = {c for s, _, cards in game.shown for c in cards}
    fixed.add(game.turned)
    pool = [c for cards in content.values() for c in cards if c not in fixed]
    rng.shuffle(pool)
    it = iter(pool)
    new = {p: [c if c in fixed else next(it) for c in cards] for p, cards in content.items()}
    for (kind, j), cards in new.items():
        if kind == "hand":
            clone.hands[j] = sorted(cards)
        elif kind == "out":
            clone.out_hidden[j] = cards
    clone.talon = game.talon[: game.talon_pos] + new[("talon", -1)]
    clone._legal = None
    return clone


@pytest.mark.parametrize(("variant", "n"), [("mattmar", 4), ("rams32", 3), ("russian", 4), ("norrlandsknack", 5)])
def test_search_uses_no_hidden_information(variant, n):
    rng = random.Random(11)
    checked = changed = 0
    for seed in range(3):
        for game in random_states(variant, n, seed, keep=0.2):
            if game.phase not in LIVE or len(game.legal_actions()) < 2:
                continue
            seat = game.current_player
            other = redeal_hidden(game, seat, rng)
            changed += any(other.hands[j] != game.hands[j] for j in range(n) if j != seat)
            encoder = ObservationEncoder(game.config)
            assert np.array_equal(encoder.encode(game, seat), encoder.encode(other, seat))
            for beliefs in (None, "heuristic"):
                a = SearchAgent(simulations=4, seed=seed, opponent_model=beliefs).act_game(game, seat)
                b = SearchAgent(simulations=4, seed=seed, opponent_model=beliefs).act_game(other, seat)
                assert a == b
            w1 = DealSampler(game, seat).sample(random.Random(seed))
            w2 = DealSampler(other, seat).sample(random.Random(seed))
            assert w1.hands == w2.hands and w1.out_hidden == w2.out_hidden and w1.talon == w2.talon
            checked += 1
    assert checked >= 10 and changed >= checked // 2


# ---------------------------------------------------------------------------- search: sampling
@pytest.mark.parametrize(("variant", "n"), CASES)
def test_sampled_worlds_are_consistent_with_what_the_seat_knows(variant, n):
    """The true deal is always possible; each sampled world looks the same to the seat as the real game."""
    rng = random.Random(3)
    for seed in range(3):
        for game in random_states(variant, n, seed, keep=0.15):
            seat = game.current_player
            sampler = DealSampler(game, seat)
            for c, places in sampler.allowed.items():
                hand = [j for j in range(n) if c in game.hands[j]]
                pile = [j for j in range(n) if c in game.out_hidden[j]]
                if hand:
                    true_places = hand
                elif pile:
                    true_places = [n + pile[0], 2 * n + pile[0]]  # a face-down pile: thrown in or bought away
                else:
                    true_places = [-1]  # the talon
                assert set(true_places) & set(places), (c, true_places, places)
            encoder = ObservationEncoder(game.config)
            hidden = sorted(c for j in range(n) if j != seat for c in game.hands[j] + game.out_hidden[j])
            hidden = sorted(hidden + game.talon[game.talon_pos :])
            for _ in range(2):
                world = sampler.sample(rng)
                assert np.array_equal(encoder.encode(world, seat), encoder.encode(game, seat))
                assert world.legal_actions() == game.legal_actions()
                assert [len(h) for h in world.hands] == [len(h) for h in game.hands]
                assert [len(p) for p in world.out_hidden] == [len(p) for p in game.out_hidden]
                again = sorted(c for j in range(n) if j != seat for c in world.hands[j] + world.out_hidden[j])
                assert sorted(again + world.talon[world.talon_pos :]) == hidden


def test_sampled_worlds_respect_a_shown_void():
    """A player who did not follow suit gets no card of that suit in any sampled world."""
    for seed in range(300):
        game = Game(make_config("mattmar", 4), seed=seed)
        rng = random.Random(seed)
        while game.phase < Phase.DEAL_OVER:
            if game.phase == Phase.PLAY and game.completed:
                cards, _ = game.completed[-1]
                led = suit_of(cards[0][1])
                voids = [s for s, c in cards[1:] if suit_of(c) != led]
                seat = game.current_player
                voids = [s for s in voids if s != seat]
                if voids:
                    sampler = DealSampler(game, seat)
                    for _ in range(20):
                        world = sampler.sample(rng)
                        for s in voids:
                            assert all(suit_of(c) != led for c in world.hands[s])
                    return
            game.apply(rng.choice(game.legal_actions()))
    pytest.fail("no deal showed a void")


@pytest.mark.parametrize("cls", [RandomAgent, HeuristicAgent])
def test_agents_take_numpy_seeds_and_refuse_other_types(cls):
    import numpy as np

    assert cls(seed=np.int64(3)).rng.random() == cls(seed=3).rng.random()
    for bad in (1.5, -1, 2**64):
        with pytest.raises(SeedError, match="seed must be a non-negative int below 2"):
            cls(seed=bad)


def test_heuristic_draw_chance_is_the_card_by_card_average_exactly():
    from rams_env.agents.heuristic import Opponent, Situation

    rng = random.Random(5)
    for _ in range(200):
        deck = list(range(52))
        rng.shuffle(deck)
        trump = rng.randrange(4)
        opponents = [Opponent(seat, rng.choice([0.5, 1.0]), 5) for seat in range(1, rng.randint(2, 5))]
        situation = Situation(trump, set(deck[10 : rng.randint(11, 52)]), opponents)
        for _ in range(3):  # the memo is shared by hands of the same trump ranks and voids
            hand = deck[:5] if rng.random() < 0.5 else rng.sample(deck[:10], 5)
            by_card = ordered_sum(situation.card_chance(c, hand, planning=True) for c in situation.unseen)
            assert situation.draw_chance(hand) == by_card / len(situation.unseen)
    assert Situation(0, set(), []).draw_chance([1, 2, 3, 4, 5]) == 0.0
