"""``rams serve``: the JSON API over real HTTP (bad requests, the no-leak rule, saved and evaluation games),
the command, and a whole deal played through the page in headless Chromium.

The browser test needs Debian's ``chromium`` and ``chromium-driver`` (``apt-get install chromium
chromium-driver``; docs/serve.md); without the chromium binary it is skipped with that
reason, which ``pytest -ra`` prints. Selenium is given the driver's path, so it never downloads one.
"""

from __future__ import annotations

import http.client
import io
import json
import os
import re
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from werkzeug.serving import make_server

from rams_env.apps import cli, command, game_log
from rams_env.apps.serve.app import MAX_BODY, create_app
from rams_env.apps.serve.command import COMMAND
from rams_env.apps.serve.state import ServeState
from rams_env.eval import agent_seed, agent_source, deal_set
from rams_env.eval.play import play_deal
from rams_env.rules import Action, Phase, card_index, card_name, make_config
from rams_env.rules.episode import next_deal_or_end

CARD = re.compile(r"\b[2-9TJQKA][CDHS]\b")
ROOT = Path(__file__).resolve().parents[3]


class Server:
    """``rams serve``'s app on 127.0.0.1 at a free port, in a thread; ``stop`` shuts it down."""

    def __init__(self, state: ServeState) -> None:
        self.state = state
        self.app = create_app(state)
        self.httpd = make_server("127.0.0.1", 0, self.app, threaded=True)
        self.port = self.httpd.server_port
        self.url = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=10)

    def request(
        self, method: str, path: str, body: Any = None, *, raw: bytes | None = None, headers: dict | None = None
    ) -> tuple[int, Any, bytes]:
        """``(status, parsed JSON or None, raw body)`` of one HTTP request."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        sent = dict(headers or {})
        data = raw
        if body is not None:
            data = json.dumps(body).encode()
            sent.setdefault("Content-Type", "application/json")
        try:
            conn.request(method, path, body=data, headers=sent)
            response = conn.getresponse()
            payload = response.read()
        finally:
            conn.close()
        parsed = json.loads(payload) if response.getheader("Content-Type", "").startswith("application/json") else None
        return response.status, parsed, payload


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    save_dir = tmp_path_factory.mktemp("saved")
    srv = Server(ServeState(save_dir=save_dir))
    try:
        yield srv
    finally:
        srv.stop()


def play_out(server: Server, state: dict, pick: Any = None, check: Any = None) -> dict:
    """Play the person's moves (``pick(legal)``, default the first) until the game is over."""
    steps = 0
    while not state["over"]:
        if check is not None:
            check(state)
        if state["next_deal"]:
            status, state, _ = server.request("POST", f"/api/games/{state['id']}/next", {})
        else:
            move = (pick or (lambda legal: legal[0]))(state["legal"])
            status, state, _ = server.request("POST", f"/api/games/{state['id']}/act", {"action": move["id"]})
        assert status == 200, state
        steps += 1
        assert steps < 5000
    if check is not None:
        check(state)
    return state


# ----------------------------------------------------------------------------- plain HTTP: bad requests
def test_the_page_and_its_files_are_served(server: Server) -> None:
    status, _, page = server.request("GET", "/")
    assert status == 200 and b'<script src="/static/app.js"' in page
    for name in ("app.js", "style.css"):
        assert server.request("GET", f"/static/{name}")[0] == 200
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    conn.request("GET", "/api/meta")
    response = conn.getresponse()
    meta = json.loads(response.read())
    assert response.getheader("Cache-Control") == "no-store"
    assert "default-src 'self'" in response.getheader("Content-Security-Policy")
    assert {"mattmar", "russian"} <= set(meta["variants"]) and "heuristic" in meta["agents"]


