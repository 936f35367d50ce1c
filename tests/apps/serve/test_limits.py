"""``rams serve``'s limits (rams_env.apps.serve.limits): agent budgets, the deadline of a request, the stores that
never drop a game in play, their options, and hostile JSON in requests (wrong types, deep nesting)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from types import SimpleNamespace

import pytest

from rams_env.apps.serve.command import COMMAND
from rams_env.apps.serve.games import LiveGame
from rams_env.apps.serve.limits import Deadline, Limits, Refused, Store, budgeted
from rams_env.apps.serve.state import ServeState
from rams_env.apps.serve.validation import ApiError
from rams_env.eval import agent_source, deal_set
from rams_env.rules import make_config
from tests.apps.serve.test_app import Server


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    srv = Server(ServeState(limits=Limits(max_simulations=50, move_seconds=0.2, request_seconds=2.0)))
    try:
        yield srv
    finally:
        srv.stop()


# ----------------------------------------------------------------------------- agent budgets
@pytest.mark.parametrize(
    ("agent", "message"),
    [
        ("search:100000000", "over this server's budget of 50 per move (rams serve --max-simulations)"),
        ("search:simulations=51", "simulations 51 is over"),
        ("search:simulations=10,time_limit=100", "time_limit 100 is over this server's 0.2 s per move"),
        ("search:simulations=2,rollout_policy=mattmar-4p", "rollout_policy is not offered by this server"),
        ("search:simulations=2,base=mattmar-4p", "base other than heuristic is not offered"),
        ("search:simulations=2,opponent_model=mattmar-4p", "opponent_model other than heuristic is not offered"),
        ("search:simulations=2,opponent_model=heuristic,belief_draws=9", "belief_draws above 8 is not offered"),
    ],
)
def test_an_agent_over_the_budget_is_refused_at_once(server: Server, agent: str, message: str) -> None:
    started = time.perf_counter()
    for path, body in [
        ("/api/replays", {"agents": [agent], "episode": "match"}),
        ("/api/games", {"agents": agent, "seed": 1}),
    ]:
        status, error, _ = server.request("POST", path, body)
        assert status == 400 and message in error["error"], (path, error)
    assert time.perf_counter() - started < 10


def test_budgets_cap_simulations_and_set_the_time_limit() -> None:
    limits = Limits(max_simulations=100, move_seconds=0.5)
    config = make_config("mattmar")
    search = budgeted("search:20", agent_source("search:20", config), limits)
    assert search.options["time_limit"] == 0.5 and search(seed=1).time_limit == 0.5
    asked = budgeted("search:20", agent_source("search:simulations=20,time_limit=0.1", config), limits)
    assert asked.options["time_limit"] == 0.1
    with pytest.raises(Refused, match="simulations 101 is over"):
        budgeted("search:101", agent_source("search:101", config), limits)
    heuristic = agent_source("heuristic", config)
    assert budgeted("heuristic", heuristic, limits) is heuristic


def test_the_budget_counts_ismcts_rollouts() -> None:
    source = agent_source("ismcts:simulations=30,rollouts=4", make_config("mattmar"))
    with pytest.raises(Refused, match="simulations x rollouts 120 is over this server's budget of 100"):
        budgeted("ismcts", source, Limits(max_simulations=100))


# ----------------------------------------------------------------------------- the deadline of a request
@pytest.mark.slow
def test_an_agents_game_past_the_deadline_is_a_503_and_its_work_stops(server: Server) -> None:
    started = time.perf_counter()
    status, error, _ = server.request("POST", "/api/replays", {"agents": ["search:50"], "episode": "match"})
    answered = time.perf_counter() - started
    assert (
        status == 503 and "longer than this server's 2 s for one request (rams serve --request-time)" in error["error"]
    ), error
    assert answered < 2.0 + 5.0, answered  # the deadline, one move's time limit, and a busy machine's slack
    # Nothing goes on playing after the answer: this process is idle.
    cpu = time.process_time()
    time.sleep(1.0)
    assert time.process_time() - cpu < 0.5


def test_a_game_whose_agents_pass_the_deadline_stops_with_a_503() -> None:
    config = make_config("mattmar")
    dealer = deal_set(config, 7, 1)[0].dealer  # the person deals: the agents move first
    specs = ["heuristic"] * 4
    specs[dealer] = "you"
    sources = {"heuristic": agent_source("heuristic", config)}
    with pytest.raises(ApiError) as refused:
        LiveGame(config, "deal", dealer, specs, sources, 7, "start", None, request_seconds=1e-9)
    assert refused.value.status == 503 and "rams serve --request-time" in refused.value.message
    live = LiveGame(config, "deal", dealer, specs, sources, 7, "start", None)  # the default deadline is ample
    assert live.game.current == dealer and not live.over


def test_a_deadline_passes_on_its_clock() -> None:
    now = [0.0]
    deadline = Deadline(2.0, clock=lambda: now[0])
    deadline.check("moves")
    now[0] = 2.5
    with pytest.raises(Refused, match="moves took longer than this server's 2 s") as refused:
        deadline.check("moves")
    assert refused.value.status == 503


# ----------------------------------------------------------------------------- the stores
def _game(over: float | None = None) -> SimpleNamespace:
    return SimpleNamespace(finished_at=over)


def _store(now: list[float], limit: int = 3, idle: float = 100, keep: float = 600) -> Store:
    return Store(
        "game", limit, idle, "rams serve --max-games", lambda g: g.finished_at, clock=lambda: now[0], keep_seconds=keep
    )


def test_a_finished_game_stays_readable_for_the_keep_time_then_the_oldest_finished_goes_first() -> None:
    now = [0.0]
    store = _store(now)
    first, second, playing = _game(), _game(), _game()
    ids = [store.add(g) for g in (first, second, playing)]
    second.finished_at = 5.0  # finished first
    now[0] = 10.0
    first.finished_at = 10.0
    # Both finished less than 600 s ago and the third is in play (and used): a new game is refused, none dropped.
    now[0] = 50.0
    store.get(ids[2])
    with pytest.raises(Refused, match=r"keeps 3 games \(rams serve --max-games\).*or finished in the last 600 s"):
        store.add(_game())
    assert store.get(ids[0]) is first and store.get(ids[1]) is second  # a player who reloads finds them
    # 600 s after the first finish: the oldest finished goes (not the least recently used).
    now[0] = 605.0
    store.get(ids[2])
    store.get(ids[1])
    store.add(_game())
    with pytest.raises(Refused, match="no game"):
        store.get(ids[1])
    assert store.get(ids[0]) is first and store.get(ids[2]) is playing


def test_a_game_its_player_left_makes_room_at_once() -> None:
    now = [0.0]
    store = _store(now)
    ids = [store.add(_game(over=0.0)) for _ in range(3)]
    now[0] = 1.0
    store.release(ids[1])  # its player started another
    store.release("unknown")  # nothing to release: no error
    store.add(_game())
    with pytest.raises(Refused, match="or its player started another"):
        store.get(ids[1])
    assert store.get(ids[0]) and store.get(ids[2])


def test_a_full_store_makes_room_from_idle_games_in_play_least_recently_used_first() -> None:
    now = [0.0]
    store = _store(now)
    playing, other, third = _game(), _game(), _game()
    ids = [store.add(g) for g in (playing, other, third)]
    now[0] = 10.0
    store.get(ids[0])  # used most recently: still the oldest created
    # Every slot in play and in use: a new game is refused, none is dropped.
    with pytest.raises(Refused, match=r"keeps 3 games \(rams serve --max-games\)") as refused:
        store.add(_game())
    assert refused.value.status == 503 and len(store) == 3
    # Idle for the idle time: the least recently used game in play makes room.
    now[0] = 10.0 + 100
    store.get(ids[0])
    store.get(ids[2])
    store.add(_game())
    with pytest.raises(Refused):
        store.get(ids[1])
    assert store.get(ids[0]) is playing


def test_a_finished_game_is_kept_even_when_idle_time_is_shorter() -> None:
    now = [0.0]
    store = _store(now, limit=1, idle=10, keep=600)
    ident = store.add(_game(over=0.0))
    now[0] = 100.0  # idle 100 s, finished 100 s ago
    with pytest.raises(Refused):
        store.add(_game())
    assert store.get(ident)


def test_replays_make_room_only_once_idle() -> None:
    now = [0.0]
    store = Store("replay", 2, idle_seconds=50, option="rams serve --max-replays", clock=lambda: now[0])
    first = store.add(object())
    store.add(object())
    with pytest.raises(Refused, match=r"keeps 2 replays \(rams serve --max-replays\)"):
        store.add(object())
    now[0] = 60.0
    store.add(object())
    with pytest.raises(Refused, match="no replay"):
        store.get(first)


def test_a_full_server_refuses_a_new_game_with_a_503() -> None:
    srv = Server(ServeState(limits=Limits(max_games=2)))
    try:
        games = [srv.request("POST", "/api/games", {"agents": "random", "seed": s})[1]["id"] for s in (1, 2)]
        status, error, _ = srv.request("POST", "/api/games", {"agents": "random", "seed": 3})
        assert status == 503 and "keeps 2 games (rams serve --max-games)" in error["error"], error
        assert all(srv.request("GET", f"/api/games/{g}")[0] == 200 for g in games)
    finally:
        srv.stop()


def _finish(srv: Server, state: dict) -> dict:
    while not state["over"]:
        if state["next_deal"]:
            status, state, _ = srv.request("POST", f"/api/games/{state['id']}/next", {})
        else:
            status, state, _ = srv.request("POST", f"/api/games/{state['id']}/act", {"action": state["legal"][0]["id"]})
        assert status == 200, state
    return state


def test_a_finished_game_is_still_there_when_its_player_reloads_and_goes_when_he_starts_another() -> None:
    srv = Server(ServeState(limits=Limits(max_games=2)))
    try:
        done = _finish(srv, srv.request("POST", "/api/games", {"agents": "random", "seed": 1})[1])
        other = srv.request("POST", "/api/games", {"agents": "random", "seed": 2})[1]
        # A third player: the finished game is kept (finished seconds ago), so the full store refuses him.
        status, error, _ = srv.request("POST", "/api/games", {"agents": "random", "seed": 3})
        assert status == 503 and "or finished in the last 600 s" in error["error"], error
        status, again, _ = srv.request("GET", f"/api/games/{done['id']}")  # the reload finds it
        assert status == 200 and again["over"]
        # Its player starts another: the old one makes room.
        status, new, _ = srv.request("POST", "/api/games", {"agents": "random", "seed": 4, "previous": done["id"]})
        assert status == 201, new
        assert srv.request("GET", f"/api/games/{done['id']}")[0] == 404
        assert srv.request("GET", f"/api/games/{other['id']}")[0] == 200
        status, error, _ = srv.request("POST", "/api/games", {"agents": "random", "previous": ["x"]})
        assert status == 400 and "'previous' must be the id of your last game" in error["error"]
    finally:
        srv.stop()


# ----------------------------------------------------------------------------- options and documentation
def test_the_limits_are_rams_serve_options_documented_in_help_and_docstring() -> None:
    import argparse

    import rams_env.apps.serve as serve
    from rams_env.apps.serve.command import limits_from_args

    parser = argparse.ArgumentParser()
    COMMAND.configure(parser)
    text = parser.format_help()
    options = ["--max-games", "--max-replays", "--idle-time", "--keep-finished", "--max-simulations", "--move-time",
               "--request-time"]  # fmt: skip
    for option in options:
        assert option in text and f"``{option}``" in (serve.__doc__ or ""), option
    args = parser.parse_args(["--max-games", "5", "--max-simulations", "20", "--request-time", "1.5",
                              "--keep-finished", "60"])  # fmt: skip
    limits = limits_from_args(args)
    assert (limits.max_games, limits.max_simulations, limits.request_seconds) == (5, 20, 1.5)
    assert limits.keep_finished_seconds == 60 and Limits().keep_finished_seconds == 600
    for bad in (["--max-games", "0"], ["--move-time", "-1"], ["--request-time", "x"], ["--max-replays", "1.5"]):
        with pytest.raises(SystemExit):
            parser.parse_args(bad)


# ----------------------------------------------------------------------------- hostile JSON in requests
@pytest.mark.parametrize("variant", [["mattmar"], {"a": 1}, 5, None])
def test_an_uploaded_log_with_a_wrong_typed_variant_is_a_400(server: Server, variant: object) -> None:
    log = {
        "format": "rams_env game log",
        "version": 1,
        "config": dict(make_config("mattmar").to_dict(), variant=variant),
        "episode": "deal",
        "seed": 1,
        "deck": list(deal_set(make_config("mattmar"), 1, 1)[0].deck),
        "dealer": 0,
        "scores": [10, 10, 10, 10],
        "actions": [],
    }
    status, error, _ = server.request("POST", "/api/replays", {"log": log})
    assert status == 400 and "'config' must be" in error["error"], error


def test_a_deeply_nested_body_is_a_400(server: Server) -> None:
    raw = ('{"log": ' + "[" * 500 + "]" * 500 + "}").encode()
    status, error, _ = server.request("POST", "/api/replays", raw=raw, headers={"Content-Type": "application/json"})
    assert status == 400 and "nested too deeply" in error["error"], error
    assert json.loads(json.dumps(error))["status"] == 400


def test_the_last_deck_of_a_set_is_played_without_making_the_others(server: Server) -> None:
    from rams_env.eval import deck_of

    config = make_config("mattmar")
    assert deck_of(config, 3, 40, "random") == deal_set(config, 3, 41, "random")[40]
    started = time.perf_counter()
    status, replay, _ = server.request("POST", "/api/replays", {"agents": ["random"], "seed": 3, "deck": 99_999})
    assert status == 201 and "deck 99999 of deal set 3" in replay["title"], replay
    assert time.perf_counter() - started < 5  # making the 100,000 decks before it took 10 s of one core


def test_the_limits_table_of_the_serve_page_shows_the_defaults() -> None:
    import re
    from pathlib import Path

    from rams_env.apps.serve.limits import Limits

    page = (Path(__file__).resolve().parents[3] / "docs" / "serve.md").read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| `--([a-z-]+) [A-Z]+` \| ([\d.]+) \|", page, re.M))
    d = Limits()
    expected = {
        "max-games": d.max_games,
        "max-replays": d.max_replays,
        "idle-time": d.idle_seconds,
        "keep-finished": d.keep_finished_seconds,
        "max-simulations": d.max_simulations,
        "move-time": d.move_seconds,
        "request-time": d.request_seconds,
    }
    assert {k: float(v) for k, v in rows.items()} == {k: float(v) for k, v in expected.items()}
