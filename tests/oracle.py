"""An independent, deliberately simple model of Rams, written from docs/rules.md and docs/contract.md alone.

Nothing here imports ``rams_env``. The model reads only what a player sees (``Game.view(seat)``
dicts, card names such as ``"TH"``) and the public facts that the test harness records from the
actions it makes (who passed, who pressed DRAW, which cards were played). From those it says:

* which actions are legal for the player to act (sections 3-6), :func:`legal_actions`;
* who is to act and in which phase the deal is (sections 3-6), :class:`Shadow`;
* who wins a trick (section 6), :func:`trick_winner`;
* how the scores move, trick by trick and at the end of a deal, and when a rams, a match or a
  russian game ends (section 7), :class:`Shadow`.

It favours obviousness over speed: every rule is spelled out where it is used, with the section
of docs/rules.md it comes from, so that it can be checked against the text by eye.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

SUITS = "CDHS"
RANKS = "23456789TJQKA"

# docs/contract.md "Actions": 0-51 are cards, then the calls.
PASS, KNOCK, BID_BETTER, BID_SWING, NO_BID, ACCEPT, REJECT, DRAW = range(52, 60)

# docs/rules.md "Russian scoring": russian ace values.
ACE_VALUE = {"S": 5, "C": 10, "D": 15, "H": 20}

SWEDISH_PRESETS = ("mattmar", "norrlandsknack", "rams32")
PRESET_PLAYERS = {
    "mattmar": range(3, 8),
    "norrlandsknack": range(3, 8),
    "rams32": range(3, 7),
    "russian": range(3, 8),
}

View = dict[str, Any]


# --------------------------------------------------------------------------- cards (section 1)
def card_id(card: str) -> int:
    """Action id of a card: ``suit_index * 13 + rank_index``."""
    return SUITS.index(card[1]) * 13 + RANKS.index(card[0])


def card_str(index: int) -> str:
    """Card name of an action id 0..51."""
    return RANKS[index % 13] + SUITS[index // 13]


def suit(card: str) -> str:
    return card[1]


def rank(card: str) -> int:
    return RANKS.index(card[0])


def deck_of(variant: str, num_players: int) -> list[str]:
    """The variant's deck (docs/rules.md "The four presets"): 32 cards for rams32 and 3-player russian, else 52."""
    small = variant == "rams32" or (variant == "russian" and num_players == 3)
    ranks = RANKS[5:] if small else RANKS
    return [r + s for s in SUITS for r in ranks]


def aces_value(cards: list[str]) -> int:
    return sum(ACE_VALUE[suit(c)] for c in cards if c[0] == "A")


def jacks_value(dealt: list[str]) -> int:
    """docs/rules.md "Russian scoring" jacks: a black pair or a red pair writes off 5, all four jacks 10."""
    black = {"JC", "JS"} <= set(dealt)
    red = {"JD", "JH"} <= set(dealt)
    return 5 * (black + red)


def settlement(records: list[int], winners: list[int]) -> list[float]:
    """docs/rules.md "Russian scoring" end of a russian game: each other player pays his remaining record (HD: nothing
    if it is 0 or less), the winners share the sum."""
    pot = sum(max(0, r) for s, r in enumerate(records) if s not in winners)
    return [pot / len(winners) if s in winners else -float(max(0, r)) for s, r in enumerate(records)]


# --------------------------------------------------------------------------- dealing (section 2)
def deal_from(deck: list[str], n: int, dealer: int) -> tuple[list[list[str]], str, list[str]]:
    """The 5 dealt cards of each seat, the turned card and the talon for a deck (top card first)."""
    order = [(dealer + 1 + i) % n for i in range(n)]
    hands: list[list[str]] = [[] for _ in range(n)]
    pos = 0
    for seat in order:
        hands[seat] += deck[pos : pos + 3]
        pos += 3
    turned = deck[pos]
    pos += 1
    for seat in order:
        hands[seat] += deck[pos : pos + 2]
        pos += 2
    return hands, turned, deck[pos:]


