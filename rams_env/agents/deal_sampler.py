"""Re-deals of the cards hidden from a seat, consistent with everything it knows (the worlds of
:class:`~rams_env.agents.SearchAgent` and of OpenSpiel's resampling).

What the seat knows, and the sampler respects:

- its own hand and its own face-down cards, every card played, every face-up card, shown cards;
- the number of cards in each hand, each face-down pile and the talon;
- voids and other holdings ruled out by the rules of play: a card ``x`` is ruled out of a player's
  hand if holding it would have made one of his plays illegal (failing to follow or to trump, not
  beating when bound to, not leading the trump ace or king, a forced trump lead...); checked with
  the engine's own legality functions on the play and ``x`` alone;
- where the turned card can be: in the dealer's hand while that is public, else in his hand or
  his face-down pile once he has discarded; shown cards stay with the player who showed them;
- russian: a player who passed was dealt no ace (he would have had to knock);
- russian, combinations of cards (rejected after placing, :meth:`DealSampler._consistent`): in the
  play, no active player held four aces or five cards of one suit when it began (he would have
  shown them); a player's dealt jacks agree with his showing them or not (docs/rules.md "Russian scoring"): shown
  jacks are all his counted jacks, a player who passed or stands at 5 points or fewer (he would have
  gone out) was dealt no pair, and no jack of a dealt pair is among a player's discards;
- players keep good cards: trumps and high cards are placed less often among the cards bought away
  (and, mildly, in passed hands) than weak ones. This is a weighting, not a constraint.

``beliefs=`` (a learned belief, :mod:`rams_env.agents.beliefs`) replaces that fixed weighting: each
card is placed with the probability the belief gives its places, within the constraints above.
"""

from __future__ import annotations

import random
from itertools import combinations
from typing import NamedTuple

import numpy as np

from ..obs.beliefs import FACE_DOWN_PLACE, TALON_PLACE, known_cards, place_of_seat
from ..rules import Game, Phase, TurnedAt
from ..rules.cards import ACE, JACK, JACKS_OUT_AT, KING, counted_jacks, deck_cards, rank_of, suit_of
from ..rules.tricks import legal_plays

DEAL_ATTEMPTS = 100  # random placements tried per sampled world (matching after dead ends in the second half)
# Places of hidden cards in a sampled deal: hands are 0..n-1; face-down piles n..2n-1 (thrown-in and
# passed hands) and 2n..3n-1 (cards bought away); the talon.
TALON = -1
BELIEF_FLOOR = 1e-6  # added to a learned belief's odds: no card is ever ruled out of a place by the network alone


class HiddenCards(NamedTuple):
    """A placement of the cards hidden from a seat, as :meth:`~rams_env.rules.Game.with_hidden_cards` takes it.

    Per other seat: ``hands`` (sorted) and ``piles`` (face-down: thrown in, then bought away);
    ``talon``: the undrawn talon, top card first.
    """

    hands: dict[int, list[int]]
    piles: dict[int, list[int]]
    talon: list[int]


