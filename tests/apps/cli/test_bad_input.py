"""Every ``rams`` subcommand over a table of bad inputs: each is one ``rams <cmd>: error: ...`` line on stderr
and a non-zero exit, never a traceback. Also ``rams play``'s prompt, which goes on after any typed line and
always saves its log, and game logs whose fields have the wrong type (``config.variant`` a list)."""

from __future__ import annotations

import builtins
import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rams_env.apps.cli import main

RAMS = [sys.executable, "-m", "rams_env.apps.cli"]
ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Bad and good files the table names: ``{name: path}``."""
    folder = tmp_path_factory.mktemp("bad-input")
    good = folder / "good.json"
    played = subprocess.run(
        [*RAMS, "play", "--agents", "random", "--seed", "3", "--save", str(good)],
        input="knock\n" + "1\n" * 60,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert played.returncode == 0, played.stderr
    record = json.loads(good.read_text())
    paths = {"good": str(good), "folder": str(folder)}

    def write(name: str, text: str) -> None:
        (folder / name).write_text(text)
        paths[name] = str(folder / name)

    for name, variant in (("variant-list", ["mattmar"]), ("variant-dict", {"variant": "mattmar"})):
        bad = copy.deepcopy(record)
        bad["config"]["variant"] = variant
        write(f"{name}.json", json.dumps(bad))
    write("deep.json", "[" * 100_000 + "]" * 100_000)
    nested: list = ["x"]
    for _ in range(40):  # deeper than any reader allows, not deep enough for a RecursionError
        nested = [nested]
    write("nested.json", json.dumps(dict(record, seats=nested)))
    write("huge.json", '{"format": "' + "x" * (17 * 1024 * 1024) + '"}')
    write("a-file", "not a folder")
    (folder / "deep-run").mkdir()
    write("deep-run/args.json", '{"a":' * 100_000 + "1" + "}" * 100_000)
    (folder / "typed-run").mkdir()
    write("typed-run/args.json", json.dumps({"total_steps": "many", "hidden": [256, "wide"]}))
    write("twice.json", json.dumps({"format": "rams_env.ensemble", "format_version": 1, "members": [
        {"path": "a.pt", "model_sha256": "0" * 64}, {"path": "./a.pt", "model_sha256": "1" * 64}]}))  # fmt: skip
    write("long-member.json", json.dumps({"format": "rams_env.ensemble", "format_version": 1, "members": [
        {"path": "m" * 5000 + ".pt", "model_sha256": "0" * 64}]}))  # fmt: skip
    return paths


def _check_one_line(command: str, code: int | str | None, err: str, message: str) -> None:
    assert code not in (0, None), f"rams {command} exited 0 for bad input"
    assert "Traceback" not in err, err
    last = err.strip().splitlines()[-1]
    assert last.startswith(f"rams {command}: error: "), err
    assert message in last, (message, last)


def _run_main(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int | str | None, str]:
    capsys.readouterr()
    try:
        code: int | str | None = main(argv)
    except SystemExit as exit_:  # argparse's usage errors
        code = exit_.code
    return code, capsys.readouterr().err


# ----------------------------------------------------------------------------- the table
# (arguments with {name} for a file of the fixture, the words the error line must hold)
EVAL = [
    (["nonsense"], "unknown agent 'nonsense'"),
    (["random", "--option", "variant=russian"], "give variant with --variant"),
    (["random", "--option", "num_players=5"], "give num_players with --num-players"),
    (["search:confidence=abc"], "confidence must be a number"),
    (["search:abc"], "simulations must be a positive int"),
    (["search:time_limit=soon"], "time_limit must be a positive number"),
    (["random", "--num-players", "99999999999999999999"], "num_players"),
    (["random", "--decks", "x"], "--decks"),
    (["random", "--variant", "nope"], "--variant"),
    (["{deep.json}"], "nested too deeply"),
    (["{twice.json}"], "name the same file"),
    (["{long-member.json}"], "a path may have at most"),
    (["a" * 5000], "unknown agent"),
    (["random", "--decks", "1", "--no-progress", "--json", "/proc/rams-x.json"], "/proc/rams-x.json"),
    (["random", "--workers", "100000"], "--workers: expected an integer in [1, 1024], got 100000"),
    (["random", "--threads", "1000000000"], "--threads: expected an integer in [1, 1024]"),
    (["random", "--resamples", "1000000000000"], "--resamples: expected an integer in [1, 10000000]"),
]
PLAY = [
    (["--option", "variant=russian"], "give variant with --variant"),
    (["--seat", "9"], "--seat must be a seat 0..3"),
    (["--agents", "search:confidence=x"], "confidence must be a number"),
    (["--replay", "{deep.json}"], "nested too deeply"),
    (["--replay", "{variant-list.json}"], "'config' must be"),
    (["--save", "/no/such/folder/log.json"], "does not exist"),
    (["--seed", "x"], "--seed"),
]
REPLAY = [
    (["{variant-list.json}"], "'config' must be"),
    (["{variant-dict.json}"], "'config' must be"),
    (["{deep.json}"], "nested too deeply"),
    (["{nested.json}"], "nested too deeply"),
    (["{huge.json}"], "larger than"),
    (["{folder}"], "cannot read"),
    (["{good}", "--seat", "9"], "--seat must be a seat 0..3"),
    (["/no/such/log.json"], "cannot read"),
]
SERVE = [
    (["{variant-list.json}"], "'config' must be"),
    (["{deep.json}"], "nested too deeply"),
    (["--port", "99999"], "--port must be 0 to 65535"),
    (["--host", "999.1.1.1", "--port", "0"], "--host '999.1.1.1' does not resolve"),
    (["--max-games", "0"], "--max-games"),
    (["--max-simulations", "many"], "--max-simulations"),
    (["--request-time", "-1"], "--request-time"),
    (["--save-dir", "{a-file}"], "--save-dir"),
    (["--threads", "0"], "--threads must be 1 to 1024"),
    (["--threads", "1000000000"], "--threads must be 1 to 1024"),
]
TRAIN = [
    (["--run-dir", "{a-file}/run"], "is a file, not a folder"),
    (["--run-dir", "{a-file}"], "is a file, not a folder"),
    (["--resume", "--run-dir", "{folder}/deep-run"], "nested too deeply"),
    (["--resume", "--run-dir", "{folder}/typed-run"], "'total_steps' must be an integer"),
    (["--resume", "--run-dir", "{folder}/" + "r" * 300], "a file or folder name has at most 255"),
    (["--resume", "--run-dir", "{folder}/none"], "holds no run to resume"),
    (["--resume"], "--resume needs --run-dir"),
    (["--variant", "nope", "--run-dir", "{folder}/v"], "unknown variant"),
    (["--total-steps", "0", "--run-dir", "{folder}/t"], "total_steps must be a positive integer"),
    (["--hidden", "0"], "--hidden"),
    (["--seed", "-1", "--run-dir", "{folder}/s"], "seed must be a non-negative int below 2**64, got -1"),
    (["--seed", str(2**64), "--run-dir", "{folder}/s"], "seed must be a non-negative int below 2**64"),
    (["--eval-seed", str(2**64 - 1), "--run-dir", "{folder}/s"], "--eval-seed + 1"),
    (["--threads", "-1", "--run-dir", "{folder}/s"], "threads must be an integer in [0, 1024]"),
]
EXPLOIT = [  # each refused before the run folder is written ({folder}/x stays absent: checked below)
    (["heuristic", "--seed", "-1"], "--seed must be a non-negative int below 2**64, got -1"),
    (["heuristic", "--seed", str(2**64)], "--seed must be a non-negative int below 2**64"),
    (["heuristic", "--num-games", "0"], "--num-games must be a positive integer"),
    (["heuristic", "--threads", str(10**12)], "--threads must be an integer in [0, 1024]"),
    (["heuristic", "--num-players", "9"], "--num-players"),
    (["heuristic", "--report-seed", "-1"], "--report-seed"),
    (["heuristic", "--run-dir", "{a-file}"], "is a file, not a folder"),
    (["heuristic", "--run-dir", "{a-file}/run"], "is a file, not a folder"),
]
TABLE = [("eval", *c) for c in EVAL] + [("play", *c) for c in PLAY] + [("replay", *c) for c in REPLAY]
TABLE += [("train", *c) for c in TRAIN]
TABLE += [("exploit", [*a, "--run-dir", "{folder}/x"] if "--run-dir" not in a else a, m) for a, m in EXPLOIT]


def _filled(argv: list[str], files: dict[str, str]) -> list[str]:
    out = []
    for arg in argv:
        for name, path in files.items():
            arg = arg.replace("{" + name + "}", path)
        out.append(arg)
    return out


@pytest.mark.parametrize(("command", "argv", "message"), TABLE, ids=[f"{c}-{m}"[:60] for c, _, m in TABLE])
def test_bad_input_is_one_error_line(
    command: str,
    argv: list[str],
    message: str,
    files: dict[str, str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(builtins, "input", lambda prompt="": "quit")  # rams play leaves at once if it starts
    code, err = _run_main([command, *_filled(argv, files)], capsys)
    _check_one_line(command, code, err, message)
    assert not any((Path(files["folder"]) / name).exists() for name in ("x", "s")), "a run folder was written"


@pytest.mark.slow
@pytest.mark.parametrize(("argv", "message"), SERVE, ids=[m[:40] for _, m in SERVE])
def test_bad_input_to_rams_serve_is_one_error_line(argv: list[str], message: str, files: dict[str, str]) -> None:
    # A subprocess with a timeout: input that were let through would start a server.
    done = subprocess.run(
        [*RAMS, "serve", "--quiet", *_filled(argv, files)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
    )
    _check_one_line("serve", done.returncode, done.stderr, message)


@pytest.mark.slow
def test_rams_serve_on_a_busy_port_is_one_error_line() -> None:
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = subprocess.run(
            [*RAMS, "serve", "--port", str(port)], capture_output=True, text=True, timeout=60, cwd=ROOT
        )
    _check_one_line("serve", done.returncode, done.stderr, f"cannot listen on 127.0.0.1:{port}: Address already in use")
    assert done.stderr.count("\n") == 1, done.stderr


# ----------------------------------------------------------------------------- rams play's prompt
def test_play_keeps_prompting_after_any_line_and_saves_the_log(tmp_path: Path) -> None:
    log = tmp_path / "log.json"
    typed = ["²", "\u0661", "9" * 50, "\udcff", "", "knock"] + ["1"] * 60
    done = subprocess.run(
        [*RAMS, "play", "--agents", "random", "--seed", "3", "--save", str(log)],
        input="\n".join(typed) + "\n",
        capture_output=True,
        text=True,
        errors="surrogateescape",
        timeout=120,
        cwd=ROOT,
    )
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert "Unknown move '²'" in done.stdout and "Unknown move '\u0661'" in done.stdout
    record = json.loads(log.read_text())
    assert record["complete"] and record["actions"]


def test_play_reads_undecodable_bytes_as_a_line_to_refuse(tmp_path: Path) -> None:
    log = tmp_path / "log.json"
    done = subprocess.run(
        [*RAMS, "play", "--agents", "random", "--seed", "3", "--save", str(log)],
        input=b"\xff\xfe\nknock\n" + b"1\n" * 60,
        capture_output=True,
        timeout=120,
        cwd=ROOT,
        env=dict(os.environ, PYTHONIOENCODING="utf-8:strict", PYTHONPATH=str(ROOT)),
    )
    assert done.returncode == 0 and b"Traceback" not in done.stderr, done.stderr
    assert json.loads(log.read_text())["complete"]


def test_the_log_is_saved_whatever_ends_the_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "log.json"
    answers = iter(["knock"])

    def typed(prompt: str = "") -> str:
        try:
            return next(answers)
        except StopIteration:
            raise RuntimeError("the terminal went away") from None

    monkeypatch.setattr(builtins, "input", typed)
    with pytest.raises(RuntimeError, match="the terminal went away"):
        main(["play", "--agents", "random", "--seed", "3", "--save", str(log)])
    record = json.loads(log.read_text())
    assert ["KNOCK"] in [entry[1:] for entry in record["actions"]] and not record["complete"]


def test_parse_move_refuses_digits_that_int_does_not_read() -> None:
    from rams_env.apps.cli.play import parse_move

    for word in ("²", "\u0661", "৩", "⑦"):
        move = parse_move(word, [1, 2, 3])
        assert move.action is None and "Unknown move" in move.message, word
    assert parse_move(" 2 ", [7, 8]).action == 8


def test_a_prompt_never_lets_a_parse_error_escape(monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    from rams_env.apps.cli import play
    from rams_env.rules import Game, make_config

    def broken(text: str, legal: list[int]) -> play._Move:
        raise KeyError(text)

    monkeypatch.setattr(play, "parse_move", broken)
    lines = iter(["anything", "quit"])
    out = io.StringIO()
    with pytest.raises(play._Quit):
        play._ask(Game(make_config("mattmar"), 3), lambda prompt: next(lines), out)
    assert "Could not read 'anything' as a move" in out.getvalue()
