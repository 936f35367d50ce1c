"""The rules engine and the observation encoder compiled with numba, for the batched env.

A second implementation of :mod:`rams_env.rules` and :mod:`rams_env.encoding`, written for speed:
the state of each game is one row of an int64 array (the column layout is below), hands and
other card sets are 52-bit masks, and one compiled call steps every game of a batch, encodes the
acting seat's observation from scratch and writes its action mask. Even the random generator is
CPython's own Mersenne Twister with the same seeding and ``shuffle``/``randrange`` algorithms,
so game ``i`` deals exactly the cards ``Game(config, seed)`` deals.

The pure-Python engine stays the reference: ``tests/test_vector.py`` and
``tests/test_compiled.py`` play the same seeds with the same actions through both and compare
every observation, mask, reward and score. Nothing here is public API; use
:class:`rams_env.vector.BatchedRamsEnv`.
"""

from __future__ import annotations

import numba
import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from .encoding import FIELD, FIELDS, MAX_PLAYERS, RACE_FLAGS, SLICES, config_scale, fixed_clip, fixed_scale
from .episode import EpisodeKind, episode_kind
from .rules import Phase, RulesConfig, TurnedAt, cards
from .rules.actions import NUM_ACTIONS, Action
from .rules.cards import (
    ACE,
    ALL_JACKS_BONUS,
    ALL_JACKS_NO_TRICK,
    FIVE_OF_A_SUIT_BONUS,
    JACK,
    JACK_PAIR_BONUS,
    JACKS_OUT_AT,
    KING,
    NUM_CARDS,
    QUEEN,
    SEVEN,
)
from .rules.config import END_AT_ZERO, PRESETS, UNANIMOUS

P = MAX_PLAYERS

# ----------------------------------------------------------------------------- config columns
(
    C_PLAYERS,
    C_SWEDISH,
    C_BIDS,
    C_UNANIMOUS,
    C_END_AT_ZERO,
    C_RAMSAR,
    C_FLIGHT_CAP,
    C_FLIGHT_FINE,
    C_KNOCK_AT_ONE,
    C_KNOCK_AT_TWO,
    C_KNOCK_WITH_ACE,
    C_OVERTAKE,
    C_TRUMP_ACE,
    C_FORCED_TRUMP,
    C_HONOUR,
    C_JACKS,
    C_SPECIALS,
    C_START,
    C_DECK_SIZE,
    C_VARIANT,
    C_EPISODE,
    C_WIN,
    C_SCORES_SCALE,
    C_TOTALS_SCALE,
    C_TALON_SCALE,
    C_RAMS_SCALE,
    C_SIZE,
) = range(27)
# The observation scales that follow the rule options, as FIELDS names them: config columns.
_CONFIG_SCALES = (
    (C_SCORES_SCALE, "scores", 0),
    (C_TOTALS_SCALE, "totals", 0),
    (C_TALON_SCALE, "talon", 0),
    (C_RAMS_SCALE, "progress", 0),
)


def config_array(config: RulesConfig, episode: str, reward: str) -> np.ndarray:
    """The int64 vector of rule options (and episode kind) the compiled functions read."""
    cfg = np.zeros(C_SIZE, np.int64)
    cfg[C_PLAYERS] = config.num_players
    cfg[C_SWEDISH] = config.swedish
    cfg[C_BIDS] = config.bids
    cfg[C_UNANIMOUS] = config.better_cards == UNANIMOUS
    cfg[C_END_AT_ZERO] = config.end == END_AT_ZERO
    cfg[C_RAMSAR] = config.ramsar_per_match
    cfg[C_FLIGHT_CAP] = config.flight_cap
    cfg[C_FLIGHT_FINE] = config.flight_fine
    cfg[C_KNOCK_AT_ONE] = config.forced_knock_at_one
    cfg[C_KNOCK_AT_TWO] = config.forced_knock_at_two
    cfg[C_KNOCK_WITH_ACE] = config.forced_knock_with_ace
    cfg[C_OVERTAKE] = config.overtake_duty
    cfg[C_TRUMP_ACE] = config.trump_ace_lead
    cfg[C_FORCED_TRUMP] = config.forced_trump_lead
    cfg[C_HONOUR] = config.honour_leads
    cfg[C_JACKS] = config.jacks
    cfg[C_SPECIALS] = config.russian_specials
    cfg[C_START] = config.start_score
    cfg[C_DECK_SIZE] = config.deck_size
    cfg[C_VARIANT] = tuple(PRESETS).index(config.variant)
    cfg[C_EPISODE] = episode_kind(episode)
    cfg[C_WIN] = reward == "win"
    for column, name, entry in _CONFIG_SCALES:
        scale = config_scale(FIELD[name].scale_at(entry), config)
        if scale != int(scale):
            raise ValueError(f"observation field {name!r}: the compiled encoder takes whole scales, got {scale}")
        cfg[column] = int(scale)
    return cfg


# ----------------------------------------------------------------------------- state columns
_width = 0


def _column(size: int = 1) -> int:
    global _width
    start, _width = _width, _width + size
    return start


PHASE, CURRENT, DEALER, FOREHAND, TRUMP, TURNED, TURNED_AT, TURNED_PUBLIC = (_column() for _ in range(8))
TALON_START, TALON_POS, PENDING_BID, PENDING_DISCARDS, TAKE_PENDING, BUYER_INDEX = (_column() for _ in range(6))
BETTER_MADE, BETTER_DONE, BETTER_HAPPENED, SWING_MADE, SWING_DONE, SWING_HAPPENED = (_column() for _ in range(6))
LEADER, QUEEN_DUE, TRICK_LEN, COMPLETED, NUM_BUYERS, NUM_PLAYING = (_column() for _ in range(6))
RAMS_NUMBER, DEAL_NUMBER, DEAL_IN_RAMS, RAMS_OVER, GAME_WINNERS, RAMS_WINNERS = (_column() for _ in range(6))
OUT_PUBLIC, SHOWN, SHOWN_BY, LEGAL = (_column() for _ in range(4))  # card masks, a seat mask, an action mask
SCORES, FLIGHTS, RAMS_FLIGHTS, TOTALS, PASSED_PREV = (_column(P) for _ in range(5))
HAND, OUT_HIDDEN, PLAYED, JACK_CARDS = (_column(P) for _ in range(4))  # card masks per seat
ACTIVE, DISCARDS, DRAWS, TRICKS_WON, ACES_HELD, JACKS, DEALT_ACE, JACKS_SHOWN = (_column(P) for _ in range(8))
BETTER_ANSWER, SWING_ANSWER = (_column(P) for _ in range(2))  # -1 none, 0 rejected, 1 accepted
TRICK_SEAT, TRICK_CARD, BUY_ORDER, PLAY_ORDER, NEXT_IN_PLAY = (_column(P) for _ in range(5))
DECK = _column(NUM_CARDS)
STATE_WIDTH = _width

