"""The one compiled driver of every batched use: games whose seats are played by roles.

Each seat of game ``i`` has a role (``tables.roles[i, seat]``): a ``LEARNER`` seat (the call stops for its
decision and hands it out), an ``OUTSIDE`` seat (the call stops for it too: a policy in Python decides), or a
compiled ``HEURISTIC`` or ``RANDOM`` seat, played inside the call with generator
``tables.orngs[i, tables.slots[i, seat]]`` (seeded like ``HeuristicAgent(seed=...)`` and ``RandomAgent(seed=...)``).
Every face is a way of filling these tables:

- the batched env (:class:`~rams_env.envs.vector.BatchedRamsEnv`): every seat a learner, or some heuristic;
- the Gymnasium vector env: one learner seat a game, the others heuristic, random or outside;
- the evaluation against heuristics: one learner seat a game, from fixed deal starts (:func:`start_games`).

Each game gets a command: ``HOLD`` (untouched), ``ACT`` (apply ``actions[i]`` for the seat to act) or
``RESTART`` (the next episode from the game's episode generator, ``rngs[i, 0]``). After it the compiled seats
play until a learner or outside seat is to act, or the episode ends.

What happens at an episode's end is the call's ``autoreset``:

- ``False``: the game is held at its end (``over[i]``) with the final observation of seat ``learner[i]`` (none
  where it is -1) and an all-zero mask, until a later command restarts it (the vector env builds next-step
  and same-step autoreset on this);
- ``True`` (same-step, the batched env's): the game's next episode starts in the same call, with the roles of
  ``next_roles[i]``, and is played up to its first decision; the rewards of its compiled seats' moves before
  that decision are kept in ``carry[i]`` and paid with the next call's rewards (they belong to the new episode).

An episode that ends before any learner decision (``fresh[i]``: say the learner deals and everyone passes, at
the first deal of a one-deal episode) is dropped: its rewards are dropped and the game is dealt again from its
episode generator (``RamsGymEnv.reset()`` does the same); the calls return how many. ``start_games`` marks its
games not fresh: an evaluation plays the one episode of each deal whatever happens in it.

``rewards[i, seat]`` holds what each seat earned in the call (after an episode started in the call, ``started[i]``,
only that episode's), plus what ``carry[i]`` held. ``deals[i]`` counts the deals finished since the game's start.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..obs.encoding import OBS_SIZE
from ..rules.actions import NUM_ACTIONS
from .compiler import jit
from .drivers import next_deal_or_end, observe_into, start_episode, win_rewards
from .encode import encode
from .heuristic import WORK_SIZE, heuristic_action
from .layout import C_PLAYERS, C_WIN, CURRENT, DEAL_OVER, LEGAL, PHASE, SCORES, STATE_WIDTH, P
from .mt import mt_seed
from .random_policy import random_legal
from .rules import apply, new_game_with
from .workspace import mt_states

LEARNER, HEURISTIC, RANDOM, OUTSIDE = 0, 1, 2, 3  # who plays a seat
HOLD, ACT, RESTART = 0, 1, 2  # what a game is told to do


class Tables(NamedTuple):
    """The games and what plays their seats (one row a game)."""

    states: np.ndarray  # (N, STATE_WIDTH) int64
    rngs: np.ndarray  # (N, 2, MT) int64: episode seeder, game generator
    learner: np.ndarray  # (N,) int64: the seat whose final observation a held game shows (-1: none)
    roles: np.ndarray  # (N, P) int64: LEARNER, HEURISTIC, RANDOM or OUTSIDE
    next_roles: np.ndarray  # (N, P) int64: the roles of the episodes an autoreset starts
    slots: np.ndarray  # (N, P) int64: the generator (of orngs) of each seat's compiled player
    orngs: np.ndarray  # (N, P, MT) int64: the compiled players' generators
    fresh: np.ndarray  # (N,) bool: no learner decision yet in this episode
    carry: np.ndarray  # (N, P) float32: rewards paid with the next call (autoreset)
    carried: np.ndarray  # (N,) bool: the carry holds rewards (else it is all zero and is not read)
    deals: np.ndarray  # (N,) int64: deals finished since the game's start
    work: np.ndarray  # (WORK_SIZE,) float64: the heuristic's scratch
    iwork: np.ndarray  # (WORK_SIZE,) int64
    scratch: np.ndarray  # (OBS_SIZE,) float32: the observation a compiled seat reads


class Outputs(NamedTuple):
    """What a call writes for every commanded game (held games keep their observation and mask)."""

    observations: np.ndarray  # (N, OBS_SIZE) float32: the seat to act's, or the learner's final one
    masks: np.ndarray  # (N, NUM_ACTIONS) int8 (all zero at an episode's end)
    seats: np.ndarray  # (N,) int64: whose observation it is
    rewards: np.ndarray  # (N, num_players) float32
    over: np.ndarray  # (N,) bool: an episode ended in this call
    started: np.ndarray  # (N,) bool: an episode started in this call


class DealStarts(NamedTuple):
    """The ``k``-th game started: ``Game(config, seeds[k], deck=decks[k], dealer=dealers[k], scores=scores[k])``
    with heuristic seats ``hmasks[k]`` (the others learners), seat ``j``'s seeded ``hseeds[k, j]``."""

    seeds: np.ndarray  # (K,) int64
    dealers: np.ndarray  # (K,) int64
    scores: np.ndarray  # (K, num_players) int64
    decks: np.ndarray  # (K, deck size) int64: card indices
    hmasks: np.ndarray  # (K,) int64
    hseeds: np.ndarray  # (K, P) int64


