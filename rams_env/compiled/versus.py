"""The batched env's loops with heuristic seats played inside the compiled step.

A game's heuristic seats are a seat mask; each heuristic seat has its own generator
(``hrngs[game, seat]``, seeded like ``HeuristicAgent(seed=...)``). After the controlled seat's
action, every decision of a heuristic seat is encoded, decided by :mod:`.heuristic` and applied
in the same call, until a controlled seat is to act. Rewards add up over all those actions;
when the episode ends among them, ``done`` is set, the game restarts, and the rewards of the
heuristic moves before the next controlled decision are carried into the next step's rewards
(they belong to the new episode). An episode that ends before any controlled decision (say a
dealer credited with the tricks when everyone else passes, at the first deal of a one-deal
episode) is played out, its rewards dropped, and counted in ``skipped``.

Each kernel takes one typed value of arrays, built by the factory next to it: :class:`VersusTables`
(:func:`make_versus_tables`) for the batched env's games, written into :class:`VersusOutputs`, and
:class:`DealTables` (:func:`make_deal_tables`) for the evaluation's one-episode games, started from
:class:`DealStarts`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..obs.encoding import OBS_SIZE
from ..rules.actions import NUM_ACTIONS
from .compiler import jit
from .drivers import first_illegal, next_deal_or_end, observe_into, start_episode, win_rewards
from .encode import encode, observe
from .heuristic import WORK_SIZE, heuristic_action
from .layout import C_PLAYERS, C_WIN, CURRENT, DEAL_OVER, LEGAL, PHASE, SCORES, STATE_WIDTH, P
from .mt import mt_seed
from .rules import apply, new_game_with
from .workspace import mt_states


@jit
def apply_scored(s: np.ndarray, c: np.ndarray, action: int, rewards: np.ndarray) -> None:
    """Apply ``action``, adding the score decreases to ``rewards`` (points rewards)."""
    n = c[C_PLAYERS]
    points = c[C_WIN] == 0
    for seat in range(n):
        rewards[seat] += s[SCORES + seat] if points else 0
    apply(s, c, action)
    for seat in range(n):
        rewards[seat] -= s[SCORES + seat] if points else 0


# ----------------------------------------------------------------------------- the batched env's games
class VersusTables(NamedTuple):
    """The games of a batched env with heuristic seats (one row a game)."""

    states: np.ndarray  # (N, STATE_WIDTH) int64
    rngs: np.ndarray  # (N, 2, MT) int64: episode seeder, game generator
    hmasks: np.ndarray  # (N,) int64: the heuristic seats (bit mask) of the current episode
    hnext: np.ndarray  # (N,) int64: those of each game's next episode
    hrngs: np.ndarray  # (N, P, MT) int64: each heuristic seat's generator
    carry: np.ndarray  # (N, num_players) float32: rewards carried into the next step
    work: np.ndarray  # (WORK_SIZE,) float64: the heuristic's scratch
    iwork: np.ndarray  # (WORK_SIZE,) int64


class VersusOutputs(NamedTuple):
    """What ``reset_versus`` and ``step_versus`` write for every game (the fields of a ``BatchStep``)."""

    observations: np.ndarray  # (N, OBS_SIZE) float32: the acting seat's (the heuristic's scratch meanwhile)
    masks: np.ndarray  # (N, NUM_ACTIONS) int8
    seats: np.ndarray  # (N,) int64
    rewards: np.ndarray  # (N, num_players) float32 (``step_versus`` only)
    done: np.ndarray  # (N,) bool (``step_versus`` only)


def make_versus_tables(num_games: int, num_players: int) -> VersusTables:
    """Zeroed tables for ``num_games`` games of ``num_players``."""
    return VersusTables(
        np.zeros((num_games, STATE_WIDTH), np.int64),
        mt_states(num_games, 2),
        np.zeros(num_games, np.int64),
        np.zeros(num_games, np.int64),
        mt_states(num_games, P),
        np.zeros((num_games, num_players), np.float32),
        np.zeros(WORK_SIZE, np.float64),
        np.zeros(WORK_SIZE, np.int64),
    )


@jit
def _advance(
    t: VersusTables,
    c: np.ndarray,
    i: int,
    scratch: np.ndarray,
    rewards: np.ndarray,
    carry: np.ndarray,
    ended: bool,
    renew: bool,
) -> tuple:
    """Play the heuristic seats (``t.hmasks[i]``) of game ``i`` until a controlled seat is to act;
    rewards go to ``rewards`` until an episode ends (``ended``), then to ``carry``; at an episode
    end ``t.hmasks[i]`` becomes ``t.hnext[i]`` if ``renew``. Returns (ended, skipped)."""
    s = t.states[i]
    rngs = t.rngs[i]
    hrngs = t.hrngs[i]
    n = c[C_PLAYERS]
    skipped = 0
    while (t.hmasks[i] >> s[CURRENT]) & 1:
        seat = s[CURRENT]
        encode(s, c, seat, scratch)
        action = heuristic_action(scratch, c, s[LEGAL], hrngs[seat], t.work, t.iwork)
        apply_scored(s, c, action, carry if ended else rewards)
        if s[PHASE] >= DEAL_OVER and next_deal_or_end(s, c, rngs[1]):
            if ended:  # a whole episode without a controlled decision
                skipped += 1
                for k in range(n):
                    carry[k] = 0.0
            else:
                if c[C_WIN]:
                    win_rewards(s, c, rewards)
                ended = True
            start_episode(s, c, rngs[0], rngs[1])
            if renew:
                t.hmasks[i] = t.hnext[i]
    return ended, skipped


@jit
def seed_heuristics(hrngs: np.ndarray, seeds: np.ndarray) -> None:
    """Seed ``hrngs[i, seat]`` with ``seeds[i, seat]`` (``random.Random(seed)``)."""
    for i in range(seeds.shape[0]):
        for seat in range(seeds.shape[1]):
            mt_seed(hrngs[i, seat], seeds[i, seat])


@jit
def reset_versus(t: VersusTables, c: np.ndarray, seeds: np.ndarray, hseeds: np.ndarray, out: VersusOutputs) -> int:
    """``reset_batch`` (game ``i`` seeded ``seeds[i]``, its heuristic seats ``hseeds[i]``), then the
    heuristic seats' moves up to each game's first controlled decision (their rewards into
    ``t.carry``); returns the episodes skipped."""
    seed_heuristics(t.hrngs, hseeds)
    skipped = 0
    for i in range(t.states.shape[0]):
        mt_seed(t.rngs[i, 0], seeds[i])
        start_episode(t.states[i], c, t.rngs[i, 0], t.rngs[i, 1])
        for k in range(t.carry.shape[1]):
            t.carry[i, k] = 0.0
        skipped += _advance(t, c, i, out.observations[i], t.carry[i], t.carry[i], True, False)[1]
        observe_into(t.states[i], c, i, out.observations, out.masks, out.seats)
    return skipped


@jit
def step_versus(t: VersusTables, c: np.ndarray, actions: np.ndarray, out: VersusOutputs) -> tuple:
    """``step_batch`` with the heuristic seats played inside: returns (the first illegal game or
    -1, the episodes skipped); nothing is applied when an action is illegal. When game ``i``'s
    episode ends, its next episode is played with the heuristic seats ``t.hnext[i]``
    (``t.hmasks[i]`` becomes that)."""
    bad = first_illegal(t.states, actions)
    if bad >= 0:
        return bad, 0
    n = c[C_PLAYERS]
    skipped = 0
    for i in range(t.states.shape[0]):
        s = t.states[i]
        rewards = out.rewards[i]
        for seat in range(n):
            rewards[seat] = t.carry[i, seat]
            t.carry[i, seat] = 0.0
        apply_scored(s, c, actions[i], rewards)
        ended = False
        if s[PHASE] >= DEAL_OVER and next_deal_or_end(s, c, t.rngs[i, 1]):
            if c[C_WIN]:
                win_rewards(s, c, rewards)
            ended = True
            start_episode(s, c, t.rngs[i, 0], t.rngs[i, 1])
            t.hmasks[i] = t.hnext[i]
        ended, lost = _advance(t, c, i, out.observations[i], rewards, t.carry[i], ended, True)
        skipped += lost
        out.done[i] = ended
        observe_into(s, c, i, out.observations, out.masks, out.seats)
    return -1, skipped


# ----------------------------------------------------------------------------- one episode per game
# The evaluation's games: each slot plays one episode from a given deal and then stops.
class DealTables(NamedTuple):
    """The evaluation's game slots (one row a slot), each playing one episode from a deal."""

    states: np.ndarray  # (N, STATE_WIDTH) int64
    rngs: np.ndarray  # (N, 2, MT) int64: (unused), game generator
    hmasks: np.ndarray  # (N,) int64: the heuristic seats (bit mask)
    hrngs: np.ndarray  # (N, P, MT) int64: each heuristic seat's generator
    observations: np.ndarray  # (N, OBS_SIZE) float32: the controlled seat's, when it is to act
    masks: np.ndarray  # (N, NUM_ACTIONS) int8
    over: np.ndarray  # (N,) bool: the slot's episode has ended
    deals: np.ndarray  # (N,) int64: the deals finished in the slot's episode
    work: np.ndarray  # (WORK_SIZE,) float64: the heuristic's scratch
    iwork: np.ndarray  # (WORK_SIZE,) int64


