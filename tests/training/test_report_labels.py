"""Issue 38 items 14-16: the quick run's table reconciles its two knock figures, the learning-curve plot's
y-axis names its quantity (drawn and checked in tests/training/test_logs.py), and ``rams train --help`` shows
the recipes' values."""

from __future__ import annotations

import argparse

from rams_training import cli


def test_train_help_shows_each_recipes_value() -> None:
    parser = argparse.ArgumentParser()
    cli.configure(parser)
    text = " ".join(parser.format_help().split())
    steps = {recipe: cli.RECIPES[recipe]["total_steps"] for recipe in cli.RECIPES}
    assert "(recipes: " + ", ".join(f"{r} {steps[r]}" for r in sorted(steps)) + ")" in text
    assert "(every recipe: 4)" in text  # --num-players


def test_the_knock_figures_are_reconciled_under_the_table() -> None:
    assert "knocks per deal played" in cli.KNOCKS_NOTE and "knocks per knock decision" in cli.KNOCKS_NOTE
