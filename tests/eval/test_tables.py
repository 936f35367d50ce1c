"""``Evaluation.table()``: within 100 columns, the units in the header, the baseline named and shown
without an interval around its own fair share; ``rams eval --wide`` keeps the earlier one-line-per-agent table."""

from __future__ import annotations

import pytest

from rams_env.agents import HeuristicAgent, RandomAgent
from rams_env.apps.cli import main
from rams_env.eval import TABLE_WIDTH, evaluate, source_name
from rams_env.rules import make_config

LONG = "checkpoints/norrlandsknack/norrlandsknack-4p-ensemble/norrlandsknack-4p-ensemble.json"


@pytest.mark.parametrize(("variant", "episode"), [("mattmar", "rams"), ("russian", "deal")])
def test_the_table_fits_100_columns_with_the_units_in_its_header(variant: str, episode: str) -> None:
    config = make_config(variant, 4)
    ev = evaluate(
        {"heuristic": HeuristicAgent, LONG: RandomAgent}, RandomAgent, config, decks=2, episode=episode,
        resamples=50, progress=False,
    )  # fmt: skip
    table = ev.table()
    assert max(len(line) for line in table.splitlines()) <= TABLE_WIDTH == 100, table
    assert "pts/deal" in table and f"adv/{episode} [95% CI]" in table
    assert "pts/deal: points per deal" in table and f"advantage in points per {episode}" in table
    assert LONG in table.splitlines()  # a name too long for the column: on a line of its own, whole
    if episode == "rams":
        assert "win rate [95% CI]" in table and "fair share 1/4 = 0.250" in table


def test_the_baseline_row_shows_its_fair_share_without_an_interval() -> None:
    ev = evaluate({"heuristic": HeuristicAgent}, RandomAgent, make_config("mattmar", 4), decks=2, episode="rams",
                  resamples=50, progress=False)  # fmt: skip
    base = next(line for line in ev.table().splitlines() if line.startswith("random (baseline)"))
    assert "0.250 (fair share)" in base and "[" not in base
    heuristic = next(line for line in ev.table().splitlines() if line.startswith("heuristic"))
    assert heuristic.count("[") == 2  # advantage and win rate, each with its interval
    assert ev.baseline.win_rate_ci is not None  # the data (JSON) keeps it


def test_the_baseline_is_named_after_its_agent_by_default() -> None:
    ev = evaluate({"ppo": HeuristicAgent}, RandomAgent, make_config("mattmar", 4), decks=1, progress=False)
    assert ev.baseline.name == "random" and "random (baseline)" in ev.table()
    assert "baseline (baseline)" not in ev.table()
    assert source_name(HeuristicAgent(make_config("mattmar", 4))) == "heuristic"


def test_rams_eval_wide_keeps_the_one_line_per_agent_table(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["eval", "heuristic", "--episode", "rams", "--decks", "2", "--resamples", "50", "--no-progress"]
    assert main(argv) == 0
    narrow = capsys.readouterr().out
    assert max(len(line) for line in narrow.splitlines()) <= 100
    assert main([*argv, "--wide"]) == 0
    wide = capsys.readouterr().out
    assert max(len(line) for line in wide.splitlines()) > 100
    assert any(line.startswith("random (baseline)") and "[" in line for line in wide.splitlines())


def test_a_training_runs_final_table_keeps_each_name_on_its_row() -> None:
    config = make_config("mattmar", 4)
    ev = evaluate({"policy": RandomAgent}, HeuristicAgent, config, decks=1, episode="rams", resamples=20,
                  progress=False)  # fmt: skip
    lines = ev.table().splitlines()
    assert max(len(line) for line in lines) <= TABLE_WIDTH
    rows = [line.split() for line in lines if line.startswith("heuristic (baseline)")]
    assert len(rows) == 2 and rows[0][2] == "4" and len(rows[1]) == 12  # stats, then ten knock rates