# The rules' names as plain ints, which numba folds into the compiled code.
BID, ANSWER, KNOCK_PHASE, BUY, PLAY, DEAL_OVER, GAME_OVER = (
    int(p) for p in (Phase.BID, Phase.ANSWER, Phase.KNOCK, Phase.BUY, Phase.PLAY, Phase.DEAL_OVER, Phase.GAME_OVER)
)
AT_DEALER, ON_TABLE, GONE = int(TurnedAt.DEALER), int(TurnedAt.TABLE), int(TurnedAt.GONE)
A_PASS, A_KNOCK, A_BETTER, A_SWING, A_NO_BID, A_ACCEPT, A_REJECT, A_DRAW = (
    int(a)
    for a in (
        Action.PASS,
        Action.KNOCK,
        Action.BID_BETTER,
        Action.BID_SWING,
        Action.NO_BID,
        Action.ACCEPT,
        Action.REJECT,
        Action.DRAW,
    )
)
EPISODE_DEAL, EPISODE_RAMS = int(EpisodeKind.DEAL), int(EpisodeKind.RAMS)
ACE_VALUES = np.array(cards.ACE_VALUES, np.int64)
SUIT_MASK = np.array([((1 << 13) - 1) << (13 * s) for s in range(4)], np.int64)
ACES = sum(1 << (13 * s + ACE) for s in range(4))
BLACK_JACKS = sum(1 << c for c in cards.BLACK_JACKS)
RED_JACKS = sum(1 << c for c in cards.RED_JACKS)

# ----------------------------------------------------------------------------- observation offsets
_O = {name: s.start for name, s in SLICES.items()}
O_HAND, O_TRUMP, O_TURNED, O_TURNED_AT, O_PHASE = (
    _O[k] for k in ("hand", "trump", "turned_card", "turned_at", "phase")
)
O_TO_ACT, O_DEALER, O_SEATS, O_VARIANT, O_DECK32 = (_O[k] for k in ("to_act", "dealer", "seats", "variant", "deck32"))
O_BETTER_BID, O_SWING_BID, O_BETTER_ANSWERS, O_SWING_ANSWERS = (
    _O[k] for k in ("better_bid", "swing_bid", "better_answers", "swing_answers")
)
O_KNOCKED, O_PASSED, O_DISCARDED, O_DRAWN, O_PENDING = (
    _O[k] for k in ("knocked", "passed", "discarded", "drawn", "pending_discards")
)
O_TAKE_PENDING, O_TRICK, O_TRICK_LEADER, O_PLAYED, O_OUT = (
    _O[k] for k in ("take_pending", "trick", "trick_leader", "played", "out_of_play")
)
O_SHOWN, O_SHOWN_BY, O_TRICKS, O_TRICKS_DONE, O_SCORES = (
    _O[k] for k in ("shown", "shown_by", "tricks", "tricks_done", "scores")
)
O_AT_ONE, O_FLIGHTS, O_PASSED_LAST, O_MUST_KNOCK, O_QUEEN_DUE = (
    _O[k] for k in ("at_one", "flights", "passed_last_deal", "must_knock", "queen_due")
)
O_TALON, O_OWN_JACKS, O_OWN_ACES, O_PROGRESS, O_TOTALS = (
    _O[k] for k in ("talon", "own_jacks", "own_aces", "progress", "totals")
)
O_START, O_SCORE_LEFT, O_FLIGHT_COST = (_O[k] for k in ("start_score", "score_left", "flight_cost"))
OBS_SIZE = sum(size for _, size, _ in FIELDS)
# The observation scales and clips that are the same under every rule option (FIELDS).
DISCARDED_SCALE, DRAWN_SCALE, PENDING_SCALE, TRICKS_SCALE, TRICKS_DONE_SCALE = (
    fixed_scale(k) for k in ("discarded", "drawn", "pending_discards", "tricks", "tricks_done")
)
FLIGHTS_SCALE, JACKS_SCALE, ACES_SCALE, START_SCALE, FLIGHT_COST_SCALE = (
    fixed_scale(k) for k in ("flights", "own_jacks", "own_aces", "start_score", "flight_cost")
)
DEAL_SCALE = fixed_scale("progress", 1)
SCORES_CLIP, FLIGHTS_CLIP, TOTALS_CLIP, DEAL_CLIP = (
    fixed_clip("scores"),
    fixed_clip("flights"),
    fixed_clip("totals"),
    fixed_clip("progress", 1),
)

# No function here allocates, so the runtime's reference counting is switched off (measured: a
# step costs 440 ns instead of 565 ns); cache=True keeps the compiled code between processes.
jit = numba.njit(cache=True, nogil=True, _nrt=False)


def entry_point(function: numba.core.registry.CPUDispatcher, *example_args: object) -> object:
    """``function`` compiled for the types of ``example_args``, callable without numba's type
    dispatch (about 100 ns a call less): only for callers that always pass those exact types."""
    return function.compile(tuple(numba.typeof(a) for a in example_args))


# ----------------------------------------------------------------------------- CPython's random
# MT19937 as CPython's _randommodule.c runs it: ``mt[0:624]`` the state, ``mt[624]`` the index.
def _init_genrand(seed: int) -> np.ndarray:
    mt = [seed]
    for i in range(1, 624):
        mt.append((1812433253 * (mt[-1] ^ (mt[-1] >> 30)) + i) & 0xFFFFFFFF)
    return np.array(mt, np.int64)


MT_START = _init_genrand(19650218)  # init_by_array starts every seeding from this state


@jit
def mt_seed(mt: np.ndarray, seed: int) -> None:
    """``random.Random(seed)`` for a non-negative int below 2**64 (init_by_array of its words)."""
    mask = np.int64(0xFFFFFFFF)
    for k in range(624):
        mt[k] = MT_START[k]
    low, high = seed & mask, (seed >> 32) & mask
    two_words = high != 0
    i, j = 1, 0
    prev = mt[0]
    for _ in range(624):
        key = high if j else low
        prev = ((mt[i] ^ (((prev ^ (prev >> 30)) * 1664525) & mask)) + key + j) & mask
        mt[i] = prev
        i += 1
        j = 1 - j if two_words else 0
        if i >= 624:
            mt[0] = prev
            i = 1
    for _ in range(623):
        prev = ((mt[i] ^ (((prev ^ (prev >> 30)) * 1566083941) & mask)) - i) & mask
        mt[i] = prev
        i += 1
        if i >= 624:
            mt[0] = prev
            i = 1
    mt[0] = 0x80000000
    mt[624] = 624


@jit
def mt_next(mt: np.ndarray) -> int:
    """The next 32-bit output (genrand_uint32)."""
    if mt[624] >= 624:
        for k in range(623):
            y = (mt[k] & 0x80000000) | (mt[k + 1] & 0x7FFFFFFF)
            mt[k] = mt[k + 397 if k < 227 else k - 227] ^ (y >> 1) ^ (0x9908B0DF if y & 1 else 0)
        y = (mt[623] & 0x80000000) | (mt[0] & 0x7FFFFFFF)
        mt[623] = mt[396] ^ (y >> 1) ^ (0x9908B0DF if y & 1 else 0)
        mt[624] = 0
    y = mt[mt[624]]
    mt[624] += 1
    y ^= y >> 11
    y ^= (y << 7) & 0x9D2C5680
    y ^= (y << 15) & 0xEFC60000
    y ^= y >> 18
    return y


@jit
def mt_randbelow(mt: np.ndarray, n: int) -> int:
    """``random.Random._randbelow(n)``: getrandbits(n.bit_length()) until below n (n < 2**32)."""
    k = 0
    while (1 << k) <= n:
        k += 1
    r = mt_next(mt) >> (32 - k)
    while r >= n:
        r = mt_next(mt) >> (32 - k)
    return r