def stack(n: int, dealer: int, hands: list[list[str]], turned: str, talon: list[str]) -> list[str]:
    """The deck order (top first) that deals ``hands`` (5 cards by seat), turns ``turned``, then ``talon``."""
    order = [(dealer + 1 + i) % n for i in range(n)]
    deck = [c for seat in order for c in hands[seat][:3]] + [turned]
    deck += [c for seat in order for c in hands[seat][3:5]]
    return deck + list(talon)


def rigged_deck(rng: random.Random, variant: str, n: int, dealer: int) -> list[str]:
    """A deck that deals rare hands often: five of a suit, four aces, jack pairs, the trump ace, many trumps."""
    pool = deck_of(variant, n)
    rng.shuffle(pool)

    def take(cards: list[str]) -> list[str]:
        got = [c for c in cards if c in pool]
        for c in got:
            pool.remove(c)
        return got

    trump = rng.choice(SUITS)
    turned = take([next(c for c in pool if suit(c) == trump)])[0]
    hands = []
    for _ in range(n):
        kind = rng.choice(("plain", "plain", "flush", "aces", "jacks", "trump_ace", "trumps"))
        if kind == "flush":
            want = [c for c in pool if suit(c) == rng.choice(SUITS)][:5]
        elif kind == "aces":
            want = ["A" + s for s in SUITS]
        elif kind == "jacks":
            want = rng.choice((["JC", "JS"], ["JD", "JH"], ["JC", "JS", "JD", "JH"]))
        elif kind == "trump_ace":
            want = ["A" + trump]
        elif kind == "trumps":
            want = [c for c in pool if suit(c) == trump][:4]
        else:
            want = []
        hand = take(want[:5])
        hand += take(pool[: 5 - len(hand)])
        rng.shuffle(hand)
        hands.append(hand)
    return stack(n, dealer, hands, turned, pool)


# --------------------------------------------------------------------------- tricks (section 6)
def trick_winner(trick: list[list[Any]], trump: str) -> int:
    """Seat winning a trick (``[[seat, card], ...]``): highest trump, else highest card of the suit led."""
    trumps = [(rank(c), s) for s, c in trick if suit(c) == trump]
    if trumps:
        return max(trumps)[1]
    led = suit(trick[0][1])
    return max((rank(c), s) for s, c in trick if suit(c) == led)[1]


def swedish_play(view: View) -> list[str]:
    """docs/rules.md "Legal cards in the Swedish presets", taken literally."""
    seat, hand, trick, trump = view["seat"], view["hand"], view["trick"], view["trump"]
    ace = "A" + trump
    trumps = [c for c in hand if suit(c) == trump]
    if not trick:
        led_before = any(t["cards"][0][0] == seat for t in view["completed_tricks"])
        if ace in hand and not led_before:
            return [ace]  # the trump ace at his first lead
        someone_at_one = any(score == 1 for s, score in enumerate(view["scores"]) if s != seat)
        if someone_at_one and trumps:
            return trumps  # forced trump lead (the live score is the score shown)
        return list(hand)
    led = suit(trick[0][1])
    if led == trump and ace in hand:
        return [ace]  # someone led trump before the ace's holder led it: the ace goes on
    winning = next(c for s, c in trick if s == trick_winner(trick, trump))
    follow = [c for c in hand if suit(c) == led]
    if follow:  # rule 1
        if led != trump and suit(winning) == trump:
            return follow  # the trick is already trumped: any card of the suit led
        beating = [c for c in follow if rank(c) > rank(winning)]
        return beating or follow
    if trumps:  # rule 2
        played = [rank(c) for _, c in trick if suit(c) == trump]
        if played:
            over = [c for c in trumps if rank(c) > max(played)]
            return over or trumps
        return trumps
    return list(hand)  # rule 3


