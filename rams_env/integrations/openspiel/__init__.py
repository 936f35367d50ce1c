"""OpenSpiel: Rams as a Python OpenSpiel game (``python_rams``), and OpenSpiel's ISMCTS as a Rams agent.

Needs the ``rams_env[openspiel]`` extra (the ``open_spiel`` package). Importing this package registers
the game with pyspiel::

    import pyspiel
    import rams_env.integrations.openspiel  # registers python_rams

    game = pyspiel.load_game("python_rams", {"variant": "russian", "players": 4, "episode": "rams"})
    game = pyspiel.load_game("python_rams(variant=mattmar,players=5,rules=flight_fine:3;bids:false)")

Parameters (all optional):

- ``variant`` (``"mattmar"``), ``players`` (4), ``episode`` (``"deal"``, ``"rams"``, ``"match"``) and
  ``reward`` (``"points"``, ``"win"``), as for ``rams_env.env`` (docs/contract.md);
- ``rules``: rule options of :func:`rams_env.rules.make_config` as ``"option:value;option:value"``
  (``"start_score:150"``; OpenSpiel's game strings forbid ``=`` and ``,`` inside a value);
- ``dealer``: the first dealer's seat, or -1 (default) for a chance node that draws it;
- ``scores``: the seats' scores at the first deal, ``"3;5;7;10"`` (default: the start score);
- ``max_deals``: an episode of ``"rams"`` or ``"match"`` stops (terminal, truncated) after this many
  deals; 0 (default) means ``DEFAULT_MAX_DEALS`` (1000), far more than a rams or match takes.
  OpenSpiel needs a finite ``max_game_length``.

The game plays exactly the games of :class:`rams_env.rules.Game`: every state holds a real ``Game``
and every player action is the engine's action (ids 0-59 as in docs/contract.md). Chance is explicit: a
node draws the first dealer (unless ``dealer`` is given), then every deal is dealt by one chance node
per card of the deck, top card first (uniform over the cards not yet placed). The deck so drawn is the
engine's ``deck`` (docs/rules.md "Dealing"), so the same cards give the same deal, and later deals of a
rams or match are dealt by the same chance nodes (the engine's own shuffle is not used).

Returns: ``reward="points"``: each seat's score decrease over the episode so far (the sum of the env's
rewards; a new rams' fresh scores are no reward), with intermediate rewards (``rewards()``) after
every action; ``reward="win"``: at the end +1 shared among the winners, -1 shared among the others
(a truncated episode: the lowest score, in a match the lowest total, wins).

Observations, for a player ``p``:

- tensors (information state and observation alike): the project's encoder
  (:class:`rams_env.obs.ObservationEncoder`, ``OBS_SIZE`` floats, named pieces as in its
  ``FIELDS``); it holds only what ``p`` may know (docs/rules.md "What each player knows"). It sums up the current deal
  (and the scores, flights and totals of the episode); it is not a perfect-recall history, so
  OpenSpiel's tabular methods should use the strings.
- information state string: ``p``'s perfect-recall history: every action as ``p`` saw it (other
  players' discards as ``x`` without the card), and after each step what changed for ``p``: its hand,
  the scores, cards shown, cards turned face up, the trump card.
- observation string: the engine's ``view(p)`` (docs/contract.md) as compact JSON.

``resample_from_infostate(p, sampler)`` re-deals the cards of the current deal hidden from ``p``
(placement by :class:`rams_env.agents.deal_sampler.DealSampler`: voids and other holdings ruled out by the
play, the turned card, shown cards, russian passed hands without aces), rebuilds a deck and the
hidden discards that lead there, and replays the deal from its first card: the result is a state of
the game reached by a full, legal history, and it is accepted only when ``p``'s information state
string is the same as in the original (else it samples again; a ``RuntimeError`` after 300 tries).
Shown jacks are placed where the history needs them (dealt, and discarded at the step where they were shown). The
sampler's weighting (weak cards are likelier among the cards bought away) stays: the resampled
worlds are consistent, not an exact posterior. Earlier deals of the episode are kept as they were:
their hidden cards have no bearing on the rest of the game.

``clone()`` copies the engine state (no deep copy); serialisation (``pyspiel.serialize_game_and_state``)
pickles it.

The agent :class:`ISMCTSAgent` (``rams eval ismcts:200``) runs OpenSpiel's Python ``ISMCTSBot`` on a
state rebuilt from the engine game (:func:`state_from_game`), with uniformly random rollouts (default:
as OpenSpiel's ``RandomRolloutEvaluator``, run on the engine; ``evaluator=openspiel_random`` uses that
class itself) or the search agent's rollout policy (``evaluator=heuristic``).

The package, one module per job, each importing only those before it:

- :mod:`.parameters`: the parameters, their checks, and what every state of a game shares;
- :mod:`.resample`: ``resample_from_infostate``'s re-deal of the hidden cards and the replay;
- :mod:`.state`: :class:`RamsState` and its plain-data core, and :class:`RamsObserver`;
- :mod:`.game`: :class:`RamsGame`, :func:`load_game` and the registration with pyspiel;
- :mod:`.from_game`: :func:`state_from_game`, a state rebuilt from an engine game;
- :mod:`.ismcts_agent`: :class:`ISMCTSAgent` and its rollout evaluators.
"""

from __future__ import annotations

from ...rules.episode import EPISODES, REWARDS
from .from_game import state_from_game
from .game import RamsGame, load_game
from .ismcts_agent import EVALUATORS, FastRandomRolloutEvaluator, HeuristicRolloutEvaluator, ISMCTSAgent
from .parameters import DEFAULT_MAX_DEALS, SHORT_NAME, check_parameters, game_parameters, parse_rules, rules_string
from .resample import resample
from .state import RamsObserver, RamsState

__all__ = [
    "ISMCTSAgent",
    "RamsGame",
    "RamsState",
    "game_parameters",
    "load_game",
]
