"""Counterfactual rollouts on true deals, for learning what each action is worth (``training/improve.py``).

One compiled call plays ``seeds.size`` whole ramsar with every seat the heuristic twin, except
that seat ``learner[k]`` of rams ``k`` plays a random legal action with the chance ``explore``. At
a share ``record`` of the learner's decisions with more than one legal action, the decision is
recorded (the learner's observation, its legal set, the heuristic's choice) and every legal action
is tried on a copy of the true game and played out to the end of the deal by the heuristic in every
seat. Each branch records the scores at the deal's end, the next deal's dealer and, where the rams
or the game ended, its winners: the caller turns these into the learner's chance to win the rams
(:func:`rams_env.equity.equity`, or the real share of the win).

The branches use the true deal, cards hidden from the learner included: the value of an action in
a branch is what it is worth in that deal, and a model trained on the observation alone learns the
value given what the learner can see (the mean over the deals that look the same to it, drawn as
often as play against heuristics draws them). Nothing is allocated: the caller passes a
:class:`~.workspace.Workspace` for the main line and one for the branches, and the records
(:func:`counterfactual_records`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..obs.encoding import OBS_SIZE
from ..rules.actions import NUM_ACTIONS
from .compiler import jit
from .drivers import next_deal_or_end
from .encode import encode
from .heuristic import heuristic_action
from .layout import (
    C_PLAYERS,
    CURRENT,
    DEAL_OVER,
    FOREHAND,
    GAME_OVER,
    GAME_WINNERS,
    LEGAL,
    PHASE,
    RAMS_OVER,
    RAMS_WINNERS,
    SCORES,
)
from .mt import mt_randbelow, mt_seed
from .random_policy import random_legal
from .rules import apply, new_game_with
from .workspace import Workspace

PER_MILLION = 1_000_000  # chances are passed as parts per million (integer draws of the generator)


@jit
def _play_out(s: np.ndarray, c: np.ndarray, hrngs: np.ndarray, obs: np.ndarray, work: np.ndarray, iwork: np.ndarray):
    """Play game ``s`` to the end of its deal (or of the game) with the heuristic in every seat."""
    while s[PHASE] < DEAL_OVER and s[CURRENT] >= 0:
        seat = s[CURRENT]
        encode(s, c, seat, obs)
        apply(s, c, heuristic_action(obs, c, s[LEGAL], hrngs[seat], work, iwork))


@jit
def _copy_game(s: np.ndarray, hrngs: np.ndarray, to_s: np.ndarray, to_hrngs: np.ndarray) -> None:
    """Copy a game's state and its heuristic seats' generators (loops: this package allocates nothing)."""
    for x in range(s.size):
        to_s[x] = s[x]
    for seat in range(hrngs.shape[0]):
        for x in range(hrngs.shape[1]):
            to_hrngs[seat, x] = hrngs[seat, x]


@jit
def _outcome(s: np.ndarray, n: int, row: int, out_scores: np.ndarray, out_dealer: np.ndarray, out_winners: np.ndarray):
    """Row ``row`` of the outputs for game ``s`` at the end of its deal: the scores, the next deal's dealer,
    the winners where the rams or the game ended (a seat mask; -1 where it goes on)."""
    for j in range(n):
        out_scores[row, j] = s[SCORES + j]
    out_dealer[row] = s[FOREHAND]
    if not (s[PHASE] == GAME_OVER or s[RAMS_OVER] != 0):
        out_winners[row] = -1
    elif s[GAME_WINNERS] >= 0:
        out_winners[row] = s[GAME_WINNERS]
    else:
        out_winners[row] = s[RAMS_WINNERS]


class CounterfactualRecords(NamedTuple):
    """What :func:`collect_counterfactuals` records. Per decision ``i``: ``obs[i]``, ``legal[i]`` (bit
    set), ``heuristic[i]`` (the heuristic's action), ``rams[i]`` (the rams it belongs to). Per branch
    ``b``: ``sample[b]`` (its decision), ``action[b]``, ``scores[b]`` at the end of the deal,
    ``dealer[b]`` (the next deal's dealer), ``winners[b]`` (seat mask of the winners where the rams or
    game ended, else -1)."""

    obs: np.ndarray
    legal: np.ndarray
    heuristic: np.ndarray
    rams: np.ndarray
    sample: np.ndarray
    action: np.ndarray
    scores: np.ndarray
    dealer: np.ndarray
    winners: np.ndarray


def counterfactual_records(decisions: int, branches: int, num_players: int) -> CounterfactualRecords:
    """Empty records with room for ``decisions`` decisions and ``branches`` branches."""
    return CounterfactualRecords(
        np.zeros((decisions, OBS_SIZE), np.float32),
        np.zeros(decisions, np.int64),
        np.zeros(decisions, np.int64),
        np.zeros(decisions, np.int64),
        np.zeros(branches, np.int64),
        np.zeros(branches, np.int64),
        np.zeros((branches, num_players), np.int64),
        np.zeros(branches, np.int64),
        np.zeros(branches, np.int64),
    )


@jit
def collect_counterfactuals(
    ws: Workspace,
    branch_ws: Workspace,
    c: np.ndarray,
    behaviour: np.ndarray,
    seeds: np.ndarray,
    hseeds: np.ndarray,
    learner: np.ndarray,
    start_scores: np.ndarray,
    explore_ppm: int,
    record_ppm: int,
    out: CounterfactualRecords,
) -> tuple:
    """Play the ramsar (module docstring) and return ``(decisions, branches)`` recorded, or
    ``(-1, -1)`` if ``out`` was too small. ``behaviour`` is the generator of the learner's
    exploration and of the choice of decisions recorded (seeded by the caller). The branches are
    played in ``branch_ws`` (its state, generators and observation) with ``ws``'s scratch arrays."""
    s, rng, hrngs, deck, obs, work, iwork = ws
    branch, branch_hrngs, branch_obs = branch_ws.state, branch_ws.hrngs, branch_ws.obs
    out_obs, out_legal, out_heuristic, out_rams, out_sample, out_action, out_scores, out_dealer, out_winners = out
    n = c[C_PLAYERS]
    decisions = 0
    branches = 0
    for k in range(seeds.size):
        for seat in range(n):
            mt_seed(hrngs[seat], hseeds[k, seat])
        new_game_with(s, c, rng, seeds[k], -1, start_scores[k], deck)
        me = learner[k]
        while True:
            while s[PHASE] < DEAL_OVER and s[CURRENT] >= 0:
                seat = s[CURRENT]
                legal = s[LEGAL]
                encode(s, c, seat, obs)
                action = heuristic_action(obs, c, legal, hrngs[seat], work, iwork)
                if seat == me and legal & (legal - 1) != 0:
                    if mt_randbelow(behaviour, PER_MILLION) < record_ppm:
                        width = 0
                        for a in range(NUM_ACTIONS):
                            width += (legal >> a) & 1
                        if decisions >= out_legal.size or branches + width > out_sample.size:
                            return -1, -1
                        for x in range(obs.size):
                            out_obs[decisions, x] = obs[x]
                        out_legal[decisions] = legal
                        out_heuristic[decisions] = action
                        out_rams[decisions] = k
                        for a in range(NUM_ACTIONS):
                            if not (legal >> a) & 1:
                                continue
                            _copy_game(s, hrngs, branch, branch_hrngs)
                            apply(branch, c, a)
                            _play_out(branch, c, branch_hrngs, branch_obs, work, iwork)
                            out_sample[branches] = decisions
                            out_action[branches] = a
                            _outcome(branch, n, branches, out_scores, out_dealer, out_winners)
                            branches += 1
                        decisions += 1
                    if mt_randbelow(behaviour, PER_MILLION) < explore_ppm:
                        action = random_legal(legal, behaviour)
                apply(s, c, action)
            if next_deal_or_end(s, c, rng):
                break
    return decisions, branches


# ---------------------------------------------------------------- batches with a policy in the learner's seat


@jit
def advance_to_learner(
    states: np.ndarray,
    c: np.ndarray,
    hrngs: np.ndarray,
    learners: np.ndarray,
    games: np.ndarray,
    ws: Workspace,
) -> None:
    """Play the heuristic seats of each game ``i`` of ``games`` (``hrngs[i]`` their generators, the
    scratch arrays of ``ws``) until its learner ``learners[i]`` is to act or its deal (or game) is over."""
    obs, work, iwork = ws.obs, ws.work, ws.iwork
    for i in games:
        s = states[i]
        while s[PHASE] < DEAL_OVER and s[CURRENT] >= 0 and s[CURRENT] != learners[i]:
            seat = s[CURRENT]
            encode(s, c, seat, obs)
            apply(s, c, heuristic_action(obs, c, s[LEGAL], hrngs[i, seat], work, iwork))


@jit
def observe_learners(states: np.ndarray, c: np.ndarray, games: np.ndarray, out_obs: np.ndarray, out_legal: np.ndarray):
    """Row ``k`` of the outputs: the observation and legal set of the player to act in game ``games[k]``."""
    for k in range(games.size):
        s = states[games[k]]
        encode(s, c, s[CURRENT], out_obs[k])
        out_legal[k] = s[LEGAL]


@jit
def apply_actions(states: np.ndarray, c: np.ndarray, games: np.ndarray, actions: np.ndarray) -> None:
    """Apply ``actions[k]`` in game ``games[k]``."""
    for k in range(games.size):
        apply(states[games[k]], c, actions[k])


@jit
def branch_games(
    states: np.ndarray,
    hrngs: np.ndarray,
    games: np.ndarray,
    actions: np.ndarray,
    c: np.ndarray,
    to_states: np.ndarray,
    to_hrngs: np.ndarray,
    first: int,
) -> None:
    """Copy game ``games[k]`` (its state and its heuristic seats' generators) to row ``first + k`` of
    the ``to_*`` arrays and apply ``actions[k]`` there."""
    for k in range(games.size):
        _copy_game(states[games[k]], hrngs[games[k]], to_states[first + k], to_hrngs[first + k])
        apply(to_states[first + k], c, actions[k])


@jit
def deal_outcomes(
    states: np.ndarray, c: np.ndarray, out_scores: np.ndarray, out_dealer: np.ndarray, out_winners: np.ndarray
):
    """Per game at the end of its deal: the scores, the next deal's dealer, the winners where the rams
    or the game ended (a seat mask; -1 where it goes on)."""
    for i in range(states.shape[0]):
        _outcome(states[i], c[C_PLAYERS], i, out_scores, out_dealer, out_winners)