def russian_play(view: View) -> list[str]:
    """docs/rules.md "Legal cards in russian", taken literally."""
    seat, hand, trick, trump = view["seat"], view["hand"], view["trick"], view["trump"]
    ace, king, queen = "A" + trump, "K" + trump, "Q" + trump
    if not trick:
        if ace in hand:
            return [ace]
        if king in hand:
            return [king]
        done = view["completed_tricks"]
        if queen in hand and done and done[-1]["winner"] == seat:
            won_with = next(c for s, c in done[-1]["cards"] if s == seat)
            if won_with in (ace, king):
                return [queen]
        return list(hand)
    led_card = trick[0][1]
    if suit(led_card) == trump and led_card[0] in "KQJ" and ace in hand:
        return [ace]  # ace on a face card
    led = suit(led_card)
    follow = [c for c in hand if suit(c) == led]
    if follow:
        return follow
    trumps = [c for c in hand if suit(c) == trump]
    return trumps or list(hand)


# --------------------------------------------------------------------------- legality (sections 3-6)
def legal_actions(view: View, variant: str, passed_prev: list[bool], dealer_drew: bool) -> list[int]:
    """Legal action ids of ``view["seat"]``, who is to act, from his view and public facts.

    ``passed_prev``: by seat, passed in the previous deal of this rams (Swedish two-points rule).
    ``dealer_drew``: the russian dealer has pressed DRAW (his extra discard is due).
    """
    swedish = variant in SWEDISH_PRESETS
    phase, seat, hand = view["phase"], view["seat"], view["hand"]
    room = view["talon"]
    if phase == "play":
        return sorted(card_id(c) for c in (swedish_play(view) if swedish else russian_play(view)))
    if phase == "knock":  # section 4
        score = view["scores"][seat]
        swedish_forced = score == 1 or (score == 2 and passed_prev[seat])  # at 1; at 2 after a pass
        russian_forced = any(c[0] == "A" for c in hand)  # dealt an ace: the hand is the 5 dealt cards
        forced = swedish_forced if swedish else russian_forced
        return [KNOCK] if forced else [PASS, KNOCK]
    if phase == "buy":  # section 5
        cards = sorted(card_id(c) for c in hand)
        discarded = view["discarded"][seat]  # discarded so far in this buy (none drawn yet)
        if seat == view["dealer"] and not swedish and dealer_drew:
            return cards  # the russian dealer's one more discard before he takes the turned card
        if seat == view["dealer"] and swedish:
            # he will draw one fewer than he discards: one more discard needs `discarded` <= talon
            out = cards if discarded <= room else []
            return out + ([DRAW] if discarded >= 1 else [])
        return (cards if discarded + 1 <= room else []) + [DRAW]
    if phase == "bid":  # section 3
        made = {b["bid"] for b in view["bids"]}
        out = []
        if "better" not in made and room >= 5:
            out.append(BID_BETTER)
        if "swing" not in made and room >= 1:
            out.append(BID_SWING)
        return [*out, NO_BID]
    if phase == "answer":
        pending = view["bids"][-1]
        assert not pending["done"]
        if pending["bid"] == "better":
            accepted = sum(1 for _, yes in pending["answers"] if yes)
            if room - 5 - 5 * accepted < 5:
                return [REJECT]
        return [ACCEPT, REJECT]
    return []


