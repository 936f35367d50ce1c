"""What a player reads when a deal ends or a bid settles (issue 38): one wording of the scores for the
page, ``rams play`` and ``rams replay`` (``10 → 7``, lower is better, never ``+3``), a flight and its
cap said in the terminal too, better cards announced, the forehand's ``no more bids``, and the key of
the terminal's ``bought`` column."""

from __future__ import annotations

import io
import json
import random
from pathlib import Path

import pytest

from rams_env.apps import scores
from rams_env.apps.cli import main
from rams_env.apps.cli.replay import TablePrinter
from rams_env.apps.narration import BOUGHT_KEY, PAGE, TERMINAL, apply_and_narrate, describe
from rams_env.apps.scores import DealStart, deal_summary, score_change
from rams_env.apps.serve.games import LiveGame
from rams_env.eval import agent_source
from rams_env.rules import Action, Game, Phase, make_config

KNOCK = int(Action.KNOCK)


def _play_out(game: Game, rng: random.Random, viewer: int = 0, wording=TERMINAL) -> list[str]:
    """Random legal moves (knocking when it may) to the end of the deal; the lines ``viewer`` reads."""
    start, lines = DealStart.of(game), []
    while game.current >= 0:
        legal = game.legal_actions()
        action = KNOCK if KNOCK in legal else rng.choice(legal)
        line, said = apply_and_narrate(game, game.current, action, viewer, start, wording)
        lines += [line, *said]
    return lines


def test_a_score_change_is_said_as_the_scores_move_with_lower_is_better() -> None:
    assert score_change(10, 7) == "10 → 7" and score_change(10, 7, "->") == "10 -> 7"
    game = Game(make_config("mattmar"), 5)
    lines = _play_out(game, random.Random(0))
    end = next(line for line in lines if line.startswith("deal over"))
    summary = deal_summary(game, 0, [10] * 4, [0] * 4, "->")
    changes = ", ".join(
        ("you" if row["seat"] == 0 else f"player_{row['seat']}") + f" 10 -> {row['after']}" for row in summary["seats"]
    )
    assert end == f"deal over ({summary['ended']}); scores (lower is better): {changes}"
    assert "+" not in end.split("scores")[1]  # no signed points that read the wrong way
    # one line per seat after it, saying why
    whys = lines[lines.index(end) + 1 : lines.index(end) + 5]
    assert whys == [
        f"  {'you' if r['seat'] == 0 else 'player_' + str(r['seat'])}: {r['why']}" for r in summary["seats"]
    ]


def test_a_capped_flight_is_said_in_the_terminal() -> None:
    config = make_config("mattmar")
    for seed in range(200):
        game = Game(config, seed)
        lines = _play_out(game, random.Random(seed))
        capped = [line for line in lines if "capped at 10" in line]
        if capped:
            assert capped[0].endswith("flew (knocked, took no trick): 10 + 5 = 15, capped at 10: costs nothing")
            return
    pytest.fail("no capped flight in 200 deals")


