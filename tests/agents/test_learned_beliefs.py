"""Learned beliefs: the belief network's file, worlds drawn from it within every constraint the seat
knows, and the search that plays from them (SearchAgent(beliefs=...), search:beliefs=... specs)."""

from __future__ import annotations

import random

import numpy as np
import pytest
import torch

from rams_env import zoo
from rams_env.agents import SearchAgent
from rams_env.agents.beliefs import LearnedBeliefs, load_beliefs_option
from rams_env.agents.compiled_heuristic import CompiledHeuristicAgent
from rams_env.agents.deal_sampler import DealSampler
from rams_env.agents.specs import build_agent
from rams_env.eval import agent_source
from rams_env.obs.beliefs import NOT_HIDDEN, NUM_PLACES, TALON_PLACE, hidden_places, place_of_seat
from rams_env.policy import CheckpointError
from rams_env.policy.beliefs import BeliefNet, load_beliefs, save_beliefs
from rams_env.rules import Game, Phase, make_config
from rams_env.rules.cards import NUM_CARDS
from tests.states import random_states


@pytest.fixture(autouse=True)
def one_torch_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def _net(seed: int = 0) -> BeliefNet:
    torch.manual_seed(seed)
    net = BeliefNet((16,))
    net.variant = "mattmar"
    return net.eval()


class Certain:
    """A stand-in network: one card surely in one place, every other card spread evenly."""

    def __init__(self, card: int, place: int) -> None:
        self.card, self.place = card, place

    def place_probabilities(self, obs: np.ndarray, room: np.ndarray) -> np.ndarray:
        probs = np.tile((room > 0) / max(1, (room > 0).sum()), (NUM_CARDS, 1)).astype(float)
        probs[self.card] = np.eye(NUM_PLACES)[self.place]
        return probs


def _play_state(variant: str = "mattmar", seed: int = 11) -> Game:
    """A 4-player state of heuristic play after a trick, with a choice and two other hands in play."""
    game = Game(make_config(variant, 4), seed)
    heuristic = CompiledHeuristicAgent(game.config, seed=seed)
    while not (
        game.phase == Phase.PLAY
        and len(game.completed) >= 1
        and len(game.legal_actions()) > 1
        and sum(1 for j in range(4) if j != game.current and game.hands[j]) >= 2
    ):
        if game.phase == Phase.DEAL_OVER:
            game.next_deal()
            continue
        game.apply(heuristic.act_game(game, game.current))
    return game


def test_the_file_round_trips_and_refuses_damage_tampering_and_the_wrong_preset(tmp_path):
    net = _net()
    path = tmp_path / "b.beliefs.pt"
    save_beliefs(path, net, "mattmar", decisions=10)
    loaded = load_beliefs(path, variant="mattmar")
    obs = torch.rand(3, net.torso[0].in_features)
    with torch.no_grad():  # the file keeps float16 weights: the loaded network is the trained one, rounded so
        for p in net.parameters():
            p.copy_(p.half().float())
    assert torch.equal(loaded(obs), net(obs)) and loaded.variant == "mattmar"
    assert all(p.dtype == torch.float32 for p in loaded.parameters())
    with pytest.raises(CheckpointError, match="trained for 'mattmar', not 'russian'"):
        load_beliefs(path, variant="russian")
    payload = torch.load(path, weights_only=True)
    payload["model"]["head.bias"] += 1.0
    torch.save(payload, tmp_path / "tampered.pt")
    with pytest.raises(CheckpointError, match="digest"):
        load_beliefs(tmp_path / "tampered.pt")
    (tmp_path / "cut.pt").write_bytes(path.read_bytes()[:500])
    with pytest.raises(CheckpointError, match="damaged"):
        load_beliefs(tmp_path / "cut.pt")
    torch.save({"format": "rams_env.checkpoint"}, tmp_path / "policy.pt")
    with pytest.raises(CheckpointError, match="not a rams_env belief network"):
        load_beliefs(tmp_path / "policy.pt")
    with pytest.raises(CheckpointError, match="does not exist"):
        load_beliefs(tmp_path / "missing.pt")


def test_a_file_holding_code_is_refused_without_running_it(tmp_path):
    class Boom:
        def __reduce__(self):
            return (exec, ("raise SystemExit('ran code from the file')",))

    import pickle

    (tmp_path / "evil.pt").write_bytes(pickle.dumps({"format": Boom()}))
    with pytest.raises(CheckpointError, match="refused without unpickling"):
        load_beliefs(tmp_path / "evil.pt")