class DealSampler:
    """Re-deals the cards hidden from ``seat`` consistently with what it knows (module docstring)."""

    def __init__(self, game: Game, seat: int, beliefs: np.ndarray | None = None) -> None:
        self.game, self.seat = game, seat
        n = game.n
        self.capacity: dict[int, int] = {TALON: game.talon_size}
        for j in range(n):
            if j != seat:
                self.capacity[j] = len(game.hands[j])
                self.capacity[n + j] = len(game.out_hidden[j]) - game.discards[j]
                self.capacity[2 * n + j] = game.discards[j]
        known = known_cards(game, seat)
        places = [loc for loc, size in self.capacity.items() if size]
        allowed = {c: set(places) for c in deck_cards(game.config.deck_size) if c not in known}
        self._restrict(allowed, sorted(allowed))
        self.cards = sorted(allowed, key=lambda c: (len(allowed[c]), c))
        self.allowed = {c: sorted(allowed[c]) for c in self.cards}
        # Bought-away cards are weak ones, and a passed hand is weaker than a random one.
        trump, ace_factor = game.trump, 0.2 if game.config.swedish else 0.02
        self.odds: dict[int, dict[int, float]] = {}
        for j in range(n):
            if j != seat:
                self.odds[2 * n + j] = {c: _discard_weight(c, trump, ace_factor) for c in self.cards}
                if game.active[j] is False:
                    self.odds[n + j] = {c: _pass_weight(c, trump) for c in self.cards}
        self.beliefs = None if beliefs is None else self._belief_odds(beliefs)
        if len(self.cards) != sum(self.capacity.values()):
            raise RuntimeError("hidden card count does not match the hidden places (engine state inconsistent)")
        self._combination_rules()

    def _belief_odds(self, beliefs: np.ndarray) -> dict[int, dict[int, float]]:
        """Per place of the sampler and hidden card, the odds of a learned belief (``beliefs[card, place]``,
        places of :mod:`rams_env.obs.beliefs`) per card of room: a place's probability shared over its
        cards, so that a placement weighted by odds times room left draws each card from its belief.
        The face-down places of the sampler (thrown in, bought away, per player) share the one place."""
        game, seat, n = self.game, self.seat, self.game.n
        where = {TALON: TALON_PLACE}
        for j in range(n):
            if j != seat:
                where[j] = place_of_seat(game, seat, j)
                where[n + j] = where[2 * n + j] = FACE_DOWN_PLACE
        room = {p: 0 for p in where.values()}
        for loc, size in self.capacity.items():
            room[where[loc]] += size
        return {
            loc: {c: BELIEF_FLOOR + float(beliefs[c, place]) / room[place] for c in self.cards}
            for loc, place in where.items()
            if room[place]
        }

    def _combination_rules(self) -> None:
        """What :meth:`_consistent` checks: per other player, the cards he played, whether he was in the
        russian check of four aces and five of a suit at the start of the play, and what his dealt jacks
        must be (docs/rules.md "Russian scoring": "shown", the shown cards are all of them; "none", no pair; "kept", no
        jack of a pair among his discards)."""
        game, seat, cfg = self.game, self.seat, self.game.config
        others = [j for j in range(game.n) if j != seat]
        self._played: dict[int, list[int]] = {j: [] for j in others}
        for cards, _ in game.completed:
            for s, c in cards:
                if s != seat:
                    self._played[s].append(c)
        for s, c in game.trick:
            if s != seat:
                self._played[s].append(c)
        play = cfg.russian_specials and game.phase == Phase.PLAY
        self._at_play_start = [j for j in others if play and game.active[j]]
        self._jack_rules: dict[int, tuple[str, frozenset[int]]] = {}
        if not cfg.jacks or game.phase < Phase.KNOCK:
            return
        shown = {s: frozenset(cards) for s, what, cards in game.shown if what == "jacks"}
        for j in others:
            if j in shown:
                self._jack_rules[j] = ("shown", shown[j])
            elif game.active[j] is False or game.scores[j] <= JACKS_OUT_AT:
                self._jack_rules[j] = ("none", frozenset())
            elif game.discards[j]:
                self._jack_rules[j] = ("kept", frozenset())

    def _restrict(self, allowed: dict[int, set[int]], hidden: list[int]) -> None:
        """Narrow each hidden card's possible places with what ``seat`` knows."""
        game, seat, n = self.game, self.seat, self.game.n
        dealer = game.dealer
        if game.turned in allowed:
            if game.turned_public and game.turned_at == TurnedAt.DEALER:
                allowed[game.turned] &= {dealer}
            else:  # in the dealer's hand or among his face-down cards
                allowed[game.turned] &= {dealer, n + dealer, 2 * n + dealer}
        for s, _, cards in game.shown:
            # Shown cards stay with their player; shown jacks were dealt, so they were bought away if he
            # drew a whole hand.
            where = {2 * n + s} if game.draws[s] == 5 else {s, n + s, 2 * n + s}
            for c in cards:
                if c in allowed:
                    allowed[c] &= where
        if game.config.forced_knock_with_ace:
            for j in range(n):
                if game.active[j] is False and j != seat:
                    for c in allowed:
                        if rank_of(c) == ACE:
                            allowed[c].discard(n + j)
        for player, card_sets in self._ruled_out(hidden).items():
            for c in card_sets:
                if c in allowed:
                    allowed[c].discard(player)

    def _ruled_out(self, hidden: list[int]) -> dict[int, set[int]]:
        """Per other player, hidden cards that would have made one of his plays illegal."""
        game, seat, cfg = self.game, self.seat, self.game.config
        trump = game.trump
        out: dict[int, set[int]] = {}
        tricks = [cards for cards, _ in game.completed] + ([tuple(game.trick)] if game.trick else [])
        winners = [w for _, w in game.completed]
        # Live scores before each trick (Swedish forced trump lead): add back the points taken since.
        live = list(game.scores)
        history: list[list[int]] = []
        for w in reversed(winners):
            if cfg.swedish:
                live[w] += 1
            history.append(list(live))
        history.reverse()
        if not history or len(history) < len(tricks):
            history.append(list(game.scores))
        for k, cards in enumerate(tricks):
            queen_due = -1
            if cfg.honour_leads and k > 0:
                prev, w = game.completed[k - 1]
                won_with = next(c for s, c in prev if s == w)
                if suit_of(won_with) == trump and rank_of(won_with) in (ACE, KING):
                    queen_due = w
            scores = history[k]
            for i, (p, c) in enumerate(cards):
                if p == seat:
                    continue
                prefix = list(cards[:i])
                bad = out.setdefault(p, set())
                for x in hidden:
                    if x in bad:
                        continue
                    if c not in legal_plays(cfg, [c, x], prefix, trump, p, scores, queen_due == p):
                        bad.add(x)
        return out

    def sample(self, rng: random.Random) -> Game:
        """A copy of the game with the hidden cards dealt again at random, consistently (the engine's
        :meth:`~rams_env.rules.Game.with_hidden_cards` derives the rest)."""
        hands, piles, talon = self.deal(rng)
        return self.game.with_hidden_cards(self.seat, hands, piles, talon)

    def deal(self, rng: random.Random) -> HiddenCards:
        """The hidden cards dealt again at random, consistently with what the seat knows."""
        for attempt in range(DEAL_ATTEMPTS):
            placed = self._attempt(rng, attempt)
            if placed is not None and self._consistent(placed):
                n = self.game.n
                others = [j for j in range(n) if j != self.seat]
                talon = placed[TALON]
                rng.shuffle(talon)
                return HiddenCards(
                    {j: sorted(placed[j]) for j in others},
                    {j: placed[n + j] + placed[2 * n + j] for j in others},
                    talon,
                )
        raise RuntimeError("could not deal the hidden cards consistently with what the player knows")

    def _attempt(self, rng: random.Random, attempt: int) -> dict[int, list[int]] | None:
        """Attempt ``attempt`` of :meth:`deal`: a random placement (weighted in the first half), or
        where that dead-ends in the second half, a placement by matching, which finds one whenever
        the places allow one (a tight position can dead-end most random placements: seen in play)."""
        placed = self._place(rng, weighted=attempt < DEAL_ATTEMPTS // 2)
        if placed is None and attempt >= DEAL_ATTEMPTS // 2:
            placed = self._match(rng)
        return placed

    def _consistent(self, placed: dict[int, list[int]]) -> bool:
        """Whether a placement agrees with what combinations of cards made public (russian): no active
        player held four aces or five of one suit when the play began (docs/rules.md "Russian scoring": they
        are shown at once), and every player's dealt jacks agree with his showing them or not
        (:meth:`_jacks_fit`)."""
        n = self.game.n
        for j in self._at_play_start:
            start = placed[j] + self._played[j]
            if sum(1 for c in start if rank_of(c) == ACE) == 4 or len({suit_of(c) for c in start}) == 1:
                return False
        for j, rule in self._jack_rules.items():
            if not self._jacks_fit(j, placed[j] + self._played[j], placed[n + j] + placed[2 * n + j], rule):
                return False
        return True

    def _jacks_fit(self, j: int, kept: list[int], pile: list[int], rule: tuple[str, frozenset[int]]) -> bool:
        """Whether ``j``'s dealt hand, among his cards ``kept`` (hand and played) and his face-down
        ``pile``, can have had the jacks ``rule`` allows (:meth:`_combination_rules`).

        Russian buying: he drew ``draws[j]`` of these cards, unknown which, all among ``kept`` but for
        the dealer's extra discard after drawing; the turned card was dealt to nobody. So the rule holds
        if some choice of the drawn cards leaves a dealt hand that keeps it.
        """
        game = self.game
        jacks = [c for c in kept + pile if rank_of(c) == JACK and c != game.turned]
        mode, shown = rule
        if not counted_jacks(jacks):
            return not shown
        drawn = game.draws[j]
        from_pile = game.discards[j] - drawn if drawn else 0  # the dealer's extra discard may be a drawn card
        spare_kept = sum(1 for c in kept if rank_of(c) != JACK and c != game.turned)
        spare_pile = len(pile) - sum(1 for c in pile if rank_of(c) == JACK)
        piled = set(pile)
        for k in range(min(drawn, len(jacks)) + 1):
            for away in combinations(jacks, k):
                in_pile = sum(1 for c in away if c in piled)
                if in_pile > from_pile or drawn - k > spare_kept + min(spare_pile, from_pile - in_pile):
                    continue
                counted = set(counted_jacks([c for c in jacks if c not in away]))
                if mode == "shown" and counted == shown:
                    return True
                if mode == "none" and not counted:
                    return True
                if mode == "kept" and not counted & piled:
                    return True
        return False

    def _place(self, rng: random.Random, weighted: bool) -> dict[int, list[int]] | None:
        """A consistent placement, or None on a dead end.

        Most constrained cards first, each to a place drawn in proportion to its free room times,
        when ``weighted``, the odds that such a card lies there (weak cards are likelier among
        the cards bought away and in passed hands).
        """
        room = dict(self.capacity)
        placed: dict[int, list[int]] = {loc: [] for loc in room}
        odds = self.odds if self.beliefs is None else self.beliefs
        for c in self.cards:
            options = [loc for loc in self.allowed[c] if room[loc] > 0]
            if not options:
                return None
            weights = [room[loc] * (odds[loc][c] if weighted and loc in odds else 1.0) for loc in options]
            loc = options[0] if len(options) == 1 else rng.choices(options, weights)[0]
            placed[loc].append(c)
            room[loc] -= 1
        return placed

    def _match(self, rng: random.Random) -> dict[int, list[int]] | None:
        """A placement of every hidden card in one of its allowed places within their room, in random
        order (augmenting paths: a card may move another to make room); None only if none exists."""
        placed: dict[int, list[int]] = {loc: [] for loc in self.capacity}

        def seat_card(card: int, visited: set[int]) -> bool:
            options = list(self.allowed[card])
            rng.shuffle(options)
            for loc in options:
                if loc in visited:
                    continue
                visited.add(loc)
                if len(placed[loc]) < self.capacity[loc]:
                    placed[loc].append(card)
                    return True
                for k, other in enumerate(placed[loc]):
                    if seat_card(other, visited):
                        placed[loc][k] = card
                        return True
            return False

        cards = list(self.cards)
        rng.shuffle(cards)
        for card in cards:
            if not seat_card(card, set()):
                return None
        return placed


def _discard_weight(card: int, trump: int, ace_factor: float) -> float:
    """Relative odds that a buyer threw ``card`` away: trumps and high cards are kept."""
    rank = rank_of(card)
    if suit_of(card) == trump:
        return 0.08
    return ace_factor * 0.25 if rank == ACE else 0.25 if rank == KING else 0.6 if rank == KING - 1 else 1.0


def _pass_weight(card: int, trump: int) -> float:
    """Relative odds of ``card`` in a hand that was passed: passed hands hold fewer trumps and aces."""
    return 0.5 if suit_of(card) == trump or rank_of(card) == ACE else 1.0
