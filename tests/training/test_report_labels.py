"""Issue 38 items 14-16: the quick run's table reconciles its two knock figures, the learning-curve plot's
y-axis names its quantity (not "50 decks of deal set N"), and ``rams train --help`` shows the recipes' values."""

from __future__ import annotations

import argparse

import pytest

pytest.importorskip("torch")

from training import cli


def test_train_help_shows_each_recipes_value() -> None:
    parser = argparse.ArgumentParser()
    cli.configure(parser)
    text = " ".join(parser.format_help().split())
    steps = {recipe: cli.RECIPES[recipe]["total_steps"] for recipe in cli.RECIPES}
    assert "(recipes: " + ", ".join(f"{r} {steps[r]}" for r in sorted(steps)) + ")" in text
    assert "(every recipe: 4)" in text  # --num-players


def test_the_knock_figures_are_reconciled_under_the_table() -> None:
    assert "knocks per deal played" in cli.KNOCKS_NOTE and "knocks per knock decision" in cli.KNOCKS_NOTE


def test_the_learning_curves_y_axis_names_its_quantity(tmp_path) -> None:
    import inspect

    from training import logs

    source = inspect.getsource(logs)
    assert 'set_ylabel(f"{decks} decks of deal set {seed}")' not in source
    assert 'set_ylabel("win share" if whole else "advantage per deal")' in source
