"""No leak of hidden information into an observation (docs/rules.md "What each player knows",
docs/contract.md "Observations").

For many random states of every preset and player count, in every phase, an observer is chosen and
the cards he cannot see are dealt again among the places he cannot see into: other players' hands,
the talon (from ``talon_pos`` on) and other players' face-down out-of-play piles. Every place keeps
its number of cards (those counts are public); public cards stay where they are (cards in
``game.shown``, and the turned card while ``turned_public`` says everyone knows it is in the
dealer's hand). The observer's encoded observation, his action mask and ``view()`` must not change.

A sanity test shows the check can fail: changing the observer's own hand changes the observation.
"""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest

from rams_env.obs import ObservationEncoder, action_mask
from rams_env.rules import Game, Phase, TurnedAt, make_config

PLAYERS = {"mattmar": range(3, 8), "norrlandsknack": range(3, 8), "rams32": range(3, 7), "russian": range(3, 8)}
CASES = [(v, n) for v, counts in PLAYERS.items() for n in counts]
LIVE = (Phase.BID, Phase.ANSWER, Phase.KNOCK, Phase.BUY, Phase.PLAY)


def random_states(variant: str, n: int, seed: int, keep: float = 0.25, limit: int = 400) -> list[Game]:
    """Clones of the states met in random legal play from ``seed`` (about ``keep`` of them)."""
    game = Game(make_config(variant, n), seed=seed)
    rng = random.Random(seed)
    states = []
    for _ in range(limit):
        if game.phase == Phase.GAME_OVER:
            states.append(game.clone())
            break
        if game.phase == Phase.DEAL_OVER:
            if rng.random() < keep:
                states.append(game.clone())
            game.next_deal()
            continue
        if rng.random() < keep:
            states.append(game.clone())
        game.apply(rng.choice(game.legal_actions()))
    return states


def public_cards(game: Game) -> dict[int, tuple[str, int]]:
    """Cards whose place everyone knows and that stay put: card -> (where, seat)."""
    fixed: dict[int, tuple[str, int]] = {}
    for seat, _, cards in game.shown:
        for c in cards:
            if c in game.hands[seat]:
                fixed[c] = ("hand", seat)
            elif c in game.out_hidden[seat]:
                fixed[c] = ("out", seat)
    if game.turned_public and game.turned_at == TurnedAt.DEALER:
        assert game.turned in game.hands[game.dealer]
        fixed[game.turned] = ("hand", game.dealer)
    return fixed


def resample(game: Game, observer: int, rng: random.Random) -> Game:
    """A clone with the cards ``observer`` cannot see dealt again among the places he cannot see."""
    clone = game.clone()
    fixed = public_cards(game)
    pool: list[int] = []
    for seat in range(game.n):
        if seat == observer:
            continue
        pool += [c for c in game.hands[seat] if c not in fixed]
        pool += [c for c in game.out_hidden[seat] if c not in fixed]
    tail = game.talon[game.talon_pos :]
    pool += [c for c in tail if c not in fixed]
    rng.shuffle(pool)
    it = iter(pool)
    for seat in range(game.n):
        if seat == observer:
            continue
        clone.hands[seat] = sorted(c if c in fixed else next(it) for c in game.hands[seat])
        clone.out_hidden[seat] = [c if c in fixed else next(it) for c in game.out_hidden[seat]]
    clone.talon = game.talon[: game.talon_pos] + [c if c in fixed else next(it) for c in tail]
    assert next(it, None) is None
    clone._legal = None  # the clone copies the legal-action cache; make the engine recompute it
    # the resampled game keeps every count and every public card
    for seat in range(game.n):
        assert len(clone.hands[seat]) == len(game.hands[seat])
        assert len(clone.out_hidden[seat]) == len(game.out_hidden[seat])
    assert clone.talon_size == game.talon_size
    assert clone.hands[observer] == game.hands[observer]
    assert clone.out_hidden[observer] == game.out_hidden[observer]
    return clone