def test_probabilities_cover_only_places_with_room():
    game = _play_state()
    beliefs = LearnedBeliefs(_net())
    probs = beliefs.probabilities(game, game.current)
    room = hidden_places(game, game.current)
    assert probs.shape == (NUM_CARDS, NUM_PLACES)
    assert np.allclose(probs.sum(1), 1.0)
    empty = np.setdiff1d(np.arange(NUM_PLACES), room[room >= 0])
    assert (probs[:, [p for p in empty if p != TALON_PLACE and p >= 3]] == 0).all()  # seats 4..6 are empty


def test_worlds_keep_every_constraint_the_seat_knows():
    """At random states of every preset, worlds from an untrained network keep every place's size, the
    seat's own cards, the hidden set, and every card out of the places the sampler rules it out of."""
    for variant in ("mattmar", "norrlandsknack", "rams32", "russian"):
        net = _net()
        net.variant = variant
        beliefs = LearnedBeliefs(net)
        for game in random_states(variant, 4, 7, keep=0.2, deals=3):
            seat = game.current
            plain = DealSampler(game, seat)
            truth = hidden_places(game, seat)
            rng = random.Random(0)
            for _ in range(3):
                world = beliefs.worlds(game, seat)(rng)
                places = hidden_places(world, seat)
                assert (
                    np.bincount(places[places >= 0], minlength=NUM_PLACES).tolist()
                    == np.bincount(truth[truth >= 0], minlength=NUM_PLACES).tolist()
                )
                assert (
                    world.hands[seat] == game.hands[seat]
                    and (places == NOT_HIDDEN).tolist() == (truth == NOT_HIDDEN).tolist()
                )
                for j in range(4):
                    if j != seat:
                        for card in world.hands[j]:
                            assert j in plain.allowed[card], f"{variant}: card {card} in seat {j}, ruled out"


def test_a_sure_belief_puts_the_card_where_it_says_and_uniform_worlds_do_not():
    game = _play_state()
    seat = game.current
    other = next(j for j in range(4) if j != seat and game.hands[j])
    plain = DealSampler(game, seat)
    card = next(c for c in plain.cards if other in plain.allowed[c] and len(plain.allowed[c]) > 2)
    place = place_of_seat(game, seat, other)
    sure = LearnedBeliefs(Certain(card, place))
    rng = random.Random(1)
    learned = sum(card in sure.worlds(game, seat)(rng).hands[other] for _ in range(100))
    uniform = sum(card in plain.sample(rng).hands[other] for _ in range(100))
    assert learned >= 95 and uniform < 60


def test_the_search_plays_legal_seeded_actions_from_learned_beliefs():
    net = _net()
    actions = []
    for _ in range(2):
        agent = SearchAgent(simulations=3, seed=5, beliefs=net)
        game = Game(make_config("mattmar", 4), 21)
        played = []
        while game.phase < Phase.DEAL_OVER:
            action = agent.act_game(game, game.current)
            assert action in game.legal_actions()
            played.append(action)
            game.apply(action)
        actions.append(played)
    assert actions[0] == actions[1]


def test_a_network_of_another_preset_is_refused_by_name():
    agent = SearchAgent(simulations=2, seed=0, beliefs=_net())
    game = _play_state("russian")
    with pytest.raises(ValueError, match="trained for 'mattmar', the game is 'russian'"):
        agent.act_game(game, game.current)


def test_bad_beliefs_options_are_refused_by_name():
    with pytest.raises(ValueError, match="beliefs must be None, a belief network"):
        SearchAgent(beliefs=3)
    with pytest.raises(zoo.ZooError, match="unknown belief network 'nobody'"):
        SearchAgent(beliefs="nobody")


@pytest.mark.parametrize("preset", sorted(zoo.FLAGSHIPS))
def test_every_preset_ships_learned_beliefs_that_the_search_spec_takes(preset):
    model = zoo.resolve_beliefs(preset)
    assert model.name == f"{preset}-beliefs" and model.preset == preset and model.card.is_file()
    assert model.name not in zoo.models(), "a belief network is not an agent"
    assert load_beliefs(model.path, variant=preset).variant == preset
    assert load_beliefs_option(preset).net is load_beliefs_option(model.name).net  # read once
    config = make_config(preset, 4)
    agent = build_agent(agent_source(f"search:simulations=2,beliefs={preset}", config), 3)
    game = _play_state(preset)
    assert agent.act_game(game, game.current) in game.legal_actions()


def test_a_belief_network_is_not_an_agent_and_loading_it_as_one_says_so():
    from rams_env.agents import load_agent

    with pytest.raises(zoo.ZooError, match="is a belief network, not an agent: search with it"):
        load_agent("mattmar-beliefs")
    with pytest.raises(CheckpointError, match="not a rams_env checkpoint"):
        load_agent(zoo.resolve_beliefs("mattmar").path)