# --------------------------------------------------------------------------- the course of a game
class Shadow:
    """Follows a game through its actions, from public facts and views only, and predicts it.

    Feed it with :meth:`start_deal` at the start of every deal (including the first) and
    :meth:`after` after every action. ``views(seat)`` must return ``Game.view(seat)`` now.
    It knows the phase, the seat to act, tricks, active players and expected scores.
    """

    def __init__(self, variant: str, n: int, start_score: int, scores: list[int], dealer: int) -> None:
        self.variant, self.n = variant, n
        self.swedish = variant in SWEDISH_PRESETS
        self.ramsar = 6 if variant in ("mattmar", "rams32") else 1
        self.start_score = start_score
        self.scores = list(scores)
        self.flights = [0] * n
        self.totals = [0] * n
        self.rams = 0
        self.rams_over = False
        self.game_over = False
        self.winners: list[int] | None = None
        self.rams_winners: list[int] | None = None
        self.passed_prev = [False] * n
        self.dealer = dealer
        self.active: list[bool | None] = [None] * n
        self.deals = 0

    # ------------------------------------------------------------ a deal
    def start_deal(self, views: Callable[[int], View], deck: list[str] | None = None) -> None:
        n = self.n
        self.forehand = (self.dealer + 1) % n
        self.order = [(self.forehand + i) % n for i in range(n)]
        self.active = [None] * n
        self.phase = "bid" if self.swedish else "knock"
        self.pending: str | None = None
        self.answers: list[bool] = []
        self.bought: set[int] = set()
        self.dealer_drew = False
        self.trick: list[list[Any]] = []
        self.tricks = [0] * n
        self.completed = 0
        self.leader: int | None = None
        self.held: dict[int, list[str]] = {}
        self.before_bid: dict[str, Any] = {}
        self.reason: str | None = None
        self.deals += 1
        first = views(0)
        self.trump = first["trump"]
        self.turned = first["turned_card"]
        self.turned_at: str | None = "dealer" if self.swedish else "table"  # None: nobody knows where
        self.talon = first["talon"]
        self.discards = [0] * n
        self.drawn = [0] * n
        self.dealt = [list(views(s)["hand"]) for s in range(n)]
        if deck is not None:  # section 2: check the deal against the deck
            hands, turned, talon = deal_from(deck, n, self.dealer)
            for seat in range(n):
                want = hands[seat] + ([turned] if self.swedish and seat == self.dealer else [])
                assert sorted(self.dealt[seat]) == sorted(want), (seat, self.dealt[seat], want)
            assert self.turned == turned and self.trump == suit(turned)
            assert self.talon == len(talon)
        assert self.trump == suit(self.turned)
        assert self.talon == len(deck_of(self.variant, n)) - 5 * n - 1
        assert first["turned_card_at"] == ("dealer" if self.swedish else "table")
        for seat in range(n):
            assert len(self.dealt[seat]) == (6 if self.swedish and seat == self.dealer else 5)
        assert (self.turned in self.dealt[self.dealer]) == self.swedish
        if not self.swedish:  # 7.2: going out on jacks, checked when the knock round starts, from forehand
            for seat in self.order:
                if jacks_value(self.dealt[seat]) and self.scores[seat] <= 5:
                    self._end_game([seat], "jacks_out")
                    return

    def to_act(self) -> int | None:
        """The seat whose turn it is, or None."""
        if self.phase == "over":
            return None
        if self.phase == "bid":
            return self.forehand
        if self.phase == "answer":
            return (self.forehand + 1 + len(self.answers)) % self.n
        if self.phase == "knock":
            return next(s for s in self.order if self.active[s] is None)
        if self.phase == "buy":
            return next(s for s in self.order if self.active[s] and s not in self.bought)
        if self.trick:
            last = self.trick[-1][0]
            return next(s for s in self._after(last) if self.active[s])
        return self.leader

    def legal(self, view: View) -> list[int]:
        return legal_actions(view, self.variant, self.passed_prev, self.dealer_drew)

    def _after(self, seat: int) -> list[int]:
        return [(seat + i) % self.n for i in range(1, self.n + 1)]

    def after(self, seat: int, action: int, views: Callable[[int], View]) -> None:
        """Record the action ``seat`` just made (the game has applied it), checking what it did."""
        phase = self.phase
        if phase == "bid":
            if action == NO_BID:
                self.phase = "knock"
            else:
                self.pending, self.answers, self.phase = ("better" if action == BID_BETTER else "swing"), [], "answer"
                self.before_bid = {
                    "hands": [list(views(s)["hand"]) for s in range(self.n)],
                    "public": list(views(0)["out_of_play_public"]),
                }
        elif phase == "answer":
            self.answers.append(action == ACCEPT)
            if (self.pending == "swing" and action == REJECT) or seat == self.dealer:
                self._resolve_bid(views)
        elif phase == "knock":
            self.active[seat] = action == KNOCK
            if action == PASS:
                assert views(seat)["hand"] == [], "a passed hand is out of play"
                if seat == self.dealer and self.swedish:
                    self.turned_at = None  # his hand, the turned card in it, goes face down
            if seat == self.dealer:
                self.phase = "buy"
            elif (seat + 1) % self.n == self.dealer and not any(self.active):
                self._free_five()
        elif phase == "buy":
            self._buy(seat, action, views)
        elif phase == "play":
            self.trick.append([seat, card_str(action)])
            if card_str(action) == self.turned and self.turned_at == "dealer":
                self.turned_at = None  # played: it is an ordinary card of the trick now
            if len(self.trick) == sum(1 for a in self.active if a):
                self._trick_done(trick_winner(self.trick, self.trump))
        else:
            raise AssertionError(f"no action expected in phase {phase}")

    def _resolve_bid(self, views: Callable[[int], View]) -> None:
        """Section 3: what an answered bid did to the hands, the talon, the turned card and trump."""
        before, view = self.before_bid, views(0)
        record = view["bids"][-1]
        assert record["done"] and record["bid"] == self.pending
        assert [yes for _, yes in record["answers"]] == self.answers
        hands = [list(views(s)["hand"]) for s in range(self.n)]
        public = list(view["out_of_play_public"])
        added = list(public)
        for card in before["public"]:
            added.remove(card)
        if self.pending == "better":  # HD individual: forehand and every accepter exchange
            takers = {self.forehand} | {(self.forehand + 1 + i) % self.n for i, yes in enumerate(self.answers) if yes}
            assert record["happened"] is True and added == []
            for s in range(self.n):
                old, new = before["hands"][s], hands[s]
                if s not in takers:
                    assert new == old
                    continue
                keep = [self.turned] if s == self.dealer else []
                assert sorted(new) == sorted(set(new)) and len(new) == 5 + len(keep)
                assert set(new) & set(old) == set(keep), (s, old, new)
            self.talon -= 5 * len(takers)
        elif all(self.answers) and len(self.answers) == self.n - 1:  # HD unanimous swing
            old_trump, old_turned = self.trump, self.turned
            way = [c for c in added if c != old_turned]
            assert all(suit(c) == old_trump for c in way), way
            if view["trump"] != old_trump:  # a new suit showed; the old turned card goes out face up
                assert old_turned in added
                assert record["happened"] is True
                self.turned, self.trump = view["turned_card"], view["trump"]
                self.turned_at = "dealer"
                assert suit(self.turned) == self.trump and view["turned_card_at"] == "dealer"
                want = [c for c in before["hands"][self.dealer] if c != old_turned] + [self.turned]
                assert sorted(hands[self.dealer]) == sorted(want)
                self.talon -= len(way) + 1
            else:  # the talon ran out: trump stays, the dealer keeps his card; the turned cards stay out
                assert record["happened"] is False and view["turned_card"] == old_turned
                assert old_turned in hands[self.dealer] and old_turned not in added
                assert len(added) == self.talon and view["talon"] == 0
                self.talon = 0
            assert [h for s, h in enumerate(hands) if s != self.dealer] == [
                h for s, h in enumerate(before["hands"]) if s != self.dealer
            ]
        else:  # a rejected swing changes nothing
            assert record["happened"] is False and added == [] and hands == before["hands"]
            assert view["trump"] == self.trump and view["turned_card"] == self.turned
        self.phase, self.pending = "bid", None

    def _buy(self, seat: int, action: int, views: Callable[[int], View]) -> None:
        """Section 5: discards one by one, then a draw of the same number (dealers: see there)."""
        hand = views(seat)["hand"]
        russian_dealer = seat == self.dealer and not self.swedish
        if action != DRAW:
            self.discards[seat] += 1
            assert card_str(action) not in hand
            if seat == self.dealer and self.swedish:
                self.turned_at = None  # a face-down discard: nobody knows whether it was the turned card
            if russian_dealer and self.dealer_drew:  # the extra discard; he takes the turned card
                assert self.turned in hand and len(hand) == 5
                assert views(0)["turned_card"] == self.turned and views(0)["turned_card_at"] == "dealer"
                self.bought.add(seat)
                self.turned_at = "dealer"  # the take is public
        else:
            count = self.discards[seat] - (1 if self.swedish and seat == self.dealer else 0)
            self.drawn[seat] = count
            self.talon -= count
            assert len(hand) == 5, hand
            if russian_dealer:
                self.dealer_drew = True
            else:
                self.bought.add(seat)
        if all(s in self.bought for s in self.order if self.active[s]):
            self._start_play(views)

    def _free_five(self) -> None:
        dealer = self.dealer
        self.active[dealer] = True
        self.reason = "free_five"
        if self.swedish:
            for _ in range(5):
                self.tricks[dealer] += 1
                self.scores[dealer] -= 1
                if self._zero(dealer):
                    return
        else:
            self.tricks[dealer] = 5
            self.held = {dealer: self.dealt[dealer]}
        self._end_deal()

    def _start_play(self, views: Callable[[int], View]) -> None:
        players = [s for s in self.order if self.active[s]]
        self.held = {s: list(views(s)["hand"]) for s in players}
        assert all(len(hand) == 5 for hand in self.held.values()), self.held
        if not self.swedish:  # 7.2 HD timing: four aces, then five of a suit, from the first leader
            for s in players:
                if sum(1 for c in self.held[s] if c[0] == "A") == 4:
                    self._end_game([s], "four_aces")
                    return
            for s in players:
                if len({suit(c) for c in self.held[s]}) == 1:
                    self.reason = "five_of_a_suit"
                    for o in players:
                        value = aces_value(self.held[o])
                        self.scores[o] += -(5 + value) if o == s else 5 + value
                    self._check_records()
                    return
        self.phase = "play"
        self.leader = players[0]

    def _trick_done(self, winner: int) -> None:
        self.tricks[winner] += 1
        self.completed += 1
        self.trick = []
        self.leader = winner
        if self.swedish:  # 7.1: each trick takes a point off at once
            self.scores[winner] -= 1
            if self._zero(winner):
                return
        if self.completed == 5:
            self.reason = "played"
            self._end_deal()

    def _zero(self, seat: int) -> bool:
        """Norrlandsknack: the first to reach 0 wins at once, the deal is abandoned."""
        if self.variant == "norrlandsknack" and self.scores[seat] == 0:
            self.reason = "zero"
            self.rams_winners = [seat]
            self._end_game([seat], "zero")
            return True
        return False

    def _end_deal(self) -> None:
        n = self.n
        if self.swedish:  # 7.1 flights
            for s in range(n):
                if self.active[s] and self.tricks[s] == 0:
                    self.scores[s] = min(self.scores[s] + 5, 10)
                    self.flights[s] += 1
            if min(self.scores) <= 0:
                self._end_rams()
            else:
                self.phase = "over"
            return
        for s in range(n):  # 7.2
            jacks = jacks_value(self.dealt[s])
            if not self.active[s]:
                self.scores[s] -= jacks
            elif self.tricks[s]:
                self.scores[s] -= self.tricks[s] + aces_value(self.held[s]) + jacks
            elif jacks:
                self.scores[s] -= 5 if jacks == 10 else 0
            else:
                self.scores[s] += 5 + aces_value(self.held[s])
        self._check_records()

    def _check_records(self) -> None:
        if min(self.scores) <= 0:
            low = min(self.scores)
            self._end_game([s for s in range(self.n) if self.scores[s] == low], "zero")
        else:
            self.phase = "over"

    def _end_rams(self) -> None:
        low = min(self.scores)
        self.rams_winners = [s for s in range(self.n) if self.scores[s] == low]
        self.rams_over = True
        self.totals = [t + s for t, s in zip(self.totals, self.scores, strict=True)]
        self.rams += 1
        self.phase = "over"
        if self.rams == self.ramsar:
            low = min(self.totals)
            tied = [s for s in range(self.n) if self.totals[s] == low]
            fewest = min(self.flights[s] for s in tied)
            self.game_over = True
            self.winners = [s for s in tied if self.flights[s] == fewest]

    def _end_game(self, winners: list[int], reason: str) -> None:
        self.reason = self.reason or reason
        self.phase = "over"
        self.game_over = True
        self.winners = winners

    def next_deal(self) -> None:
        """The deal passes clockwise; a new rams starts from the start score."""
        if self.rams_over:
            self.scores = [self.start_score] * self.n
            self.passed_prev = [False] * self.n
            self.rams_over = False
        else:
            self.passed_prev = [a is False for a in self.active]
        self.dealer = self.forehand
