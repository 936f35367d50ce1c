"""The Rams game: an explicit phase machine driven by actions (docs/rules.md, "Dealing" to "Scoring").

Implementation notes (house decisions and readings of docs/rules.md this engine encodes)
---------------------------------------------------------------------------------
HD  Better cards are accepted individually (option ``better_cards="unanimous"``: all must
    accept, the first rejection ends it, and then everybody exchanges). Forehand and the
    accepters exchange in seat order from forehand; the dealer keeps the turned card. An
    accept that the talon could not serve (5 for forehand and 5 per earlier accepter) is
    illegal; the bid itself needs 5 cards in the talon (unanimous: 5 per player).
HD  A swing needs every other player's acceptance; the first rejection ends the answers.
    It needs a non-empty talon. Cards turned on the way, and the old turned card when the
    swing succeeds, go face up out of play (public). If the talon runs out, trump stays
    and the dealer keeps his card.
HD  "Previous deal" for the two-points rule is the previous deal of the same rams; a dealer
    credited with five tricks without play did not pass.
HD  The dealer of every preset (russian too) is credited with five tricks without play when
    everyone before him passed; the deal then ends at once (he takes no action). The
    credited dealer counts as active (``active[dealer] is True``). ``active`` (and
    ``view()["active"]``): True knocked or credited, False passed, None not yet decided.
HD  Discarded cards and passed hands are out of play for the deal, never reshuffled.
HD  Swedish scores may go below 0 (mattmar, rams32). Norrlandsknack: the first to reach 0
    wins at once with exactly 0, tricks without play counting one by one.
HD  Forced trump lead reads the live score: start-of-deal score less tricks taken so far.
    The trump-ace rule ("first lead") is applied as "whenever on lead": a holder of the trump
    ace is always at his first lead, since he must lead it then.
HD  Russian revoke fines never arise: illegal cards are never legal actions.
HD  Russian timing: going out on jacks is checked when the knock round starts, in seat
    order from forehand (the first eligible player wins). When trick play is about to begin,
    active players only: four aces first (whoever holds them wins the game), then five of one
    suit in seat order from the first leader; the first found decides.
HD  Russian leads: when the duties of docs/rules.md "Legal cards in russian" meet, the order is trump ace, then king,
    then queen. Who won with the trump ace and holds king and queen leads the king, and the
    queen after the trick the king wins: ``queen_due`` is set by every trick won with the
    trump ace or king, and the lead checks ace, king, then the due queen.
HD  Russian jacks (judged on the 5 dealt cards) are shown when a jack of the pair first
    leaves the hand face down (a pass, a discard) or else when the deal is scored; shown
    cards are public. The russian dealer's extra discard is counted with his discards.
HD  Russian settlement: each loser pays his remaining record (nothing if it is 0 or less);
    the winners share the sum equally.
HD  The turned card is public ("turned_card" in a view, docs/contract.md) while everyone knows where
    it is: on the table (russian: until the dealer takes it; it stays there if he passes), or
    in the dealer's hand (a swing turns up a new one; he keeps it through better cards) until
    he discards any card (Swedish buying, face down: the others cannot tell whether it went),
    passes (his hand is thrown in), or plays it. The russian dealer's take is public.
HD  The ``scores`` option (a reset option) sets the first rams only: in a match every later
    rams starts from ``start_score`` (docs/rules.md "Russian scoring", HD on the scores reset option; the same
    in every preset). In a one-rams match the tied lowest scores share the win; the
    fewest-flights tie-break is for a match of several ramsar.
"""

from __future__ import annotations

import operator
import random
from collections.abc import Mapping, Sequence
from typing import Any

from . import determinize, scoring, snapshot, views
from .actions import Action
from .cards import (
    ACE,
    HAND_SIZE,
    JACKS_OUT_AT,
    KING,
    NUM_CARDS,
    ace_value,
    card_index,
    card_name,
    counted_jacks,
    deck_cards,
    jack_bonus,
    rank_of,
    suit_of,
)
from .config import INT_LIMIT, UNANIMOUS, RulesConfig
from .phases import IllegalActionError, Phase, TurnedAt, illegal_message
from .tricks import forced_trump_lead, legal_plays, trick_winner

