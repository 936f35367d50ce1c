"""Statistics of an evaluation: confidence intervals, and one agent's tally over its games.

:func:`wilson_interval` bounds a win share, :func:`bootstrap_interval` a mean duplicate advantage;
:class:`AgentReport` holds an agent's points, flights, knocks and wins, which :func:`tally` counts
from the records of its games.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .play import GameRecord

Z95 = 1.959963984540054  # standard normal quantile of 0.975


def wilson_interval(successes: float, trials: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion (``successes`` may be fractional: shared wins)."""
    if trials <= 0:
        raise ValueError(f"trials must be positive, got {trials}")
    if not 0 <= successes <= trials:
        raise ValueError(f"successes must lie in 0..trials={trials}, got {successes}")
    p = successes / trials
    z2 = z * z
    denom = 1.0 + z2 / trials
    center = (p + z2 / (2 * trials)) / denom
    half = z / denom * math.sqrt(p * (1.0 - p) / trials + z2 / (4 * trials * trials))
    return max(0.0, center - half), min(1.0, center + half)


def bootstrap_interval(
    values: Sequence[float] | np.ndarray, resamples: int = 10_000, seed: int = 0, level: float = 0.95
) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean of ``values`` (seeded, reproducible)."""
    x = np.asarray(values, dtype=np.float64)
    if x.ndim != 1 or x.size == 0:
        raise ValueError(f"values must be a non-empty 1-d sample, got shape {x.shape}")
    if resamples < 1:
        raise ValueError(f"resamples must be at least 1, got {resamples}")
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must lie strictly between 0 and 1, got {level}")
    rng = np.random.default_rng(seed)
    m = x.size
    means = np.empty(resamples)
    chunk = max(1, 2_000_000 // m)  # bounded memory for the index matrix
    for start in range(0, resamples, chunk):
        k = min(chunk, resamples - start)
        means[start : start + k] = x[rng.integers(0, m, size=(k, m))].mean(axis=1)
    tail = (1.0 - level) / 2.0
    lo, hi = np.quantile(means, [tail, 1.0 - tail])
    return float(lo), float(hi)


@dataclass
class AgentReport:
    """Statistics of one agent over its games (for the baseline: over its baseline-only games)."""

    name: str
    games: int
    deals: int
    points_per_deal: float
    flight_rate: float  # flights per deal played
    knock_rate: float  # knocks per deal played
    advantage: float | None = None  # mean duplicate advantage per deck (points per episode)
    advantage_ci: tuple[float, float] | None = None
    win_rate: float | None = None  # episode "rams" / "match": shared wins per game
    win_rate_ci: tuple[float, float] | None = None
    fair_share: float | None = None  # 1 / num_players: the win share of an agent no better than the others
    knock_by_score: dict[int, tuple[int, int]] = field(default_factory=dict)  # score -> (knock decisions, knocks)
    per_deck: np.ndarray | None = field(default=None, repr=False)  # duplicate advantage of each deck

    def knock_rates(self) -> dict[int, float]:
        """Knocks per knock decision, by the agent's score when it decided (ascending scores)."""
        return {s: k / d for s, (d, k) in sorted(self.knock_by_score.items()) if d}

    def to_dict(self) -> dict[str, Any]:
        """Plain data (the per-deck advantages as a list, so that intervals can be recomputed)."""
        out = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        for key in ("advantage_ci", "win_rate_ci"):
            if out[key] is not None:
                out[key] = list(out[key])
        out["knock_by_score"] = {str(s): list(v) for s, v in sorted(self.knock_by_score.items())}
        if self.per_deck is not None:
            out["per_deck"] = self.per_deck.tolist()
        return out


def tally(name: str, records: Sequence[GameRecord], seats: Sequence[int]) -> AgentReport:
    """Pool the given seat of each record."""
    deals = sum(r.deals for r in records)
    points = sum(r.points[s] for r, s in zip(records, seats, strict=True))
    flights = sum(r.flights[s] for r, s in zip(records, seats, strict=True))
    knocks = sum(r.knocks[s] for r, s in zip(records, seats, strict=True))
    report = AgentReport(name, len(records), deals, points / deals, flights / deals, knocks / deals)
    for r, s in zip(records, seats, strict=True):
        for score, (decided, knocked) in (r.knock_by_score[s] if r.knock_by_score else {}).items():
            d, k = report.knock_by_score.get(score, (0, 0))
            report.knock_by_score[score] = (d + decided, k + knocked)
    if records[0].wins is not None:
        report.fair_share = 1.0 / len(records[0].wins)
        wins = sum(r.wins[s] for r, s in zip(records, seats, strict=True))  # type: ignore[index]
        report.win_rate = wins / len(records)
        report.win_rate_ci = wilson_interval(wins, len(records))
    return report
