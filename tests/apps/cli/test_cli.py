"""The ``rams`` command line: play driven through stdin (bad input included), save and replay, eval."""

from __future__ import annotations

import argparse
import json
import signal
import subprocess
import sys
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path

import pexpect
import pytest

from rams_env.apps import command
from rams_env.apps.cli import BUILTIN_COMMANDS, main
from rams_env.apps.cli.play import parse_move
from rams_env.apps.command import COMMAND_GROUP, Command, build_parser
from rams_env.apps.game_log import LOG_FORMAT
from rams_env.apps.narration import describe
from rams_env.eval import deal_set
from rams_env.rules import Action, Phase, card_index, make_config

RAMS = [sys.executable, "-m", "rams_env.apps.cli"]
# Seed 3 with random opponents: player_0 decides in the knock round, knocks, buys and plays.
PLAY = ["play", "--agents", "random", "--seed", "3"]
BAD_INPUT = ["xyzzy", "", "1.5", "99", "DRAW"]  # unknown word, empty line, non-number, no such number, illegal


def rams(*args: str, stdin: str = "", cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*RAMS, *args], input=stdin, capture_output=True, text=True, timeout=60, cwd=cwd)


def last_table(output: str) -> str:
    """The last rendered table of an output (from its title line to the hand line)."""
    start = output.rindex("Rams (")
    return output[start : output.index("your hand", start)]


# ----------------------------------------------------------------------------- rams play
def test_play_answers_bad_input_plays_to_the_end_saves_and_replays(tmp_path: Path) -> None:
    log = tmp_path / "log.json"
    stdin = "\n".join([*BAD_INPUT, "knock", *["1"] * 60]) + "\n"
    played = rams(*PLAY, "--save", str(log), stdin=stdin)
    out = played.stdout
    assert played.returncode == 0, played.stderr
    assert "Traceback" not in out + played.stderr
    assert "you: knock" in out
    assert "Unknown move 'xyzzy'" in out
    assert "Please type a move" in out
    assert "Unknown move '1.5'" in out
    assert "There is no move number 99: choose 1 to" in out
    assert "DRAW is not a legal move now; legal: PASS, KNOCK." in out
    assert "your hand (player_0)" in out and "<- to act" in out and "trump:" in out
    assert "deal over" in out and "saved the game log" in out

    record = json.loads(log.read_text())
    assert record["format"] == LOG_FORMAT and record["complete"] is True
    assert record["actions"][0][1] in {"BID_BETTER", "BID_SWING", "NO_BID", "PASS", "KNOCK"}
    deal = deal_set(make_config("mattmar", 4), 3, 1)[0]
    assert record["deck"] == list(deal.deck) and record["dealer"] == deal.dealer

    replayed = rams("replay", str(log))
    assert replayed.returncode == 0, replayed.stderr
    assert f"end of the log ({len(record['actions'])} actions)" in replayed.stdout
    assert last_table(replayed.stdout) == last_table(out)
    assert rams("play", "--replay", str(log)).stdout == replayed.stdout


def test_play_offers_legal_moves_by_name_and_rejects_illegal_ones() -> None:
    played = rams(*PLAY, stdin="ACCEPT\nknock\n")
    assert "Your moves: 1) PASS  2) KNOCK" in played.stdout
    assert "ACCEPT is not a legal move now; legal: PASS, KNOCK." in played.stdout
    assert "you: knock" in played.stdout


def test_end_of_input_leaves_cleanly_and_saves_the_partial_log(tmp_path: Path) -> None:
    log = tmp_path / "partial.json"
    played = rams(*PLAY, "--scores", "random", "--save", str(log), stdin="nonsense\n")
    assert played.returncode == 0 and "Traceback" not in played.stderr
    assert "You left the game." in played.stdout
    record = json.loads(log.read_text())
    assert record["complete"] is False
    assert record["scores"] == list(deal_set(make_config("mattmar", 4), 3, 1, "random")[0].scores)
    replayed = rams("replay", str(log))
    assert replayed.returncode == 0 and f"({len(record['actions'])} actions)" in replayed.stdout


