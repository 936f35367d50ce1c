"""``resample_from_infostate``: the hidden cards of the current deal dealt again for one player, a
deck and hidden discards rebuilt that lead there, and the deal replayed (the package docstring says
what is kept)."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from ...agents.deal_sampler import DealSampler, HiddenCards
from ...rules import IllegalActionError, Phase
from ...rules.actions import Action
from ...rules.cards import NUM_CARDS

if TYPE_CHECKING:
    from .state import StateCore

DRAW = int(Action.DRAW)


class _Plan:
    """Who received each position of the current deal's deck: public knowledge, read off the real deal."""

    def __init__(self, core: StateCore) -> None:
        game, spec = core.game, core.spec
        assert game is not None
        n = spec.n
        self.n, self.size = n, len(spec.deck)
        self.base = base = 5 * n + 1
        order = [(game.forehand + i) % n for i in range(n)]
        self.packets = {
            s: [3 * i, 3 * i + 1, 3 * i + 2, 3 * n + 1 + 2 * i, 3 * n + 2 + 2 * i] for i, s in enumerate(order)
        }
        deck = core.deck
        if list(game.talon) != deck[base:]:
            raise RuntimeError("the engine's talon is not the dealt deck's")
        holder: dict[int, int] = {}
        for s in range(n):
            for c in game.hands[s]:
                holder[c] = s
            for c in game.out_hidden[s]:
                holder[c] = s
        for cards, _ in game.completed:
            for s, c in cards:
                holder[c] = s
        for s, c in game.trick:
            holder[c] = s
        self.played = {s: [c for cards, _ in game.completed for t, c in cards if t == s] for s in range(n)}
        for s, c in game.trick:
            self.played[s].append(c)
        public = set(game.out_public)
        bid_end = game.talon_pos - sum(game.draws)
        self.exchange: dict[int, list[int]] = {s: [] for s in range(n)}
        self.draw: dict[int, list[int]] = {s: [] for s in range(n)}
        self.public_cards = {deck[3 * n]}  # the turned card; a swing's new one too
        for t in range(game.talon_pos):
            c = deck[base + t]
            if c in public or c == game.turned:
                self.public_cards.add(c)
                continue
            (self.exchange if t < bid_end else self.draw)[holder[c]].append(base + t)
        self.hidden_talon = list(range(base + game.talon_pos, self.size))
        self.thrown = {s: len(game.out_hidden[s]) - game.discards[s] for s in range(n)}
        # Each seat's discards in this deal's log, before and after its DRAW (russian dealer's extra).
        self.discards: dict[int, tuple[list[int], list[int]]] = {s: ([], []) for s in range(n)}
        drawn: set[int] = set()
        for i, (s, a, phase) in enumerate(core.log):
            if phase == Phase.BUY:
                if a == DRAW:
                    drawn.add(s)
                elif a < NUM_CARDS:
                    self.discards[s][1 if s in drawn else 0].append(i)
        # Russian jacks shown when a card of the pair was first discarded: at which of the seat's discards
        # (public: everybody saw the jacks shown then). The shown cards were dealt to him.
        shown = [(t, frozenset(cards)) for t, what, cards in game.shown if what == "jacks"]
        self.jacks = {s: frozenset(c for t, cards in shown if t == s for c in cards) for s in range(n)}
        self.shown_at: dict[int, int | None] = {}
        for s in range(n):
            cards = [core.log[i][1] for i in self.discards[s][0] + self.discards[s][1]]
            self.shown_at[s] = next((k for k, c in enumerate(cards) if c in self.jacks[s]), None)


def resample(core: StateCore, player: int, rng: random.Random, tries: int = 300) -> StateCore:
    """A core in ``player``'s information state with the hidden cards of this deal dealt again (module docstring)."""
    if not 0 <= player < core.spec.n:
        raise ValueError(f"player must be a seat 0..{core.spec.n - 1}, got {player}")
    if core.over or core.root is None:
        return core.copy()
    if core.chance:  # cards dealt so far are not seen until the deal is complete: deal others
        other = core.root.copy()
        while len(other.deck) < len(core.deck):
            cards = [c for c, _ in other.chance_outcomes()]
            other.apply_chance(rng.choice(cards))
        return other
    if core.cache is None:
        core.cache = {}
    if player not in core.cache:
        core.cache[player] = (DealSampler(core.game, player), _Plan(core))  # type: ignore[arg-type]
    sampler, plan = core.cache[player]
    want = core.info[player]
    for _ in range(tries):
        built = _rebuild(core, plan, sampler.deal(rng), player, rng, sampler.allowed)
        if built is None:
            continue
        other = _replay(core.root, *built)
        if other is not None and other.info[player] == want and other.game.current == core.game.current:  # type: ignore[union-attr]
            return other
    raise RuntimeError(f"could not deal the hidden cards again consistently with player {player}'s information")


