"""A rule-based Rams player that reads only its encoded observation (through :mod:`rams_env.obs.decoding`).

How it thinks
-------------
Every card in hand gets a *trick chance*: the probability that it takes a trick, from how many
unseen cards could beat it and how likely each active opponent is to hold one (hypergeometric
odds over the cards whose place the player does not know; a side card also risks a ruff by an
opponent void in its suit). Summed, the chances give the expected tricks; multiplied as
independent events, the chance of taking none (flying).

- Knock: the value of knocking is ``E[tricks] + bonus * P(some trick) - cost * P(no trick)``
  for the hand as it will be after buying (weak cards replaced by average draws); knock when
  it is positive. ``cost`` is what a flight costs now (nothing at the flight cap; russian: the
  fine plus the aces held, only 5 for a jacks holder); ``bonus`` is the russian aces write-off.
  Opponents who knocked count fully, those still to speak by half, so position matters.
  Last to speak before the dealer, with everyone else passed, it also weighs the dealer's free
  five tricks when they would end the rams.
- Bids and answers: compare the hand's knock value with the expected value of a new hand
  (better cards, sampled from the unseen cards) or of the other trump suits (swing).
- Buying: discard, worst first, the cards whose trick chance is below that of an average card
  from the talon; keep trumps and aces (russian: always the aces; go for five of a suit with
  four of it in hand).
- Play: pick the card that maximises ``P(win this trick) + sum of the other cards' chances``,
  plus, while no trick is taken yet, the value of not flying times the chance of taking one.
  So it takes the lead with the cheapest card that holds, cashes aces before voids appear,
  ducks with cards worth more later, and throws its least useful card when it cannot win.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from ..obs.decoding import DecodedObservation, decode
from ..rules import RulesConfig, TurnedAt, make_config
from ..rules.actions import Action
from ..rules.cards import ACE, HAND_SIZE, KING, NUM_CARDS, ace_value, deck_cards, rank_of, ranks_by_suit, suit_of
from ..rules.heuristic_tunables import (
    BETTER_SAMPLES,
    BID_MARGIN,
    RANK_TIE_BREAK,
    RUFF_CAP,
    RUFF_PER_VOID,
    SIDE_TIMING,
    UNDECIDED_KNOCK,
)
from ..rules.odds import miss_chance
from .base import Observation, ObservationAgent, legal_from_mask, observation_vector, seeded_rng

PASS, KNOCK = int(Action.PASS), int(Action.KNOCK)
BID_BETTER, BID_SWING, NO_BID = int(Action.BID_BETTER), int(Action.BID_SWING), int(Action.NO_BID)
ACCEPT, REJECT, DRAW = int(Action.ACCEPT), int(Action.REJECT), int(Action.DRAW)
AT_DEALER, ON_TABLE = TurnedAt.DEALER.label, TurnedAt.TABLE.label  # the decoded observation's turned_at


@dataclass
class Opponent:
    """An opponent as the player sees him: chance he is (or will be) active, cards held, cards known."""

    seat: int  # relative seat
    weight: float  # 1 active, 0 passed, in between while undecided
    size: int  # cards in hand
    known: frozenset[int] = frozenset()  # cards known to be in his hand (the turned card)


@dataclass(slots=True)
class _Odds:
    """An opponent's odds against the player's cards, as far as they do not depend on the card."""

    weight: float  # the opponent's
    known: frozenset[int]  # the opponent's
    unknown: int  # cards in his hand that the player does not know
    voids: list[float]  # per suit: chance that he is void in it
    ruffs: list[float]  # per suit: chance that he is void in it and holds a trump


class Situation:
    """The unseen cards and the opponents, with trick chances computed from them."""

    def __init__(self, trump: int, unseen: set[int], opponents: list[Opponent]) -> None:
        self.trump = trump
        self.unseen = sorted(unseen)  # iterated in card order, as the compiled twin iterates its masks
        self.pool = len(unseen)
        self.opponents = [o for o in opponents if o.weight > 0.0]
        ranks = ranks_by_suit(unseen)
        self.suit_count = [len(r) for r in ranks]
        self._ranks = [sorted(r) for r in ranks]  # unseen ranks per suit, ascending
        self._per_suit: dict[tuple[int, bool], tuple[list[float], list[float]]] = {}  # _odds memo
        self._all_odds = [self._odds(o) for o in self.opponents]  # the opponents are fixed from here on
        self._chances: dict[tuple[int, int], float] = {}  # _top_chance memo
        self._side_terms: list[float | None] | None = None  # draw_chance's side-card terms
        self._draws: dict[tuple[tuple[int, ...], int], float] = {}  # draw_chance memo

    def higher(self, card: int) -> int:
        """Unseen cards of ``card``'s suit that rank above it."""
        return self._higher(card, 0)

    def beat_chance(self, card: int, led: int, opp: Opponent, lower_trumps: int = 0) -> float:
        """Chance that ``opp`` can beat ``card`` in a trick led in suit ``led`` (card winning so far)."""
        return self._beat(self._odds(opp), card, led, self._higher(card, lower_trumps))

    def hold_chance(self, card: int, led: int, players: list[Opponent], lower_trumps: int = 0) -> float:
        """Chance that ``card`` still wins once ``players`` have played to the trick."""
        odds = self._all_odds if players is self.opponents else [self._odds(o) for o in players]
        return self._hold(card, led, odds, lower_trumps)

    def _hold(self, card: int, led: int, odds: list[_Odds], lower_trumps: int) -> float:
        """``hold_chance`` against the opponents of ``odds``."""
        higher = self._higher(card, lower_trumps)
        p = 1.0
        for o in odds:
            p *= 1.0 - o.weight * self._beat(o, card, led, higher)
        return p

    def _higher(self, card: int, lower_trumps: int) -> int:
        """The unseen cards that can beat ``card`` on rank: ``higher``, less, for a trump, the
        ``lower_trumps`` the player holds below it (he plays those first)."""
        suit = suit_of(card)
        ranks = self._ranks[suit]
        higher = len(ranks) - bisect_right(ranks, rank_of(card))
        return max(0, higher - lower_trumps) if suit == self.trump else higher

    def _beat(self, opp: _Odds, card: int, led: int, higher: int) -> float:
        """``beat_chance`` against the opponent of ``opp``, with ``higher`` from ``_higher``."""
        trump, suit = self.trump, suit_of(card)
        for k in opp.known:
            if suit_of(k) == suit and rank_of(k) > rank_of(card):
                return 1.0
        if suit == trump:
            if led == trump:
                return 1.0 - miss_chance(higher, opp.unknown, self.pool)
            return opp.voids[led] * (1.0 - miss_chance(higher, opp.unknown, self.pool - self.suit_count[led]))
        return min(1.0, 1.0 - miss_chance(higher, opp.unknown, self.pool) + opp.ruffs[suit])

    def _odds(self, opp: Opponent) -> _Odds:
        """What ``beat_chance`` needs of ``opp`` that does not depend on the card; the per-suit chances
        are memoised on what they depend on (his unknown cards, whether he shows a trump)."""
        unknown = max(0, opp.size - len(opp.known))
        has_trump = any(suit_of(k) == self.trump for k in opp.known)
        per_suit = self._per_suit.get((unknown, has_trump))
        if per_suit is None:
            trump, pool, count = self.trump, self.pool, self.suit_count
            voids = [miss_chance(count[s], unknown, pool) for s in range(4)]
            trumps = [1.0 if has_trump else 1.0 - miss_chance(count[trump], unknown, pool - count[s]) for s in range(4)]
            ruffs = [v * t for v, t in zip(voids, trumps, strict=True)]
            per_suit = self._per_suit[(unknown, has_trump)] = (voids, ruffs)
        return _Odds(opp.weight, opp.known, unknown, *per_suit)

    def card_chance(self, card: int, hand: list[int] | tuple[int, ...], planning: bool = False) -> float:
        """Chance that ``card`` takes a trick some time in this deal, held in ``hand``.

        ``planning`` (before buying): side suits without an ace or king count as voids to come,
        since their cards will be bought away; that is what lets low trumps ruff.
        """
        trump, suit = self.trump, suit_of(card)
        if suit == trump:
            rank = rank_of(card)
            lower = sum(1 for c in hand if suit_of(c) == trump and rank_of(c) < rank)
            top = self._top_chance(card, lower)
            ruff = min(RUFF_CAP, RUFF_PER_VOID * self._voids(hand, KING if planning else 0))
            return 1.0 - (1.0 - top) * (1.0 - ruff)
        return SIDE_TIMING * self._top_chance(card, -1)

    def _voids(self, hand: list[int] | tuple[int, ...], floor: int) -> int:
        """Side suits in which ``hand`` holds no card of rank ``floor`` or higher."""
        held = {suit_of(c) for c in hand if rank_of(c) >= floor}
        held.discard(self.trump)
        return 3 - len(held)

    def draw_chance(self, hand: list[int] | tuple[int, ...]) -> float:
        """Average ``card_chance(c, hand, planning=True)`` over the unseen cards ``c`` (0 when none).

        It depends on the hand only through its trump ranks and its voids to come, so it is memoised
        on those; the terms are the same floats, summed in the same order, as card by card (the
        side-card terms, the same for every hand, are computed once).
        """
        if not self.unseen:
            return 0.0
        trump = self.trump
        trump_ranks = sorted(rank_of(c) for c in hand if suit_of(c) == trump)
        voids = self._voids(hand, KING)
        key = (tuple(trump_ranks), voids)
        chance = self._draws.get(key)
        if chance is None:
            ruff = min(RUFF_CAP, RUFF_PER_VOID * voids)
            terms = list(self._side_draw_terms())
            for i, card in enumerate(self.unseen):
                if terms[i] is None:
                    top = self._top_chance(card, bisect_left(trump_ranks, rank_of(card)))
                    terms[i] = 1.0 - (1.0 - top) * (1.0 - ruff)
            chance = self._draws[key] = ordered_sum(terms) / len(self.unseen)
        return chance

    def _side_draw_terms(self) -> list[float | None]:
        """``draw_chance``'s terms in the order of ``unseen``, computed once: the side cards' (which do
        not depend on the hand), None in the place of each trump."""
        if self._side_terms is None:
            trump, odds = self.trump, self._all_odds
            self._side_terms = [  # SIDE_TIMING * self._top_chance(card, -1), unseen cards need no memo
                None if suit_of(card) == trump else SIDE_TIMING * self._hold(card, suit_of(card), odds, 0)
                for card in self.unseen
            ]
        return self._side_terms

    def _top_chance(self, card: int, lower_trumps: int) -> float:
        """``hold_chance`` against every opponent (memoised: many candidate hands share a situation);
        ``lower_trumps`` -1 for a side-suit card, led in its own suit."""
        key = (card, lower_trumps)
        chance = self._chances.get(key)
        if chance is None:
            led = suit_of(card) if lower_trumps < 0 else self.trump
            chance = self._hold(card, led, self._all_odds, max(0, lower_trumps))
            self._chances[key] = chance
        return chance