def _default_sigint() -> None:
    # A test run started in the background inherits an ignored SIGINT; a terminal user's shell does not.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_quit_and_ctrl_c_exit_cleanly_in_a_terminal() -> None:
    child = pexpect.spawn(RAMS[0], [*RAMS[1:], *PLAY], encoding="utf-8", timeout=30, preexec_fn=_default_sigint)
    child.expect_exact("your move> ")
    child.sendline("flibbertigibbet")
    child.expect_exact("Unknown move 'flibbertigibbet'")
    child.expect_exact("your move> ")
    child.sendintr()
    child.expect_exact("Interrupted.")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130
    assert "Traceback" not in child.before

    child = pexpect.spawn(RAMS[0], [*RAMS[1:], *PLAY], encoding="utf-8", timeout=30)
    child.expect_exact("your move> ")
    child.sendline("QUIT")
    child.expect_exact("You left the game.")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_parse_move_accepts_numbers_and_names_in_any_case() -> None:
    legal = [card_index("TH"), card_index("2C"), int(Action.DRAW)]
    assert parse_move("1", legal).action == card_index("TH")
    assert parse_move(" 3 ", legal).action == Action.DRAW
    assert parse_move("th", legal).action == card_index("TH")
    assert parse_move("10h", legal).action == card_index("TH")
    assert parse_move("draw", legal).action == Action.DRAW
    assert parse_move("bid-better", [int(Action.BID_BETTER)]).action == Action.BID_BETTER
    for text, message in [
        ("", "Please type a move"),
        ("0", "no move number 0"),
        ("-1", "Unknown move '-1'"),
        ("AH", "AH is not a legal move now; legal: TH, 2C, DRAW"),
        ("KNOCK", "KNOCK is not a legal move now"),
        ("ZZ", "Unknown move 'ZZ'"),
    ]:
        move = parse_move(text, legal)
        assert move.action is None and message in move.message


def test_others_discards_stay_face_down() -> None:
    config = make_config("mattmar", 4)
    game = deal_set(config, 0, 1)[0].game(config)
    while game.phase != Phase.BUY:
        legal = game.legal_actions()
        game.apply(Action.KNOCK if Action.KNOCK in legal else Action.NO_BID if Action.NO_BID in legal else legal[0])
    seat, card = game.current, game.legal_actions()[0]
    assert describe(game, seat, card, viewer=(seat + 1) % 4) == f"player_{seat}: discard a card"
    assert describe(game, seat, card, viewer=seat).startswith("you: discard ")


