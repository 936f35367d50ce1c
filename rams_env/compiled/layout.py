"""The compiled engine's data model: the rule options as an int64 vector (``C_*`` columns), the
state of a game as one int64 row (the columns below), the rules' phase, action and place numbers
as plain ints, and the 52-bit card masks with their helpers."""

from __future__ import annotations

import numpy as np

from ..obs.encoding import FIELD, config_scale, preset_slot
from ..rules import Phase, RulesConfig, TurnedAt, cards
from ..rules.actions import Action
from ..rules.cards import ACE, NUM_CARDS
from ..rules.config import END_AT_ZERO, MAX_PLAYERS, UNANIMOUS
from ..rules.episode import EpisodeKind, episode_kind
from .compiler import jit

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
    cfg[C_VARIANT] = preset_slot(config.variant)  # its slot in the observation's preset field
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


# ----------------------------------------------------------------------------- cards and card masks


# rules/cards.py's suit_of and rank_of, which compiled code cannot call: the one place the compiled
# engine and heuristic split a card into suit and rank (numba inlines them).
@jit
def suit_of(card: int) -> int:
    """Suit index of a card (``rams_env.rules.cards.suit_of``)."""
    return card // 13


@jit
def rank_of(card: int) -> int:
    """Rank index of a card (``rams_env.rules.cards.rank_of``)."""
    return card % 13


@jit
def card_bit(card: int) -> int:
    return np.int64(1) << np.int64(card)


@jit
def above_mask(suit: int, rank: int) -> int:
    """The cards of ``suit`` ranked above ``rank`` (-1: the whole suit)."""
    return SUIT_MASK[suit] & ~((np.int64(1) << np.int64(suit * 13 + rank + 1)) - 1)


@jit
def bit_count(mask: int) -> int:
    count = 0
    while mask:
        mask &= mask - 1
        count += 1
    return count


# cards.ace_value
@jit
def hand_aces(hand: int) -> int:
    total = 0
    for suit in range(4):
        if hand & card_bit(suit * 13 + ACE):
            total += ACE_VALUES[suit]
    return total
