"""``rams replay`` of malformed game logs (an action illegal in its phase, an unreadable file, a field of the
wrong type or value): one ``rams replay: error:`` line, never a traceback; and a closed pipe that ends
``rams replay`` and ``rams eval`` quietly."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest

from rams_env.apps.cli import main
from rams_env.apps.game_log import LOG_FORMAT, LOG_VERSION
from rams_env.eval import deal_set
from rams_env.rules import make_config

RAMS = [sys.executable, "-m", "rams_env.apps.cli"]


@pytest.fixture(scope="module")
def good_log(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """A complete log of one deal (seed 3, random agents in every seat but the player, who knocks)."""
    path = tmp_path_factory.mktemp("log") / "log.json"
    played = subprocess.run(
        [*RAMS, "play", "--agents", "random", "--seed", "3", "--save", str(path)],
        input="knock\n" + "1\n" * 60,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert played.returncode == 0, played.stderr
    record = json.loads(path.read_text())
    assert record["format"] == LOG_FORMAT and record["version"] == LOG_VERSION and record["complete"]
    return record


def _replay_error(tmp_path: Path, content: bytes | str, capsys: pytest.CaptureFixture[str]) -> str:
    path = tmp_path / "log.json"
    if isinstance(content, str):
        path.write_text(content, encoding="utf-8")
    else:
        path.write_bytes(content)
    assert main(["replay", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("rams replay: error:") and err.count("\n") == 1, err
    return err


# ----------------------------------------------------------------------------- malformed logs
def test_replay_of_an_action_illegal_in_its_phase_is_one_line(
    tmp_path: Path, good_log: dict, capsys: pytest.CaptureFixture[str]
) -> None:
    record = copy.deepcopy(good_log)
    first_seat = record["actions"][0][0]
    # KNOCK where the first decision is a bid (describe() had no words for it: KeyError).
    record["actions"].insert(0, [first_seat, "KNOCK"])
    err = _replay_error(tmp_path, json.dumps(record), capsys)
    assert "action 1 " in err and "KNOCK is not legal now" in err


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"\xff\xfe{}", "is not UTF-8 text"),
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        ('{"a":' * 100_000 + "1" + "}" * 100_000, "nested too deeply"),
    ],
    ids=["not-utf8", "deep-list", "deep-dict"],
)
def test_replay_of_an_unreadable_file_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes | str, message: str
) -> None:
    assert message in _replay_error(tmp_path, content, capsys)


BAD_FIELDS = [
    ("actions", 5),
    ("actions", None),
    ("actions", {"0": "KNOCK"}),
    ("actions", [5]),
    ("actions", [[0]]),
    ("actions", [[True, "KNOCK"]]),
    ("actions", [[0, 5]]),
    ("actions", [[0, "ZZZ"]]),
    ("actions", [[0, ""]]),
    ("actions", [[10**30, "KNOCK"]]),
    ("actions", [[0, "KNOCK"], None]),
    ("config", None),
    ("config", [1, 2]),
    ("config", {"variant": 5}),
    ("config", {"bogus": 1}),
    ("config", {"variant": "mattmar", "num_players": [4]}),
    ("episode", ["deal"]),
    ("episode", "forever"),
    ("seed", "x"),
    ("seed", 1.5),
    ("seed", None),
    ("seed", [1]),
    ("deck", 5),
    ("deck", ["AS"]),
    ("deck", [1, 2, 3]),
    ("deck", None),
    ("dealer", "0"),
    ("dealer", 10**30),
    ("dealer", -1),
    ("dealer", True),
    ("scores", "10"),
    ("scores", [10]),
    ("scores", [2**64, 10, 10, 10]),
    ("scores", [None, 10, 10, 10]),
    ("human_seat", "0"),
    ("human_seat", 9),
    ("human_seat", -1),
    ("version", [1] * 1000),
]


@pytest.mark.parametrize(("key", "value"), BAD_FIELDS, ids=[f"{k}={v!r}"[:40] for k, v in BAD_FIELDS])
def test_replay_of_a_malformed_field_is_one_line(
    tmp_path: Path, good_log: dict, capsys: pytest.CaptureFixture[str], key: str, value: object
) -> None:
    record = copy.deepcopy(good_log)
    record[key] = value
    err = _replay_error(tmp_path, json.dumps(record), capsys)
    assert "Traceback" not in err and len(err) < 600


def test_replay_of_the_good_log_still_works(tmp_path: Path, good_log: dict, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "log.json"
    path.write_text(json.dumps(good_log))
    assert main(["replay", str(path)]) == 0
    assert f"end of the log ({len(good_log['actions'])} actions)" in capsys.readouterr().out
    deal = deal_set(make_config("mattmar", 4), 3, 1)[0]
    assert good_log["deck"] == list(deal.deck)


# ----------------------------------------------------------------------------- closed pipes
@pytest.mark.slow
@pytest.mark.parametrize(
    "argv",
    [["replay", "{log}"], ["eval", "random", "heuristic", "--decks", "2", "--no-progress"]],
    ids=["replay", "eval"],
)
def test_a_closed_pipe_ends_quietly(tmp_path: Path, good_log: dict, argv: list[str]) -> None:
    log = tmp_path / "log.json"
    log.write_text(json.dumps(good_log))
    args = [a.replace("{log}", str(log)) for a in argv]
    # The reader is gone before the first write, as with `rams replay log.json | head -0`.
    proc = subprocess.Popen([*RAMS, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 1
    assert err.decode() == "", err.decode()