# ----------------------------------------------------------------------------- rams replay errors
@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("not json", "is not JSON"),
        ('{"format": "other"}', "is not a rams game log"),
        (None, "cannot read"),
    ],
)
def test_replay_reports_bad_logs_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str | None, message: str
) -> None:
    path = tmp_path / "log.json"
    if content is not None:
        path.write_text(content)
    assert main(["replay", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("rams replay: error:") and message in err


def test_replay_reports_an_action_that_does_not_replay(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "log.json"
    rams(*PLAY, "--save", str(log), stdin="knock\n")
    record = json.loads(log.read_text())
    record["actions"].insert(0, [record["actions"][0][0], "AS"])
    log.write_text(json.dumps(record))
    assert main(["replay", str(log)]) == 1
    assert "action 1 " in capsys.readouterr().err


# ----------------------------------------------------------------------------- rams eval
def test_eval_writes_table_json_and_png(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out_json, out_png = tmp_path / "eval.json", tmp_path / "eval.png"
    code = main(
        [
            "eval",
            "random",
            "--baseline",
            "random",
            "--variant",
            "rams32",
            "--players",
            "3",
            "--decks",
            "3",
            "--seed",
            "4",
            "--episode",
            "rams",
            "--json",
            str(out_json),
            "--plot",
            str(out_png),
            "--no-progress",
        ]
    )
    assert code == 0
    printed = capsys.readouterr().out
    assert "rams32, 3 players, episode rams: 3 decks (seed 4)" in printed and "random (baseline)" in printed
    data = json.loads(out_json.read_text())
    assert data["kind"] == "duplicate" and data["decks"] == 3 and data["agents"][0]["advantage"] == 0.0
    assert data["agents"][0]["win_rate_ci"] is not None
    assert out_png.read_bytes()[:4] == b"\x89PNG"


def test_eval_league_with_a_checkpoint_by_path(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from rams_env.obs import OBS_SIZE
    from rams_env.policy import PolicyNet, make_checkpoint, save_checkpoint
    from rams_env.rules.actions import NUM_ACTIONS

    config = make_config("mattmar", 4)
    checkpoint = tmp_path / "tiny.pt"
    save_checkpoint(checkpoint, make_checkpoint(PolicyNet(OBS_SIZE, NUM_ACTIONS, hidden=(8,)), config))
    out_json = tmp_path / "league.json"
    args = ["eval", "--league", "random", str(checkpoint), "--decks", "3", "--json", str(out_json), "--no-progress"]
    assert main(args) == 0
    assert "OpenSkill" in capsys.readouterr().out
    names = {a["name"] for a in json.loads(out_json.read_text())["agents"]}
    assert names == {"random", str(checkpoint)}
    # A checkpoint trained for other rules is refused with the loader's message.
    assert main(["eval", str(checkpoint), "--players", "5", "--decks", "1", "--no-progress"]) == 1
    assert "rams eval: error:" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["eval", "nonsense"], "unknown agent 'nonsense'"),
        (["eval", "random", "random"], "named twice"),
        (["eval", "random", "--option", "bogus=1"], "unknown rule option"),
        (["eval", "random", "--option", "bogus"], "KEY=VALUE"),
        (["eval", "random", "--players", "9"], "num_players"),
        (["eval", "--league", "random"], "at least 2 agents"),
        (["eval", "--league", "random", "x.pt", "--baseline", "random"], "--baseline has no meaning"),
        (["play", "--seat", "4"], "--seat must be a seat 0..3"),
        (["play", "--agents", "random", "random"], "--agents needs one agent for all other seats or 3"),
        (["eval", "random", "--json", "/no/such/folder/x.json"], "--json /no/such/folder/x.json: the folder"),
        (["eval", "random", "--plot", "/"], "that is a folder"),
        (["play", "--save", "/no/such/folder/log.json"], "the folder /no/such/folder does not exist"),
    ],
)
def test_bad_arguments_get_a_one_line_error(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


@pytest.mark.parametrize("argv", [[], ["eval"], ["eval", "random", "--decks", "0"], ["play", "--seed", "-1"]])
def test_usage_errors_exit_with_status_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    assert "usage: rams" in capsys.readouterr().err


# ----------------------------------------------------------------------------- extending rams
def _configure_hello(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--name", default="world")


def _run_hello(args: argparse.Namespace) -> int:
    print(f"hello {args.name}")
    return 7


HELLO = Command("hello", "say hello", _configure_hello, _run_hello)


def test_packages_add_subcommands_through_entry_points(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    points = [
        EntryPoint("broken", "rams_env.no_such_module:COMMAND", COMMAND_GROUP),
        EntryPoint("not_a_command", f"{__name__}:_run_hello", COMMAND_GROUP),
        EntryPoint("hello", f"{__name__}:HELLO", COMMAND_GROUP),
    ]
    monkeypatch.setattr(command, "entry_points", lambda group: points if group == COMMAND_GROUP else [])
    assert main(["hello", "--name", "rams"]) == 7
    captured = capsys.readouterr()
    assert captured.out == "hello rams\n"
    assert "command 'broken' (rams_env.no_such_module:COMMAND) not loaded" in captured.err
    assert "'not_a_command'" in captured.err and "is not a Command" in captured.err
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "hello" in capsys.readouterr().out
    with pytest.raises(ValueError, match="two rams commands are named 'eval'"):
        build_parser([*BUILTIN_COMMANDS, Command("eval", "again", _configure_hello, _run_hello)])


def test_rams_console_script_points_at_main() -> None:
    (script,) = [p for p in entry_points(group="console_scripts") if p.name == "rams"]
    assert script.value == "rams_env.apps.cli:main"


@pytest.mark.parametrize("command", ["eval", "play", "replay", "serve", "train"])
def test_every_command_prints_its_help(command, capsys) -> None:
    """--help formats every option's text (argparse reads a lone % in it as a format)."""
    with pytest.raises(SystemExit) as stop:
        main([command, "--help"])
    assert stop.value.code == 0
    assert "usage: rams " + command in capsys.readouterr().out


def test_the_terminals_menu_says_why_when_only_reject_or_knock_is_offered():
    """The terminal shares the page's hints: at seven players only Reject may be offered, a knock forced."""
    import random

    from rams_env.apps.cli.play import _menu
    from rams_env.rules import Game, make_config

    seen = set()
    for seed in range(60):
        rng = random.Random(seed)
        scores = [rng.choice([1, 2, 5, 10]) for _ in range(7)] if seed % 2 else None  # 1 point forces a knock
        game = Game(make_config("mattmar", 7), seed, scores=scores)
        while game.current >= 0:
            legal = game.legal_actions()
            menu = _menu(game, legal)
            if legal == [int(Action.REJECT)]:
                assert "You can only reject" in menu and "accept or reject" not in menu
                seen.add("reject")
            elif int(Action.ACCEPT) in legal:
                assert "accept or reject." in menu
            if legal == [int(Action.KNOCK)]:
                assert "You must knock (you may not pass): you " in menu
                seen.add("knock")
            game.apply(rng.choice(legal))
        if seen == {"reject", "knock"}:
            break
    assert seen == {"reject", "knock"}