def _rebuild(
    core: StateCore, plan: _Plan, placed: HiddenCards, player: int, rng: random.Random, allowed: dict[int, list[int]]
) -> tuple[list[int], list[tuple[int, int, int]]] | None:
    """A deck and a log of this deal that lead to the sampler's placement ``placed`` of the hidden cards, or None.

    ``allowed``: the sampler's places for each hidden card (hands ``j``, face-down piles ``n + j``,
    cards bought away ``2n + j``).
    """
    deck = list(core.deck)
    log = list(core.log)
    active = core.game.active  # type: ignore[union-attr]
    for j in range(plan.n):
        if j == player:
            continue
        hand = list(placed.hands[j])
        pile = placed.piles[j]
        thrown, bought = pile[: plan.thrown[j]], pile[plan.thrown[j] :]
        public = plan.public_cards
        before, after = plan.discards[j]
        if len(before) + len(after) != len(bought):
            return None
        count = len(plan.draw[j])
        if plan.exchange[j] and active[j] is not False and any(c in public for c in thrown):
            # The dealer keeps the turned card when he changes cards: it is not among those he threw in.
            thrown, n = list(thrown), plan.n
            for i, c in enumerate(thrown):
                if c not in public:
                    continue
                places = set(allowed.get(c, ()))  # the turned card goes where the other card was
                spare = [x for x in hand if j in places] + [x for x in bought if 2 * n + j in places]
                spare = [x for x in spare if x not in public and n + j in allowed.get(x, ())]
                if spare:
                    other = rng.choice(spare)
                    where = hand if other in hand else bought
                    where[where.index(other)], thrown[i] = c, other
        if plan.jacks[j] and bought:
            free = count - sum(1 for c in plan.played[j] if c not in public and c not in plan.jacks[j])
            _keep_shown_jacks(hand, bought, plan.jacks[j], plan.shown_at[j] is not None, free, allowed, j, public, rng)
        held = hand + plan.played[j]
        order = _discard_order(bought, plan.jacks[j], plan.shown_at[j], rng)
        if order is None:
            return None
        first, extra = order[: len(before)], order[len(before) :]  # extra: the russian dealer's discard after his draw
        candidates = [c for c in held + extra if c not in public and c not in plan.jacks[j]]  # shown jacks were dealt
        if count > len(candidates):
            return None
        drawn = rng.sample(candidates, count)
        drawn_set = set(drawn)
        hidden = [c for c in held + thrown + bought if c not in public and c not in drawn_set]
        exchanged = bool(plan.exchange[j])
        if exchanged and active[j] is False:
            rest = [c for c in thrown if c not in public]
            rng.shuffle(rest)
            packets, exchange_in = rest[:5], rest[5:]
        elif exchanged:
            packets = [c for c in thrown if c not in public]
            exchange_in = [c for c in hidden if c not in set(packets)]
        else:
            packets, exchange_in = hidden, []
        if len(packets) != 5 or len(exchange_in) != len(plan.exchange[j]):
            return None
        for positions, cards in ((plan.packets[j], packets), (plan.exchange[j], exchange_in), (plan.draw[j], drawn)):
            cards = list(cards)
            rng.shuffle(cards)
            for pos, c in zip(positions, cards, strict=True):
                deck[pos] = c
        for i, c in zip(before + after, first + extra, strict=True):
            s, _, phase = log[i]
            log[i] = (s, c, phase)
    talon = placed.talon
    if len(talon) != len(plan.hidden_talon):
        return None
    for pos, c in zip(plan.hidden_talon, talon, strict=True):
        deck[pos] = c
    if sorted(deck) != sorted(core.deck):
        return None
    return deck, log


def _keep_shown_jacks(
    hand: list[int],
    bought: list[int],
    jacks: frozenset[int],
    discarded: bool,
    draws: int,
    allowed: dict[int, list[int]],
    seat: int,
    public: set[int],
    rng: random.Random,
) -> None:
    """Swap shown jacks of ``seat`` from his hand into his cards bought away where the history needs it.

    Shown jacks were dealt, so they are not among the cards he drew: his hand needs ``draws`` other
    cards (beyond those he has played) for the ones he drew; and jacks shown at a discard had one of
    them among the discards. The sampler knows neither; a card swapped into the hand must be one it
    allows there.
    """
    spare = [c for c in bought if c not in jacks and seat in allowed.get(c, ())]
    rng.shuffle(spare)
    while spare:
        mine = [c for c in hand if c in jacks]
        free = sum(1 for c in hand if c not in public and c not in jacks)
        if not mine or (free >= draws and (not discarded or any(c in jacks for c in bought))):
            return
        jack, other = rng.choice(mine), spare.pop()
        hand[hand.index(jack)] = other
        bought[bought.index(other)] = jack


def _discard_order(
    cards: list[int], jacks: frozenset[int], shown_at: int | None, rng: random.Random
) -> list[int] | None:
    """``cards`` in an order of discarding; with ``shown_at``, the first card of the shown jacks comes there."""
    order = list(cards)
    rng.shuffle(order)
    if shown_at is None:
        return order
    pair = [c for c in order if c in jacks]
    others = [c for c in order if c not in jacks]
    if not pair or len(others) < shown_at:
        return None
    rest = others[shown_at:] + pair[1:]
    rng.shuffle(rest)
    return others[:shown_at] + pair[:1] + rest


def _replay(root: StateCore, deck: list[int], log: list[tuple[int, int, int]]) -> StateCore | None:
    """The deal replayed from its first card; None when the history is not a legal one."""
    other = root.copy()
    try:
        other.deck = deck[:-1]  # a permutation of the deck (checked): deal it at once
        other.apply_chance(deck[-1])
        for seat, action, _ in log:
            if other.chance or other.over or other.game.current != seat:  # type: ignore[union-attr]
                return None
            other.apply_player(action)
    except (IllegalActionError, ValueError):
        return None
    return other