PASS, KNOCK, BID_BETTER, BID_SWING, NO_BID, ACCEPT, REJECT, DRAW = (int(a) for a in Action)


def _to_card(value: Any) -> int:
    """A card given as a name ("TH") or an index (34)."""
    if isinstance(value, str):
        return card_index(value)
    try:
        index = operator.index(value)
    except TypeError:
        raise ValueError(f"not a card: {value!r}") from None
    if not 0 <= index < NUM_CARDS:
        raise ValueError(f"not a card index: {value!r} (expected 0..51)")
    return index


class Game:
    """A Rams game (one match) for one configuration, driven by :meth:`apply`.

    ``current_player`` is the seat to act (-1 when nobody is), ``legal_actions()`` its legal
    action ids (docs/contract.md), ``view(seat)`` what that seat may know. After a deal the phase is
    ``DEAL_OVER``: call :meth:`next_deal`. ``GAME_OVER`` ends the match (or the game).
    """

    def __init__(
        self,
        config: RulesConfig,
        seed: int | None = None,
        *,
        deck: list[str] | list[int] | None = None,
        dealer: int | None = None,
        scores: list[int] | None = None,
    ) -> None:
        self.config = config
        self.n = n = config.num_players
        self.rng = random.Random(seed)
        self._legal: list[int] | None = None
        if dealer is None:
            dealer = self.rng.randrange(n)
        elif isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < n:
            raise ValueError(f"dealer must be a seat 0..{n - 1}, got {dealer!r}")
        self.scores = self._check_scores(scores) if scores is not None else [config.start_score] * n
        cards = self._check_deck(deck) if deck is not None else self._shuffled_deck()
        self.flights = [0] * n
        self.rams_flights = [0] * n
        self.totals = [0] * n
        self.passed_prev = [False] * n
        self.rams_log: list[tuple] = []
        self.rams_number = 0
        self.deal_number = 0
        self.deal_in_rams = 0
        self.rams_over = False
        self.end_reason: str | None = None
        self.winners: tuple[int, ...] | None = None
        self.settlement: tuple[float, ...] | None = None
        self._start_deal(dealer, cards)

    # ----------------------------------------------------------------- validation
    def _check_scores(self, scores: Any) -> list[int]:
        cfg, n = self.config, self.n
        if not isinstance(scores, (list, tuple)) or len(scores) != n:
            raise ValueError(f"scores must be a list of {n} ints, got {scores!r}")
        low, high = (1, cfg.flight_cap) if cfg.swedish else (1, INT_LIMIT)  # a russian record has no cap
        out = []
        for seat, s in enumerate(scores):
            if isinstance(s, bool) or not isinstance(s, int) or s < low or s > high:
                bounds = f"{low} to {high}"
                raise ValueError(f"scores[{seat}]={s!r}: {cfg.variant} scores must be ints {bounds}")
            out.append(int(s))
        return out

    def _check_deck(self, deck: Any) -> list[int]:
        expected = deck_cards(self.config.deck_size)
        if not isinstance(deck, (list, tuple)):
            raise ValueError(f"deck must be a list of card strings, got {type(deck).__name__}")
        cards = []
        for i, c in enumerate(deck):
            try:
                cards.append(_to_card(c))
            except ValueError as err:
                raise ValueError(f"deck[{i}]: {err}") from None
        seen: set[int] = set()
        dupes = sorted({c for c in cards if c in seen or seen.add(c)})  # type: ignore[func-returns-value]
        foreign = sorted(set(cards) - set(expected))
        missing = sorted(set(expected) - set(cards))
        problems = []
        if dupes:
            problems.append("duplicates " + " ".join(card_name(c) for c in dupes))
        if foreign:
            names = " ".join(card_name(c) for c in foreign)
            problems.append(f"cards not in the {self.config.deck_size}-card deck {names}")
        if missing:
            problems.append("missing " + " ".join(card_name(c) for c in missing))
        if problems or len(cards) != len(expected):
            detail = "; ".join(problems) or f"{len(cards)} cards"
            raise ValueError(
                f"deck is not a permutation of the {self.config.variant} {self.config.deck_size}-card deck: {detail}"
            )
        return cards

    def _shuffled_deck(self) -> list[int]:
        cards = deck_cards(self.config.deck_size)
        self.rng.shuffle(cards)
        return cards

    # ----------------------------------------------------------------- dealing
    def _start_deal(self, dealer: int, deck: list[int]) -> None:
        n, cfg = self.n, self.config
        self.dealer = dealer
        self.forehand = forehand = (dealer + 1) % n
        order = [(forehand + i) % n for i in range(n)]
        hands: list[list[int]] = [[] for _ in range(n)]
        pos = 0
        for seat in order:
            hands[seat] = deck[pos : pos + 3]
            pos += 3
        turned = deck[pos]
        pos += 1
        for seat in order:
            hands[seat].extend(deck[pos : pos + 2])
            pos += 2
        self.jack_cards = [counted_jacks(h) if cfg.jacks else () for h in hands]
        self.jacks = [jack_bonus(j) for j in self.jack_cards]
        self.dealt_ace = [any(rank_of(c) == ACE for c in h) for h in hands]
        self.turned = turned
        self.trump = suit_of(turned)
        self.turned_public = True
        if cfg.swedish:
            hands[dealer].append(turned)
            self.turned_at = TurnedAt.DEALER
        else:
            self.turned_at = TurnedAt.TABLE
        for h in hands:
            h.sort()
        self.hands = hands
        self.talon = deck[pos:]
        self.talon_pos = 0
        self.out_public: list[int] = []
        self.out_hidden: list[list[int]] = [[] for _ in range(n)]
        self.active: list[bool | None] = [None] * n
        self.better_made = self.swing_made = False
        self.pending_bid = 0
        self.answers: list[tuple[int, bool]] = []
        self.bid_log: list[tuple] = []
        self.discards = [0] * n
        self.draws = [0] * n
        self.buy_order: list[int] = []
        self.buyer_index = 0
        self.pending_discards = 0
        self.take_pending = False
        self.play_order: list[int] = []
        self.trick: list[tuple[int, int]] = []
        self.leader = -1
        self.tricks_won = [0] * n
        self.completed: list[tuple] = []
        self.queen_due = -1
        self.aces_held = [0] * n
        self.jacks_shown = [False] * n
        self.shown: list[tuple] = []
        self.deal_reason: str | None = None
        self._legal = None
        if cfg.bids:
            self.phase = Phase.BID
            self.current = forehand
        else:
            self._start_knock()

    def next_deal(self) -> None:
        """Deal the next deal (starting a new rams if the last one ended). Phase must be DEAL_OVER."""
        if self.phase != Phase.DEAL_OVER:
            raise IllegalActionError(f"next_deal() needs phase DEAL_OVER, the phase is {self.phase.name}")
        n = self.n
        if self.rams_over:
            self.rams_number += 1
            self.deal_in_rams = 0
            self.scores = [self.config.start_score] * n
            self.rams_flights = [0] * n
            self.passed_prev = [False] * n
            self.rams_over = False
        else:
            self.deal_in_rams += 1
            self.passed_prev = [a is False for a in self.active]
        self.deal_number += 1
        self._start_deal(self.forehand, self._shuffled_deck())

    # ----------------------------------------------------------------- queries
    @property
    def current_player(self) -> int:
        """Seat to act, or -1 between deals and after the game."""
        return self.current

    @property
    def is_over(self) -> bool:
        """True once the match (or game) has ended."""
        return self.phase == Phase.GAME_OVER

    @property
    def talon_size(self) -> int:
        """Cards left in the talon."""
        return len(self.talon) - self.talon_pos

    def live_forced_trump(self, seat: int) -> bool:
        """Swedish forced trump lead: some other player stands at exactly 1 point now."""
        return forced_trump_lead(self.config, self.scores, seat)

    def must_knock(self, seat: int) -> bool:
        """True if ``seat`` may not pass in the knock round of this deal."""
        cfg, score = self.config, self.scores[seat]
        if cfg.forced_knock_at_one and score == 1:
            return True
        if cfg.forced_knock_at_two and score == 2 and self.passed_prev[seat]:
            return True
        return cfg.forced_knock_with_ace and self.dealt_ace[seat]

    def legal_actions(self) -> list[int]:
        """Legal action ids of the player to act, ascending; empty when nobody is to act."""
        if self._legal is None:
            self._legal = self._compute_legal()
        return list(self._legal)

    def _compute_legal(self) -> list[int]:
        phase, seat = self.phase, self.current
        if phase == Phase.PLAY:
            return self._legal_play(seat)
        if phase == Phase.BUY:
            hand = self.hands[seat]
            if self.take_pending:
                return list(hand)
            k, room = self.pending_discards, self.talon_size
            if self.config.swedish and seat == self.dealer:
                return (list(hand) if k < room + 1 and hand else []) + ([DRAW] if k >= 1 else [])
            return (list(hand) if k < room and hand else []) + [DRAW]
        if phase == Phase.KNOCK:
            return [KNOCK] if self.must_knock(seat) else [PASS, KNOCK]
        if phase == Phase.BID:
            out = []
            room = self.talon_size
            need = HAND_SIZE * self.n if self.config.better_cards == UNANIMOUS else HAND_SIZE
            if not self.better_made and room >= need:
                out.append(BID_BETTER)
            if not self.swing_made and room >= 1:
                out.append(BID_SWING)
            out.append(NO_BID)
            return out
        if phase == Phase.ANSWER:
            if self.pending_bid == BID_BETTER and self.config.better_cards != UNANIMOUS:
                accepted = sum(1 for _, a in self.answers if a)
                if self.talon_size - HAND_SIZE * (1 + accepted) < HAND_SIZE:
                    return [REJECT]
            return [ACCEPT, REJECT]
        return []

    def _legal_play(self, seat: int) -> list[int]:
        due = self.queen_due == seat
        return legal_plays(self.config, self.hands[seat], self.trick, self.trump, seat, self.scores, due)

    # ----------------------------------------------------------------- applying
    def apply(self, action: int) -> None:
        """Apply the action of the player to act; an illegal action raises IllegalActionError."""
        legal = self._legal if self._legal is not None else self.legal_actions()
        try:
            action = operator.index(action)
        except TypeError:
            raise IllegalActionError(illegal_message(action, self.current, self.phase, legal)) from None
        if action not in legal:
            raise IllegalActionError(illegal_message(action, self.current, self.phase, legal))
        self._legal = None
        phase = self.phase
        if phase == Phase.PLAY:
            self._play(action)
        elif phase == Phase.BUY:
            self._buy(action)
        elif phase == Phase.KNOCK:
            self._knock(action)
        elif phase == Phase.BID:
            self._bid(action)
        else:
            self._answer(action)

    def _order_from_forehand(self) -> list[int]:
        n, fh = self.n, self.forehand
        return [(fh + i) % n for i in range(n)]

    # bids ------------------------------------------------------------------
    def _bid(self, action: int) -> None:
        if action == NO_BID:
            self._start_knock()
            return
        if action == BID_BETTER:
            self.better_made = True
        else:
            self.swing_made = True
        self.pending_bid = action
        self.answers = []
        self.phase = Phase.ANSWER
        self.current = (self.forehand + 1) % self.n

    def _answer(self, action: int) -> None:
        seat, accept = self.current, action == ACCEPT
        self.answers.append((seat, accept))
        last = seat == self.dealer
        all_or_nothing = self.pending_bid == BID_SWING or self.config.better_cards == UNANIMOUS
        if all_or_nothing and not accept:
            self._resolve_bid(False)
        elif last:
            self._resolve_bid(True)
        else:
            self.current = (seat + 1) % self.n

    def _resolve_bid(self, answered_yes: bool) -> None:
        happened = answered_yes
        if self.pending_bid == BID_BETTER:
            if self.config.better_cards == UNANIMOUS:
                takers = self._order_from_forehand() if answered_yes else []
            else:
                takers = [self.forehand] + [s for s, a in self.answers if a]
                happened = True
            for seat in takers:
                self._exchange_hand(seat)
        elif answered_yes:
            happened = self._swing()
        self.bid_log.append((self.pending_bid, tuple(self.answers), happened))
        self.pending_bid = 0
        self.answers = []
        self.phase = Phase.BID
        self.current = self.forehand

    def _exchange_hand(self, seat: int) -> None:
        hand = self.hands[seat]
        keep = [self.turned] if seat == self.dealer and self.turned_at == TurnedAt.DEALER else []
        self.out_hidden[seat].extend(c for c in hand if c not in keep)
        pos = self.talon_pos
        new = self.talon[pos : pos + HAND_SIZE] + keep
        self.talon_pos = pos + HAND_SIZE
        new.sort()
        self.hands[seat] = new

    def _swing(self) -> bool:
        """Turn cards from the talon until a new suit shows; True if trump changed."""
        on_the_way = []
        while self.talon_pos < len(self.talon):
            card = self.talon[self.talon_pos]
            self.talon_pos += 1
            if suit_of(card) != self.trump:
                dealer_hand = self.hands[self.dealer]
                dealer_hand.remove(self.turned)
                self.out_public.append(self.turned)
                self.out_public.extend(on_the_way)
                dealer_hand.append(card)
                dealer_hand.sort()
                self.turned, self.trump = card, suit_of(card)
                return True
            on_the_way.append(card)
        self.out_public.extend(on_the_way)
        return False

    # knock round ----------------------------------------------------------
    def _start_knock(self) -> None:
        self.phase = Phase.KNOCK
        self.current = self.forehand
        if self.config.jacks:
            for seat in self._order_from_forehand():
                if self.jacks[seat] and self.scores[seat] <= JACKS_OUT_AT:
                    scoring.show_jacks(self, seat)
                    self.deal_reason = "jacks_out"
                    scoring.end_game(self, (seat,), "jacks_out")
                    return

    def _knock(self, action: int) -> None:
        seat, dealer = self.current, self.dealer
        if action == KNOCK:
            self.active[seat] = True
        else:
            self.active[seat] = False
            if self.jacks[seat]:
                scoring.show_jacks(self, seat)
            if seat == dealer and self.turned_at == TurnedAt.DEALER:
                self.turned_at, self.turned_public = TurnedAt.GONE, False
            self.out_hidden[seat].extend(self.hands[seat])
            self.hands[seat] = []
        nxt = (seat + 1) % self.n
        if seat == dealer:
            self._start_buying()
        elif nxt == dealer and not any(self.active):
            self._free_five()
        else:
            self.current = nxt

    def _free_five(self) -> None:
        """Everyone before the dealer passed: he wins five tricks without play."""
        dealer = self.dealer
        self.active[dealer] = True
        self.deal_reason = "free_five"
        if self.config.swedish:
            for _ in range(HAND_SIZE):  # a trick per card of a hand
                if scoring.take_trick_point(self, dealer):
                    return
            scoring.finish_deal(self)
        else:
            self.tricks_won[dealer] = HAND_SIZE
            self.aces_held[dealer] = ace_value(self.hands[dealer])
            scoring.finish_deal(self)

    # buying ---------------------------------------------------------------
    def _start_buying(self) -> None:
        self.buy_order = [s for s in self._order_from_forehand() if self.active[s]]
        self.buyer_index = 0
        self.pending_discards = 0
        self.phase = Phase.BUY
        self.current = self.buy_order[0]

    def _buy(self, action: int) -> None:
        seat = self.current
        hand = self.hands[seat]
        if action != DRAW:
            hand.remove(action)
            self.out_hidden[seat].append(action)
            self.discards[seat] += 1
            if seat == self.dealer and self.turned_at == TurnedAt.DEALER:
                self.turned_public = False  # he discards face down: nobody else knows where it is
                if action == self.turned:
                    self.turned_at = TurnedAt.GONE
            if action in self.jack_cards[seat]:
                scoring.show_jacks(self, seat)
            if self.take_pending:
                self.take_pending = False
                hand.append(self.turned)
                hand.sort()
                self.turned_at = TurnedAt.DEALER
                self._start_play()
                return
            self.pending_discards += 1
            return
        count = self.pending_discards - (1 if self.config.swedish and seat == self.dealer else 0)
        pos = self.talon_pos
        hand.extend(self.talon[pos : pos + count])
        hand.sort()
        self.talon_pos = pos + count
        self.draws[seat] = count
        self.pending_discards = 0
        if seat == self.dealer and not self.config.swedish:
            self.take_pending = True  # russian dealer: one more discard, then the turned card
            return
        self.buyer_index += 1
        if self.buyer_index < len(self.buy_order):
            self.current = self.buy_order[self.buyer_index]
        else:
            self._start_play()

    # play -----------------------------------------------------------------
    def _start_play(self) -> None:
        order = [s for s in self._order_from_forehand() if self.active[s]]
        self.play_order = order
        self._next_in_play = {s: order[(i + 1) % len(order)] for i, s in enumerate(order)}
        if self.config.russian_specials:
            for seat in order:
                self.aces_held[seat] = ace_value(self.hands[seat])
            for seat in order:
                if sum(1 for c in self.hands[seat] if rank_of(c) == ACE) == 4:
                    self.shown.append((seat, "four_aces", tuple(self.hands[seat])))
                    self.deal_reason = "four_aces"
                    scoring.end_game(self, (seat,), "four_aces")
                    return
            for seat in order:
                hand = self.hands[seat]
                if len({suit_of(c) for c in hand}) == 1:
                    self.shown.append((seat, "five_of_a_suit", tuple(hand)))
                    self.deal_reason = "five_of_a_suit"
                    scoring.score_flush(self, seat)
                    return
        elif self.config.jacks:
            for seat in order:
                self.aces_held[seat] = ace_value(self.hands[seat])
        self.phase = Phase.PLAY
        self.leader = self.current = order[0]
        self.trick = []

    def _play(self, card: int) -> None:
        seat = self.current
        self.hands[seat].remove(card)
        self.trick.append((seat, card))
        if card == self.turned and self.turned_at == TurnedAt.DEALER:
            self.turned_at, self.turned_public = TurnedAt.GONE, False
        if len(self.trick) < len(self.play_order):
            self.current = self._next_in_play[seat]
            return
        trick = self.trick
        winner = trick_winner(trick, self.trump)
        self.completed.append((tuple(trick), winner))
        self.trick = []
        self.tricks_won[winner] += 1
        if self.config.honour_leads:
            won_with = next(c for s, c in trick if s == winner)
            high = suit_of(won_with) == self.trump and rank_of(won_with) in (ACE, KING)
            self.queen_due = winner if high else -1
        if self.config.swedish and scoring.take_trick_point(self, winner):
            return
        if len(self.completed) == HAND_SIZE:  # every card of the hands played
            self.deal_reason = "played"
            scoring.finish_deal(self)
        else:
            self.leader = self.current = winner

    # ----------------------------------------------------------------- knowledge (views.py)
    def rams_winners(self) -> tuple[int, ...] | None:
        """Winners of the rams that just ended (None while it goes on)."""
        return self.rams_log[-1][1] if self.rams_over else None

    def view(self, seat: int) -> dict[str, Any]:
        """Plain, JSON-serialisable dict of what ``seat`` may know (docs/rules.md "What each player knows")."""
        return views.view(self, seat)

    def result(self) -> dict[str, Any]:
        """Scores, winners and per-rams results so far (complete once ``is_over``)."""
        return views.result(self)

    # ----------------------------------------------------------------- copy and serialise (snapshot.py)
    def clone(self) -> Game:
        """An independent copy that continues exactly as this game would."""
        return snapshot.clone(self)

    def with_hidden_cards(
        self,
        seat: int,
        hands: Sequence[Sequence[int]] | Mapping[int, Sequence[int]],
        piles: Sequence[Sequence[int]] | Mapping[int, Sequence[int]],
        talon: Sequence[int],
    ) -> Game:
        """A copy in which the cards hidden from ``seat`` lie where given: a determinization
        (:func:`rams_env.rules.determinize.with_hidden_cards` says what is checked and derived again)."""
        return determinize.with_hidden_cards(self, seat, hands, piles, talon)

    def to_dict(self) -> dict[str, Any]:
        """The whole state as JSON-native data (see :meth:`from_dict`)."""
        return snapshot.to_dict(self)

    def to_json(self) -> str:
        """The whole state as a JSON string; ``Game.from_json(g.to_json())`` continues identically."""
        return snapshot.to_json(self)

    @classmethod
    def from_dict(cls, state: dict[str, Any]) -> Game:
        """Rebuild a game from :meth:`to_dict` data; ``ValueError`` naming what is wrong with other data."""
        return snapshot.from_dict(cls, state)

    @classmethod
    def from_json(cls, text: str) -> Game:
        """Rebuild a game from :meth:`to_json` text; ``ValueError`` for text that is no such state."""
        return snapshot.from_json(cls, text)