class DealStarts(NamedTuple):
    """The ``k``-th game started: ``Game(config, seeds[k], deck=decks[k], dealer=dealers[k],
    scores=scores[k])`` with heuristic seats ``hmasks[k]``, seat ``j``'s seeded ``hseeds[k, j]``."""

    seeds: np.ndarray  # (K,) int64
    dealers: np.ndarray  # (K,) int64
    scores: np.ndarray  # (K, num_players) int64
    decks: np.ndarray  # (K, deck size) int64: card indices
    hmasks: np.ndarray  # (K,) int64
    hseeds: np.ndarray  # (K, P) int64


def make_deal_tables(size: int) -> DealTables:
    """Zeroed tables of ``size`` slots."""
    return DealTables(
        np.zeros((size, STATE_WIDTH), np.int64),
        mt_states(size, 2),
        np.zeros(size, np.int64),
        mt_states(size, P),
        np.zeros((size, OBS_SIZE), np.float32),
        np.zeros((size, NUM_ACTIONS), np.int8),
        np.zeros(size, np.bool_),
        np.zeros(size, np.int64),
        np.zeros(WORK_SIZE, np.float64),
        np.zeros(WORK_SIZE, np.int64),
    )


@jit
def _deal_ended(t: DealTables, c: np.ndarray, i: int) -> bool:
    """After an action in slot ``i``: count a finished deal; True if the episode is over (else the next
    deal is dealt)."""
    s = t.states[i]
    if s[PHASE] < DEAL_OVER:
        return False
    t.deals[i] += 1
    return next_deal_or_end(s, c, t.rngs[i, 1])


