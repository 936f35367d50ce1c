"""One options system (rams_env/options.py): every command's ``--help`` works, its booleans are spelled one way
(``--flag``/``--no-flag``), ``--set`` reads values by the field types, and shared constants live once."""

from __future__ import annotations

import argparse
import ast
import contextlib
import importlib
import io
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from rams_env.apps.cli import BUILTIN_COMMANDS
from rams_env.apps.command import build_parser, plugin_commands
from rams_env.options import PARSERS, add_options, arg

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = [
    "rams_training.improve",
    "rams_training.distill",
    "rams_training.fit_equity",
    "rams_training.export",
    "benchmarks.learning.__main__",
    "benchmarks.training_speed",
    "benchmarks.vector_speed",
    "benchmarks.throughput",
]


def _one_way(parser: argparse.ArgumentParser) -> list[str]:
    """The options of ``parser`` that take a boolean another way than ``--flag``/``--no-flag``."""
    bad = []
    for action in parser._actions:
        if isinstance(action, (argparse._HelpAction, argparse._VersionAction, argparse._SubParsersAction)):
            continue
        if action.nargs == 0 and not isinstance(action, argparse.BooleanOptionalAction):
            bad.append(f"{parser.prog} {'/'.join(action.option_strings)}: {type(action).__name__}")
        if action.type is PARSERS[bool]:
            bad.append(f"{parser.prog} {'/'.join(action.option_strings)}: takes true/false")
    return bad


def _rams_parsers() -> list[argparse.ArgumentParser]:
    parser = build_parser([*BUILTIN_COMMANDS, *plugin_commands()])
    [sub] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return [parser, *sub.choices.values()]


def test_every_rams_command_has_help_and_one_spelling_of_booleans() -> None:
    parsers = _rams_parsers()
    names = {p.prog.split()[-1] for p in parsers}
    assert {"eval", "play", "replay", "train", "exploit", "psro", "serve"} <= names
    bad = []
    for parser in parsers:
        assert parser.format_help()
        bad += _one_way(parser)
    assert not bad, bad


@pytest.mark.parametrize("module", SCRIPTS)
def test_every_script_has_help_and_one_spelling_of_booleans(module: str, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[argparse.ArgumentParser] = []
    original = argparse.ArgumentParser.parse_known_args

    def recording(self, *args, **kwargs):
        seen.append(self)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(argparse.ArgumentParser, "parse_known_args", recording)
    monkeypatch.setattr(sys, "argv", [module, "--help"])
    main = importlib.import_module(module).main
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit) as stop:
        main()
    assert stop.value.code == 0 and "usage:" in out.getvalue()
    assert seen
    assert not [b for parser in seen for b in _one_way(parser)]


def test_a_bool_field_is_a_flag_pair() -> None:
    @dataclass(kw_only=True)
    class Args:
        progress: bool = arg(True, "show progress")
        resume: bool = arg(False, "continue")

    parser = argparse.ArgumentParser()
    add_options(parser, Args)
    assert vars(parser.parse_args([])) == {"progress": True, "resume": False}
    assert vars(parser.parse_args(["--no-progress", "--resume"])) == {"progress": False, "resume": True}
    with contextlib.redirect_stderr(io.StringIO()), pytest.raises(SystemExit):
        parser.parse_args(["--resume", "true"])


def test_the_harness_reads_set_values_by_the_field_types() -> None:
    from benchmarks.learning.schemas import check_options, read_settings

    values = read_settings("torchrl", {"num_games": "64", "normalize_advantage": "true", "lr": "1"})
    assert values == {"num_games": 64, "normalize_advantage": True, "lr": 1.0} and isinstance(values["lr"], float)
    assert read_settings("rams", {"hidden": "64,32", "no_such": "1"}) == {"hidden": (64, 32), "no_such": 1}
    unread = read_settings("torchrl", {"num_games": "many", "imitation": "2.5"})  # check_options names them
    assert unread == {"num_games": "many", "imitation": 2.5}
    assert check_options("torchrl", read_settings("torchrl", {"lr": "1"}))["lr"] == 1.0


def test_the_report_seed_is_written_once() -> None:
    """The report and choosing deal sets are constants of rams_env.eval.deals, imported wherever used."""
    literal = re.compile(r"\b7_?400_?001\b|\b7_?200_?001\b")
    files = [p for folder in ("rams_env", "training", "benchmarks", "examples") for p in (ROOT / folder).rglob("*.py")]
    holders = [str(p.relative_to(ROOT)) for p in files if literal.search(p.read_text(encoding="utf-8"))]
    assert holders == ["rams_env/eval/deals.py"], holders


def test_the_cleanrl_example_stands_alone() -> None:
    """CleanRL style: its own tiny dataclass and parser, nothing of the training package."""
    tree = ast.parse((ROOT / "examples" / "cleanrl_ppo.py").read_text(encoding="utf-8"))
    modules = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    modules += [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    assert not [m for m in modules if m.split(".")[0] in ("rams_training", "training", "benchmarks")]
