"""One options system (rams_env/options.py): every command's ``--help`` works, every option of every ``rams``
command and benchmark script comes from a dataclass field (:func:`rams_env.options.add_options` marks each),
the rules options are one dataclass that all of them share, booleans are spelled one way
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
from rams_env.options import FIELD_ATTR, PARSERS, REQUIRED, SEED, add_options, arg, from_namespace, options_parser

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = [
    "rams_training.improve",
    "rams_training.distill",
    "rams_training.fit_equity",
    "rams_training.export",
    "rams_training.belief_cards",
    "rams_training.search_cards",
    "rams_training.expert_iteration",
    "benchmarks.learning.__main__",
    "benchmarks.learning.policy_entropy",
    "benchmarks.aec_core",
    "benchmarks.belief_accuracy",
    "benchmarks.differential",
    "benchmarks.engine_speed",
    "benchmarks.env_speed",
    "benchmarks.heuristic_speed",
    "benchmarks.outside_libraries",
    "benchmarks.rllib_cluster",
    "benchmarks.search_speed",
    "benchmarks.throughput",
    "benchmarks.torchrl_selfplay_speed",
    "benchmarks.training_speed",
    "benchmarks.vector_speed",
]
HAND_BUILT: dict[str, set[str]] = {}
"""the arguments still built by hand: none (each command's positional arguments are dataclass fields too)"""


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


def _by_hand(parser: argparse.ArgumentParser) -> set[str]:
    """The arguments of ``parser`` that no dataclass field gave (:data:`rams_env.options.FIELD_ATTR`)."""
    skip = (argparse._HelpAction, argparse._VersionAction, argparse._SubParsersAction)
    actions = [a for a in parser._actions if not isinstance(a, skip)]
    return {"/".join(a.option_strings) or a.dest for a in actions if not hasattr(a, FIELD_ATTR)}


def _field(parser: argparse.ArgumentParser, option: str) -> str:
    """The ``Class.field`` that ``option`` of ``parser`` reads."""
    [action] = [a for a in parser._actions if option in a.option_strings]
    return getattr(action, FIELD_ATTR)


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


def test_every_rams_option_comes_from_a_dataclass_field() -> None:
    parsers = {p.prog: p for p in _rams_parsers()}
    assert {"rams eval", "rams play", "rams replay", "rams serve"} <= set(parsers)
    by_hand = {prog: found for prog, parser in parsers.items() if (found := _by_hand(parser))}
    assert by_hand == {prog: names for prog, names in HAND_BUILT.items() if prog in parsers}, by_hand


def test_the_rules_options_are_one_dataclass_shared() -> None:
    """``--variant``, ``--num-players`` (``--players`` its old spelling) and the rule options of every command
    and script that takes them are fields of RulesOptions, not repeated."""
    parsers = {p.prog: p for p in _rams_parsers()}
    fields = ["variant", "num_players", "option", "episode", "scores"]
    for prog in ("rams eval", "rams play"):
        for name in fields:
            assert _field(parsers[prog], f"--{name.replace('_', '-')}") == f"RulesOptions.{name}"
        assert _field(parsers[prog], "--players") == "RulesOptions.num_players"
    assert parsers["rams eval"].parse_args(["random"]).variant is None  # eval: a checkpoint's own rules first
    assert parsers["rams play"].parse_args([]).variant == "mattmar"
    sources = [ROOT / "rams_env" / "apps", ROOT / "benchmarks"]
    hand = re.compile(r"add_argument\(\s*\"--(variant|num-players|players)\"")
    assert not [p for folder in sources for p in folder.rglob("*.py") if hand.search(p.read_text(encoding="utf-8"))]


def test_bounded_options_are_checked_as_they_are_read() -> None:
    """``validate=True``: a field's range or seed rule is the option's check, a parse error naming it."""

    @dataclass(kw_only=True)
    class Args:
        workers: int = arg(1, "processes", low=1, high=1024)
        seed: int | None = arg(None, "seed", check=SEED)
        rate: float = arg(0.5, "rate", low=0, high=1, open_low=True)

    parser = argparse.ArgumentParser(prog="t")
    add_options(parser, Args, validate=True)
    assert vars(parser.parse_args(["--workers", "1024", "--seed", "0"])) == {"workers": 1024, "seed": 0, "rate": 0.5}
    for argv, message in [
        (["--workers", "0"], "argument --workers: expected an integer in [1, 1024], got 0"),
        (["--workers", "x"], "argument --workers: expected an integer in [1, 1024], got 'x'"),
        (["--seed", "-1"], "argument --seed: expected a seed"),
        (["--rate", "0"], "argument --rate: expected a number in (0, 1], got 0.0"),
    ]:
        err = io.StringIO()
        with contextlib.redirect_stderr(err), pytest.raises(SystemExit) as stop:
            parser.parse_args(argv)
        assert stop.value.code == 2 and message in err.getvalue(), err.getvalue()


def test_word_lists_positionals_and_old_names_are_fields() -> None:
    @dataclass(kw_only=True)
    class Args:
        agents: tuple[str, ...] = arg(REQUIRED, "agents", positional=True, nargs="+", metavar="AGENT")
        others: tuple[str, ...] = arg(("heuristic",), "other seats", nargs="*")
        option: tuple[str, ...] = arg((), "a rule option; repeatable", repeat=True, metavar="KEY=VALUE")
        num_players: int = arg(4, "players", old_names=["players"], metavar="N")

    parser = options_parser("t", Args)
    assert from_namespace(Args, parser.parse_args(["a", "b"])) == Args(agents=("a", "b"), others=("heuristic",))
    got = from_namespace(Args, parser.parse_args(["a", "--option", "x=1", "--option", "y=2", "--players", "5"]))
    assert got == Args(agents=("a",), option=("x=1", "y=2"), num_players=5)
    assert "--players" not in parser.format_help() and "--num-players N" in parser.format_help()
    assert from_namespace(Args, parser.parse_args(["a"])).option == ()


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
    by_hand = {parser.prog: found for parser in seen if (found := _by_hand(parser))}  # all from dataclasses
    assert by_hand == {prog: names for prog, names in HAND_BUILT.items() if prog in by_hand}, by_hand
    assert not {prog for prog in HAND_BUILT if prog.endswith(module)} - set(by_hand)  # a moved one leaves the list


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


def test_argparse_is_built_in_one_module() -> None:
    """rams_env/options.py alone builds parsers: every command adds its dataclasses' options through it, and the
    hooks of the ``rams`` subcommands take its ``Parser``."""
    files = [p for folder in ("rams_env", "training", "benchmarks") for p in (ROOT / folder).rglob("*.py")]
    users = sorted(str(p.relative_to(ROOT)) for p in files if "argparse" in p.read_text(encoding="utf-8"))
    assert users == ["rams_env/options.py"], users


def test_a_command_whose_dependency_is_missing_takes_any_arguments_and_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from importlib.metadata import EntryPoint

    from rams_env.apps import command
    from rams_env.apps.cli import main

    (tmp_path / "plugin_needing_x.py").write_text("import no_such_dependency_x\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    point = EntryPoint("absent", "plugin_needing_x:COMMAND", command.COMMAND_GROUP)
    monkeypatch.setattr(command, "entry_points", lambda group: [point] if group == command.COMMAND_GROUP else [])
    [stand_in] = plugin_commands()
    assert stand_in.name == "absent" and "not available" in stand_in.help
    assert main(["absent", "x", "--y", "1"]) == 1
    assert "rams absent: error: needs 'no_such_dependency_x', which is not installed" in capsys.readouterr().err