@jit
def _advance_to_end(t: DealTables, c: np.ndarray, i: int) -> bool:
    """Play slot ``i``'s heuristic seats until a controlled seat is to act (False) or the episode ends (True)."""
    s = t.states[i]
    hmask = t.hmasks[i]
    hrngs = t.hrngs[i]
    scratch = t.observations[i]
    while (hmask >> s[CURRENT]) & 1:
        seat = s[CURRENT]
        encode(s, c, seat, scratch)
        apply(s, c, heuristic_action(scratch, c, s[LEGAL], hrngs[seat], t.work, t.iwork))
        if _deal_ended(t, c, i):
            return True
    return False


@jit
def start_deals(t: DealTables, c: np.ndarray, slots: np.ndarray, starts: DealStarts) -> None:
    """Start slot ``slots[k]`` from the ``k``-th of ``starts`` and play its heuristic seats up to the
    first controlled decision (its observation and mask written) or the end of the episode (``t.over``)."""
    for k in range(slots.size):
        i = slots[k]
        s = t.states[i]
        for seat in range(starts.hseeds.shape[1]):
            mt_seed(t.hrngs[i, seat], starts.hseeds[k, seat])
        new_game_with(s, c, t.rngs[i, 1], starts.seeds[k], starts.dealers[k], starts.scores[k], starts.decks[k])
        t.hmasks[i] = starts.hmasks[k]
        t.deals[i] = 0
        _settle(t, c, i)


@jit
def _settle(t: DealTables, c: np.ndarray, i: int) -> None:
    """After a start or an action: the heuristic seats' moves, then the next controlled decision or the end."""
    s = t.states[i]
    ended = s[CURRENT] < 0 and _deal_ended(t, c, i)
    if not ended:
        ended = _advance_to_end(t, c, i)
    t.over[i] = ended
    if not ended:
        observe(s, c, s[CURRENT], t.observations[i], t.masks[i])


@jit
def step_deals(t: DealTables, c: np.ndarray, slots: np.ndarray, actions: np.ndarray) -> int:
    """Apply ``actions[k]`` in slot ``slots[k]`` and settle it (as ``start_deals``); returns the
    first ``k`` whose action is illegal (nothing applied from it on), or -1."""
    for k in range(slots.size):
        i = slots[k]
        s = t.states[i]
        a = actions[k]
        if a < 0 or a >= 64 or not (s[LEGAL] >> a) & 1:
            return k
        apply(s, c, a)
        if _deal_ended(t, c, i):
            t.over[i] = True
            continue
        _settle(t, c, i)
    return -1
