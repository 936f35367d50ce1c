"""Pure-Python rules engine for Rams: cards, configuration, the phase machine.

Knows nothing of numpy, gymnasium, pettingzoo or torch. One module per job, each importing only
those above it (and :class:`Game` for type hints):

- the facts the twins share (this engine and :mod:`rams_env.compiled`, the Python heuristic and its
  compiled twin), each in a module named for it: :mod:`.seeding` (the one seed rule: ``check_seed``,
  ``SeedError``), :mod:`.generator` (the shuffling generator's state size), :mod:`.heuristic_tunables`
  and :mod:`.odds` (the heuristic's tunables and the draw probability it computes);
- :mod:`.cards`: cards as ints (``suit_of``/``rank_of``), the hand size, the decks and the russian
  write-offs;
- :mod:`.actions`: the action ids (cards and the calls);
- :mod:`.config`: the rule options, the table sizes (``MIN_PLAYERS``/``MAX_PLAYERS``), their presets
  and their validation;
- :mod:`.phases`: ``Phase``, ``TurnedAt``, ``IllegalActionError`` and its message;
- :mod:`.tricks`: which cards may be played, and who wins a trick;
- :mod:`.scoring`: how deals, ramsar and matches score and end;
- :mod:`.views`: what a seat may know (``Game.view``, ``Game.result``);
- :mod:`.snapshot`: ``Game.clone`` and the JSON round trip;
- :mod:`.determinize`: ``Game.with_hidden_cards``, a copy with the hidden cards placed elsewhere,
  and ``knock_turn``/``play_start``, which rewind one to an earlier decision;
- :mod:`.episode`: the episode kinds, when an episode ends and what ``reward="win"`` pays (every env,
  the server and OpenSpiel call these);
- :mod:`.game`: :class:`Game`, the phase machine driven by actions, whose implementation notes
  list the house decisions; its methods hand scoring, views, copies and determinization to the
  modules above.

:mod:`rams_env.compiled` is the numba twin of this package, proven equal by differential tests.
"""

from __future__ import annotations

from .actions import NUM_ACTIONS, Action, action_name
from .cards import card_index, card_name, deck_cards
from .config import PRESETS, RulesConfig, make_config
from .game import Game
from .phases import IllegalActionError, Phase, TurnedAt

__all__ = [
    "NUM_ACTIONS",
    "PRESETS",
    "Action",
    "Game",
    "IllegalActionError",
    "Phase",
    "RulesConfig",
    "action_name",
    "card_index",
    "card_name",
    "make_config",
]
