"""What every compiled driver shares (episodes: the next deal or the end, win rewards, a new episode; a
decision's observation; illegal actions), and the AEC env's one-game driver ``aec_start``/``game_step``. The
batched driver of every other face is :mod:`.core`."""

from __future__ import annotations

import numpy as np

from ..rules import RulesConfig
from ..rules.actions import NUM_ACTIONS
from ..rules.generator import MT_STATE_SIZE
from .compiler import jit
from .encode import observe
from .layout import (
    C_EPISODE,
    C_PLAYERS,
    C_SIZE,
    COMPLETED,
    CURRENT,
    DEAL_OVER,
    EPISODE_DEAL,
    EPISODE_RAMS,
    GAME_OVER,
    GAME_WINNERS,
    LEGAL,
    PHASE,
    RAMS_OVER,
    RAMS_WINNERS,
    SCORES,
    STATE_WIDTH,
    TRICKS_WON,
    P,
    bit_count,
    card_bit,
    config_array,
)
from .mt import mt_bits63
from .queries import legal_set
from .rules import apply, new_game, new_game_with, next_deal

# ----------------------------------------------------------------------------- episodes


@jit
def next_deal_or_end(s: np.ndarray, c: np.ndarray, rng: np.ndarray) -> bool:
    """``rams_env.rules.episode.next_deal_or_end``: True if the episode ends, else deal on."""
    if s[PHASE] == GAME_OVER or c[C_EPISODE] == EPISODE_DEAL or (c[C_EPISODE] == EPISODE_RAMS and s[RAMS_OVER]):
        return True
    next_deal(s, c, rng)
    s[LEGAL] = legal_set(s, c)
    return s[PHASE] == GAME_OVER


@jit
def win_rewards(s: np.ndarray, c: np.ndarray, out: np.ndarray) -> None:
    n = c[C_PLAYERS]
    winners = s[GAME_WINNERS] if s[GAME_WINNERS] >= 0 else s[RAMS_WINNERS]
    won = bit_count(winners)
    lost = n - won
    for seat in range(n):
        if winners & card_bit(seat):
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


# ----------------------------------------------------------------------------- decisions


@jit
def observe_into(s: np.ndarray, c: np.ndarray, i: int, observations: np.ndarray, masks: np.ndarray, seats: np.ndarray):
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


# ----------------------------------------------------------------------------- the AEC env


STEP_SCORED, STEP_INFO, STEP_OVER = 1, 2, 4  # game_step flags; bits 4 and up: the seat to act + 1


# The AEC env's buffer: one int64 array holding its game's state, the rule options, the random
# generator and the numbers each step reports (fewer arguments make a cheaper compiled call).
B_CONFIG = STATE_WIDTH
B_RNG = B_CONFIG + C_SIZE
B_NUMBERS = B_RNG + MT_STATE_SIZE  # score changes, scores, tricks (each P), then the winners' seat mask
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
        if next_deal_or_end(s, c, buffer[B_RNG:B_NUMBERS]):
            flags |= STEP_OVER
            numbers[3 * P] = s[GAME_WINNERS] if s[GAME_WINNERS] >= 0 else s[RAMS_WINNERS]
    for seat in range(n):
        numbers[P + seat] = s[SCORES + seat]
        numbers[2 * P + seat] = s[TRICKS_WON + seat]
    if s[CURRENT] >= 0:
        observe(s, c, s[CURRENT], observation, mask)
    return flags | ((s[CURRENT] + 1) << 4)
