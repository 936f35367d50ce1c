"""A league: several agents sitting at one table, rated with OpenSkill (Plackett-Luce).

Per deck one seeded line-up of the agents is rotated through every seat. Each game ranks the agents at
the table by its outcome: in a rams or a match the winners above the rest, who tie (the stakes of the
``win`` reward: the losers pay alike, however many points each took); in a single deal by their points.
An agent in several seats counts by its mean. ``openskill`` is imported when a league is rated.

Neighbouring ranks are *told apart* when the posterior probability that the higher one's skill is above
the lower one's is at least :data:`TOLD_APART` (the difference of two independent normal ratings); ranks
not told apart form one tier, a tie the table says.
"""

from __future__ import annotations

import math
import os
import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..agents.specs import AgentSource, agent_label, check_source
from ..rules import RulesConfig
from .deals import lineup_seed
from .play import GameRecord, check_run_arguments, run_decks
from .plots import plot_intervals
from .stats import AgentReport, tally
from .tables import format_rows, narrow_rows, result_header, scores_note, write_json

TOLD_APART = 0.95
"""Least probability that one rating's skill is above its neighbour's for the two to be told apart."""
SKILL_DRIFT = 0.0
"""OpenSkill's ``tau``, the skill drift added to every sigma before each game: none, since the agents are
frozen. OpenSkill's default (25/300) models players who change between games; with it sigma stops near
1.6 however many games are played, so no number of decks tells close agents apart."""


@dataclass
class LeagueEntry:
    """One agent's OpenSkill rating and statistics over the league games it sat in."""

    report: AgentReport
    mu: float
    sigma: float
    above_next: float | None = None
    """Probability that this skill is above the next rank's (``None`` for the last rank)."""
    tier: int = 1
    """1 for the first tier; ranks not told apart from their neighbour share a tier."""

    @property
    def ordinal(self) -> float:
        """Conservative rating mu - 3 sigma (the ranking key)."""
        return self.mu - 3.0 * self.sigma

    def to_dict(self) -> dict[str, Any]:
        """Plain data."""
        return {
            **self.report.to_dict(),
            "mu": self.mu,
            "sigma": self.sigma,
            "ordinal": self.ordinal,
            "above_next": self.above_next,
            "tier": self.tier,
        }


def skill_above(higher: tuple[float, float], lower: tuple[float, float]) -> float:
    """Probability that the rating ``higher`` (mu, sigma)'s skill is above ``lower``'s, both read as normals."""
    spread = math.sqrt(2.0 * (higher[1] ** 2 + lower[1] ** 2))
    return 0.5 * (1.0 + math.erf((higher[0] - lower[0]) / spread))


def tiers(ratings: Sequence[tuple[float, float]]) -> list[tuple[float | None, int]]:
    """For ratings (mu, sigma) in rank order: each one's probability to be above the next, and its tier."""
    out: list[tuple[float | None, int]] = []
    tier = 1
    for upper, lower in zip(ratings, [*ratings[1:], None], strict=True):
        above = None if lower is None else skill_above(upper, lower)
        out.append((above, tier))
        if above is not None and above >= TOLD_APART:
            tier += 1
    return out


@dataclass
class League:
    """Result of :func:`league`: the agents ranked by OpenSkill (Plackett-Luce) ordinal."""

    config: RulesConfig
    episode: str
    decks: int
    seed: int
    scores: str
    entries: list[LeagueEntry]

    def to_dict(self) -> dict[str, Any]:
        """Plain, JSON-serialisable data."""
        return {
            **result_header("league", self.config, self.episode, self.decks, self.seed, self.scores),
            "rating": f"openskill PlackettLuce (tau {SKILL_DRIFT:g}: frozen agents), ranked by ordinal = mu - 3 sigma",
            "game_ranking": "points" if self.episode == "deal" else "winners above the rest",
            "told_apart": f"neighbouring ranks are in different tiers when P(skill above the next) >= {TOLD_APART}",
            "agents": [e.to_dict() for e in self.entries],
        }

    def table(self, wide: bool = False) -> str:
        """A printable table: rating first, then the per-deal statistics (``wide``: as :meth:`Evaluation.table`)."""
        cfg = self.config
        lines = [
            f"{cfg.variant}, {cfg.num_players} players, episode {self.episode}: league over {self.decks} decks "
            f"(seed {self.seed}{scores_note(self.scores)}), OpenSkill Plackett-Luce",
            f"{'agent':<20}{'mu':>8}{'sigma':>8}{'ordinal':>9}{'P(>next)':>10}{'tier':>6}",
        ]
        lines += [
            f"{e.report.name:<20}{e.mu:>8.2f}{e.sigma:>8.2f}{e.ordinal:>9.2f}"
            f"{'' if e.above_next is None else f'{e.above_next:.3f}':>10}{e.tier:>6}"
            for e in self.entries
        ]
        lines.append(self.ties())
        rows = [(e.report.name, e.report) for e in self.entries]
        stats = format_rows(rows) if wide else narrow_rows(rows, self.episode, baseline_last=False)
        return "\n".join(lines) + "\n\n" + stats

    def ties(self) -> str:
        """One line: which ranks the league tells apart, and which it leaves tied."""
        tiers: dict[int, list[int]] = {}
        for rank, e in enumerate(self.entries, start=1):
            tiers.setdefault(e.tier, []).append(rank)
        tied = [f"{r[0]}-{r[-1]}" for r in tiers.values() if len(r) > 1]
        if not tied:
            return f"every neighbouring rank told apart (P >= {TOLD_APART})"
        return f"{len(tiers)} tiers; tied (P < {TOLD_APART} between neighbours): ranks {', '.join(tied)}"

    def save_json(self, path: str | os.PathLike[str]) -> None:
        """Write :meth:`to_dict` as JSON."""
        write_json(path, self.to_dict())

    def plot(self, path: str | os.PathLike[str]) -> None:
        """A PNG of each agent's rating mu with mu +- 3 sigma."""
        rows = [(e.report.name, e.mu, (e.mu - 3 * e.sigma, e.mu + 3 * e.sigma)) for e in self.entries]
        cfg = self.config
        plot_intervals(
            path,
            rows,
            xlabel="OpenSkill mu (bars: mu +- 3 sigma)",
            title=f"{cfg.variant} {cfg.num_players}p league, {self.decks} decks",
            zero_line=False,
        )