def assert_same_knowledge(encoder: ObservationEncoder, game: Game, clone: Game, observer: int) -> None:
    original = encoder.encode(game, observer)
    again = encoder.encode(clone, observer)
    if not np.array_equal(original, again):
        diff = np.flatnonzero(original != again)
        names = sorted({name for name, s in encoder.slices.items() for i in diff if s.start <= i < s.stop})
        pytest.fail(f"hidden cards leak into the observation of seat {observer}: slices {names}")
    assert clone.view(observer) == game.view(observer)
    assert np.array_equal(action_mask(clone, observer), action_mask(game, observer))


@pytest.mark.slow
@pytest.mark.parametrize(("variant", "n"), CASES)
def test_resampling_hidden_cards_changes_nothing_the_observer_sees(variant, n):
    encoder = ObservationEncoder(make_config(variant, n))
    rng = random.Random(f"{variant}-{n}")
    phases: Counter[str] = Counter()
    checked = changed = 0
    for seed in range(8):
        for game in random_states(variant, n, seed):
            phases[game.phase.name] += 1
            for observer in rng.sample(range(n), k=min(n, 3)):
                for _ in range(2):
                    clone = resample(game, observer, rng)
                    assert_same_knowledge(encoder, game, clone, observer)
                    checked += 1
                    changed += clone.hands != game.hands
    expected = {"KNOCK", "BUY", "PLAY"} | ({"BID", "ANSWER"} if variant != "russian" else set())
    assert expected <= set(phases), f"phases met: {dict(phases)}"
    assert checked > 300
    assert changed > checked // 2, "the resampling hardly ever changed a hand"


@pytest.mark.parametrize("variant", list(PLAYERS))
def test_special_situations_are_covered(variant):
    """The sample meets the public-card cases: a public turned card in a hand, face-up discards,
    face-down discards of others, shown cards (russian), a dealer who has discarded (Swedish)."""
    seen: Counter[str] = Counter()
    encoder_for = {n: ObservationEncoder(make_config(variant, n)) for n in PLAYERS[variant]}
    rng = random.Random(variant)
    for n in PLAYERS[variant]:
        for seed in range(12):
            for game in random_states(variant, n, 1000 + seed, keep=0.3):
                if game.turned_public and game.turned_at == TurnedAt.DEALER:
                    seen["turned card public in the dealer's hand"] += 1
                if game.out_public:
                    seen["face-up cards out of play"] += 1
                if any(game.out_hidden):
                    seen["face-down cards out of play"] += 1
                if game.shown:
                    seen["cards shown"] += 1
                if not game.turned_public and game.turned in game.hands[game.dealer]:
                    seen["turned card hidden in the dealer's hand"] += 1
                if game.phase in LIVE:
                    observer = rng.randrange(n)
                    assert_same_knowledge(encoder_for[n], game, resample(game, observer, rng), observer)
    wanted = ["turned card public in the dealer's hand", "face-down cards out of play"]
    if variant == "russian":
        wanted += ["cards shown"]
    else:
        wanted += ["face-up cards out of play", "turned card hidden in the dealer's hand"]
    for what in wanted:
        assert seen[what] > 0, f"no state with {what}: {dict(seen)}"


@pytest.mark.parametrize(("variant", "n"), [("mattmar", 4), ("norrlandsknack", 5), ("rams32", 3), ("russian", 6)])
def test_the_check_can_fail_when_the_own_hand_changes(variant, n):
    encoder = ObservationEncoder(make_config(variant, n))
    rng = random.Random(7)
    tried = 0
    for seed in range(10):
        for game in random_states(variant, n, seed):
            if game.phase not in LIVE:
                continue
            observer = rng.randrange(n)
            fixed = public_cards(game)
            own = [c for c in game.hands[observer] if c not in fixed]
            others = [(s, c) for s in range(n) if s != observer for c in game.hands[s] if c not in fixed]
            if not own or not others:
                continue
            mine = rng.choice(own)
            seat, theirs = rng.choice(others)
            clone = game.clone()
            clone.hands[observer] = sorted([c for c in game.hands[observer] if c != mine] + [theirs])
            clone.hands[seat] = sorted([c for c in game.hands[seat] if c != theirs] + [mine])
            clone._legal = None
            assert not np.array_equal(encoder.encode(clone, observer), encoder.encode(game, observer))
            assert clone.view(observer) != game.view(observer)
            tried += 1
    assert tried > 20