def ordered_sum(values: Iterable[float]) -> float:
    """Left-to-right float sum: ``sum()`` compensates its rounding from Python 3.12 on, and the compiled
    twin (:mod:`rams_env.compiled.heuristic`) must add the same floats the same way."""
    total = 0.0
    for value in values:
        total += value
    return total


def zero_chance(chances: list[float]) -> float:
    """Chance that none of independent trick chances comes off."""
    p = 1.0
    for c in chances:
        p *= 1.0 - c
    return p


class HeuristicAgent(ObservationAgent):
    """A strong rule-based player (see the module docstring); every preset, 3 to 7 players.

    ``config`` (optional) gives the exact rule options when they differ from the preset's
    (the observation does not carry the start score); ``seed`` seeds the sampling of new
    hands when it values a better-cards bid.
    """

    def __init__(self, config: RulesConfig | None = None, seed: int | None = None) -> None:
        self.config = config
        self.rng = seeded_rng(seed)
        self._situations_of: DecodedObservation | None = None  # the observation being decided
        self._situations: dict[tuple[int | None, int | None], Situation] = {}  # its situations

    def seed(self, seed: int | None) -> None:
        """Reseed the sampling of new hands (and forget the situations of the last observation): the
        same seed, the same actions from here on."""
        self.rng = seeded_rng(seed)
        self._situations_of = None
        self._situations = {}

    def act(self, observation: Observation) -> int:
        """A legal action for the observation."""
        legal = [int(a) for a in legal_from_mask(observation)]
        if len(legal) == 1:
            return legal[0]
        d = decode(observation_vector(observation))
        rules = self._rules(d)
        if d.phase == "play":
            return self._play(d, rules, legal)
        if d.phase == "buy":
            return self._buy(d, rules, legal)
        if d.phase == "knock":
            return KNOCK if self._knock_value(d, rules) > 0.0 else PASS
        if d.phase == "bid":
            return self._bid(d, rules, legal)
        return self._answer(d, rules, legal)

    # ------------------------------------------------------------------ knowledge
    def _rules(self, d: DecodedObservation) -> RulesConfig:
        cfg = self.config
        if cfg is None:
            return _preset(d.variant, d.num_players)
        if (cfg.variant, cfg.num_players) != (d.variant, d.num_players):
            raise ValueError(
                f"HeuristicAgent was built for {cfg.variant} with {cfg.num_players} players, "
                f"but observes {d.variant} with {d.num_players}"
            )
        return cfg

    def _situation(self, d: DecodedObservation, trump: int | None = None, hand_size: int | None = None) -> Situation:
        """Unseen cards and opponents of the decoded observation (``trump`` may be hypothetical); one per
        (observation, trump, hand size), so that the hands a decision compares share its memo."""
        if self._situations_of is not d:
            self._situations_of, self._situations = d, {}
        sit = self._situations.get((trump, hand_size))
        if sit is None:
            sit = self._situations[(trump, hand_size)] = self._new_situation(d, trump, hand_size)
        return sit

    @staticmethod
    def _new_situation(d: DecodedObservation, trump: int | None, hand_size: int | None) -> Situation:
        trump = d.trump if trump is None else trump
        seen = set(d.hand) | d.cards_played | set(d.out_of_play)
        known: dict[int, frozenset[int]] = {}
        if d.turned_at == ON_TABLE:
            seen.add(d.turned_card)
        elif d.turned_at == AT_DEALER and d.dealer != 0:
            seen.add(d.turned_card)
            known[d.dealer] = frozenset({d.turned_card})
        unseen = set(deck_cards(d.deck_size)) - seen
        in_trick = {r for r, _ in d.trick}
        opponents = []
        for r in range(1, d.num_players):
            if d.passed[r]:
                continue
            weight = 1.0 if d.knocked[r] else UNDECIDED_KNOCK
            size = hand_size if hand_size is not None else HAND_SIZE - d.tricks_done - (1 if r in in_trick else 0)
            opponents.append(Opponent(r, weight, size, known.get(r, frozenset())))
        return Situation(trump, unseen, opponents)

    @staticmethod
    def _flight_stakes(
        d: DecodedObservation, rules: RulesConfig, hand: list[int] | tuple[int, ...]
    ) -> tuple[float, float]:
        """(cost of taking no trick, bonus for taking one) for the observer, against passing."""
        if rules.swedish:
            score = round(d.scores[0] * rules.start_score)
            return float(max(0, min(score + rules.flight_fine, rules.flight_cap) - score)), 0.0
        aces = float(ace_value(list(hand)))
        cost = float(rules.flight_fine) if d.own_jacks else rules.flight_fine + aces
        return cost, aces

    # ------------------------------------------------------------------ hand value
    def _hand_value(
        self,
        d: DecodedObservation,
        rules: RulesConfig,
        hand: list[int],
        trump: int | None = None,
        extra: tuple[float, ...] = (),
    ) -> float:
        """Knock value of a hand after buying: E[tricks] + bonus * P(trick) - cost * P(no trick)."""
        sit = self._situation(d, trump, hand_size=HAND_SIZE)
        dealer = d.dealer == 0
        if not rules.swedish and dealer and d.turned_at == ON_TABLE:
            hand = [*hand, d.turned_card]  # the russian dealer takes the turned card (and discards one)
        chances = sorted((sit.card_chance(c, hand, planning=True), c) for c in hand)
        while len(chances) > HAND_SIZE:
            chances.pop(0)
        average = sit.draw_chance(hand)
        room = max(0, d.talon - 3 * sum(1 for o in sit.opponents))
        kept = [p for p, c in chances if p >= average or self._keeps(rules, c, hand)]
        draws = min(HAND_SIZE - len(kept), room)
        values = kept + [average] * draws + list(extra)
        if len(values) < HAND_SIZE:
            values += [0.0] * (HAND_SIZE - len(values))  # cards kept for want of a talon to replace them
        values = sorted(values, reverse=True)[:HAND_SIZE]
        cost, bonus = self._flight_stakes(d, rules, hand)
        expected = min(float(HAND_SIZE), ordered_sum(values))
        zero = zero_chance(values)
        return expected + bonus * (1.0 - zero) - cost * zero

    @staticmethod
    def _keeps(rules: RulesConfig, card: int, hand: list[int]) -> bool:
        """Cards never bought away: russian aces (their write-off) and trumps of a five-of-a-suit try."""
        if rules.swedish:
            return False
        suit_count = sum(1 for c in hand if suit_of(c) == suit_of(card))
        return rank_of(card) == ACE or suit_count >= 4

    # ------------------------------------------------------------------ decisions
    def _knock_value(self, d: DecodedObservation, rules: RulesConfig) -> float:
        hand = list(d.hand)
        if not rules.swedish and (
            sum(1 for c in hand if rank_of(c) == ACE) == 4 or len({suit_of(c) for c in hand}) == 1
        ):
            return 1.0  # russian four aces or five of a suit: shown at the start of play
        value = self._hand_value(d, rules, hand)
        before_dealer = (d.dealer - 1) % d.num_players == 0
        if before_dealer and not any(d.knocked) and rules.swedish:
            # Passing now gives the dealer five tricks: worth preventing when that ends the rams.
            dealer_score = round(d.scores[d.dealer] * rules.start_score)
            if dealer_score <= HAND_SIZE:  # a point a trick
                value += 1.0
        return value

    def _bid(self, d: DecodedObservation, rules: RulesConfig, legal: list[int]) -> int:
        current = max(0.0, self._hand_value(d, rules, list(d.hand)))
        options = {NO_BID: current + BID_MARGIN}
        if BID_BETTER in legal:
            options[BID_BETTER] = self._better_value(d, rules)
        if BID_SWING in legal:
            options[BID_SWING] = self._swing_value(d, rules)
        return max(options, key=lambda a: options[a])

    def _answer(self, d: DecodedObservation, rules: RulesConfig, legal: list[int]) -> int:
        current = max(0.0, self._hand_value(d, rules, list(d.hand)))
        new = self._better_value(d, rules) if d.better.pending else self._swing_value(d, rules)
        return ACCEPT if ACCEPT in legal and new > current + BID_MARGIN else REJECT

    def _better_value(self, d: DecodedObservation, rules: RulesConfig) -> float:
        """Expected knock value (0 when it would pass) of a new hand from the unseen cards."""
        sit = self._situation(d, hand_size=HAND_SIZE)
        pool = sorted(sit.unseen)
        keep = [d.turned_card] if d.dealer == 0 and d.turned_at == AT_DEALER else []
        total = 0.0
        for _ in range(BETTER_SAMPLES):
            hand = self.rng.sample(pool, HAND_SIZE) + keep
            total += max(0.0, self._hand_value(d, rules, hand))
        return total / BETTER_SAMPLES

    def _swing_value(self, d: DecodedObservation, rules: RulesConfig) -> float:
        """Expected knock value (0 when it would pass) under a trump of another suit."""
        sit = self._situation(d, hand_size=HAND_SIZE)
        hand = list(d.hand)
        if d.dealer == 0 and d.turned_at == AT_DEALER:
            hand.remove(d.turned_card)  # the dealer swaps his turned card for the new one
        weights = [0 if s == d.trump else sit.suit_count[s] for s in range(4)]
        if not sum(weights):
            return 0.0
        total = 0.0
        for suit in range(4):
            if weights[suit]:
                extra = (0.5,) if d.dealer == 0 else ()  # the new turned card, a trump of unknown rank
                total += weights[suit] * max(0.0, self._hand_value(d, rules, hand, suit, extra))
        return total / sum(weights)

    def _buy(self, d: DecodedObservation, rules: RulesConfig, legal: list[int]) -> int:
        hand = list(d.hand)
        cards = [a for a in legal if a < NUM_CARDS]
        sit = self._situation(d, hand_size=HAND_SIZE)
        chances = {c: sit.card_chance(c, hand, planning=True) for c in hand}
        if not cards:
            return DRAW
        if d.take_pending:
            return min(cards, key=lambda c: (chances[c], rank_of(c)))
        if not rules.swedish:
            suits = [sum(1 for c in hand if suit_of(c) == s) for s in range(4)]
            if max(suits) == HAND_SIZE:
                return DRAW  # five of a suit: stand pat and show it
            if max(suits) == 4 and d.pending_discards == 0:
                odd = next(c for c in hand if suits[suit_of(c)] == 1)
                if rank_of(odd) != ACE and odd in cards:
                    return odd
        worst = min(cards, key=lambda c: (self._keeps(rules, c, hand), chances[c], rank_of(c)))
        must = rules.swedish and d.dealer == 0 and d.pending_discards == 0
        if must or (chances[worst] < sit.draw_chance(hand) and not self._keeps(rules, worst, hand)):
            return worst
        return DRAW if DRAW in legal else worst

    def _play(self, d: DecodedObservation, rules: RulesConfig, legal: list[int]) -> int:
        hand = list(d.hand)
        cost, bonus = self._flight_stakes(d, rules, hand) if d.tricks[0] == 0 else (0.0, 0.0)
        return choose_play(self._situation(d), hand, legal, d.trick, cost + bonus)


