"""rams_env.jsoncheck: bounded parsing of user JSON (size, depth) and the path check of paths read from files."""

from __future__ import annotations

from pathlib import Path

import pytest

from rams_env.jsoncheck import JsonInputError, NotJsonError, check_path, depth, parse, read


def test_depth_counts_levels_without_recursion() -> None:
    assert (depth(1), depth([]), depth({"a": [1, {"b": []}]})) == (0, 1, 4)
    deep: list = []
    for _ in range(100_000):  # far beyond Python's recursion limit
        deep = [deep]
    assert depth(deep) == 100_001


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        ("[[[[[1]]]]]", "nested too deeply (more than 4 levels)"),
        (b"\xff{}", "is not UTF-8 text"),
        ("{", "is not JSON"),
        ("[" + "1," * 600_000 + "1]", "larger than 1,000,000 bytes"),
    ],
    ids=["recursion", "deep", "not-utf8", "not-json", "large"],
)
def test_parse_refuses_what_is_too_deep_too_large_or_not_json(text: str | bytes, message: str) -> None:
    with pytest.raises(JsonInputError, match=message.replace("(", r"\(").replace(")", r"\)")) as raised:
        parse(text, "the body", max_depth=4, max_bytes=1_000_000)
    # Text that is no JSON at all is told apart by type, never by the message's words.
    assert isinstance(raised.value, NotJsonError) == ("not" in message)
    assert parse("[[[1]]]", "the body", max_depth=4) == [[[1]]]


def test_read_names_the_file(tmp_path: Path) -> None:
    with pytest.raises(JsonInputError, match=r"cannot read .*missing\.json"):
        read(tmp_path / "missing.json")
    (tmp_path / "big.json").write_text("[" + "0," * 1000 + "0]")
    with pytest.raises(JsonInputError, match=r"big\.json is larger than 100 bytes"):
        read(tmp_path / "big.json", max_bytes=100)


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("", "non-empty path"),
        (None, "non-empty path"),
        ("a\0b", "NUL"),
        ("d/" * 600, "at most 1024"),
        ("n" * 256, "name of 256 bytes"),
        ("é" * 128, "name of 256 bytes"),
    ],
)
def test_check_path_refuses_what_the_os_cannot_open(path: object, message: str) -> None:
    with pytest.raises(JsonInputError, match=message):
        check_path(path, "member 0 path")
    assert check_path("nets/" + "n" * 255, "member 0 path").endswith("n")