BAD_GAMES = [
    ({"variant": "chess"}, "'variant' must be one of"),
    ({"num_players": 9}, "num_players"),
    ({"num_players": "4"}, "'num_players' must be an integer"),
    ({"seat": 4}, "'seat' must be 0 to 3"),
    ({"seat": -1}, "'seat' must be 0 to 3"),
    ({"seat": True}, "'seat' must be an integer"),
    ({"agents": ["nobody"]}, "unknown agent 'nobody'"),
    ({"agents": ["checkpoints/missing.pt"]}, "no checkpoint file"),
    ({"agents": ["search:bogus=1"]}, "bogus"),
    ({"agents": ["random", "random"]}, "one agent for all seats or 3"),
    ({"agents": [3]}, "must be a list of agent specs"),
    ({"agents": [""]}, "must be a list of agent specs"),
    ({"seed": -1}, "'seed' must be 0 to"),
    ({"seed": 2**64}, "'seed' must be 0 to"),
    ({"seed": 1.5}, "'seed' must be an integer"),
    ({"episode": "forever"}, "'episode' must be one of"),
    ({"scores": 7}, "'scores' must be one of"),
    ({"options": {"start_score": 2**40}}, "start_score"),
    ({"options": {"no_such_rule": 1}}, "unknown rule option"),
    ({"options": [1]}, "'options' must be an object"),
]


@pytest.mark.parametrize(("body", "message"), BAD_GAMES, ids=[json.dumps(b)[:40] for b, _ in BAD_GAMES])
def test_a_bad_new_game_is_a_400_naming_the_problem(server: Server, body: dict, message: str) -> None:
    status, error, _ = server.request("POST", "/api/games", body)
    assert status == 400, error
    assert message in error["error"] and error["status"] == 400


def test_checkpoint_agents_play_and_bad_checkpoints_are_refused(server: Server, tmp_path: Path) -> None:
    from rams_env.obs import OBS_SIZE
    from rams_env.policy import PolicyNet, make_checkpoint, save_checkpoint
    from rams_env.rules.actions import NUM_ACTIONS

    checkpoint = str(tmp_path / "tiny.pt")  # an untrained policy: what matters is that it loads and plays
    save_checkpoint(
        checkpoint, make_checkpoint(PolicyNet(OBS_SIZE, NUM_ACTIONS, hidden=(8,)), make_config("mattmar", 4))
    )
    fake = tmp_path / "fake.pt"
    fake.write_bytes(b"not a checkpoint at all" * 10)
    for body, message in [
        ({"agents": [str(fake)]}, str(fake)),
        ({"agents": [checkpoint], "num_players": 5}, checkpoint),  # trained for 4 players
        ({"agents": [str(tmp_path / "missing.pt")]}, "no checkpoint file"),
    ]:
        status, error, _ = server.request("POST", "/api/games", body)
        assert status == 400 and message in error["error"], error
    status, state, _ = server.request("POST", "/api/games", {"seed": 1, "agents": [checkpoint, "random", checkpoint]})
    assert status == 201, state
    assert state["seats"] == ["you", checkpoint, "random", checkpoint]
    assert play_out(server, state)["over"]


def test_malformed_requests_get_json_errors_and_the_server_keeps_serving(server: Server) -> None:
    cases = [
        ("POST", "/api/games", {"raw": b"{", "headers": {"Content-Type": "application/json"}}, 400, "not JSON"),
        ("POST", "/api/games", {"raw": b"[1, 2]", "headers": {"Content-Type": "application/json"}}, 400, "object"),
        ("POST", "/api/games", {"raw": b"\xff\xfe", "headers": {"Content-Type": "application/json"}}, 400, "JSON"),
        ("POST", "/api/games", {"raw": b"[" * 100_000, "headers": {"Content-Type": "application/json"}}, 400, "JSON"),
        ("POST", "/api/games", {"raw": b"seat=1", "headers": {"Content-Type": "text/plain"}}, 415, "application/json"),
        (
            "POST",
            "/api/games",
            {"raw": b"x" * (MAX_BODY + 1), "headers": {"Content-Type": "application/json"}},
            413,
            "larger than",
        ),
        ("GET", "/api/nothing", {}, 404, "no such page"),
        ("DELETE", "/api/games", {}, 405, "DELETE is not allowed"),
        ("GET", "/api/games/unknown-id", {}, 404, "no game 'unknown-id'"),
        ("POST", "/api/games/unknown-id/act", {"body": {"action": 1}}, 404, "no game"),
        ("GET", "/api/replays/unknown-id", {}, 404, "no replay"),
        ("GET", "/api/meta", {"headers": {"Host": "attacker.example:8765"}}, 403, "attacker.example"),
    ]
    for method, path, kwargs, code, message in cases:
        status, error, raw = server.request(method, path, **kwargs)
        assert status == code, (path, kwargs.get("raw", b"")[:20], raw[:300])
        assert message in error["error"], error
    # Not HTTP at all: Werkzeug answers 400 and the server goes on.
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(b"\x00\x01garbage\r\n\r\n")
        assert b"400" in sock.recv(200)
    assert server.request("GET", "/api/meta")[0] == 200