def choose_play(
    sit: Situation, hand: list[int], legal: list[int], trick: Sequence[tuple[int, int]], stake: float
) -> int:
    """The card that maximises ``P(win this trick) + sum of the other cards' trick chances``, plus
    ``stake`` (the value of not flying; 0 once a trick is taken) times the chance of some trick."""
    trump = sit.trump
    chances = {c: sit.card_chance(c, hand) for c in hand}
    if trick:
        led = suit_of(trick[0][1])
        best = _winning_card(trick, trump)
        played = {s for s, _ in trick}
        after = [o for o in sit.opponents if o.seat not in played]
    else:
        led, best, after = -1, -1, sit.opponents
    total = ordered_sum(chances.values())

    def gain(card: int) -> float:
        suit = led if led >= 0 else suit_of(card)
        win = 0.0
        if best < 0 or _beats(card, best, led, trump):
            win = sit.hold_chance(card, suit, after)
        value = win + total - chances[card]
        if stake:
            value += stake * (1.0 - (1.0 - win) * zero_chance([chances[c] for c in hand if c != card]))
        return value - RANK_TIE_BREAK * rank_of(card)

    return max(legal, key=gain)


def _beats(card: int, best: int, led: int, trump: int) -> bool:
    """True if ``card`` beats ``best``, the card winning a trick led in suit ``led``."""
    suit, best_suit = suit_of(card), suit_of(best)
    if suit == best_suit:
        return rank_of(card) > rank_of(best)
    return suit == trump


def _winning_card(trick: Sequence[tuple[int, int]], trump: int) -> int:
    """The card winning a started trick."""
    led = suit_of(trick[0][1])
    best = trick[0][1]
    for _, card in trick[1:]:
        if _beats(card, best, led, trump):
            best = card
    return best


@lru_cache(maxsize=64)
def _preset(variant: str, num_players: int) -> RulesConfig:
    return make_config(variant, num_players)


__all__ = ["HeuristicAgent", "Opponent", "Situation", "choose_play", "miss_chance"]
