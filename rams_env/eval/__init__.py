"""Evaluation of agents: duplicate deals against a baseline, a league rated with OpenSkill, and their reports.

The agent sources an evaluation plays (an instance, or a factory seeded per game) come from agents by
name (``random``, ``search:200``, a zoo model, a checkpoint) as :mod:`rams_env.agents.specs` reads them
(their names are exported here too). One job a module, in the order a result is made:

- :mod:`~rams_env.eval.deals`: the fixed deal sets, and the seeds of every deck, seat and line-up;
- :mod:`~rams_env.eval.play`: one episode played to its end (:class:`GameRecord`), and the decks of
  an evaluation played here or in worker processes;
- :mod:`~rams_env.eval.heuristic_games`: the same games against heuristics on the compiled engine,
  a policy's decisions batched over games;
- :mod:`~rams_env.eval.duplicate`: :func:`evaluate`, duplicate deals against a baseline;
- :mod:`~rams_env.eval.league`: :func:`league`, several agents at one table, rated;
- :mod:`~rams_env.eval.stats`: the confidence intervals and one agent's tally (:class:`AgentReport`);
- :mod:`~rams_env.eval.tables` and :mod:`~rams_env.eval.plots`: the printed tables, the JSON and the
  PNG plots of results (matplotlib, imported when a plot is drawn).

Evaluation drives the rules engine (:mod:`rams_env.rules`, and :mod:`rams_env.compiled` for the
batched games) with agents from :mod:`rams_env.agents`, imported when an agent is built, so that
this package needs no torch until a trained policy plays. The apps (``rams eval``, ``rams serve``)
and training import it; it imports none of them.
"""

from __future__ import annotations

from ..agents.specs import (
    AGENT_SPEC_HELP,
    BUILTIN_AGENTS,
    AgentSource,
    agent_label,
    agent_source,
    build_agent,
    sees_hidden_cards,
    source_name,
)
from .deals import SCORES, Deal, agent_seed, deal_set, deck_of, derive_seed
from .duplicate import Evaluation, evaluate
from .heuristic_games import batch_actor, play_against_heuristic
from .league import League, LeagueEntry, league
from .play import GameRecord, actor_for, play_episode
from .plots import plot_knock_rates
from .stats import Z95, AgentReport, bootstrap_interval, wilson_interval
from .tables import TABLE_WIDTH, binned_knock_rates, knock_table, score_bins

__all__ = [
    "AgentReport",
    "Deal",
    "Evaluation",
    "GameRecord",
    "League",
    "LeagueEntry",
    "bootstrap_interval",
    "deal_set",
    "evaluate",
    "league",
    "play_episode",
    "wilson_interval",
]