def make_tables(num_games: int) -> Tables:
    """Zeroed tables for ``num_games`` games (every seat a learner, no final observations)."""
    return Tables(
        np.zeros((num_games, STATE_WIDTH), np.int64),
        mt_states(num_games, 2),
        np.full(num_games, -1, np.int64),
        np.zeros((num_games, P), np.int64),
        np.zeros((num_games, P), np.int64),
        np.zeros((num_games, P), np.int64),
        mt_states(num_games, P),
        np.zeros(num_games, np.bool_),
        np.zeros((num_games, P), np.float32),
        np.zeros(num_games, np.bool_),
        np.zeros(num_games, np.int64),
        np.zeros(WORK_SIZE, np.float64),
        np.zeros(WORK_SIZE, np.int64),
        np.zeros(OBS_SIZE, np.float32),
    )


def make_outputs(num_games: int, num_players: int) -> Outputs:
    """Zeroed outputs for ``num_games`` games."""
    return Outputs(
        np.zeros((num_games, OBS_SIZE), np.float32),
        np.zeros((num_games, NUM_ACTIONS), np.int8),
        np.zeros(num_games, np.int64),
        np.zeros((num_games, num_players), np.float32),
        np.zeros(num_games, np.bool_),
        np.zeros(num_games, np.bool_),
    )


def role_table(heuristic_masks: np.ndarray) -> np.ndarray:
    """The roles of games whose heuristic seats are the bit masks ``heuristic_masks`` (the others learners)."""
    bits = (heuristic_masks[:, None] >> np.arange(P, dtype=np.int64)) & 1
    return np.where(bits == 1, HEURISTIC, LEARNER).astype(np.int64)


@jit(inline=True)
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
def seed_generators(rngs: np.ndarray, seeds: np.ndarray) -> None:
    """Seed ``rngs[i, j]`` with ``seeds[i, j]`` (``random.Random(seed)``)."""
    for i in range(seeds.shape[0]):
        for j in range(seeds.shape[1]):
            mt_seed(rngs[i, j], seeds[i, j])


@jit(inline=True)
def _compiled_action(t: Tables, c: np.ndarray, i: int, seat: int) -> int:
    """The compiled player's action at ``seat`` of game ``i``."""
    s = t.states[i]
    rng = t.orngs[i, t.slots[i, seat]]
    legal = s[LEGAL]
    if t.roles[i, seat] == HEURISTIC:
        encode(s, c, seat, t.scratch)
        return heuristic_action(t.scratch, c, legal, rng, t.work, t.iwork)
    return random_legal(legal, rng)  # RANDOM


@jit(inline=True)
def _settle(t: Tables, c: np.ndarray, i: int, out: Outputs, autoreset: bool, renew: bool) -> int:
    """Play game ``i``'s compiled seats until a learner or outside seat is to act, or (without ``autoreset``)
    the episode ends; ``renew``: a dealt-again episode takes ``next_roles`` (as an autoreset's always does).
    Returns the episodes dropped."""
    s = t.states[i]
    n = c[C_PLAYERS]
    rewards = out.rewards[i]  # where the moves' rewards go: the call's, or the carry after an autoreset
    dropped = 0
    while True:
        if s[PHASE] >= DEAL_OVER:
            t.deals[i] += 1
            if next_deal_or_end(s, c, t.rngs[i, 1]):
                if t.fresh[i]:  # no learner decision in the whole episode: dropped, dealt again
                    dropped += 1
                    for k in range(n):
                        rewards[k] = 0.0
                    start_episode(s, c, t.rngs[i, 0], t.rngs[i, 1])
                    if renew:
                        for k in range(P):
                            t.roles[i, k] = t.next_roles[i, k]
                    out.started[i] = True
                    continue
                if c[C_WIN]:
                    win_rewards(s, c, rewards)
                out.over[i] = True
                if autoreset:
                    start_episode(s, c, t.rngs[i, 0], t.rngs[i, 1])
                    for k in range(P):
                        t.roles[i, k] = t.next_roles[i, k]
                    t.fresh[i] = True
                    out.started[i] = True
                    rewards = t.carry[i]
                    t.carried[i] = True
                    continue
                seat = t.learner[i]
                if seat >= 0:
                    out.seats[i] = seat
                    encode(s, c, seat, out.observations[i])
                for a in range(NUM_ACTIONS):
                    out.masks[i, a] = 0
                return dropped
        role = t.roles[i, s[CURRENT]]
        if role in (LEARNER, OUTSIDE):
            observe_into(s, c, i, out.observations, out.masks, out.seats)
            return dropped
        apply_scored(s, c, _compiled_action(t, c, i, s[CURRENT]), rewards)


