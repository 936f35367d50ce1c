"""Duplicate evaluation of agents on fixed deal sets (:func:`evaluate`).

Every deck of a deal set is played once by the baseline alone (all seats) and, for each tested agent
and each seat, with that agent in the seat and the baseline in the others. The duplicate advantage
of a deck is the tested agent's points minus the baseline's points in the same seat on the same
deck, averaged over the seats; its confidence interval is a bootstrap over decks.
"""

from __future__ import annotations

import os
import textwrap
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..agents import CompiledHeuristicAgent, HeuristicAgent
from ..agents.specs import AgentFactory, AgentSource, agent_label, check_source, source_name
from ..envs.seats import HEURISTIC_SEAT, Seat
from ..rules import RulesConfig
from ..rules.episode import EpisodeKind, episode_kind
from .deals import agent_seed, deal_at
from .heuristic_games import batch_actor, play_against_heuristic
from .play import check_run_arguments, run_decks
from .plots import plot_intervals, plot_knock_rates
from .stats import AgentReport, bootstrap_interval, tally
from .tables import PLURAL, TABLE_WIDTH, format_rows, knock_table, narrow_rows, result_header, scores_note, write_json


@dataclass
class Evaluation:
    """Result of :func:`evaluate`: one report per tested agent, and the baseline's."""

    config: RulesConfig
    episode: str
    decks: int
    seed: int
    scores: str
    baseline: AgentReport
    agents: list[AgentReport]

    def to_dict(self) -> dict[str, Any]:
        """Plain, JSON-serialisable data."""
        return {
            **result_header("duplicate", self.config, self.episode, self.decks, self.seed, self.scores),
            "advantage_unit": f"points per {self.episode} (tested agent minus baseline, same deck and seat)",
            "confidence": 0.95,
            "baseline": self.baseline.to_dict(),
            "agents": [a.to_dict() for a in self.agents],
        }

    def table(self, wide: bool = False) -> str:
        """A printable table of every agent's statistics (and, for whole games, its knock rate by score).

        It fits :data:`TABLE_WIDTH` columns: the units in the header, a long agent name on a line of
        its own. ``wide=True``: the earlier table, one line per agent whatever its width.
        """
        cfg = self.config
        if not wide:
            return self._narrow_table()
        head = (
            f"{cfg.variant}, {cfg.num_players} players, episode {self.episode}: {self.decks} decks (seed {self.seed}"
            f"{scores_note(self.scores)}), "
            f"duplicate against {self.baseline.name!r}; advantage in points per {self.episode}, 95% CIs"
        )
        if episode_kind(self.episode) != EpisodeKind.DEAL:
            head += f"; win rate = share of the {PLURAL[self.episode]} won, fair share 1/{cfg.num_players}"
            head += f" = {1 / cfg.num_players:.3f}"
        rows = [(a.name, a) for a in self.agents] + [(f"{self.baseline.name} (baseline)", self.baseline)]
        return head + "\n" + format_rows(rows) + "\n\n" + knock_table(rows, cfg)

    def _narrow_table(self) -> str:
        cfg = self.config
        per = self.episode
        notes = [
            f"{cfg.variant}, {cfg.num_players} players, episode {per}: {self.decks} decks (seed {self.seed}"
            f"{scores_note(self.scores)}), duplicate against {self.baseline.name!r}.",
            f"pts/deal: points per deal; adv/{per}: advantage in points per {per} (tested agent minus the "
            "baseline, same deck and seat); flights, knocks: per deal; [95% CI].",
        ]
        if episode_kind(per) != EpisodeKind.DEAL:
            notes.append(
                f"win rate: share of the {PLURAL[per]} won; fair share 1/{cfg.num_players} = "
                f"{1 / cfg.num_players:.3f} (the baseline's own, by construction)."
            )
        rows = [(a.name, a) for a in self.agents] + [(f"{self.baseline.name} (baseline)", self.baseline)]
        head = "\n".join(textwrap.fill(note, TABLE_WIDTH, subsequent_indent="  ") for note in notes)
        return head + "\n" + narrow_rows(rows, per) + "\n\n" + knock_table(rows, cfg, TABLE_WIDTH)

    def plot_knock_rates(self, path: str | os.PathLike[str]) -> None:
        """A PNG of each agent's knock rate by its score at the decision (the baseline's too)."""
        rows = [(a.name, a) for a in self.agents] + [(f"{self.baseline.name} (baseline)", self.baseline)]
        plot_knock_rates(path, rows, self.config, f"{self.episode}, {self.decks} decks against {self.baseline.name}")

    def save_json(self, path: str | os.PathLike[str]) -> None:
        """Write :meth:`to_dict` as JSON."""
        write_json(path, self.to_dict())

    def plot(self, path: str | os.PathLike[str]) -> None:
        """A PNG of each agent's headline with its 95% interval: win share for whole games, else advantage."""
        cfg = self.config
        if episode_kind(self.episode) != EpisodeKind.DEAL:
            rows = [(a.name, a.win_rate, a.win_rate_ci) for a in [*self.agents, self.baseline]]
            plot_intervals(
                path,
                rows,
                xlabel=f"share of the {PLURAL[self.episode]} won (dashed: fair share 1/{cfg.num_players})",
                title=f"{cfg.variant} {cfg.num_players}p vs {self.baseline.name!r}, {self.decks} decks, 95% Wilson CI",
                zero_line=False,
                reference=1.0 / cfg.num_players,
            )
            return
        rows = [(a.name, a.advantage, a.advantage_ci) for a in self.agents]
        plot_intervals(
            path,
            rows,
            xlabel=f"duplicate advantage over {self.baseline.name!r} (points per {self.episode})",
            title=f"{cfg.variant} {cfg.num_players}p, {self.decks} decks, 95% bootstrap CI",
            zero_line=True,
        )