@jit
def mt_bits63(mt: np.ndarray) -> int:
    """``random.Random.getrandbits(63)``."""
    low = mt_next(mt)
    high = mt_next(mt) >> 1
    return low | (high << 32)


# ----------------------------------------------------------------------------- small helpers
@jit
def _bit(card: int) -> int:
    return np.int64(1) << np.int64(card)


@jit
def _above(suit: int, rank: int) -> int:
    """The cards of ``suit`` ranked above ``rank`` (-1: the whole suit)."""
    return SUIT_MASK[suit] & ~((np.int64(1) << np.int64(suit * 13 + rank + 1)) - 1)


@jit
def _count(mask: int) -> int:
    count = 0
    while mask:
        mask &= mask - 1
        count += 1
    return count


@jit
def _ace_value(hand: int) -> int:
    total = 0
    for suit in range(4):
        if hand & _bit(suit * 13 + ACE):
            total += ACE_VALUES[suit]
    return total


@jit
def _talon_size(s: np.ndarray, c: np.ndarray) -> int:
    return c[C_DECK_SIZE] - s[TALON_START] - s[TALON_POS]


@jit
def _show_jacks(s: np.ndarray, seat: int) -> None:
    if s[JACKS_SHOWN + seat]:
        return
    s[JACKS_SHOWN + seat] = 1
    s[SHOWN] |= s[JACK_CARDS + seat]
    s[SHOWN_BY] |= _bit(seat)


@jit
def _must_knock(s: np.ndarray, c: np.ndarray, seat: int) -> bool:
    score = s[SCORES + seat]
    if c[C_KNOCK_AT_ONE] and score == 1:
        return True
    if c[C_KNOCK_AT_TWO] and score == 2 and s[PASSED_PREV + seat]:
        return True
    return c[C_KNOCK_WITH_ACE] != 0 and s[DEALT_ACE + seat] != 0


# ----------------------------------------------------------------------------- legal actions
@jit
def _legal_play(s: np.ndarray, c: np.ndarray, seat: int) -> int:
    hand, trump, trick_len = s[HAND + seat], s[TRUMP], s[TRICK_LEN]
    if c[C_HONOUR]:
        if trick_len:
            led_card = s[TRICK_CARD]
            led = led_card // 13
            if led == trump and JACK <= led_card % 13 <= KING and hand & _bit(trump * 13 + ACE):
                return _bit(trump * 13 + ACE)
            follow = hand & SUIT_MASK[led]
            if follow:
                return follow
            trumps = hand & SUIT_MASK[trump]
            return trumps if trumps else hand
        for rank in (ACE, KING):
            if hand & _bit(trump * 13 + rank):
                return _bit(trump * 13 + rank)
        if s[QUEEN_DUE] == seat and hand & _bit(trump * 13 + QUEEN):
            return _bit(trump * 13 + QUEEN)
        return hand
    ace = _bit(trump * 13 + ACE)
    if not trick_len:
        if c[C_TRUMP_ACE] and hand & ace:
            return ace
        if c[C_FORCED_TRUMP]:
            for other in range(c[C_PLAYERS]):
                if other != seat and s[SCORES + other] == 1:
                    trumps = hand & SUIT_MASK[trump]
                    return trumps if trumps else hand
        return hand
    led = s[TRICK_CARD] // 13
    if c[C_TRUMP_ACE] and led == trump and hand & ace:
        return ace
    best_trump, best_led = -1, -1
    for k in range(trick_len):
        card = s[TRICK_CARD + k]
        if card // 13 == trump:
            best_trump = max(best_trump, card % 13)
        if card // 13 == led:
            best_led = max(best_led, card % 13)
    overtake = c[C_OVERTAKE] != 0
    follow = hand & SUIT_MASK[led]
    if follow:
        if not overtake or (led != trump and best_trump >= 0):
            return follow
        beaters = follow & _above(led, best_led)
        return beaters if beaters else follow
    trumps = hand & SUIT_MASK[trump]
    if trumps:
        if overtake and best_trump >= 0:
            over = trumps & _above(trump, best_trump)
            return over if over else trumps
        return trumps
    return hand


@jit
def legal_set(s: np.ndarray, c: np.ndarray) -> int:
    """The legal actions of the player to act, as a ``NUM_ACTIONS``-bit mask (0 when nobody is to act)."""
    phase, seat = s[PHASE], s[CURRENT]
    if phase == PLAY:
        return _legal_play(s, c, seat)
    if phase == BUY:
        hand = s[HAND + seat]
        if s[TAKE_PENDING]:
            return hand
        k, room = s[PENDING_DISCARDS], _talon_size(s, c)
        if c[C_SWEDISH] and seat == s[DEALER]:
            out = hand if k < room + 1 and hand else np.int64(0)
            return out | _bit(A_DRAW) if k >= 1 else out
        out = hand if k < room and hand else np.int64(0)
        return out | _bit(A_DRAW)
    if phase == KNOCK_PHASE:
        return _bit(A_KNOCK) if _must_knock(s, c, seat) else _bit(A_PASS) | _bit(A_KNOCK)
    if phase == BID:
        out = _bit(A_NO_BID)
        room = _talon_size(s, c)
        need = 5 * c[C_PLAYERS] if c[C_UNANIMOUS] else 5
        if not s[BETTER_MADE] and room >= need:
            out |= _bit(A_BETTER)
        if not s[SWING_MADE] and room >= 1:
            out |= _bit(A_SWING)
        return out
    if phase == ANSWER:
        if s[PENDING_BID] == A_BETTER and not c[C_UNANIMOUS]:
            accepted = 0
            for seat_ in range(c[C_PLAYERS]):
                accepted += s[BETTER_ANSWER + seat_] == 1
            if _talon_size(s, c) - 5 * (1 + accepted) < 5:
                return _bit(A_REJECT)
        return _bit(A_ACCEPT) | _bit(A_REJECT)
    return np.int64(0)


