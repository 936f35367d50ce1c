"""The printed tables of results and the JSON header of every result.

The tables of :class:`~rams_env.eval.duplicate.Evaluation` and :class:`~rams_env.eval.league.League`
fit :data:`TABLE_WIDTH` columns (a terminal's or a model card's): the units in the header, a
long agent name on a line of its own; the knock rate by score in :func:`knock_table`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import Any

from ..rules import RulesConfig
from .stats import AgentReport

PLURAL = {"deal": "deals", "rams": "ramsar", "match": "matches"}  # episode kind -> its plural, for tables


TABLE_WIDTH = 100  # columns of Evaluation.table() (a terminal's or a model card's)


def result_header(kind: str, config: RulesConfig, episode: str, decks: int, seed: int, scores: str) -> dict[str, Any]:
    """The fields every result's JSON starts with: what was played, on which deal set."""
    return {
        "kind": kind,
        "config": config.to_dict(),
        "variant": config.variant,
        "num_players": config.num_players,
        "episode": episode,
        "decks": decks,
        "seed": seed,
        "start_scores": scores,
    }


def write_json(path: str | os.PathLike[str], data: dict[str, Any]) -> None:
    """Write ``data`` to ``path`` as indented JSON."""
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=2)
        f.write("\n")


def scores_note(scores: str) -> str:
    """What a table's header says of the deal set's start scores."""
    return ", random start scores" if scores == "random" else ""


def _ci(ci: tuple[float, float] | None, fmt: str) -> str:
    return "" if ci is None else f"[{ci[0]:{fmt}}, {ci[1]:{fmt}}]"


def format_rows(rows: Sequence[tuple[str, AgentReport]]) -> str:
    """Aligned lines of (label, report); advantage and win-rate columns only where some row has them."""
    reports = [r for _, r in rows]
    show_win = any(r.win_rate is not None for r in reports)
    show_adv = any(r.advantage is not None for r in reports)
    width = max(12, *(len(label) + 2 for label, _ in rows))
    head = f"{'agent':<{width}}{'games':>8}{'deals':>9}{'pts/deal':>10}"
    if show_adv:
        head += f"{'advantage':>11}  {'95% CI':<18}"
    head += f"{'flights/deal':>14}{'knocks/deal':>13}"
    if show_win:
        head += f"{'win rate':>10}  {'95% CI':<16}"
    lines = [head.rstrip()]
    for label, r in rows:
        line = f"{label:<{width}}{r.games:>8}{r.deals:>9}{r.points_per_deal:>10.3f}"
        if show_adv:
            adv = "" if r.advantage is None else f"{r.advantage:+.3f}"
            line += f"{adv:>11}  {_ci(r.advantage_ci, '+.3f'):<18}"
        line += f"{r.flight_rate:>14.3f}{r.knock_rate:>13.3f}"
        if show_win:
            win = "" if r.win_rate is None else f"{r.win_rate:.3f}"
            line += f"{win:>10}  {_ci(r.win_rate_ci, '.3f'):<16}"
        lines.append(line.rstrip())
    return "\n".join(lines)


