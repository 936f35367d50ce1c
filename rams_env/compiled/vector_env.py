"""The vector env's compiled step: one learner seat a game, every other seat played by a role.

Each seat of game ``i`` has a role (``tables.roles[i, seat]``): the ``LEARNER`` (one seat a game),
the compiled ``HEURISTIC`` or ``RANDOM`` opponent (played inside the call, with generator
``tables.orngs[i, tables.slots[i, seat]]``, seeded like ``HeuristicAgent(seed=...)`` and
``RandomAgent(seed=...)``), or an ``OUTSIDE`` policy (the call stops for it, as for the learner).
Each game gets a command: ``HOLD`` (untouched), ``ACT`` (apply ``actions[i]`` for the seat to act)
or ``RESTART`` (the next episode from the game's episode generator). After it, the compiled opponents
play until the learner or an outside seat is to act, or the episode ends.

Episodes never restart by themselves: a game whose episode ends is held at its end (``over[i]``), with
the learner's final observation and an all-zero mask, until a later ``RESTART``. This is what lets the
Python layer offer both autoreset modes (next-step and same-step). An episode that ends before the
learner's first decision is dropped and dealt again from the same generator (``RamsGymEnv.reset()``
does the same), its rewards dropped too; the call returns how many.

``rewards[i, seat]`` holds what each seat earned in the call, since the call's last start of an episode
(``started[i]``) if there was one.
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
from .layout import C_PLAYERS, C_WIN, CURRENT, DEAL_OVER, LEGAL, PHASE, STATE_WIDTH, P
from .random_policy import random_legal
from .versus import apply_scored
from .workspace import mt_states

LEARNER, HEURISTIC, RANDOM, OUTSIDE = 0, 1, 2, 3  # who plays a seat
HOLD, ACT, RESTART = 0, 1, 2  # what a game is told to do


class Tables(NamedTuple):
    """The games of a vector env and what plays their seats (one row a game)."""

    states: np.ndarray  # (N, STATE_WIDTH) int64
    rngs: np.ndarray  # (N, 2, MT) int64: episode seeder, game generator
    learner: np.ndarray  # (N,) int64: the learner's seat
    roles: np.ndarray  # (N, P) int64: LEARNER, HEURISTIC, RANDOM or OUTSIDE
    slots: np.ndarray  # (N, P) int64: the opponent (its generator) playing each seat
    orngs: np.ndarray  # (N, P, MT) int64: the opponents' generators
    fresh: np.ndarray  # (N,) bool: the learner has not decided yet in this episode
    work: np.ndarray  # (WORK_SIZE,) float64: the heuristic's scratch
    iwork: np.ndarray  # (WORK_SIZE,) int64
    scratch: np.ndarray  # (OBS_SIZE,) float32: the observation a compiled opponent reads


class Outputs(NamedTuple):
    """What a call writes for every commanded game (held games keep their observation and mask)."""

    observations: np.ndarray  # (N, OBS_SIZE) float32: the seat to act's, or the learner's final one
    masks: np.ndarray  # (N, NUM_ACTIONS) int8 (all zero at an episode's end)
    seats: np.ndarray  # (N,) int64: whose observation it is
    rewards: np.ndarray  # (N, num_players) float32
    over: np.ndarray  # (N,) bool: the episode ended in this call
    started: np.ndarray  # (N,) bool: an episode started in this call


def make_tables(num_games: int) -> Tables:
    """Zeroed tables for ``num_games`` games."""
    return Tables(
        np.zeros((num_games, STATE_WIDTH), np.int64),
        mt_states(num_games, 2),
        np.zeros(num_games, np.int64),
        np.zeros((num_games, P), np.int64),
        np.zeros((num_games, P), np.int64),
        mt_states(num_games, P),
        np.zeros(num_games, np.bool_),
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


@jit
def _opponent_action(t: Tables, c: np.ndarray, i: int, seat: int) -> int:
    """The compiled opponent's action at ``seat`` of game ``i``."""
    s = t.states[i]
    rng = t.orngs[i, t.slots[i, seat]]
    legal = s[LEGAL]
    if t.roles[i, seat] == HEURISTIC:
        encode(s, c, seat, t.scratch)
        return heuristic_action(t.scratch, c, legal, rng, t.work, t.iwork)
    return random_legal(legal, rng)  # RANDOM


@jit
def _settle(t: Tables, c: np.ndarray, i: int, out: Outputs) -> int:
    """Play game ``i``'s compiled opponents until the learner or an outside seat is to act or the
    episode ends (held at its end); returns the episodes dropped for ending before the learner's decision."""
    s = t.states[i]
    n = c[C_PLAYERS]
    dropped = 0
    while True:
        if s[PHASE] >= DEAL_OVER and next_deal_or_end(s, c, t.rngs[i, 1]):
            if t.fresh[i]:
                dropped += 1
                for k in range(n):
                    out.rewards[i, k] = 0.0
                start_episode(s, c, t.rngs[i, 0], t.rngs[i, 1])
                out.started[i] = True
                continue
            if c[C_WIN]:
                win_rewards(s, c, out.rewards[i])
            out.over[i] = True
            seat = t.learner[i]
            out.seats[i] = seat
            encode(s, c, seat, out.observations[i])
            for a in range(NUM_ACTIONS):
                out.masks[i, a] = 0
            return dropped
        seat = s[CURRENT]
        role = t.roles[i, seat]
        if role in (LEARNER, OUTSIDE):
            observe_into(s, c, i, out.observations, out.masks, out.seats)
            return dropped
        apply_scored(s, c, _opponent_action(t, c, i, seat), out.rewards[i])


@jit
def play(t: Tables, c: np.ndarray, commands: np.ndarray, actions: np.ndarray, out: Outputs) -> tuple:
    """Carry out every game's command (see the module docstring): returns (the first game told to
    ``ACT`` an illegal action, or -1, and then nothing was changed; the episodes dropped)."""
    for i in range(commands.shape[0]):
        if commands[i] == ACT:
            a = actions[i]
            if a < 0 or a >= NUM_ACTIONS or not (t.states[i, LEGAL] >> a) & 1:
                return i, 0
    n = c[C_PLAYERS]
    dropped = 0
    for i in range(commands.shape[0]):
        command = commands[i]
        out.over[i] = False
        out.started[i] = False
        for k in range(n):
            out.rewards[i, k] = 0.0
        if command == HOLD:
            continue
        s = t.states[i]
        if command == RESTART:
            start_episode(s, c, t.rngs[i, 0], t.rngs[i, 1])
            t.fresh[i] = True
            out.started[i] = True
        else:
            if t.roles[i, s[CURRENT]] == LEARNER:
                t.fresh[i] = False
            apply_scored(s, c, actions[i], out.rewards[i])
        dropped += _settle(t, c, i, out)
    return -1, dropped
