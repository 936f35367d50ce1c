"""The rules engine and the observation encoder compiled with numba, for the batched env.

A second implementation of :mod:`rams_env.rules` and :mod:`rams_env.obs.encoding`, written for speed:
the state of each game is one row of an int64 array (the column layout is in :mod:`.layout`),
hands and other card sets are 52-bit masks, and one compiled call steps every game of a batch,
encodes the acting seat's observation from scratch and writes its action mask. Even the random
generator is CPython's own Mersenne Twister with the same seeding and ``shuffle``/``randrange``
algorithms, so game ``i`` deals exactly the cards ``Game(config, seed)`` deals.

One module per concern:

- :mod:`.mt`: CPython's Mersenne Twister;
- :mod:`.layout`: the config vector, the state columns, the rules' numbers, card masks and the
  suit and rank of a card (the twins of ``rules/cards.py``'s ``suit_of``/``rank_of``);
- the rules twin, cut as :mod:`rams_env.rules` is and following it function by function:
  :mod:`.rules` (a new game, dealing, ``apply``), :mod:`.queries` (the legal actions),
  :mod:`.bid_knock_buy`, :mod:`.play` and :mod:`.scoring`;
- :mod:`.encode`: the encoder twin and the action mask;
- the heuristic twin (``HeuristicAgent``): :mod:`.heuristic_decode` (reading the observation),
  :mod:`.heuristic_chances` (trick chances), :mod:`.heuristic` (the decisions);
- :mod:`.core`: the one driver of every batched face (the batched env, the vector env, the evaluation
  against heuristics): seats played by roles (learner, outside policy, compiled heuristic or random);
- :mod:`.drivers`: what the drivers share, and the AEC env's one-game driver; :mod:`.simulate` (whole
  ramsar of heuristics);
- :mod:`.compiler`: the numba decorator and the cache stamp that covers the whole package.

The pure-Python engine stays the reference: ``tests/envs/test_vector.py`` and
``tests/compiled/test_engine.py`` play the same seeds with the same actions through both and compare
every observation, mask, reward and score. Nothing here is public API; use
:class:`rams_env.envs.vector.BatchedRamsEnv`.
"""

from __future__ import annotations

from .compiler import entry_point
from .drivers import (
    B_CONFIG,
    B_NUMBERS,
    B_RNG,
    STEP_INFO,
    STEP_OVER,
    STEP_SCORED,
    aec_buffer,
    aec_start,
    first_illegal_in,
    game_step,
)
from .encode import encode, legal_actions, observe, write_mask
from .layout import (
    A_DRAW,
    A_PASS,
    AT_DEALER,
    BID,
    C_EPISODE,
    C_SCORES_SCALE,
    C_TOTALS_SCALE,
    CURRENT,
    DEAL_NUMBER,
    DEALER,
    EPISODE_DEAL,
    EPISODE_RAMS,
    GAME_OVER,
    GAME_WINNERS,
    GONE,
    HAND,
    KNOCK_PHASE,
    LEGAL,
    ON_TABLE,
    PHASE,
    RAMS_WINNERS,
    SCORES,
    STATE_WIDTH,
    TURNED,
    P,
    config_array,
)
from .mt import mt_bits63, mt_next, mt_randbelow, mt_seed
from .queries import legal_set
from .rules import new_game

__all__: list[str] = []  # internal: the other packages import what they need; no public names