def game_results(seated: Sequence[str], record: GameRecord) -> dict[str, float]:
    """Each agent's result in one game, higher ranking higher: its share of the win in a rams or a match (the
    winners above the rest, who tie), its points in a deal; an agent in several seats by its mean."""
    per_seat = record.points if record.wins is None else record.wins
    results: dict[str, list[float]] = {}
    for name, outcome in zip(seated, per_seat, strict=True):
        results.setdefault(name, []).append(float(outcome))
    return {name: float(np.mean(values)) for name, values in results.items()}


def league(
    agents: Mapping[str, AgentSource],
    config: RulesConfig,
    *,
    decks: int = 100,
    seed: int = 0,
    episode: str = "deal",
    scores: str = "start",
    workers: int = 1,
    progress: bool = True,
) -> League:
    """Rate several agents sitting at one table: per deck one seeded line-up, rotated through every seat.

    With at least as many agents as seats a line-up is a seeded sample of them; with fewer, every agent
    sits and some sit twice. Each game ranks the agents at the table by its outcome: in a rams or a match
    the winners above the losers, in a deal by points (an agent in several seats by its mean).
    ``scores`` as in :func:`deal_set`.
    """
    from openskill.models import PlackettLuce

    if len(agents) < 2:
        raise ValueError(f"a league needs at least 2 agents, got {len(agents)}")
    check_run_arguments(config, decks, seed, episode, scores, workers)
    for name, src in agents.items():
        check_source(name, src)
    named = [(agent_label(name, src), src) for name, src in agents.items()]
    job = _LeagueJob(config, seed, episode, scores, named)
    by_deck = run_decks(job, decks, workers, progress, job.games_per_deck, "league")
    model = PlackettLuce(tau=SKILL_DRIFT)
    ratings = {name: model.rating(name=name) for name, _ in named}
    seats: dict[str, tuple[list[GameRecord], list[int]]] = {name: ([], []) for name, _ in named}
    for i, records in enumerate(by_deck):
        for lineup, record in zip(job.lineups(i), records, strict=True):
            for s, (name, _) in enumerate(lineup):
                seats[name][0].append(record)
                seats[name][1].append(s)
            results = game_results([name for name, _ in lineup], record)
            names = list(results)
            rated = model.rate([[ratings[m]] for m in names], scores=[results[m] for m in names])
            for m, team in zip(names, rated, strict=True):
                ratings[m] = team[0]
    entries = [
        LeagueEntry(tally(name, *seats[name]), ratings[name].mu, ratings[name].sigma)
        for name, _ in named
        if seats[name][0]
    ]
    entries.sort(key=lambda e: e.ordinal, reverse=True)
    for entry, (above, tier) in zip(entries, tiers([(e.mu, e.sigma) for e in entries]), strict=True):
        entry.above_next, entry.tier = above, tier
    return League(config, episode, decks, seed, scores, entries)


@dataclass(frozen=True)
class _LeagueJob:
    """The games of one deck in a league: one line-up of the pool, rotated through every seat."""

    config: RulesConfig
    seed: int
    episode: str
    scores: str
    agents: list[tuple[str, AgentSource]]

    @property
    def games_per_deck(self) -> int:
        return self.config.num_players

    def lineups(self, index: int) -> Iterator[list[tuple[str, AgentSource]]]:
        n, k = self.config.num_players, len(self.agents)
        rng = random.Random(lineup_seed(self.seed, index))
        if k >= n:
            pool = rng.sample(self.agents, n)
        else:  # everyone sits at the table, some twice or more
            pool = self.agents + rng.choices(self.agents, k=n - k)
            rng.shuffle(pool)
        for shift in range(n):
            yield [pool[(s - shift) % n] for s in range(n)]