def test_bad_moves_and_moves_out_of_turn(server: Server) -> None:
    status, state, _ = server.request("POST", "/api/games", {"seed": 3, "agents": "random"})
    assert status == 201 and state["your_turn"]
    game = f"/api/games/{state['id']}"
    illegal = next(a for a in range(60) if a not in {m["id"] for m in state["legal"]})
    for action, code, message in [
        (None, 400, "'action' must be"),
        ("ZZ", 400, "'action' must be"),
        (99, 400, "not an action id"),
        (True, 400, "'action' must be"),
        ([1], 400, "'action' must be"),
        (illegal, 400, "is not a legal move now; legal:"),
    ]:
        status, error, _ = server.request("POST", f"{game}/act", {"action": action})
        assert (status, error["status"]) == (code, code) and message in error["error"], (action, error)
    assert server.request("POST", f"{game}/act", {})[1]["error"].startswith("'action' is required")
    assert server.request("POST", f"{game}/next", {})[0] == 409  # the deal is still being played
    status, error, _ = server.request("POST", f"{game}/replay", {})
    assert status == 409 and "once it is over" in error["error"]
    # Names work as well as ids; the state did not change for the refused moves.
    assert server.request("GET", game)[1]["actions"] == state["actions"]
    state = play_out(server, state, pick=lambda legal: legal[-1])
    status, error, _ = server.request("POST", f"{game}/act", {"action": "PASS"})
    assert status == 409 and "over" in error["error"]
    assert server.request("POST", f"{game}/next", {})[0] == 409


def test_bad_replays_are_400s(server: Server, tmp_path: Path) -> None:
    status, state, _ = server.request("POST", "/api/games", {"seed": 5, "agents": "heuristic"})
    state = play_out(server, state)
    saved = state["saved"]
    assert saved and saved in server.request("GET", "/api/logs")[1]["logs"]
    log = json.loads((server.state.save_dir / saved).read_text())
    broken = dict(log, actions=[*log["actions"][:3], [9, "PASS"]])
    cases = [
        ({}, 400, "exactly one of"),
        ({"log": log, "name": saved}, 400, "exactly one of"),
        ({"log": [1, 2]}, 400, "not a rams game log"),
        ({"log": dict(log, format="other")}, 400, "not a rams game log"),
        ({"log": dict(log, version=99)}, 400, "log version 99"),
        ({"log": dict(log, deck=["AS"] * 52)}, 400, "bad game setup"),
        ({"log": broken}, 400, 'action 4 [9, "PASS"] does not replay'),
        ({"log": dict(log, actions=[*log["actions"], [0, "PASS"]])}, 400, "the deal is over after action"),
        ({"log": dict(log, actions=[["0", 1]])}, 400, "does not replay"),
        ({"name": "../../etc/passwd"}, 404, "no saved log named"),
        ({"name": 5}, 404, "no saved log named"),
        ({"agents": ["random", "heuristic"]}, 400, "one agent for all seats or 4"),
        ({"agents": ["random"], "deck": -1}, 400, "'deck' must be"),
    ]
    for body, code, message in cases:
        status, error, _ = server.request("POST", "/api/replays", body)
        assert status == code and message in error["error"], (body if len(str(body)) < 200 else "log", error)
    status, replay, _ = server.request("POST", "/api/replays", {"log": log})
    assert status == 201 and replay["steps"] == len(log["actions"]) and replay["step"] == 0
    for query, message in [
        ("step=-1", "'step' must be 0 to"),
        ("step=x", "must be an integer"),
        (f"step={replay['steps'] + 1}", "'step' must be 0 to"),
        ("seat=4", "'seat' must be 0 to 3"),
    ]:
        status, error, _ = server.request("GET", f"/api/replays/{replay['id']}?{query}")
        assert status == 400 and message in error["error"], (query, error)


