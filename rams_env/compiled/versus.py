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
from .drivers import _next_deal_or_end, _observe, _win_rewards, first_illegal, start_episode
from .encode import encode
from .heuristic import heuristic_action
from .layout import C_PLAYERS, C_WIN, CURRENT, DEAL_OVER, LEGAL, PHASE, SCORES
from .mt import mt_seed
from .rules import apply


@jit
def _apply_scored(s: np.ndarray, c: np.ndarray, action: int, rewards: np.ndarray) -> None:
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
        _apply_scored(s, c, action, carry if ended else rewards)
        if s[PHASE] >= DEAL_OVER and _next_deal_or_end(s, c, rngs[1]):
            if ended:  # a whole episode without a controlled decision
                skipped += 1
                for k in range(n):
                    carry[k] = 0.0
            else:
                if c[C_WIN]:
                    _win_rewards(s, c, rewards)
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
        _observe(states[i], c, i, observations, masks, seats)
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
        _apply_scored(s, c, actions[i], rewards[i])
        ended = False
        if s[PHASE] >= DEAL_OVER and _next_deal_or_end(s, c, rngs[i, 1]):
            if c[C_WIN]:
                _win_rewards(s, c, rewards[i])
            ended = True
            start_episode(s, c, rngs[i, 0], rngs[i, 1])
            hmasks[i] = hnext[i]
        ended, lost = _advance(
            s, c, rngs[i], hmasks, hnext, i, hrngs[i], observations[i], work, iwork, rewards[i], carry[i], ended
        )
        skipped += lost
        done[i] = ended
        _observe(s, c, i, observations, masks, seats)
    return -1, skipped