def evaluate(
    agents: Mapping[str, AgentSource],
    baseline: AgentSource,
    config: RulesConfig,
    *,
    decks: int = 100,
    seed: int = 0,
    episode: str = "deal",
    scores: str = "start",
    baseline_name: str | None = None,
    resamples: int = 10_000,
    workers: int = 1,
    progress: bool = True,
    batched: bool | None = None,
) -> Evaluation:
    """Duplicate evaluation of ``agents`` (name -> agent or factory) against ``baseline`` on ``decks`` decks.

    Plays ``decks * (1 + num_players * len(agents))`` episodes; ``scores`` as in :func:`deal_set`;
    ``workers > 1`` splits the decks over spawned processes with the same numbers as one process (the
    sources must then be picklable, and a script must call this under ``if __name__ == "__main__":``).
    ``batched`` (default: whenever it can) plays the agents' games against a heuristic baseline on the
    compiled engine, each agent's decisions batched over games (:mod:`rams_env.eval.heuristic_games`):
    the same games, for greedy trained policies and episodes "deal" and "rams"; True requires it.
    ``baseline_name`` defaults to the baseline's own (``random`` for ``RandomAgent``, see :func:`source_name`).
    """
    if not agents:
        raise ValueError("evaluate needs at least one agent to test")
    if baseline_name is None:
        baseline_name = source_name(baseline)
    check_run_arguments(config, decks, seed, episode, scores, workers)
    for name, src in {**agents, baseline_name: baseline}.items():
        check_source(name, src)
    agents = {agent_label(name, src): src for name, src in agents.items()}
    baseline_name = agent_label(baseline_name, baseline)
    n = config.num_players
    named = list(agents.items())
    job = _DuplicateJob(config, seed, episode, scores, named, (baseline_name, baseline))
    actors = _batch_actors(named, baseline, config, episode, batched)
    if actors is None:
        by_deck = run_decks(job, decks, workers, progress, job.games_per_deck, "duplicate")
    else:  # the baseline's games in Python, the agents' on the compiled engine with compiled heuristics
        alone = _DuplicateJob(config, seed, episode, scores, [], (baseline_name, baseline))
        by_deck = run_decks(alone, decks, workers, progress, 1, "heuristics alone")
        deals = [deal_at(config, seed, i, scores) for i in range(decks)]
        for (name, _), act_batch in zip(named, actors, strict=True):
            games = play_against_heuristic(
                act_batch, config, deals, lambda d, s: agent_seed(seed, d, s), episode, name=name, progress=progress
            )
            for records, deck_games in zip(by_deck, games, strict=True):
                records += deck_games
    base_records = [d[0] for d in by_deck]
    baseline_report = tally(baseline_name, [r for r in base_records for _ in range(n)], list(range(n)) * decks)
    reports = []
    for k, (name, _) in enumerate(named):
        tested = [d[1 + k * n + s] for d in by_deck for s in range(n)]
        report = tally(name, tested, list(range(n)) * decks)
        adv = np.array([np.mean([d[1 + k * n + s].points[s] - d[0].points[s] for s in range(n)]) for d in by_deck])
        report.per_deck = adv
        report.advantage = float(adv.mean())
        report.advantage_ci = bootstrap_interval(adv, resamples, seed)
        reports.append(report)
    return Evaluation(config, episode, decks, seed, scores, baseline_report, reports)


def _batch_actors(
    named: Sequence[tuple[str, AgentSource]],
    baseline: AgentSource,
    config: RulesConfig,
    episode: str,
    batched: bool | None,
) -> list[Any] | None:
    """Each agent's batched ``act_batch`` when the batched heuristic path can play this evaluation, else None
    (``ValueError`` when ``batched`` is True and it cannot)."""
    if batched is False:
        return None
    actors = [batch_actor(source) for _, source in named]
    why = None
    if source_seat(baseline, config).kind != "heuristic":
        why = "the baseline is not the heuristic for these rules"
    elif episode_kind(episode) not in (EpisodeKind.DEAL, EpisodeKind.RAMS):
        why = f"episode {episode!r} (only 'deal' and 'rams')"
    elif None in actors:
        why = "an agent without a greedy act_batch (trained policies have one)"
    if why is None:
        return actors
    if batched:
        raise ValueError(f"batched=True, but the batched heuristic games cannot play this evaluation: {why}")
    return None


@dataclass(frozen=True)
class _DuplicateJob:
    """The games of one deck: baseline alone, then each agent in each seat (picklable for workers)."""

    config: RulesConfig
    seed: int
    episode: str
    scores: str
    agents: list[tuple[str, AgentSource]]
    baseline: tuple[str, AgentSource]

    @property
    def games_per_deck(self) -> int:
        return 1 + self.config.num_players * len(self.agents)

    def lineups(self, index: int) -> Iterator[list[tuple[str, AgentSource]]]:
        n = self.config.num_players
        yield [self.baseline] * n
        for agent in self.agents:
            for seat in range(n):
                lineup = [self.baseline] * n
                lineup[seat] = agent
                yield lineup


def source_seat(source: Any, config: Any = None) -> Seat:
    """The seat of an agent source (:mod:`rams_env.agents.specs`): ``heuristic`` for the heuristic's factory with
    no option but ``config`` (these rules), else :meth:`Seat.of` the source."""
    heuristic = isinstance(source, AgentFactory) and source.cls in (CompiledHeuristicAgent, HeuristicAgent)
    if heuristic and set(source.options) <= {"config"} and source.options.get("config") in (None, config):
        return HEURISTIC_SEAT
    return Seat.of(source)