# ----------------------------------------------------------------------------- plain HTTP: no leaks
def hidden_cards(game: Any, seat: int, view: dict) -> set[str]:
    """Cards of the other seats that ``seat`` may not know now: their hands and face-down discards."""
    public = {view["turned_card"]} | {c for shown in view["shown"] for c in shown["cards"]}
    hidden: set[str] = set()
    for s in range(game.n):
        if s != seat:
            hidden |= {card_name(c) for c in game.hands[s]} | {card_name(c) for c in game.out_hidden[s]}
    return hidden - public


def this_deal(state: dict) -> dict:
    """The state with only its lines about the current deal (older deals' cards are dealt again)."""
    events = state["events"]
    marks = [k for k, line in enumerate(events) if line.startswith("--- next deal")]
    return dict(state, events=events[marks[-1] + 1 :] if marks else events)


def check_no_leak(game: Any, seat: int, state: dict, seen: set[str]) -> None:
    """The state holds the seat's own view() and nothing of the cards hidden from it."""
    assert state["view"] == game.view(seat)
    text = json.dumps(this_deal(state))
    leaked = set(CARD.findall(text)) & hidden_cards(game, seat, state["view"])
    assert not leaked, f"cards hidden from player_{seat} sent to the page: {leaked}"
    seen |= set(CARD.findall(json.dumps(state["view"])))
    others = dict(this_deal(state), view=None)
    assert set(CARD.findall(json.dumps(others))) <= seen, "a card outside every view the seat was sent"


@pytest.mark.parametrize(
    ("rules", "seed"),
    [
        ({"variant": "mattmar", "num_players": 4, "seat": 2, "episode": "rams"}, 11),
        ({"variant": "russian", "num_players": 3, "seat": 0, "scores": "random"}, 4),
        ({"variant": "rams32", "num_players": 5, "seat": 4}, 8),
        ({"variant": "norrlandsknack", "num_players": 6, "seat": 1}, 2),
    ],
)
def test_the_page_only_ever_gets_the_seats_view(server: Server, rules: dict, seed: int) -> None:
    rng = np.random.default_rng(seed)
    status, state, _ = server.request("POST", "/api/games", {**rules, "seed": seed, "agents": "heuristic"})
    assert status == 201
    live = server.state.games.get(state["id"])
    seen: set[str] = set()

    def check(state: dict) -> None:
        check_no_leak(live.game, rules["seat"], state, seen)
        assert state["seed"] is None or state["over"]  # the seed fixes the deck: not while playing
        assert state["your_turn"] == bool(state["legal"])
        assert "deck" not in json.dumps(state)

    state = play_out(server, state, pick=lambda legal: legal[int(rng.integers(len(legal)))], check=check)
    assert state["seed"] == seed
    # The picture is drawn from the same view: exactly render_view's.
    from PIL import Image

    from rams_env.envs.render_rgb import render_view

    status, _, png = server.request("GET", f"/api/games/{state['id']}/table.png")
    assert status == 200
    assert np.array_equal(
        np.asarray(Image.open(io.BytesIO(png)).convert("RGB")), render_view(live.game.view(live.seat))
    )


def test_a_replay_step_holds_only_the_chosen_seats_view(server: Server) -> None:
    status, state, _ = server.request("POST", "/api/games", {"seed": 21, "agents": "random", "episode": "rams"})
    state = play_out(server, state)
    status, replay, _ = server.request("POST", f"/api/games/{state['id']}/replay", {})
    assert status == 201 and replay["step"] == replay["steps"] == state["actions"]
    game, record = game_log.load_log(server.state.save_dir / state["saved"])
    checked = 0
    for k in range(replay["steps"] + 1):  # the game of the log, stepped along beside the replay
        if k:
            if game.phase >= Phase.DEAL_OVER:
                assert not next_deal_or_end(game, record["episode"])
            seat, name = record["actions"][k - 1]
            assert seat == game.current
            game.apply(int(Action[name]) if name in Action.__members__ else card_index(name))
        if k % 7 and k != replay["steps"]:
            continue
        for seat in range(game.n):
            status, at, _ = server.request("GET", f"/api/replays/{replay['id']}?step={k}&seat={seat}")
            assert status == 200 and (at["step"], at["seat"]) == (k, seat)
            check_no_leak(game, seat, at, set(CARD.findall(json.dumps(this_deal(at)["events"]))))
            checked += 1
    assert checked > 10