@jit(inline=True)
def _clear(t: Tables, c: np.ndarray, i: int, out: Outputs, pay_carry: bool) -> None:
    """A call's outputs of game ``i`` before its command: no end, no start, rewards nothing (or the carry, paid)."""
    out.over[i] = False
    out.started[i] = False
    if pay_carry and t.carried[i]:
        for k in range(c[C_PLAYERS]):
            out.rewards[i, k] = t.carry[i, k]
            t.carry[i, k] = 0.0
        t.carried[i] = False
    else:
        for k in range(c[C_PLAYERS]):
            out.rewards[i, k] = 0.0


@jit(inline=True)
def first_illegal_act(t: Tables, commands: np.ndarray, actions: np.ndarray) -> int:
    """The first game told to ``ACT`` an action that is not legal there, or -1."""
    for i in range(commands.shape[0]):
        if commands[i] == ACT:
            a = actions[i]
            if a < 0 or a >= NUM_ACTIONS or not (t.states[i, LEGAL] >> a) & 1:
                return i
    return -1


@jit
def play(t: Tables, c: np.ndarray, commands: np.ndarray, actions: np.ndarray, out: Outputs, autoreset: bool) -> tuple:
    """Carry out every game's command (see the module docstring): returns (the first game told to ``ACT`` an
    illegal action, or -1, and then nothing was changed; the episodes dropped)."""
    bad = first_illegal_act(t, commands, actions)
    if bad >= 0:
        return bad, 0
    dropped = 0
    for i in range(commands.shape[0]):
        command = commands[i]
        _clear(t, c, i, out, command == ACT)
        if command == HOLD:
            continue
        s = t.states[i]
        if command == RESTART:
            start_episode(s, c, t.rngs[i, 0], t.rngs[i, 1])
            t.fresh[i] = True
            t.deals[i] = 0
            out.started[i] = True
        else:
            if t.roles[i, s[CURRENT]] == LEARNER:
                t.fresh[i] = False
            apply_scored(s, c, actions[i], out.rewards[i])
            if s[PHASE] < DEAL_OVER:  # the usual case, _settle's first step: the deal goes on, a decision is due
                role = t.roles[i, s[CURRENT]]
                if role in (LEARNER, OUTSIDE):
                    observe_into(s, c, i, out.observations, out.masks, out.seats)
                    continue
        dropped += _settle(t, c, i, out, autoreset, command != RESTART)  # one call: _settle is compiled into it
    return -1, dropped


def restart(t: Tables, c: np.ndarray, seeds: np.ndarray, out: Outputs, autoreset: bool) -> int:
    """Seed every game's episode generator with ``seeds[i]`` and start its first episode (a ``RESTART`` of every
    game, the compiled seats' rewards before the first decision carried when ``autoreset``); returns the episodes
    dropped.

    Not compiled itself: ``play`` does the work, so that the engine is compiled once (a compiled function holds a
    copy of everything it calls)."""
    n = seeds.shape[0]
    for i in range(n):
        mt_seed(t.rngs[i, 0], seeds[i])
    t.carry[:n] = 0.0
    t.carried[:n] = False
    commands = np.full(n, RESTART, np.int64)
    _, dropped = play(t, c, commands, commands, out, bool(autoreset))
    if autoreset:  # the carry takes this episode's rewards before its first decision
        players = int(c[C_PLAYERS])
        t.carry[:n, :players] += out.rewards[:n, :players]
        out.rewards[:n, :players] = 0.0
        t.carried[:n] = True
    return int(dropped)


@jit
def start_games(t: Tables, c: np.ndarray, games: np.ndarray, starts: DealStarts, out: Outputs) -> None:
    """Start game ``games[k]`` from the ``k``-th of ``starts`` (its heuristic seats' generators seeded, its other
    seats learners, not fresh) and play its heuristic seats up to the first learner decision or the episode's end
    (held: ``autoreset`` off)."""
    n = starts.scores.shape[1]
    for k in range(games.size):
        i = games[k]
        s = t.states[i]
        for seat in range(starts.hseeds.shape[1]):
            mt_seed(t.orngs[i, seat], starts.hseeds[k, seat])
            t.slots[i, seat] = seat
            heuristic = (starts.hmasks[k] >> seat) & 1
            t.roles[i, seat] = HEURISTIC if heuristic and seat < n else LEARNER
            t.next_roles[i, seat] = t.roles[i, seat]
        new_game_with(s, c, t.rngs[i, 1], starts.seeds[k], starts.dealers[k], starts.scores[k], starts.decks[k])
        t.fresh[i] = False
        t.deals[i] = 0
        t.learner[i] = -1
        _clear(t, c, i, out, False)
        out.started[i] = True
        _settle(t, c, i, out, False, False)
