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
"""

from __future__ import annotations

import numpy as np

from .compiler import jit
from .drivers import first_illegal, next_deal_or_end, observe_into, start_episode, win_rewards
from .encode import encode, observe
from .heuristic import heuristic_action
from .layout import C_PLAYERS, C_WIN, CURRENT, DEAL_OVER, LEGAL, PHASE, SCORES
from .mt import mt_seed
from .rules import apply, new_game_with


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


@jit
def _advance(
    s: np.ndarray,
    c: np.ndarray,
    rngs: np.ndarray,
    hmasks: np.ndarray,
    hnext: np.ndarray,
    i: int,
    hrngs: np.ndarray,
    scratch: np.ndarray,
    work: np.ndarray,
    iwork: np.ndarray,
    rewards: np.ndarray,
    carry: np.ndarray,
    ended: bool,
) -> tuple:
    """Play the heuristic seats (``hmasks[i]``) of game ``i`` until a controlled seat is to act;
    rewards go to ``rewards`` until an episode ends (``ended``), then to ``carry``; at an episode
    end ``hmasks[i]`` becomes ``hnext[i]``. Returns (ended, skipped)."""
    n = c[C_PLAYERS]
    skipped = 0
    while (hmasks[i] >> s[CURRENT]) & 1:
        seat = s[CURRENT]
        encode(s, c, seat, scratch)
        action = heuristic_action(scratch, c, s[LEGAL], hrngs[seat], work, iwork)
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
            hmasks[i] = hnext[i]
    return ended, skipped


@jit
def seed_heuristics(hrngs: np.ndarray, seeds: np.ndarray) -> None:
    """Seed ``hrngs[i, seat]`` with ``seeds[i, seat]`` (``random.Random(seed)``)."""
    for i in range(seeds.shape[0]):
        for seat in range(seeds.shape[1]):
            mt_seed(hrngs[i, seat], seeds[i, seat])


@jit
def reset_versus(
    states: np.ndarray,
    rngs: np.ndarray,
    c: np.ndarray,
    seeds: np.ndarray,
    hmasks: np.ndarray,
    hrngs: np.ndarray,
    hseeds: np.ndarray,
    observations: np.ndarray,
    masks: np.ndarray,
    seats: np.ndarray,
    carry: np.ndarray,
    work: np.ndarray,
    iwork: np.ndarray,
) -> int:
    """``reset_batch``, then the heuristic seats' moves up to each game's first controlled
    decision (their rewards into ``carry``); returns the episodes skipped."""
    seed_heuristics(hrngs, hseeds)
    skipped = 0
    for i in range(states.shape[0]):
        mt_seed(rngs[i, 0], seeds[i])
        start_episode(states[i], c, rngs[i, 0], rngs[i, 1])
        for k in range(carry.shape[1]):
            carry[i, k] = 0.0
        skipped += _advance(
            states[i], c, rngs[i], hmasks, hmasks, i, hrngs[i], observations[i], work, iwork, carry[i], carry[i], True
        )[1]
        observe_into(states[i], c, i, observations, masks, seats)
    return skipped


@jit
def step_versus(
    states: np.ndarray,
    rngs: np.ndarray,
    c: np.ndarray,
    actions: np.ndarray,
    hmasks: np.ndarray,
    hnext: np.ndarray,
    hrngs: np.ndarray,
    observations: np.ndarray,
    masks: np.ndarray,
    seats: np.ndarray,
    rewards: np.ndarray,
    done: np.ndarray,
    carry: np.ndarray,
    work: np.ndarray,
    iwork: np.ndarray,
) -> tuple:
    """``step_batch`` with the heuristic seats played inside: returns (the first illegal game or
    -1, the episodes skipped); nothing is applied when an action is illegal. When game ``i``'s
    episode ends, its next episode is played with the heuristic seats ``hnext[i]``
    (``hmasks[i]`` becomes that)."""
    bad = first_illegal(states, actions)
    if bad >= 0:
        return bad, 0
    n = c[C_PLAYERS]
    skipped = 0
    for i in range(states.shape[0]):
        s = states[i]
        for seat in range(n):
            rewards[i, seat] = carry[i, seat]
            carry[i, seat] = 0.0
        apply_scored(s, c, actions[i], rewards[i])
        ended = False
        if s[PHASE] >= DEAL_OVER and next_deal_or_end(s, c, rngs[i, 1]):
            if c[C_WIN]:
                win_rewards(s, c, rewards[i])
            ended = True
            start_episode(s, c, rngs[i, 0], rngs[i, 1])
            hmasks[i] = hnext[i]
        ended, lost = _advance(
            s, c, rngs[i], hmasks, hnext, i, hrngs[i], observations[i], work, iwork, rewards[i], carry[i], ended
        )
        skipped += lost
        done[i] = ended
        observe_into(s, c, i, observations, masks, seats)
    return -1, skipped


# ----------------------------------------------------------------------------- one episode per game
# The evaluation's games: each slot plays one episode from a given deal and then stops.
@jit
def _deal_ended(s: np.ndarray, c: np.ndarray, rng: np.ndarray, deals: np.ndarray, i: int) -> bool:
    """After an action: count a finished deal; True if the episode is over (else the next deal is dealt)."""
    if s[PHASE] < DEAL_OVER:
        return False
    deals[i] += 1
    return next_deal_or_end(s, c, rng)


@jit
def _advance_to_end(s, c, rngs, hmask, hrngs, scratch, work, iwork, deals, i) -> bool:
    """Play the heuristic seats until a controlled seat is to act (False) or the episode ends (True)."""
    while (hmask >> s[CURRENT]) & 1:
        seat = s[CURRENT]
        encode(s, c, seat, scratch)
        apply(s, c, heuristic_action(scratch, c, s[LEGAL], hrngs[seat], work, iwork))
        if _deal_ended(s, c, rngs[1], deals, i):
            return True
    return False


@jit
def start_deals(
    states: np.ndarray,
    rngs: np.ndarray,
    c: np.ndarray,
    slots: np.ndarray,
    seeds: np.ndarray,
    dealers: np.ndarray,
    scores: np.ndarray,
    decks: np.ndarray,
    start_masks: np.ndarray,
    hmasks: np.ndarray,
    hrngs: np.ndarray,
    hseeds: np.ndarray,
    observations: np.ndarray,
    masks: np.ndarray,
    over: np.ndarray,
    deals: np.ndarray,
    work: np.ndarray,
    iwork: np.ndarray,
) -> None:
    """Start slot ``slots[k]`` from the ``k``-th deal (``Game(config, seeds[k], deck=decks[k],
    dealer=dealers[k], scores=scores[k])``) with heuristic seats ``start_masks[k]`` seeded
    ``hseeds[k]``, and play those up to the first controlled decision (its observation and mask
    written) or the end of the episode (``over``)."""
    for k in range(slots.size):
        i = slots[k]
        s = states[i]
        for seat in range(hseeds.shape[1]):
            mt_seed(hrngs[i, seat], hseeds[k, seat])
        new_game_with(s, c, rngs[i, 1], seeds[k], dealers[k], scores[k], decks[k])
        hmasks[i] = start_masks[k]
        deals[i] = 0
        _settle(s, c, rngs[i], hmasks[i], hrngs[i], observations, masks, over, deals, work, iwork, i)


@jit
def _settle(s, c, rngs, hmask, hrngs, observations, masks, over, deals, work, iwork, i) -> None:
    """After a start or an action: the heuristic seats' moves, then the next controlled decision or the end."""
    ended = s[CURRENT] < 0 and _deal_ended(s, c, rngs[1], deals, i)
    if not ended:
        ended = _advance_to_end(s, c, rngs, hmask, hrngs, observations[i], work, iwork, deals, i)
    over[i] = ended
    if not ended:
        observe(s, c, s[CURRENT], observations[i], masks[i])


@jit
def step_deals(
    states: np.ndarray,
    rngs: np.ndarray,
    c: np.ndarray,
    slots: np.ndarray,
    actions: np.ndarray,
    hmasks: np.ndarray,
    hrngs: np.ndarray,
    observations: np.ndarray,
    masks: np.ndarray,
    over: np.ndarray,
    deals: np.ndarray,
    work: np.ndarray,
    iwork: np.ndarray,
) -> int:
    """Apply ``actions[k]`` in slot ``slots[k]`` and settle it (as ``start_deals``); returns the
    first ``k`` whose action is illegal (nothing applied from it on), or -1."""
    for k in range(slots.size):
        i = slots[k]
        s = states[i]
        a = actions[k]
        if a < 0 or a >= 64 or not (s[LEGAL] >> a) & 1:
            return k
        apply(s, c, a)
        if _deal_ended(s, c, rngs[i, 1], deals, i):
            over[i] = True
            continue
        _settle(s, c, rngs[i], hmasks[i], hrngs[i], observations, masks, over, deals, work, iwork, i)
    return -1