# ----------------------------------------------------------------------------- dealing
@jit
def _deal(s: np.ndarray, c: np.ndarray, dealer: int) -> None:
    """Deal the cards in ``s[DECK:]`` (RULES.md section 2) and open the first phase."""
    n = c[C_PLAYERS]
    s[DEALER] = dealer
    forehand = (dealer + 1) % n
    s[FOREHAND] = forehand
    for seat in range(P):
        s[HAND + seat] = 0
    pos = 0
    for rounds in (3, 2):
        for i in range(n):
            seat = (forehand + i) % n
            for _ in range(rounds):
                s[HAND + seat] |= _bit(s[DECK + pos])
                pos += 1
        if rounds == 3:
            s[TURNED] = s[DECK + pos]
            pos += 1
    turned = s[TURNED]
    for seat in range(n):
        hand = s[HAND + seat]
        counted = np.int64(0)
        if c[C_JACKS]:
            if hand & BLACK_JACKS == BLACK_JACKS:
                counted |= BLACK_JACKS
            if hand & RED_JACKS == RED_JACKS:
                counted |= RED_JACKS
        s[JACK_CARDS + seat] = counted
        s[JACKS + seat] = JACK_PAIR_BONUS * (_count(counted) // 2)
        s[DEALT_ACE + seat] = hand & ACES != 0
        s[OUT_HIDDEN + seat] = 0
        s[PLAYED + seat] = 0
        s[ACTIVE + seat] = -1
        s[DISCARDS + seat] = s[DRAWS + seat] = s[TRICKS_WON + seat] = s[ACES_HELD + seat] = 0
        s[JACKS_SHOWN + seat] = 0
        s[BETTER_ANSWER + seat] = s[SWING_ANSWER + seat] = -1
    s[TRUMP] = turned // 13
    s[TURNED_PUBLIC] = 1
    if c[C_SWEDISH]:
        s[HAND + dealer] |= _bit(turned)
        s[TURNED_AT] = AT_DEALER
    else:
        s[TURNED_AT] = ON_TABLE
    s[TALON_START], s[TALON_POS] = pos, 0
    s[OUT_PUBLIC] = s[SHOWN] = s[SHOWN_BY] = 0
    s[BETTER_MADE] = s[BETTER_DONE] = s[BETTER_HAPPENED] = 0
    s[SWING_MADE] = s[SWING_DONE] = s[SWING_HAPPENED] = 0
    s[PENDING_BID] = s[PENDING_DISCARDS] = s[TAKE_PENDING] = s[BUYER_INDEX] = s[NUM_BUYERS] = 0
    s[NUM_PLAYING] = s[TRICK_LEN] = s[COMPLETED] = 0
    s[LEADER] = s[QUEEN_DUE] = -1
    if c[C_BIDS]:
        s[PHASE], s[CURRENT] = BID, forehand
    else:
        _start_knock(s, c)


@jit
def _shuffle_and_deal(s: np.ndarray, c: np.ndarray, rng: np.ndarray, dealer: int) -> None:
    size = 0
    for card in range(NUM_CARDS):
        if c[C_DECK_SIZE] == NUM_CARDS or card % 13 >= SEVEN:
            s[DECK + size] = card
            size += 1
    for i in range(size - 1, 0, -1):
        j = mt_randbelow(rng, i + 1)
        s[DECK + i], s[DECK + j] = s[DECK + j], s[DECK + i]
    _deal(s, c, dealer)


@jit
def _open_match(s: np.ndarray, c: np.ndarray) -> None:
    for seat in range(P):
        s[SCORES + seat] = c[C_START]
        s[FLIGHTS + seat] = s[RAMS_FLIGHTS + seat] = s[TOTALS + seat] = s[PASSED_PREV + seat] = 0
    s[RAMS_NUMBER] = s[DEAL_NUMBER] = s[DEAL_IN_RAMS] = s[RAMS_OVER] = 0
    s[GAME_WINNERS] = s[RAMS_WINNERS] = -1


@jit
def new_game(s: np.ndarray, c: np.ndarray, rng: np.ndarray, seed: int) -> None:
    """``Game(config, seed)``: a random dealer, a shuffled deck, start scores; ``rng`` is reseeded."""
    mt_seed(rng, seed)
    dealer = mt_randbelow(rng, c[C_PLAYERS])
    _open_match(s, c)
    _shuffle_and_deal(s, c, rng, dealer)


@jit
def new_game_with(
    s: np.ndarray, c: np.ndarray, rng: np.ndarray, seed: int, dealer: int, scores: np.ndarray, deck: np.ndarray
) -> None:
    """``Game(config, seed, deck=..., dealer=..., scores=...)`` with checked options; ``dealer`` -1,
    an empty ``scores`` or an empty ``deck`` stand for an option not given."""
    mt_seed(rng, seed)
    if dealer < 0:
        dealer = mt_randbelow(rng, c[C_PLAYERS])
    _open_match(s, c)
    for seat in range(scores.size):
        s[SCORES + seat] = scores[seat]
    if deck.size:
        for k in range(deck.size):
            s[DECK + k] = deck[k]
        _deal(s, c, dealer)
    else:
        _shuffle_and_deal(s, c, rng, dealer)
    s[LEGAL] = legal_set(s, c)


@jit
def next_deal(s: np.ndarray, c: np.ndarray, rng: np.ndarray) -> None:
    """``Game.next_deal``: the next deal, of a new rams if the last one ended."""
    n = c[C_PLAYERS]
    if s[RAMS_OVER]:
        s[RAMS_NUMBER] += 1
        s[DEAL_IN_RAMS] = 0
        for seat in range(n):
            s[SCORES + seat] = c[C_START]
            s[RAMS_FLIGHTS + seat] = s[PASSED_PREV + seat] = 0
        s[RAMS_OVER] = 0
    else:
        s[DEAL_IN_RAMS] += 1
        for seat in range(n):
            s[PASSED_PREV + seat] = s[ACTIVE + seat] == 0
    s[DEAL_NUMBER] += 1
    _shuffle_and_deal(s, c, rng, s[FOREHAND])


# ----------------------------------------------------------------------------- bids
@jit
def _exchange_hand(s: np.ndarray, c: np.ndarray, seat: int) -> None:
    hand = s[HAND + seat]
    keep = np.int64(0)
    if seat == s[DEALER] and s[TURNED_AT] == AT_DEALER:
        keep = _bit(s[TURNED])
    s[OUT_HIDDEN + seat] |= hand & ~keep
    at = s[TALON_START] + s[TALON_POS]
    new = keep
    for k in range(5):
        new |= _bit(s[DECK + at + k])
    s[TALON_POS] += 5
    s[HAND + seat] = new


@jit
def _swing(s: np.ndarray, c: np.ndarray) -> bool:
    on_the_way = np.int64(0)
    while _talon_size(s, c) > 0:
        card = s[DECK + s[TALON_START] + s[TALON_POS]]
        s[TALON_POS] += 1
        if card // 13 != s[TRUMP]:
            dealer = s[DEALER]
            s[HAND + dealer] = (s[HAND + dealer] & ~_bit(s[TURNED])) | _bit(card)
            s[OUT_PUBLIC] |= _bit(s[TURNED]) | on_the_way
            s[TURNED], s[TRUMP] = card, card // 13
            return True
        on_the_way |= _bit(card)
    s[OUT_PUBLIC] |= on_the_way
    return False


@jit
def _bid(s: np.ndarray, c: np.ndarray, action: int) -> None:
    if action == A_NO_BID:
        _start_knock(s, c)
        return
    if action == A_BETTER:
        s[BETTER_MADE] = 1
    else:
        s[SWING_MADE] = 1
    s[PENDING_BID] = action
    s[PHASE] = ANSWER
    s[CURRENT] = (s[FOREHAND] + 1) % c[C_PLAYERS]


@jit
def _answer(s: np.ndarray, c: np.ndarray, action: int) -> None:
    seat, accept = s[CURRENT], action == A_ACCEPT
    better = s[PENDING_BID] == A_BETTER
    s[(BETTER_ANSWER if better else SWING_ANSWER) + seat] = 1 if accept else 0
    if (not better or c[C_UNANIMOUS]) and not accept:
        _resolve_bid(s, c, False)
    elif seat == s[DEALER]:
        _resolve_bid(s, c, True)
    else:
        s[CURRENT] = (seat + 1) % c[C_PLAYERS]


@jit
def _resolve_bid(s: np.ndarray, c: np.ndarray, answered_yes: bool) -> None:
    n, forehand = c[C_PLAYERS], s[FOREHAND]
    if s[PENDING_BID] == A_BETTER:
        if c[C_UNANIMOUS]:
            if answered_yes:
                for i in range(n):
                    _exchange_hand(s, c, (forehand + i) % n)
            s[BETTER_HAPPENED] = answered_yes
        else:
            _exchange_hand(s, c, forehand)
            for i in range(1, n):
                seat = (forehand + i) % n
                if s[BETTER_ANSWER + seat] == 1:
                    _exchange_hand(s, c, seat)
            s[BETTER_HAPPENED] = 1
        s[BETTER_DONE] = 1
    else:
        s[SWING_HAPPENED] = _swing(s, c) if answered_yes else False
        s[SWING_DONE] = 1
    s[PENDING_BID] = 0
    s[PHASE], s[CURRENT] = BID, forehand


# ----------------------------------------------------------------------------- knock round
@jit
def _start_knock(s: np.ndarray, c: np.ndarray) -> None:
    n = c[C_PLAYERS]
    s[PHASE], s[CURRENT] = KNOCK_PHASE, s[FOREHAND]
    if c[C_JACKS]:
        for i in range(n):
            seat = (s[FOREHAND] + i) % n
            if s[JACKS + seat] and s[SCORES + seat] <= JACKS_OUT_AT:
                _show_jacks(s, seat)
                _end_game(s, c, _bit(seat))
                return


@jit
def _knock(s: np.ndarray, c: np.ndarray, action: int) -> None:
    n, seat, dealer = c[C_PLAYERS], s[CURRENT], s[DEALER]
    if action == A_KNOCK:
        s[ACTIVE + seat] = 1
    else:
        s[ACTIVE + seat] = 0
        if s[JACKS + seat]:
            _show_jacks(s, seat)
        if seat == dealer and s[TURNED_AT] == AT_DEALER:
            s[TURNED_AT], s[TURNED_PUBLIC] = GONE, 0
        s[OUT_HIDDEN + seat] |= s[HAND + seat]
        s[HAND + seat] = 0
    nxt = (seat + 1) % n
    if seat == dealer:
        _start_buying(s, c)
        return
    if nxt == dealer:
        anyone = False
        for other in range(n):
            anyone |= s[ACTIVE + other] == 1
        if not anyone:
            _free_five(s, c)
            return
    s[CURRENT] = nxt


@jit
def _free_five(s: np.ndarray, c: np.ndarray) -> None:
    dealer = s[DEALER]
    s[ACTIVE + dealer] = 1
    if c[C_SWEDISH]:
        for _ in range(5):
            if _take_trick_point(s, c, dealer):
                return
        _finish_deal(s, c)
    else:
        s[TRICKS_WON + dealer] = 5
        s[ACES_HELD + dealer] = _ace_value(s[HAND + dealer])
        _finish_deal(s, c)


# ----------------------------------------------------------------------------- buying
@jit
def _active_order(s: np.ndarray, c: np.ndarray, column: int) -> int:
    """Write the active seats from forehand into ``s[column:]``; their number."""
    n, count = c[C_PLAYERS], 0
    for i in range(n):
        seat = (s[FOREHAND] + i) % n
        if s[ACTIVE + seat] == 1:
            s[column + count] = seat
            count += 1
    return count


@jit
def _start_buying(s: np.ndarray, c: np.ndarray) -> None:
    s[NUM_BUYERS] = _active_order(s, c, BUY_ORDER)
    s[BUYER_INDEX] = s[PENDING_DISCARDS] = 0
    s[PHASE], s[CURRENT] = BUY, s[BUY_ORDER]


@jit
def _buy(s: np.ndarray, c: np.ndarray, action: int) -> None:
    seat = s[CURRENT]
    swedish = c[C_SWEDISH] != 0
    if action != A_DRAW:
        card = _bit(action)
        s[HAND + seat] &= ~card
        s[OUT_HIDDEN + seat] |= card
        s[DISCARDS + seat] += 1
        if seat == s[DEALER] and s[TURNED_AT] == AT_DEALER:
            s[TURNED_PUBLIC] = 0
            if action == s[TURNED]:
                s[TURNED_AT] = GONE
        if s[JACK_CARDS + seat] & card:
            _show_jacks(s, seat)
        if s[TAKE_PENDING]:
            s[TAKE_PENDING] = 0
            s[HAND + seat] |= _bit(s[TURNED])
            s[TURNED_AT] = AT_DEALER
            _start_play(s, c)
            return
        s[PENDING_DISCARDS] += 1
        return
    count = s[PENDING_DISCARDS] - (1 if swedish and seat == s[DEALER] else 0)
    at = s[TALON_START] + s[TALON_POS]
    for k in range(count):
        s[HAND + seat] |= _bit(s[DECK + at + k])
    s[TALON_POS] += count
    s[DRAWS + seat] = count
    s[PENDING_DISCARDS] = 0
    if seat == s[DEALER] and not swedish:
        s[TAKE_PENDING] = 1
        return
    s[BUYER_INDEX] += 1
    if s[BUYER_INDEX] < s[NUM_BUYERS]:
        s[CURRENT] = s[BUY_ORDER + s[BUYER_INDEX]]
    else:
        _start_play(s, c)


# ----------------------------------------------------------------------------- play
@jit
def _start_play(s: np.ndarray, c: np.ndarray) -> None:
    count = _active_order(s, c, PLAY_ORDER)
    s[NUM_PLAYING] = count
    for k in range(count):
        s[NEXT_IN_PLAY + s[PLAY_ORDER + k]] = s[PLAY_ORDER + (k + 1) % count]
    if c[C_SPECIALS] or c[C_JACKS]:
        for k in range(count):
            seat = s[PLAY_ORDER + k]
            s[ACES_HELD + seat] = _ace_value(s[HAND + seat])
    if c[C_SPECIALS]:
        for k in range(count):
            seat = s[PLAY_ORDER + k]
            if s[HAND + seat] & ACES == ACES:
                s[SHOWN] |= s[HAND + seat]
                s[SHOWN_BY] |= _bit(seat)
                _end_game(s, c, _bit(seat))
                return
        for k in range(count):
            seat = s[PLAY_ORDER + k]
            hand = s[HAND + seat]
            for suit in range(4):
                if hand and hand & SUIT_MASK[suit] == hand:
                    s[SHOWN] |= hand
                    s[SHOWN_BY] |= _bit(seat)
                    _score_flush(s, c, seat)
                    return
    s[PHASE] = PLAY
    s[LEADER] = s[CURRENT] = s[PLAY_ORDER]
    s[TRICK_LEN] = 0


@jit
def _trick_winner(s: np.ndarray) -> int:
    trump = s[TRUMP]
    led = s[TRICK_CARD] // 13
    best_seat = s[TRICK_SEAT]
    best_key = (s[TRICK_CARD] // 13 == trump) * 100 + s[TRICK_CARD] % 13
    for k in range(1, s[TRICK_LEN]):
        card = s[TRICK_CARD + k]
        suit = card // 13
        if suit != trump and suit != led:
            continue
        key = (suit == trump) * 100 + card % 13
        if key > best_key:
            best_seat, best_key = s[TRICK_SEAT + k], key
    return best_seat


@jit
def _play(s: np.ndarray, c: np.ndarray, card: int) -> None:
    seat = s[CURRENT]
    s[HAND + seat] &= ~_bit(card)
    k = s[TRICK_LEN]
    s[TRICK_SEAT + k], s[TRICK_CARD + k] = seat, card
    s[TRICK_LEN] = k + 1
    if card == s[TURNED] and s[TURNED_AT] == AT_DEALER:
        s[TURNED_AT], s[TURNED_PUBLIC] = GONE, 0
    if k + 1 < s[NUM_PLAYING]:
        s[CURRENT] = s[NEXT_IN_PLAY + seat]
        return
    winner = _trick_winner(s)
    won_with = -1
    for j in range(k + 1):
        s[PLAYED + s[TRICK_SEAT + j]] |= _bit(s[TRICK_CARD + j])
        if s[TRICK_SEAT + j] == winner:
            won_with = s[TRICK_CARD + j]
    s[TRICK_LEN] = 0
    s[COMPLETED] += 1
    s[TRICKS_WON + winner] += 1
    if c[C_HONOUR]:
        high = won_with // 13 == s[TRUMP] and won_with % 13 >= KING
        s[QUEEN_DUE] = winner if high else -1
    if c[C_SWEDISH] and _take_trick_point(s, c, winner):
        return
    if s[COMPLETED] == 5:
        _finish_deal(s, c)
    else:
        s[LEADER] = s[CURRENT] = winner


@jit
def _take_trick_point(s: np.ndarray, c: np.ndarray, seat: int) -> bool:
    if s[PHASE] != PLAY:
        s[TRICKS_WON + seat] += 1
    s[SCORES + seat] -= 1
    if c[C_END_AT_ZERO] and s[SCORES + seat] == 0:
        _end_rams(s, c, _bit(seat))
        return True
    return False


# ----------------------------------------------------------------------------- scoring
@jit
def _lowest(s: np.ndarray, c: np.ndarray, column: int) -> int:
    """The seats (a mask) with the lowest value in ``s[column:]``."""
    n = c[C_PLAYERS]
    low = s[column]
    for seat in range(1, n):
        low = min(low, s[column + seat])
    seats = np.int64(0)
    for seat in range(n):
        if s[column + seat] == low:
            seats |= _bit(seat)
    return seats


@jit
def _check_zero(s: np.ndarray, c: np.ndarray) -> None:
    for seat in range(c[C_PLAYERS]):
        if s[SCORES + seat] <= 0:
            _end_rams(s, c, _lowest(s, c, SCORES))
            return
    _deal_over(s)


@jit
def _finish_deal(s: np.ndarray, c: np.ndarray) -> None:
    n, fine = c[C_PLAYERS], c[C_FLIGHT_FINE]
    for seat in range(n):
        if c[C_SWEDISH]:
            if s[ACTIVE + seat] == 1 and s[TRICKS_WON + seat] == 0:
                s[SCORES + seat] = min(s[SCORES + seat] + fine, c[C_FLIGHT_CAP])
                s[FLIGHTS + seat] += 1
                s[RAMS_FLIGHTS + seat] += 1
            continue
        bonus = s[JACKS + seat]
        if bonus:
            _show_jacks(s, seat)
        if s[ACTIVE + seat] != 1:
            s[SCORES + seat] -= bonus
        elif s[TRICKS_WON + seat]:
            s[SCORES + seat] -= s[TRICKS_WON + seat] + s[ACES_HELD + seat] + bonus
        elif bonus:
            s[SCORES + seat] -= ALL_JACKS_NO_TRICK if bonus == ALL_JACKS_BONUS else 0
        else:
            s[SCORES + seat] += fine + s[ACES_HELD + seat]
            s[FLIGHTS + seat] += 1
            s[RAMS_FLIGHTS + seat] += 1
    _check_zero(s, c)


@jit
def _score_flush(s: np.ndarray, c: np.ndarray, holder: int) -> None:
    for k in range(s[NUM_PLAYING]):
        seat = s[PLAY_ORDER + k]
        if seat == holder:
            s[SCORES + seat] -= FIVE_OF_A_SUIT_BONUS + s[ACES_HELD + seat]
        else:
            s[SCORES + seat] += c[C_FLIGHT_FINE] + s[ACES_HELD + seat]
    _check_zero(s, c)


@jit
def _deal_over(s: np.ndarray) -> None:
    s[PHASE], s[CURRENT] = DEAL_OVER, -1


@jit
def _close_rams(s: np.ndarray, c: np.ndarray, winners: int) -> None:
    s[RAMS_OVER] = 1
    s[RAMS_WINNERS] = winners
    for seat in range(c[C_PLAYERS]):
        s[TOTALS + seat] += s[SCORES + seat]


@jit
def _end_rams(s: np.ndarray, c: np.ndarray, winners: int) -> None:
    _close_rams(s, c, winners)
    if s[RAMS_NUMBER] + 1 < c[C_RAMSAR]:
        _deal_over(s)
    elif c[C_RAMSAR] == 1:
        _end_game(s, c, winners)
    else:
        tied = _lowest(s, c, TOTALS)
        fewest = 1 << 40
        for seat in range(c[C_PLAYERS]):
            if tied & _bit(seat):
                fewest = min(fewest, s[FLIGHTS + seat])
        best = np.int64(0)
        for seat in range(c[C_PLAYERS]):
            if tied & _bit(seat) and s[FLIGHTS + seat] == fewest:
                best |= _bit(seat)
        _end_game(s, c, best)


@jit
def _end_game(s: np.ndarray, c: np.ndarray, winners: int) -> None:
    if not s[RAMS_OVER]:
        _close_rams(s, c, winners)
    s[GAME_WINNERS] = winners
    s[PHASE], s[CURRENT] = GAME_OVER, -1


# ----------------------------------------------------------------------------- applying
@jit
def apply(s: np.ndarray, c: np.ndarray, action: int) -> None:
    """Apply a legal action of the player to act (the caller checked it against ``s[LEGAL]``)."""
    phase = s[PHASE]
    if phase == PLAY:
        _play(s, c, action)
    elif phase == BUY:
        _buy(s, c, action)
    elif phase == KNOCK_PHASE:
        _knock(s, c, action)
    elif phase == BID:
        _bid(s, c, action)
    else:
        _answer(s, c, action)
    s[LEGAL] = legal_set(s, c)


# ----------------------------------------------------------------------------- encoding
@jit
def _put_cards(out: np.ndarray, at: int, cards: int) -> None:
    while cards:
        out[at + trailing_zeros(cards)] = 1.0
        cards &= cards - 1


@jit
def _clip(x: float, bound: float) -> float:
    return -bound if x < -bound else bound if x > bound else x


@jit
def _encode_bid(out: np.ndarray, at: int, made: int, done: int, happened: int) -> None:
    if made:
        out[at] = 1.0
        if not done:
            out[at + 1] = 1.0
        elif happened:
            out[at + 2] = 1.0


@jit
def encode(s: np.ndarray, c: np.ndarray, seat: int, out: np.ndarray) -> None:
    """``ObservationEncoder.encode(game, seat)`` into ``out`` (float32, zeroed here)."""
    out[:] = 0.0
    n = c[C_PLAYERS]
    phase = s[PHASE]
    _put_cards(out, O_HAND, s[HAND + seat])
    out[O_TRUMP + s[TRUMP]] = 1.0
    out[O_TURNED + s[TURNED]] = 1.0
    if s[TURNED_PUBLIC]:
        out[O_TURNED_AT + s[TURNED_AT]] = 1.0  # AT_DEALER or ON_TABLE while public
    if phase <= PLAY:
        out[O_PHASE + phase] = 1.0
        out[O_TO_ACT + (s[CURRENT] - seat) % n] = 1.0
    else:
        out[O_PHASE + DEAL_OVER] = 1.0  # "over", for the end of a deal and of the game
    out[O_DEALER + (s[DEALER] - seat) % n] = 1.0
    for r in range(n):
        out[O_SEATS + r] = 1.0
    out[O_VARIANT + c[C_VARIANT]] = 1.0
    if c[C_DECK_SIZE] == 32:
        out[O_DECK32] = 1.0
    _encode_bid(out, O_BETTER_BID, s[BETTER_MADE], s[BETTER_DONE], s[BETTER_HAPPENED])
    _encode_bid(out, O_SWING_BID, s[SWING_MADE], s[SWING_DONE], s[SWING_HAPPENED])
    for other in range(n):
        r = (other - seat) % n
        if s[BETTER_ANSWER + other] >= 0:
            out[O_BETTER_ANSWERS + r + (0 if s[BETTER_ANSWER + other] else P)] = 1.0
        if s[SWING_ANSWER + other] >= 0:
            out[O_SWING_ANSWERS + r + (0 if s[SWING_ANSWER + other] else P)] = 1.0
        if s[ACTIVE + other] == 1:
            out[O_KNOCKED + r] = 1.0
        elif s[ACTIVE + other] == 0:
            out[O_PASSED + r] = 1.0
        _put_cards(out, O_PLAYED + NUM_CARDS * r, s[PLAYED + other])
        if s[SHOWN_BY] & _bit(other):
            out[O_SHOWN_BY + r] = 1.0
        if s[SCORES + other] == 1:
            out[O_AT_ONE + r] = 1.0
        if s[PASSED_PREV + other]:
            out[O_PASSED_LAST + r] = 1.0
        out[O_DISCARDED + r] = s[DISCARDS + other] / DISCARDED_SCALE
        out[O_DRAWN + r] = s[DRAWS + other] / DRAWN_SCALE
        out[O_TRICKS + r] = s[TRICKS_WON + other] / TRICKS_SCALE
        out[O_SCORES + r] = _clip(s[SCORES + other] / float(c[C_SCORES_SCALE]), SCORES_CLIP)
        out[O_FLIGHTS + r] = _clip(s[RAMS_FLIGHTS + other] / FLIGHTS_SCALE, FLIGHTS_CLIP)
        out[O_TOTALS + r] = _clip(s[TOTALS + other] / float(c[C_TOTALS_SCALE]), TOTALS_CLIP)
        score = s[SCORES + other]
        for k in range(RACE_FLAGS):
            if score <= k + 1:
                out[O_SCORE_LEFT + RACE_FLAGS * r + k] = 1.0
        cost = min(c[C_FLIGHT_FINE], c[C_FLIGHT_CAP] - score) if c[C_SWEDISH] else c[C_FLIGHT_FINE]
        out[O_FLIGHT_COST + r] = max(0, cost) / FLIGHT_COST_SCALE
    out[O_START] = c[C_START] / START_SCALE
    if s[TAKE_PENDING]:
        out[O_TAKE_PENDING] = 1.0
    for k in range(s[TRICK_LEN]):
        out[O_TRICK + NUM_CARDS * ((s[TRICK_SEAT + k] - seat) % n) + s[TRICK_CARD + k]] = 1.0
    if s[TRICK_LEN]:
        out[O_TRICK_LEADER + (s[TRICK_SEAT] - seat) % n] = 1.0
    _put_cards(out, O_OUT, s[OUT_PUBLIC] | s[OUT_HIDDEN + seat])
    _put_cards(out, O_SHOWN, s[SHOWN])
    if phase == KNOCK_PHASE and s[CURRENT] == seat and _must_knock(s, c, seat):
        out[O_MUST_KNOCK] = 1.0
    if s[QUEEN_DUE] == seat:
        out[O_QUEEN_DUE] = 1.0
    out[O_PENDING] = s[PENDING_DISCARDS] / PENDING_SCALE
    out[O_TRICKS_DONE] = s[COMPLETED] / TRICKS_DONE_SCALE
    out[O_TALON] = _talon_size(s, c) / float(c[C_TALON_SCALE])
    out[O_OWN_JACKS] = s[JACKS + seat] / JACKS_SCALE
    if c[C_SPECIALS]:
        out[O_OWN_ACES] = _ace_value(s[HAND + seat]) / ACES_SCALE
    out[O_PROGRESS] = s[RAMS_NUMBER] / float(c[C_RAMS_SCALE])
    out[O_PROGRESS + 1] = _clip(s[DEAL_IN_RAMS] / DEAL_SCALE, DEAL_CLIP)


def legal_actions(s: np.ndarray) -> list[int]:
    """The legal action ids of a game's state row, ascending (for messages and ``legal_actions()``)."""
    legal = int(s[LEGAL])
    return [a for a in range(NUM_ACTIONS) if (legal >> a) & 1]


@jit
def write_mask(s: np.ndarray, seat: int, out: np.ndarray) -> None:
    """The int8 action mask of ``seat`` (all zeros unless it is to act)."""
    legal = s[LEGAL] if s[CURRENT] == seat else np.int64(0)
    for a in range(NUM_ACTIONS):
        out[a] = (legal >> a) & 1


# ----------------------------------------------------------------------------- episodes
@jit
def _next_deal_or_end(s: np.ndarray, c: np.ndarray, rng: np.ndarray) -> bool:
    """``rams_env.episode.next_deal_or_end``: True if the episode ends, else deal on."""
    if s[PHASE] == GAME_OVER or c[C_EPISODE] == EPISODE_DEAL or (c[C_EPISODE] == EPISODE_RAMS and s[RAMS_OVER]):
        return True
    next_deal(s, c, rng)
    s[LEGAL] = legal_set(s, c)
    return s[PHASE] == GAME_OVER


@jit
def _win_rewards(s: np.ndarray, c: np.ndarray, out: np.ndarray) -> None:
    n = c[C_PLAYERS]
    winners = s[GAME_WINNERS] if s[GAME_WINNERS] >= 0 else s[RAMS_WINNERS]
    won = _count(winners)
    lost = n - won
    for seat in range(n):
        if winners & _bit(seat):
            out[seat] += 1.0 / won
        elif lost:
            out[seat] += -1.0 / lost


@jit
def start_episode(s: np.ndarray, c: np.ndarray, seeder: np.ndarray, rng: np.ndarray) -> None:
    """The next episode of a game: ``Game(config, seed=seeder.getrandbits(63))``, skipping games
    that end before any decision (russian: a player going out on jacks at the deal)."""
    while True:
        new_game(s, c, rng, mt_bits63(seeder))
        if s[PHASE] != GAME_OVER:
            s[LEGAL] = legal_set(s, c)
            return


@jit
def reset_batch(
    states: np.ndarray,
    rngs: np.ndarray,
    c: np.ndarray,
    seeds: np.ndarray,
    observations: np.ndarray,
    masks: np.ndarray,
    seats: np.ndarray,
) -> None:
    """Seed every game's episode generator with ``seeds`` and start its first episode."""
    for i in range(states.shape[0]):
        mt_seed(rngs[i, 0], seeds[i])
        start_episode(states[i], c, rngs[i, 0], rngs[i, 1])
        _observe(states[i], c, i, observations, masks, seats)


@jit
def _observe(s: np.ndarray, c: np.ndarray, i: int, observations: np.ndarray, masks: np.ndarray, seats: np.ndarray):
    seat = s[CURRENT]
    seats[i] = seat
    observe(s, c, seat, observations[i], masks[i])


@jit
def first_illegal(states: np.ndarray, actions: np.ndarray) -> int:
    """The first game whose action is not legal, or -1."""
    for i in range(states.shape[0]):
        a = actions[i]
        if a < 0 or a >= NUM_ACTIONS or not (states[i, LEGAL] >> a) & 1:
            return i
    return -1


@jit
def first_illegal_in(legal: np.ndarray, actions: np.ndarray) -> int:
    """The first game whose action is not in its legal set (bit ``a`` of ``legal[i]``), or -1:
    the subprocess env checks every action with it before any worker steps."""
    for i in range(legal.shape[0]):
        a = actions[i]
        if a < 0 or a >= NUM_ACTIONS or not (legal[i] >> a) & 1:
            return i
    return -1


@jit
def step_batch(
    states: np.ndarray,
    rngs: np.ndarray,
    c: np.ndarray,
    actions: np.ndarray,
    observations: np.ndarray,
    masks: np.ndarray,
    seats: np.ndarray,
    rewards: np.ndarray,
    done: np.ndarray,
) -> int:
    """Apply one action per game and write the next decisions; -1, or the first illegal game
    (then nothing was applied)."""
    bad = first_illegal(states, actions)
    if bad >= 0:
        return bad
    n = c[C_PLAYERS]
    points = c[C_WIN] == 0
    for i in range(states.shape[0]):
        s = states[i]
        for seat in range(n):
            rewards[i, seat] = s[SCORES + seat]  # the score before, until the action is applied
        apply(s, c, actions[i])
        for seat in range(n):
            rewards[i, seat] = rewards[i, seat] - s[SCORES + seat] if points else 0.0
        done[i] = False
        if s[PHASE] >= DEAL_OVER and _next_deal_or_end(s, c, rngs[i, 1]):
            if not points:
                _win_rewards(s, c, rewards[i])
            done[i] = True
            start_episode(s, c, rngs[i, 0], rngs[i, 1])
        _observe(s, c, i, observations, masks, seats)
    return -1


STEP_SCORED, STEP_INFO, STEP_OVER = 1, 2, 4  # game_step flags; bits 4 and up: the seat to act + 1


# The AEC env's buffer: one int64 array holding its game's state, the rule options, the random
# generator and the numbers each step reports (fewer arguments make a cheaper compiled call).
B_CONFIG = STATE_WIDTH
B_RNG = B_CONFIG + C_SIZE
B_NUMBERS = B_RNG + 625  # score changes, scores, tricks (each P), then the winners' seat mask
BUFFER_WIDTH = B_NUMBERS + 3 * P + 1


def aec_buffer(config: RulesConfig, episode: str, reward: str) -> np.ndarray:
    """A zeroed AEC buffer with the rule options in place."""
    buffer = np.zeros(BUFFER_WIDTH, np.int64)
    buffer[B_CONFIG:B_RNG] = config_array(config, episode, reward)
    return buffer


@jit
def aec_start(
    buffer: np.ndarray,
    seed: int,
    dealer: int,
    scores: np.ndarray,
    deck: np.ndarray,
    observation: np.ndarray,
    mask: np.ndarray,
) -> int:
    """Start the AEC env's game (see :func:`new_game_with`): the numbers get the scores and tricks,
    ``observation`` and ``mask`` those of the seat to act; returns that seat (-1 if none)."""
    s, c = buffer[:STATE_WIDTH], buffer[B_CONFIG:B_RNG]
    new_game_with(s, c, buffer[B_RNG:B_NUMBERS], seed, dealer, scores, deck)
    numbers = buffer[B_NUMBERS:]
    for seat in range(c[C_PLAYERS]):
        numbers[seat] = 0
        numbers[P + seat] = s[SCORES + seat]
        numbers[2 * P + seat] = s[TRICKS_WON + seat]
    if s[CURRENT] >= 0:
        observe(s, c, s[CURRENT], observation, mask)
    return s[CURRENT]


@jit
def game_step(buffer: np.ndarray, action: int, observation: np.ndarray, mask: np.ndarray) -> int:
    """One action of the AEC env's game: -1 if illegal (nothing changes), else ``STEP_*`` flags
    plus ``(seat to act + 1) << 4``.

    The numbers of the buffer receive each seat's score change (before - after), score and tricks
    this deal, and at the end of an episode the winners. ``STEP_INFO``: a trick or the deal ended
    (infos change). ``observation`` and ``mask`` receive those of the seat to act next (if any),
    which is the observation an AEC loop reads next.
    """
    s, c = buffer[:STATE_WIDTH], buffer[B_CONFIG:B_RNG]
    numbers = buffer[B_NUMBERS:]
    if action < 0 or action >= NUM_ACTIONS or not (s[LEGAL] >> action) & 1:
        return -1
    n = c[C_PLAYERS]
    for seat in range(n):
        numbers[seat] = s[SCORES + seat]
    completed = s[COMPLETED]
    apply(s, c, action)
    flags = 0
    for seat in range(n):
        numbers[seat] -= s[SCORES + seat]
        if numbers[seat]:
            flags |= STEP_SCORED
    if s[COMPLETED] != completed:
        flags |= STEP_INFO
    if s[PHASE] >= DEAL_OVER:
        flags |= STEP_INFO
        if _next_deal_or_end(s, c, buffer[B_RNG:B_NUMBERS]):
            flags |= STEP_OVER
            numbers[3 * P] = s[GAME_WINNERS] if s[GAME_WINNERS] >= 0 else s[RAMS_WINNERS]
    for seat in range(n):
        numbers[P + seat] = s[SCORES + seat]
        numbers[2 * P + seat] = s[TRICKS_WON + seat]
    if s[CURRENT] >= 0:
        observe(s, c, s[CURRENT], observation, mask)
    return flags | ((s[CURRENT] + 1) << 4)


@jit
def observe(s: np.ndarray, c: np.ndarray, seat: int, observation: np.ndarray, mask: np.ndarray) -> None:
    """``seat``'s observation and action mask, written into the given arrays."""
    encode(s, c, seat, observation)
    write_mask(s, seat, mask)


@jit
def random_legal_actions(masks: np.ndarray, rng: np.ndarray, out: np.ndarray) -> None:
    """A uniformly random legal action per row of ``masks`` (drawn with the MT state ``rng``);
    the benchmark's policy, compiled so that choosing costs less than stepping."""
    for i in range(masks.shape[0]):
        count = 0
        for a in range(NUM_ACTIONS):
            count += masks[i, a]
        pick = mt_randbelow(rng, count)
        for a in range(NUM_ACTIONS):
            if masks[i, a]:
                if pick == 0:
                    out[i] = a
                    break
                pick -= 1
