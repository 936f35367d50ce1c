"""Property tests: random legal play of every preset and player count, checked at every step.

Each example draws a table (seed, dealer, starting scores, sometimes a deck stacked for rare
hands) and a random policy, plays legal actions (``next_deal`` between deals) and checks after
every action:

1. every card of the deck is in exactly one place;
2. someone is to act exactly when the legal set is non-empty;
3. the legal set and the seat to act equal what ``tests/oracle.py`` (written from docs/rules.md alone,
   reading only the acting player's view and public facts) says, in every phase;
4. scores, tricks, flights, active players and the end of rams/match/game follow docs/rules.md "Scoring";
5. a deal takes at most ``config.max_deal_actions`` actions, and whole games end;
6. ``clone()`` and ``to_json()``/``from_json()`` copies continue exactly like the original;
7. the same seed and actions give the same game;
8. ``view(seat)`` is JSON-serialisable and its hand is the seat's hand.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rams_env.rules import Game, IllegalActionError, Phase, TurnedAt, make_config
from tests.decks import card_places, check_result
from tests.oracle import PRESET_PLAYERS, Shadow, card_str, deck_of, rigged_deck

CASES = [(variant, n) for variant, counts in PRESET_PLAYERS.items() for n in counts]
OVER = (Phase.DEAL_OVER, Phase.GAME_OVER)

# Deterministic and database-free, so CI sees the same examples every run.
PROPERTY = settings(
    max_examples=10,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def check_cards(game: Game, deck: list[str]) -> None:
    places = sorted(card_str(c) for c in card_places(game))
    assert places == deck, f"cards misplaced: extra {sorted(set(places) - set(deck))}, dupes or missing"


CARD_NAME = re.compile(r'"([2-9TJQKA][CDHS])"')


class Table:
    """One game played by a random policy, with the shadow model and copies following it."""

    def __init__(
        self,
        variant: str,
        n: int,
        *,
        seed: int,
        policy: int,
        dealer: int | None = None,
        scores: list[int] | None = None,
        deck: list[str] | None = None,
        options: dict[str, Any] | None = None,
        fork_rate: float = 0.02,
    ) -> None:
        self.variant, self.n = variant, n
        self.cfg = make_config(variant, n, **(options or {}))
        self.args = {"seed": seed, "deck": deck, "dealer": dealer, "scores": scores}
        self.game = Game(self.cfg, **self.args)
        self.deck = sorted(deck_of(variant, n))
        start = self.cfg.start_score
        first_dealer = self.game.view(0)["dealer"]
        self.shadow = Shadow(variant, n, start, scores or [start] * n, first_dealer)
        self.shadow.start_deal(self.game.view, deck)
        self.rng = random.Random(policy)
        self.fork_rate = fork_rate
        self.actions: list[int | None] = []  # None: next_deal()
        self.followers: list[Game] = []
        self.deal_actions = 0
        self.deals = 1

    # ------------------------------------------------------------------ checks
    def check(self) -> None:
        game, shadow, n = self.game, self.shadow, self.n
        check_cards(game, self.deck)  # (1)
        legal = game.legal_actions()
        actor = game.current_player
        over = game.phase in OVER
        assert (actor >= 0) == bool(legal) == (not over), (actor, legal, game.phase)  # (2)
        views = [game.view(seat) for seat in range(n)]
        for seat, view in enumerate(views):  # (8)
            text = json.dumps(view)
            assert json.loads(text) == view
            assert view["hand"] == [card_str(c) for c in game.hands[seat]]
            assert len(set(view["hand"])) == len(view["hand"])
            self.check_secrets(seat, view, set(CARD_NAME.findall(text)))
        view = views[0]
        assert view["phase"] == shadow.phase, (view["phase"], shadow.phase)
        assert view["dealer"] == shadow.dealer
        assert view["to_act"] == shadow.to_act() == (actor if actor >= 0 else None)  # (3) whose turn
        assert view["trump"] == shadow.trump
        if shadow.turned_at is None:  # docs/contract.md "Views", ``turned_card``
            assert view["turned_card"] is None and view["turned_card_at"] is None
        else:
            assert view["turned_card"] == shadow.turned and view["turned_card_at"] == shadow.turned_at
        assert view["scores"] == shadow.scores, (view["scores"], shadow.scores)  # (4)
        assert view["tricks"] == shadow.tricks
        assert view["active"] == shadow.active
        assert view["trick"] == shadow.trick
        assert view["talon"] == shadow.talon
        assert view["discarded"] == shadow.discards and view["drawn"] == shadow.drawn
        take_due = shadow.phase == "buy" and shadow.dealer_drew and shadow.dealer not in shadow.bought
        assert view["take_pending"] == take_due
        buying = shadow.phase == "buy" and not take_due
        assert view["pending_discards"] == (shadow.discards[actor] if buying else 0)
        if shadow.swedish:
            assert view["flights"] == shadow.flights
        assert (game.phase == Phase.GAME_OVER) == shadow.game_over
        if shadow.game_over:
            check_result(game, shadow)
        if over and shadow.rams_over and self.variant in ("mattmar", "rams32"):
            assert view["rams_over"]
            assert game.result()["ramsar"][-1]["winners"] == shadow.rams_winners
        if legal:  # (3) the legal set
            assert legal == shadow.legal(views[actor]), (game.phase.name, views[actor], legal)

    def check_secrets(self, seat: int, view: dict[str, Any], seen: set[str]) -> None:
        """docs/rules.md "What each player knows": nobody sees another hand, the talon or another seat's
        face-down cards, except the turned card while it is public and cards shown (russian jacks, aces, suit)."""
        game = self.game
        secret = {c for other, hand in enumerate(game.hands) if other != seat for c in hand}
        secret |= {c for other, pile in enumerate(game.out_hidden) if other != seat for c in pile}
        secret |= set(game.talon[game.talon_pos :])
        if game.turned_at == TurnedAt.TABLE:
            assert view["turned_card"] == card_str(game.turned)
        secret = {card_str(c) for c in secret}
        public = {c for shown in view["shown"] for c in shown["cards"]}
        if view["turned_card"] is not None:
            public.add(view["turned_card"])
            holder = game.hands[game.dealer] if view["turned_card_at"] == "dealer" else []
            assert (view["turned_card"] in {card_str(c) for c in holder}) == (view["turned_card_at"] == "dealer")
        assert not (seen & secret) - public, f"seat {seat} sees {sorted((seen & secret) - public)}"

    def check_illegal(self, legal: list[int]) -> None:
        """An illegal action raises and leaves the state as it was."""
        wrong = [a for a in range(60) if a not in legal] + [-1, 60]
        action = self.rng.choice(wrong)
        before = self.game.to_json()
        with pytest.raises(IllegalActionError):
            self.game.apply(action)
        assert self.game.to_json() == before

    def fork(self) -> None:
        """(6): a clone and a JSON round trip, followed in lockstep from now on."""
        game = self.game
        text = game.to_json()
        clone, thawed = game.clone(), Game.from_json(text)
        assert clone.to_json() == text == thawed.to_json()
        assert Game.from_json(thawed.to_json()).to_json() == text
        assert clone.legal_actions() == game.legal_actions() == thawed.legal_actions()
        for seat in range(self.n):
            assert clone.view(seat) == game.view(seat) == thawed.view(seat)
        self.followers += [clone, thawed]

    # ------------------------------------------------------------------ playing
    def step(self) -> None:
        game, shadow = self.game, self.shadow
        legal = game.legal_actions()
        if self.rng.random() < 0.03:
            self.check_illegal(legal)
        if self.rng.random() < self.fork_rate and len(self.followers) < 6:
            self.fork()
        seat, action = game.current_player, self.rng.choice(legal)
        game.apply(action)
        for other in self.followers:
            other.apply(action)
        shadow.after(seat, action, game.view)
        self.actions.append(action)
        self.deal_actions += 1
        assert self.deal_actions <= self.cfg.max_deal_actions  # (5)

    def next_deal(self) -> None:
        self.game.next_deal()
        for other in self.followers:
            other.next_deal()
        self.shadow.next_deal()
        self.shadow.start_deal(self.game.view)
        self.actions.append(None)
        self.deal_actions = 0
        self.deals += 1

    def play(self, max_actions: int) -> None:
        game = self.game
        self.check()
        while game.phase != Phase.GAME_OVER and len(self.actions) < max_actions:
            if game.phase == Phase.DEAL_OVER:
                self.next_deal()
            else:
                self.step()
            self.check()
        self.finish()

    def finish(self) -> None:
        text = self.game.to_json()
        for other in self.followers:  # (6)
            assert other.to_json() == text
        replay = Game(self.cfg, **self.args)  # (7)
        for action in self.actions:
            if action is None:
                replay.next_deal()
            else:
                replay.apply(action)
        assert replay.to_json() == text
        assert replay.result() == self.game.result()


@st.composite
def tables(draw: st.DrawFn, variant: str, n: int) -> dict[str, Any]:
    """Arguments of a :class:`Table`: seeds, often a dealer, low scores and a stacked deck."""
    options: dict[str, Any] = {}
    top = 10
    if variant == "russian":
        top = draw(st.sampled_from([100, 150, 200]))
        options["start_score"] = top
    low = st.integers(1, 12) if variant == "russian" else st.integers(1, 3)
    scores = draw(st.none() | st.lists(st.integers(1, top) | low, min_size=n, max_size=n))
    dealer = draw(st.none() | st.integers(0, n - 1))
    rig = draw(st.none() | st.integers(0, 2**32 - 1))
    deck = None
    if rig is not None:
        dealer = rig % n if dealer is None else dealer
        deck = rigged_deck(random.Random(rig), variant, n, dealer)
    return {
        "seed": draw(st.integers(0, 2**32 - 1)),
        "policy": draw(st.integers(0, 2**32 - 1)),
        "dealer": dealer,
        "scores": scores,
        "deck": deck,
        "options": options,
    }


@pytest.mark.parametrize(("variant", "n"), CASES)
@PROPERTY
@given(data=st.data())
def test_random_play_keeps_every_invariant(variant: str, n: int, data: st.DataObject) -> None:
    table = Table(variant, n, **data.draw(tables(variant, n), label="table"))
    table.play(max_actions=200)


@pytest.mark.parametrize("variant", list(PRESET_PLAYERS))
@settings(PROPERTY, max_examples=3)
@given(data=st.data())
def test_whole_games_end(variant: str, data: st.DataObject) -> None:
    """(5) A whole game (a six-ramsar match, a norrlandsknack rams, a russian game) ends."""
    counts = list(PRESET_PLAYERS[variant])
    n = data.draw(st.sampled_from(counts), label="players")
    args = data.draw(tables(variant, n), label="table")
    table = Table(variant, n, fork_rate=0.002, **args)
    table.play(max_actions=20_000)
    assert table.game.phase == Phase.GAME_OVER, f"no end after {table.deals} deals"
    result = table.game.result()
    assert result["over"] and result["winners"]
    if variant in ("mattmar", "rams32"):
        assert len(result["ramsar"]) == 6
        assert result["totals"] == table.shadow.totals


@pytest.mark.parametrize("variant", list(PRESET_PLAYERS))
def test_every_action_shows_in_the_actors_view(variant: str) -> None:
    """docs/rules.md "What each player knows": every decision is public, so the actor's own view changes
    with each action he makes; otherwise view() alone cannot tell two states with different legal actions apart."""
    counts = list(PRESET_PLAYERS[variant])
    for i in range(120):
        game = Game(make_config(variant, counts[i % len(counts)]), seed=i)
        rng = random.Random(i)
        while game.phase not in OVER:
            seat, legal = game.current_player, game.legal_actions()
            before = game.view(seat)
            action = rng.choice(legal)
            game.apply(action)
            after = game.view(seat)
            assert after != before, f"seed {i}: {before['phase']} action {action} of seat {seat} left no trace"