# ----------------------------------------------------------------------------- saved and evaluation games
def test_a_finished_game_is_saved_as_rams_play_saves_it(server: Server, capsys: pytest.CaptureFixture) -> None:
    status, state, _ = server.request("POST", "/api/games", {"seed": 9, "agents": ["random", "heuristic", "random"]})
    state = play_out(server, state)
    path = server.state.save_dir / state["saved"]
    assert cli.main(["replay", str(path)]) == 0
    assert "end of the log" in capsys.readouterr().out
    record = json.loads(path.read_text())
    assert record["seats"] == ["you", "random", "heuristic", "random"] and record["human_seat"] == 0
    assert record["final_scores"] == state["view"]["scores"]
    # rams play --seed 9 deals the same deck.
    assert record["deck"] == list(deal_set(make_config("mattmar", 4), 9, 1)[0].deck)
    status, replay, _ = server.request("POST", "/api/replays", {"name": state["saved"]})
    assert status == 201
    status, last, _ = server.request("GET", f"/api/replays/{replay['id']}?step={replay['steps']}")
    assert last["view"] == state["view"]


def test_an_agents_game_is_that_decks_game_in_rams_eval(server: Server) -> None:
    config = make_config("mattmar", 4)
    specs = ["heuristic", "random", "random", "random"]  # rams eval heuristic: its game with the agent in seat 0
    seed, deck = 7, 2
    status, replay, _ = server.request(
        "POST", "/api/replays", {"agents": specs, "seed": seed, "deck": deck, "scores": "random"}
    )
    assert status == 201, replay
    status, last, _ = server.request("GET", f"/api/replays/{replay['id']}?step={replay['steps']}&seat=0")
    deal = deal_set(config, seed, deck + 1, "random")[deck]
    lineup = [(spec, agent_source(spec, config)) for spec in specs]
    from rams_env.obs import ObservationEncoder

    record = play_deal(config, deal, lineup, seed, "deal", ObservationEncoder(config))
    assert [b - a for b, a in zip(deal.scores, last["view"]["scores"], strict=True)] == record.points
    assert last["deal_points"] == record.points
    assert agent_seed(seed, deck, 0) != agent_seed(seed, deck, 1)