def test_the_scores_wording_is_one_function_for_the_page_play_and_replay(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(scores, "score_change", lambda before, after, arrow="→": f"<{before}|{after}>")
    log = tmp_path / "log.json"
    monkeypatch.setattr("sys.stdin", io.StringIO("knock\n" + "1\n" * 60))
    assert main(["play", "--agents", "random", "--seed", "3", "--save", str(log)]) == 0
    played = capsys.readouterr().out
    assert main(["replay", str(log)]) == 0
    replayed = capsys.readouterr().out
    for out in (played, replayed):
        end = next(line for line in out.splitlines() if line.startswith("deal over"))
        assert "scores (lower is better): you <10|" in end, end
    config = make_config("mattmar")
    sources = {"random": agent_source("random", config)}
    live = LiveGame(config, "deal", 0, ["you", "random", "random", "random"], sources, 3, "start", None)
    while not live.over:
        live.act(live.game.legal_actions()[0])
    page = live.state("x")
    assert any(line.startswith("deal over") and "you <10|" in line for line in page["events"])
    assert all(row["change"].startswith("<10|") for row in page["deal_summary"]["seats"])  # the banner's


def _better_cards_game() -> Game:
    config = make_config("mattmar")
    for seed in range(100):
        game = Game(config, seed)
        if game.phase == Phase.BID and Action.BID_BETTER in game.legal_actions():
            return game
    raise AssertionError("no deal with a better-cards bid")


def test_better_cards_accepted_is_announced_and_no_more_bids_is_said() -> None:
    game = _better_cards_game()
    start = DealStart.of(game)
    forehand, dealer = game.forehand, game.dealer
    viewer = (forehand + 1) % 4
    line, said = apply_and_narrate(game, forehand, int(Action.BID_BETTER), viewer, start)
    assert line == f"player_{forehand}: bid better cards" and said == []
    answers = []
    while game.phase == Phase.ANSWER:
        seat = game.current
        action = Action.ACCEPT if seat in (viewer, dealer) else Action.REJECT
        answers.append(seat)
        line, said = apply_and_narrate(game, seat, int(action), viewer, start)
    assert said[0] == (
        f"better cards: player_{forehand} (forehand), you, player_{dealer} threw in the hand and took five new "
        "cards from the talon (the dealer keeps the turned card); "
        + ", ".join(f"player_{s}" for s in range(4) if s not in (forehand, viewer, dealer))
        + " kept the hand"
    )
    assert game.phase == Phase.BID and describe(game, forehand, int(Action.NO_BID), viewer) == (
        f"player_{forehand}: no more bids"
    )


def test_the_page_says_the_same_of_better_cards() -> None:
    game = _better_cards_game()
    start = DealStart.of(game)
    apply_and_narrate(game, game.forehand, int(Action.BID_BETTER), 0, start, PAGE)
    said: list[str] = []
    while game.phase == Phase.ANSWER:
        said = apply_and_narrate(game, game.current, int(Action.REJECT), 0, start, PAGE)[1]
    who = "you" if game.forehand == 0 else f"player_{game.forehand}"
    assert said[0].startswith(f"better cards: {who} (forehand) threw in the hand and took five new cards")


def test_the_bought_column_is_explained_once_under_the_first_table_that_shows_it() -> None:
    out = io.StringIO()
    table = TablePrinter(out)
    game = Game(make_config("mattmar"), 5)
    rng = random.Random(1)
    while game.current >= 0:
        table(game, 0)
        legal = game.legal_actions()
        game.apply(KNOCK if KNOCK in legal else rng.choice(legal))
    text = out.getvalue()
    assert text.count(BOUGHT_KEY) == 1
    before = text[: text.index(BOUGHT_KEY)]
    assert "bought" in before and "knocked" in before.split("Rams (")[-1]  # right under a table with a knocker
    assert "cards discarded/cards drawn" in BOUGHT_KEY


def test_rams_play_explains_the_bought_column(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("knock\n" + "1\n" * 60))
    assert main(["play", "--agents", "random", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert out.count(BOUGHT_KEY) == 1


def test_a_seed_of_5000_digits_is_refused_with_a_400_not_a_500() -> None:
    from rams_env.apps.serve.app import create_app

    client = create_app().test_client()
    body = '{"agents": "random", "seed": ' + "9" * 5000 + "}"
    answer = client.post("/api/games", data=body, content_type="application/json")
    assert answer.status_code == 400 and "more than 4300 digits" in answer.get_json()["error"]
    answer = client.post("/api/games", data=json.dumps({"agents": "random", "seed": 10**4000}),
                         content_type="application/json")  # fmt: skip
    assert answer.status_code == 400 and len(answer.get_json()["error"]) < 200


def test_the_readme_installs_the_serve_extra_where_it_runs_rams_serve() -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    serve = [line for line in readme.splitlines() if "rams serve" in line and not line.startswith(("<!--", "`"))]
    assert serve and all('".[serve]"' in line or "[serve]" in line for line in serve if line.startswith("pip")), serve
    assert any(line.startswith('pip install -e ".[serve]" && rams serve') for line in serve)
    assert "an evaluation of minutes" not in readme
