"""The omniscient reference: :class:`SearchAgent`'s search on the true deal.

``OracleAgent`` is not a fair agent: it **sees every hidden card** (the other hands, the talon in
its order, the face-down piles). Each of its worlds is the real game itself instead of a re-deal
of the cards hidden from its seat; everything else (the heuristic's choice as the default, the
knock's extra worlds, buying left to the heuristic, the rollout policy, the confidence test) is
:class:`SearchAgent`'s, so that the gap between the two measures what full information is worth
to the same search. Where a seat can deduce every card the two search the same worlds and choose
alike. Reports label it as seeing hidden cards (:func:`rams_env.agents.specs.agent_label`).
"""

from __future__ import annotations

import random
from collections.abc import Callable

from ..rules import Game
from .search import SearchAgent


class OracleAgent(SearchAgent):
    """``SearchAgent`` on the true deal: it sees every hidden card (a reference, not a fair agent).

    Takes :class:`SearchAgent`'s keywords. ``act_game(game, seat)`` reads the real ``game``; ``act``
    needs ``OracleAgent(env=...)`` as ``SearchAgent`` does.
    """

    sees_hidden_cards = True  # every report names it so (rams_env.agents.specs.agent_label)

    def _worlds(self, game: Game, seat: int) -> Callable[[random.Random], Game]:
        """The worlds searched: the true deal each time (a clone of ``game``)."""
        return lambda rng: game.clone()