# ----------------------------------------------------------------------------- the command
def test_rams_serve_is_a_rams_command_and_checks_its_arguments(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert COMMAND.name == "serve"
    assert "serve" in {c.name for c in command.plugin_commands()}
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    assert cli.main(["serve", str(bad)]) == 1
    assert "not a rams game log" in capsys.readouterr().err
    assert cli.main(["serve", "--save-dir", str(tmp_path / "nowhere")]) == 1
    assert "no such folder" in capsys.readouterr().err
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        assert cli.main(["serve", "--port", str(busy.getsockname()[1])]) == 1
    assert "cannot listen" in capsys.readouterr().err


def test_rams_serve_listens_on_localhost_until_stopped(monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    import werkzeug.serving

    servers: list[Any] = []
    real = werkzeug.serving.make_server

    def recording(*args: Any, **kwargs: Any) -> Any:
        servers.append(real(*args, **kwargs))
        return servers[-1]

    monkeypatch.setattr(werkzeug.serving, "make_server", recording)
    codes: list[int] = []
    thread = threading.Thread(target=lambda: codes.append(cli.main(["serve", "--port", "0", "--quiet"])))
    thread.start()
    try:
        deadline = time.monotonic() + 30
        while not servers and thread.is_alive() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert servers, "rams serve did not start"
        host, port = servers[0].server_address[:2]
        assert host == "127.0.0.1"
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("GET", "/api/meta")
        assert conn.getresponse().status == 200
        conn.close()
    finally:
        if servers:
            servers[0].shutdown()
        thread.join(timeout=30)
    assert codes == [0]
    out = capsys.readouterr().out
    assert f"http://127.0.0.1:{port}/" in out and "stopped" in out


# ----------------------------------------------------------------------------- the browser
def with_suits(line: str) -> str:
    """A line of the log as the page shows it: card names as the cards show them (``JH`` as ``J♥``)."""
    suits = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
    return re.sub(r"\b([2-9TJQKA])([CDHS])\b", lambda m: m[1].replace("T", "10") + suits[m[2]], line)


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
NO_BROWSER = (
    "the browser test needs Debian's chromium and its chromedriver: apt-get install chromium chromium-driver "
    f"(found chromium: {CHROMIUM}, chromedriver: {CHROMEDRIVER})"
)


@pytest.fixture
def browser() -> Iterator[Any]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in (
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--window-size=1200,1000",
        "--disable-extensions",
        "--no-first-run",
    ):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)  # no Selenium Manager
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()


PAGE_SHOWS = """
const cards = (sel) => [...document.querySelectorAll(sel)].map((c) => c.dataset.card);
const seats = [...document.querySelectorAll('#seats .seat')];
return {
  idle: !document.getElementById('table').classList.contains('hidden')
        && document.getElementById('busy').classList.contains('hidden'),
  kind: current && current.kind, id: current && current.id, actions: current && current.actions,
  hand: cards('#hand .card'),
  trick: cards('#trick .card'),
  scores: seats.map((p) => Number(p.querySelector('.score').textContent)),
  tricks: seats.map((p) => Number(p.querySelector('.tricks').textContent)),
  toAct: seats.map((p) => p.classList.contains('to-act')),
  moves: [...document.querySelectorAll('#hand button.legal, #calls button')].map((b) => Number(b.dataset.action)),
  events: [...document.querySelectorAll("#events .text")].map((li) => li.textContent),
  banner: document.getElementById('banner').textContent,
  error: document.getElementById('error').textContent,
  step: document.getElementById('step-label').textContent,
  title: document.getElementById('own-title').textContent,
};
"""


def save_shot(driver: Any, path: str) -> None:
    """A screenshot for docs/serve.md, as a palette PNG of 96 colours (kept small)."""
    from PIL import Image

    driver.save_screenshot(path)
    Image.open(path).convert("RGB").quantize(colors=96).save(path, optimize=True)


def choose_agent(driver: Any, row: int, spec: str) -> None:
    """The agent of the form's ``row``-th seat chosen as a person does: from its picker, or typed in the field
    that "type a spec or a path…" shows."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    pick = Select(driver.find_elements(By.CSS_SELECTOR, "#agent-inputs select.agent-pick")[row])
    if spec in [o.get_attribute("value") for o in pick.options]:
        pick.select_by_value(spec)
        return
    pick.select_by_value("")
    field = driver.find_elements(By.CSS_SELECTOR, "#agent-inputs input.agent-spec")[row]
    field.clear()
    field.send_keys(spec)


def settle(browser: Any) -> None:
    """Before a screenshot: the top of the page, and the highlights of the last moves faded."""
    browser.execute_script("window.scrollTo(0, 0)")
    browser.execute_script("return new Promise((done) => setTimeout(done, 1300))")


# Skipped only outside CI: .ci/run installs the browser, and under CI=true a missing one fails the test.
@pytest.mark.slow
@pytest.mark.skipif((CHROMIUM is None or CHROMEDRIVER is None) and not os.environ.get("CI"), reason=NO_BROWSER)
def test_a_whole_deal_played_and_watched_in_chromium(server: Server, browser: Any) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait

    shots = os.environ.get("RAMS_SERVE_SCREENSHOTS")  # a folder: save the README's screenshots there
    wait = WebDriverWait(browser, 30, poll_frequency=0.1)
    shows = lambda: browser.execute_script(PAGE_SHOWS)  # what the page shows, read from its DOM
    browser.get(server.url + "/")
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#agent-inputs input"))
    Select(browser.find_element(By.ID, "variant")).select_by_value("mattmar")
    browser.find_element(By.ID, "seed").send_keys("3")
    inputs = browser.find_elements(By.CSS_SELECTOR, "#agent-inputs input")
    assert [i.get_attribute("value") for i in inputs] == ["heuristic"] * 3
    choose_agent(browser, 0, "random")
    browser.find_element(By.ID, "start").click()

    seen_hands, moves, shot_taken, before = [], 0, False, None
    while True:
        page = wait.until(lambda d, before=before: (p := shows())["idle"] and p["actions"] != before and p)
        assert page["kind"] == "game" and not page["error"]
        live = server.state.games.get(page["id"])
        view = live.game.view(0)
        # The page shows the server's game as seat 0 sees it: hand, scores, tricks, turn, trick, history.
        assert page["hand"] == view["hand"]
        assert page["scores"] == view["scores"] and page["tricks"] == view["tricks"]
        assert page["toAct"] == [view["to_act"] == s for s in range(4)]
        assert page["trick"] == [card for _, card in view["trick"]]
        assert page["events"] == [with_suits(line) for line in live.history[-len(page["events"]) :]]
        seen_hands.append(page["hand"])
        if live.over:
            break
        assert sorted(page["moves"]) == live.game.legal_actions()
        if shots and view["phase"] == "play" and view["trick"] and not shot_taken:
            settle(browser)
            save_shot(browser, os.path.join(shots, "serve-play.png"))
            # The page's picture of the same moment (under "Picture"): rams_env.envs.render_rgb's frame.
            browser.find_element(By.CSS_SELECTOR, "#picture-box summary").click()
            wait.until(
                lambda d: d.execute_script(
                    "const i = document.getElementById('picture'); return i.complete && i.naturalWidth > 0"
                )
            )
            Path(shots, "serve-frame.png").write_bytes(server.request("GET", f"/api/games/{page['id']}/table.png")[2])
            browser.find_element(By.CSS_SELECTOR, "#picture-box summary").click()
            shot_taken = True
        buttons = browser.find_elements(By.CSS_SELECTOR, "#hand button.legal, #calls button")
        knock = [b for b in buttons if b.get_attribute("data-name") == "KNOCK"]
        if view["phase"] == "buy":  # mark the first card for discarding, then confirm the draw
            browser.find_element(By.CSS_SELECTOR, "#hand button.legal").click()
            wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#hand button.selected"))
            browser.find_element(By.ID, "confirm-buy").click()
        else:
            (knock or buttons)[0].click()  # knock when offered, so that the deal is played through the page
        before = page["actions"]
        moves += 1
        assert moves < 60
    assert page["banner"].strip().startswith("Game over") and "→" in page["banner"]
    assert any(line.startswith("deal over") for line in page["events"])
    assert moves >= 3 and min(len(h) for h in seen_hands) < 5  # knocked, bought and played through the page
    total = len(live.log)

    # Watch it: the same game step by step, from the start and from another seat.
    browser.find_element(By.ID, "watch-this").click()
    wait.until(lambda d: shows()["step"] == f"{total} / {total}")
    browser.find_element(By.ID, "first").click()
    page = wait.until(lambda d: (p := shows())["step"] == f"0 / {total}" and p)
    assert page["hand"] == live.deal.game(live.config).view(0)["hand"]
    for k in range(1, 4):
        browser.find_element(By.ID, "next").click()
        page = wait.until(lambda d, k=k: (p := shows())["step"] == f"{k} / {total}" and p)
    assert page["events"][-1].startswith("[3] ")
    Select(browser.find_element(By.ID, "view-seat")).select_by_value("1")
    page = wait.until(lambda d: (p := shows())["title"] == "player_1's hand" and p)
    replay = server.state.replays.get(browser.execute_script("return current.id"))
    game, _, _ = replay.at(3, 1)
    assert page["hand"] == game.view(1)["hand"] and page["scores"] == game.view(1)["scores"]
    if shots:  # mid-trick, seen by player_1
        browser.execute_script("step(arguments[0])", total - 10)
        wait.until(lambda d: shows()["step"] == f"{total - 10} / {total}")
        settle(browser)
        save_shot(browser, os.path.join(shots, "serve-watch.png"))
    # A bad request shows the server's error on the page: an unknown agent.
    browser.find_element(By.ID, "tab-play").click()
    choose_agent(browser, 1, "nobody")
    browser.find_element(By.ID, "start").click()
    wait.until(lambda d: "unknown agent 'nobody'" in shows()["error"])
