"""The options of ``rams eval``, ``rams play`` and ``rams replay``: every help text says its default in whole
sentences, ``--num-players`` is the documented spelling (``--players`` still works), and the docs and the
examples use that one spelling."""

from __future__ import annotations

from pathlib import Path

import pytest

from rams_env.apps.cli import main

ROOT = Path(__file__).resolve().parents[3]


def _subparsers() -> dict[str, object]:
    import argparse

    from rams_env.apps.cli import BUILTIN_COMMANDS
    from rams_env.apps.command import build_parser

    parser = build_parser(BUILTIN_COMMANDS)
    [sub] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(sub.choices)


@pytest.mark.parametrize("command", ["eval", "play", "replay"])
def test_every_option_says_its_default_in_whole_sentences(command: str) -> None:
    import argparse

    parser = _subparsers()[command]
    for action in parser._actions:
        if not action.option_strings or action.help in (None, argparse.SUPPRESS) or "-h" in action.option_strings:
            continue
        text = action.help
        assert "default" in text, f"rams {command} {action.option_strings[0]}: no default in {text!r}"
        assert text.count("(") == text.count(")"), f"rams {command} {action.option_strings[0]}: {text!r}"
        assert not text.rstrip().endswith((",", ";", ":", "(", " and", " or")), text


@pytest.mark.parametrize("command", ["eval", "play"])
def test_num_players_is_the_documented_spelling_and_players_still_works(command: str) -> None:
    parser = _subparsers()[command]
    help_text = parser.format_help()
    assert "--num-players N" in help_text and "--players" not in help_text
    base = ["random"] if command == "eval" else []
    assert parser.parse_args([*base, "--num-players", "5"]).num_players == 5
    assert parser.parse_args([*base, "--players", "6"]).num_players == 6
    # Left out: 4 for play; for eval the checkpoint agent's own table, else 4 (tests/apps/cli/test_evaluate.py).
    assert parser.parse_args(base).num_players == (None if command == "eval" else 4)


def test_eval_with_either_spelling_plays_that_table(capsys: pytest.CaptureFixture[str]) -> None:
    for option in ("--num-players", "--players"):
        assert main(["eval", "random", option, "5", "--decks", "1", "--no-progress", "--resamples", "10"]) == 0
        assert "mattmar, 5 players" in capsys.readouterr().out


def test_docs_evaluation_examples_say_how_long_they_take_and_use_one_spelling() -> None:
    import re

    readme = (ROOT / "docs" / "agents.md").read_text(encoding="utf-8")
    start = readme.index("## The command line")
    end = readme.find("\n## ", start + 1)
    section = readme[start : end if end > 0 else None]
    block = re.search(r"```bash\n(.*?)```", section, re.DOTALL).group(1)
    runs = [line for line in block.splitlines() if line.startswith("rams eval") and "--help" not in line]
    assert runs and all(re.search(r"# .*~\d+ min", line) for line in runs), runs
    assert "--players" not in section.replace("`--players` is still accepted", "")


@pytest.mark.parametrize(
    "example",
    [ROOT / "examples" / name for name in ("rllib_ppo.py", "sb3_maskable_ppo.py", "torchrl_rollout.py")],
    ids=lambda p: p.name,
)
def test_examples_show_their_defaults_and_spell_num_players_as_rams_train(example: Path) -> None:
    text = example.read_text(encoding="utf-8")
    assert "argparse" in text and "players" in text  # each of these examples takes a player count
    assert "ArgumentDefaultsHelpFormatter" in text
    assert '"--num-players"' in text
    assert 'pip install "rams_env[' not in text  # not published: install from a checkout or a wheel
