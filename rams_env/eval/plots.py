"""PNG plots of results with matplotlib (imported when a plot is drawn): intervals, and knock rates by score."""

from __future__ import annotations

import os
from collections.abc import Sequence

from ..rules import RulesConfig
from .stats import AgentReport, wilson_interval
from .tables import bin_label, binned_knock_rates, score_bins


def plot_knock_rates(
    path: str | os.PathLike[str], rows: Sequence[tuple[str, AgentReport]], config: RulesConfig, subtitle: str
) -> None:
    """Knock rate against score, one line per agent, each point with its Wilson 95% interval."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    try:
        for k, (name, report) in enumerate(rows):
            cells = binned_knock_rates(report, config)
            xs = [i for i, (_, d, _) in enumerate(cells) if d]
            rates = [cells[i][2] for i in xs]
            cis = [wilson_interval(cells[i][2] * cells[i][1], cells[i][1]) for i in xs]  # type: ignore[operator]
            lo = [max(0.0, r - c[0]) for r, c in zip(rates, cis, strict=True)]  # rounding can cross the rate
            hi = [max(0.0, c[1] - r) for r, c in zip(rates, cis, strict=True)]
            ax.errorbar(xs, rates, yerr=[lo, hi], marker="o", capsize=3, label=name, color=f"C{k}")
        ax.set_xticks(range(len(score_bins(config))), [bin_label(low, high) for low, high in score_bins(config)])
        ax.set_ylim(-0.02, 1.02)
        ax.set_xlabel("own score at the knock decision (lower is closer to winning)")
        ax.set_ylabel("knocks per decision")
        ax.set_title(f"{config.variant} {config.num_players}p knock rate by score ({subtitle})", fontsize=9)
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(path, format="png", dpi=100)
    finally:
        plt.close(fig)


def plot_intervals(
    path: str | os.PathLike[str],
    rows: Sequence[tuple[str, float | None, tuple[float, float] | None]],
    xlabel: str,
    title: str,
    zero_line: bool,
    reference: float | None = None,
) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 1.2 + 0.5 * len(rows)))
    try:
        for y, (_, value, ci) in enumerate(rows):
            lo, hi = ci if ci is not None else (value, value)
            ax.errorbar([value], [y], xerr=[[value - lo], [hi - value]], fmt="o", capsize=4, color="C0")
        if zero_line or reference is not None:
            ax.axvline(reference or 0.0, color="grey", linewidth=1, linestyle="--")
        ax.set_yticks(range(len(rows)), [name for name, _, _ in rows])
        ax.set_ylim(-0.7, len(rows) - 0.3)
        ax.invert_yaxis()
        ax.set_xlabel(xlabel)
        ax.set_title(title)
        fig.tight_layout()
        fig.savefig(path, format="png", dpi=100)
    finally:
        plt.close(fig)