def narrow_rows(rows: Sequence[tuple[str, AgentReport]], episode: str, baseline_last: bool = True) -> str:
    """:func:`format_rows` within :data:`TABLE_WIDTH` columns: column widths from the cells, and a
    label too long for its column on a line of its own. The baseline's row (the last, when
    ``baseline_last``) shows no interval: its win rate is the fair share by construction."""
    reports = [r for _, r in rows]
    columns: list[tuple[str, list[str]]] = [
        ("games", [str(r.games) for r in reports]),
        ("deals", [str(r.deals) for r in reports]),
        ("pts/deal", [f"{r.points_per_deal:.3f}" for r in reports]),
    ]
    last = len(rows) - 1 if baseline_last else -1
    if any(r.advantage is not None for r in reports):
        cells = [
            "" if r.advantage is None or k == last else f"{r.advantage:+.3f} {_tight(r.advantage_ci, '+.3f')}"
            for k, r in enumerate(reports)
        ]
        columns.append((f"adv/{episode} [95% CI]", cells))
    columns.append(("flights", [f"{r.flight_rate:.3f}" for r in reports]))
    columns.append(("knocks", [f"{r.knock_rate:.3f}" for r in reports]))
    if any(r.win_rate is not None for r in reports):
        cells = [
            ""
            if r.win_rate is None
            else f"{r.win_rate:.3f} (fair share)"
            if k == last
            else f"{r.win_rate:.3f} {_tight(r.win_rate_ci, '.3f')}"
            for k, r in enumerate(reports)
        ]
        columns.append(("win rate [95% CI]", cells))
    widths = [max(len(name), *(len(c) for c in cells)) + 1 for name, cells in columns]  # a space before each
    label_width = max(8, *(len(label) for label, _ in rows))
    own_line = label_width + sum(widths) > TABLE_WIDTH
    if own_line:
        label_width = 2  # labels above their numbers, which are indented
    ragged = {f"adv/{episode} [95% CI]", "win rate [95% CI]"}  # left-aligned: a value and its interval
    cell = lambda text, name, w: " " + text.ljust(w - 1) if name in ragged else text.rjust(w)
    lines = ["agent".ljust(label_width) + "".join(cell(n, n, w) for (n, _), w in zip(columns, widths, strict=True))]
    for i, (label, _) in enumerate(rows):
        line = "" if own_line else label.ljust(label_width)
        line += "".join(cell(cells[i], name, w) for (name, cells), w in zip(columns, widths, strict=True))
        if own_line:
            lines.append(label)
            line = " " * label_width + line
        lines.append(line.rstrip())
    return "\n".join(line.rstrip() for line in lines)


def _tight(ci: tuple[float, float] | None, fmt: str) -> str:
    """An interval without the space after its comma (``[0.104,0.171]``): the narrow table's."""
    return "" if ci is None else f"[{ci[0]:{fmt}},{ci[1]:{fmt}}]"


def score_bins(config: RulesConfig) -> list[tuple[int, int]]:
    """Score ranges (low, high) for knock rates: each Swedish score, tenths of the start score in russian."""
    if config.swedish:
        return [(s, s) for s in range(1, config.flight_cap + 1)]
    width = max(1, config.start_score // 10)
    return [(1 + k * width, (k + 1) * width) for k in range(10)]


def binned_knock_rates(report: AgentReport, config: RulesConfig) -> list[tuple[str, int, float | None]]:
    """(score range, knock decisions, knock rate or None) for each of :func:`score_bins`."""
    out = []
    for low, high in score_bins(config):
        decided = knocked = 0
        for score, (d, k) in report.knock_by_score.items():
            if low <= score <= high or (high == config.start_score and score > high):
                decided, knocked = decided + d, knocked + k
        out.append((bin_label(low, high), decided, knocked / decided if decided else None))
    return out


def knock_table(rows: Sequence[tuple[str, AgentReport]], config: RulesConfig, fit: int | None = None) -> str:
    """Knock rate (knocks per knock decision) by the agent's score when it decided, one line per agent.

    ``fit``: a width in columns; a name that would make a line wider goes on a line of its own."""
    labels = [bin_label(low, high) for low, high in score_bins(config)]
    width = max(12, *(len(label) + 2 for label, _ in rows))
    if fit is not None:  # the rates are right-aligned in 8 columns: no space needed after a name
        width = max(len("knock rate by score"), *(len(label) for label, _ in rows))
    own_line = fit is not None and width + 8 * len(labels) > fit
    width = 20 if own_line else width
    lines = [f"{'knock rate by score':<{width}}" + "".join(f"{label:>8}" for label in labels)]
    for name, report in rows:
        cells = binned_knock_rates(report, config)
        rates = "".join(f"{'-' if r is None else f'{r:.2f}':>8}" for _, _, r in cells)
        lines += [name, " " * width + rates] if own_line else [f"{name:<{width}}" + rates]
    return "\n".join(lines)


def bin_label(low: int, high: int) -> str:
    """A score range as a column heading: ``5`` or ``1-10``."""
    return str(low) if low == high else f"{low}-{high}"
