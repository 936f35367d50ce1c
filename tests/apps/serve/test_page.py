"""The page of ``rams serve``: a card table at 1280x800 and at phone width, buying with a confirm, the
score changes explained with a chart, the agents' moves highlighted, and agent pickers from the zoo.

HTTP tests drive the JSON API (``POST .../buy``, ``deal_summary``, ``score_chart``, ``agent_cards``);
the browser tests run headless Chromium as ``tests/apps/serve/test_app.py`` does (Debian's ``chromium`` and
``chromedriver``; as root it needs ``--no-sandbox``: docs/serve.md). With ``RAMS_SERVE_SCREENSHOTS=docs``
they write ``docs/serve-pickers.png`` (the phases of the table at both sizes are ``test_layout.py``'s).
"""

from __future__ import annotations

import os
import random
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rams_env.apps.scores import deal_summary
from rams_env.apps.serve.state import ServeState
from rams_env.apps.serve.zoo_cards import zoo_cards
from rams_env.rules import Action, Game, make_config
from tests.apps.serve.test_app import CHROMEDRIVER, CHROMIUM, NO_BROWSER, Server, choose_agent, save_shot

ROOT = Path(__file__).resolve().parents[3]
KNOCK = int(Action.KNOCK)
SHOTS = os.environ.get("RAMS_SERVE_SCREENSHOTS") and os.path.abspath(os.environ["RAMS_SERVE_SCREENSHOTS"])
CARD = """# `{name}`: PPO self-play policy for whole ramsar of {variant}, {sizes} players

- File: `checkpoints/{name}.pt` (1.5 MB)

## Headline

| yardstick | goal | measured | 95% CI | met |
|---|---|---:|---|---|
| whole ramsar vs 3 heuristics, win share | >= 0.325 | {win} | [0.200, 0.300] | no |
"""


@pytest.fixture(scope="module")
def zoo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A zoo in per-model folders (``checkpoints/<preset>/<model>/``), as the cards will be laid out."""
    from rams_env.obs import OBS_SIZE
    from rams_env.policy import PolicyNet, make_checkpoint, save_checkpoint
    from rams_env.rules.actions import NUM_ACTIONS

    root = tmp_path_factory.mktemp("zoo") / "checkpoints"
    long = "mattmar-4p-with-a-very-long-name-that-a-narrow-picker-would-cut-off"
    for name, variant, sizes, win in (
        ("rams32-4p", "rams32", "4", "0.330"),
        ("mattmar-4p", "mattmar", "4", "0.247"),
        ("russian-3to7p", "russian", "3/4/5/6/7", "0.258"),
        (long, "mattmar", "4", "0.250"),
    ):
        folder = root / variant / name
        folder.mkdir(parents=True)
        (folder / f"{name}.md").write_text(CARD.format(name=name, variant=variant, sizes=sizes, win=win))
        config = make_config(variant, 4)
        save_checkpoint(folder / f"{name}.pt", make_checkpoint(PolicyNet(OBS_SIZE, NUM_ACTIONS, hidden=(8,)), config))
    return root


@pytest.fixture(scope="module")
def server(zoo: Path) -> Iterator[Server]:
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(zoo.parent)  # as rams serve is run: from the checkout, --checkpoints checkpoints
        srv = Server(ServeState(checkpoint_dir="checkpoints"))
        try:
            yield srv
        finally:
            srv.stop()


def new_game(server: Server, **body: Any) -> dict:
    status, state, _ = server.request("POST", "/api/games", {"agents": ["random"], "seed": 3, **body})
    assert status == 201, state
    return state


def to_buying(server: Server, state: dict) -> dict:
    """Knock (or pass through the bids) until it is the person's turn to buy."""
    while state["buy"] is None:
        assert not state["deal_over"], "the person never bought"
        names = [m["name"] for m in state["legal"]]
        move = "KNOCK" if "KNOCK" in names else names[-1]
        status, state, _ = server.request("POST", f"/api/games/{state['id']}/act", {"action": move})
        assert status == 200, state
    return state


# ----------------------------------------------------------------------------- HTTP: buying
def test_a_purchase_is_sent_whole_and_checked_before_any_card_is_played(server: Server) -> None:
    state = to_buying(server, new_game(server))
    live = server.state.games.get(state["id"])
    before = len(live.log)
    hand = state["view"]["hand"]
    rules = state["buy"]
    assert rules["min"] == 0 and rules["max"] >= 2 and rules["draw"]
    # too many cards, a card not in the hand, a card twice: refused, and nothing is played
    other = next(card for card in ("2C", "3C", "4C", "5C", "6C", "7C") if card not in hand)
    for discards in (hand + ["AS"] * 2, ["ZZ"], [hand[0], hand[0]], [hand[0], other]):
        status, answer, _ = server.request("POST", f"/api/games/{state['id']}/buy", {"discards": discards})
        assert status == 400 and answer["error"], (discards, answer)
        assert len(live.log) == before
    status, state, _ = server.request("POST", f"/api/games/{state['id']}/buy", {"discards": hand[:2]})
    assert status == 200, state
    mine = [entry for entry in live.log[before:] if entry[0] == 0]
    assert mine[:3] == [[0, hand[0]], [0, hand[1]], [0, "DRAW"]]


# ----------------------------------------------------------------------------- HTTP: scores explained
def _deal_overs(server: Server, episode: str, scores: str, seed: int) -> Iterator[dict]:
    state = new_game(server, episode=episode, scores=scores, seed=seed)
    while True:
        if state["deal_over"]:
            yield state
            if not state["next_deal"]:
                return
            status, state, _ = server.request("POST", f"/api/games/{state['id']}/next", {})
        else:
            names = [m["name"] for m in state["legal"]]
            move = "KNOCK" if "KNOCK" in names else state["legal"][0]["id"]
            status, state, _ = server.request("POST", f"/api/games/{state['id']}/act", {"action": move})
        assert status == 200, state


def test_each_score_change_is_explained_the_way_the_game_counts_it(server: Server) -> None:
    seen = set()
    for seed in range(12):
        for state in _deal_overs(server, "rams", "random", seed):
            summary = state["deal_summary"]
            for row in summary["seats"]:
                before, after, tricks = row["before"], row["after"], row["tricks"]
                assert after == state["view"]["scores"][row["seat"]]
                if row["flew"]:
                    assert row["why"].startswith(f"flew (knocked, took no trick): {before} + 5 = {before + 5}")
                    assert row["capped"] == (before + 5 > 10) and after == min(before + 5, 10)
                    if row["capped"]:
                        assert (
                            f"capped at 10: {'it costs nothing' if before == 10 else 'the flight costs'}" in row["why"]
                        )
                    seen.add("capped" if row["capped"] else "flight")
                elif tricks and summary["reason"] == "played":
                    assert row["why"] == f"{tricks} trick{'s' if tricks > 1 else ''}: {before} - {tricks} = {after}"
                    seen.add("tricks")
            chart = state["score_chart"]
            assert chart[-1]["scores"] == state["view"]["scores"]
        if seen >= {"capped", "flight", "tricks"}:
            break
    assert seen >= {"capped", "flight", "tricks"}, seen


def _named(seats: list[int]) -> str:
    names = [f"player_{s}" + (" (you)" if s == 0 else "") for s in seats]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def test_the_end_of_a_deal_names_who_won_ties_named(server: Server) -> None:
    """Issue 48: the banner's title says who won the rams (the lowest scores) or, a deal alone, its best."""
    seen = set()
    for seed in range(40):
        for state in _deal_overs(server, "rams", "random", seed):
            summary, scores = state["deal_summary"], state["view"]["scores"]
            if state["over"]:  # the rams is over: its winners, the lowest scores, share it
                low = min(scores)
                winners = [s for s in range(4) if scores[s] == low]
                verb = "wins" if len(winners) == 1 else "share"
                assert summary["result"] == f"{_named(winners)} {verb} the rams at {low}"
                seen.add("tie" if len(winners) > 1 else "win")
            else:
                fell = [row["before"] - row["after"] for row in summary["seats"]]
                best = [s for s in range(4) if fell[s] == max(fell)]
                if max(fell) > 0:
                    each = " each" if len(best) > 1 else ""
                    points = f"{max(fell)} point{'s' if max(fell) > 1 else ''} off"
                    assert summary["result"] == f"the deal's best: {_named(best)}, {points}{each}"
                    seen.add("best tie" if len(best) > 1 else "best")
        if {"win", "best", "best tie"} <= seen:
            break
    assert {"win", "best", "best tie"} <= seen, seen  # a shared rams is rare: checked when it comes


def test_the_score_chart_holds_every_deal_of_the_rams(server: Server) -> None:
    overs = list(_deal_overs(server, "rams", "start", 5))
    chart = overs[-1]["score_chart"]
    assert len(chart) == len(overs) + 1  # the start of the rams, then each deal
    assert chart[0]["scores"] == [10] * 4 and [p["deal"] for p in chart] == list(range(len(overs) + 1))
    assert [p["scores"] for p in chart[1:]] == [s["view"]["scores"] for s in overs]


def test_a_replay_explains_the_same_deals_step_by_step(server: Server) -> None:
    overs = list(_deal_overs(server, "rams", "random", 2))
    last = overs[-1]
    status, replay, _ = server.request("POST", f"/api/games/{last['id']}/replay", {})
    assert status == 201, replay
    assert replay["deal_summary"] == last["deal_summary"] and replay["score_chart"] == last["score_chart"]
    status, start, _ = server.request("GET", f"/api/replays/{replay['id']}?step=0")
    assert start["deal_summary"] is None and len(start["score_chart"]) == 1 and start["recent"] == []
    status, first, _ = server.request("GET", f"/api/replays/{replay['id']}?step=1")
    assert [m["seat"] for m in first["recent"]] == [first["view"]["forehand"]]  # who moved at this step


def test_a_russian_deal_names_its_fines_and_write_offs() -> None:
    config = make_config("russian", 4)
    for seed in range(40):
        game = Game(config, seed)
        before, flights = list(game.scores), list(game.flights)
        while game.current >= 0:
            legal = game.legal_actions()
            game.apply(KNOCK if KNOCK in legal else legal[0])
        for row in deal_summary(game, 0, before, flights)["seats"]:
            assert row["after"] == game.scores[row["seat"]]
            if row["flew"] and row["after"] > row["before"]:  # what the aces cost is said (issue 48)
                aces = row["after"] - row["before"] - 5
                held = f"5 + aces held {aces}" if aces else "5, no ace held"
                assert (
                    f"fined {row['after'] - row['before']} ({held})" in row["why"] and f"= {row['after']}" in row["why"]
                )
            elif row["after"] < row["before"]:
                assert f"{row['before']} - {row['before'] - row['after']} = {row['after']}" in row["why"]


def test_the_special_ends_of_a_russian_deal_are_named() -> None:
    config = make_config("russian", 4)
    found: dict[str, str] = {}
    for seed in range(400):
        rng = random.Random(seed)
        game = Game(config, seed)
        before, flights = list(game.scores), list(game.flights)
        while game.current >= 0:
            game.apply(rng.choice(game.legal_actions()))
        summary = deal_summary(game, 0, before, flights)
        for row in summary["seats"]:
            if row["after"] < row["before"] and summary["reason"] in ("five_of_a_suit", "free_five"):
                found.setdefault(summary["reason"], row["why"])
        if len(found) == 2:
            break
    assert found["five_of_a_suit"].startswith("five of a suit 5")
    assert found["free_five"].startswith("5 tricks without play")


# ----------------------------------------------------------------------------- HTTP: a single choice
def test_a_single_choice_says_why_and_an_empty_talon_is_drawn_for_you(server: Server) -> None:
    """Issue 48: at seven players only Reject may be offered, a knock may be forced, the talon may be empty."""
    from rams_env.apps.serve.games import EMPTY_TALON

    seen = set()
    for seed in range(60):
        state = new_game(server, num_players=7, seed=seed, scores="random" if seed % 2 else "start")
        live = server.state.games.get(state["id"])
        while not state["deal_over"]:
            names = [m["name"] for m in state["legal"]]
            if names == ["REJECT"]:
                assert "You can only reject" in state["hint"] and "talon cannot give you five" in state["hint"]
                seen.add("reject")
            elif "ACCEPT" in names:
                assert state["hint"].endswith("accept or reject.")
            if names == ["KNOCK"]:
                assert state["hint"].startswith("You must knock (you may not pass): you ")
                seen.add("knock")
            if state["note"]:  # drawn for you: the talon was empty, and that is said
                assert state["note"] == EMPTY_TALON and EMPTY_TALON in state["events"]
                assert [0, "DRAW"] in live.log and state["view"]["talon"] == 0
                seen.add("empty talon")
            assert not (state["buy"] and names == ["DRAW"] and state["view"]["talon"] == 0), "an empty talon to click"
            move = next((m for m in ("BID_BETTER", "ACCEPT", "KNOCK") if m in names), state["legal"][0]["name"])
            if state["buy"]:
                body = {"discards": state["view"]["hand"][: state["buy"]["min"]]}
                status, state, _ = server.request("POST", f"/api/games/{state['id']}/buy", body)
            else:
                status, state, _ = server.request("POST", f"/api/games/{state['id']}/act", {"action": move})
            assert status == 200, state
        if len(seen) == 3:
            break
    assert seen == {"reject", "knock", "empty talon"}, seen


# ----------------------------------------------------------------------------- HTTP: the zoo's agents
def test_the_pickers_get_the_zoos_cards_from_any_depth(server: Server) -> None:
    status, meta, _ = server.request("GET", "/api/meta")
    assert status == 200
    cards = {c["name"]: c for c in meta["agent_cards"]}
    assert cards["mattmar-4p"]["spec"] == "checkpoints/mattmar/mattmar-4p/mattmar-4p.pt"
    assert cards["rams32-4p"]["kind"] == "flagship"  # rams_env.zoo.FLAGSHIPS names it
    assert cards["mattmar-4p"]["kind"] == "checkpoint" and cards["mattmar-4p"]["sizes"] == [4]
    assert cards["russian-3to7p"]["sizes"] == [3, 4, 5, 6, 7] and cards["russian-3to7p"]["variant"] == "russian"
    assert cards["mattmar-4p"]["headline"].startswith("win share 0.247 [0.200, 0.300]")
    assert cards["mattmar-4p"]["spec"] in meta["agents"]


def test_the_shipped_cards_are_read() -> None:
    from rams_env import zoo

    cards = zoo_cards(ROOT / "checkpoints")
    assert {c.name for c in cards if c.kind == "flagship"} == set(zoo.FLAGSHIPS.values())
    assert all(c.spec in zoo.known_names() and c.headline.startswith("win share") for c in cards)


# ----------------------------------------------------------------------------- the browser
needs_browser = pytest.mark.skipif(
    (CHROMIUM is None or CHROMEDRIVER is None) and not os.environ.get("CI"), reason=NO_BROWSER
)


def _driver(width: int, height: int) -> Any:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     f"--window-size={width},{height}", "--hide-scrollbars", "--no-first-run"):  # fmt: skip
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    # The page's viewport exactly this size (a phone's when narrow), whatever the window's frame takes.
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 700},
    )
    driver.set_page_load_timeout(30)
    return driver


@pytest.fixture
def desktop() -> Iterator[Any]:
    driver = _driver(1280, 800)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def phone() -> Iterator[Any]:
    driver = _driver(390, 844)
    try:
        yield driver
    finally:
        driver.quit()


IDLE = (
    "return !document.getElementById('table').classList.contains('hidden')"
    " && document.getElementById('busy').classList.contains('hidden') && current"
)
LAYOUT = """
const box = (node) => { const r = node.getBoundingClientRect(); return {x: r.x + r.width / 2, y: r.y + r.height / 2,
  left: r.left, right: r.right, top: r.top, bottom: r.bottom}; };
const felt = document.getElementById('felt');
return {
  width: document.documentElement.clientWidth,
  scrollWidth: document.documentElement.scrollWidth,
  felt: box(felt), feltRadius: getComputedStyle(felt.querySelector('.oval')).borderRadius,
  seats: [...document.querySelectorAll('#seats .seat')].map((p) => ({seat: Number(p.dataset.seat), ...box(p),
    dealer: !!p.querySelector('.mark.dealer'), forehand: !!p.querySelector('.mark.forehand'),
    backs: p.querySelectorAll('.card.back').length, moved: p.classList.contains('moved'),
    said: (p.querySelector('.said') || {}).textContent || ''})),
  trick: [...document.querySelectorAll('#trick .played')].map((p) => ({seat: Number(p.dataset.seat), ...box(p),
    who: p.querySelector('.who').textContent, card: p.querySelector('.card').dataset.card})),
  hand: [...document.querySelectorAll('#hand .card')].map((c) => c.dataset.card),
};
"""


def _start(driver: Any, server: Server, seed: int = 3, episode: str = "deal") -> Any:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait

    driver.get(server.url + "/")
    wait = WebDriverWait(driver, 30, poll_frequency=0.1)
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#agent-inputs input"))
    Select(driver.find_element(By.ID, "episode")).select_by_value(episode)
    driver.find_element(By.ID, "seed").send_keys(str(seed))
    choose_agent(driver, 0, "random")
    driver.find_element(By.ID, "start").click()
    wait.until(lambda d: d.execute_script(IDLE))
    return wait


def _move(driver: Any, wait: Any) -> None:
    """One move through the page: knock when offered; buy by confirming the draw (no card marked)."""
    from selenium.webdriver.common.by import By

    mark = "return `${current.actions} ${current.view.rams} ${current.view.deal}`"  # next deal: no action
    before = driver.execute_script(mark)
    state = driver.execute_script("return current")
    if state["next_deal"]:
        driver.find_element(By.ID, "next-deal").click()
    elif state["buy"]:
        driver.find_element(By.ID, "confirm-buy").click()
    else:
        buttons = driver.find_elements(By.CSS_SELECTOR, "#hand button.legal, #calls button")
        knock = [b for b in buttons if b.get_attribute("data-name") == "KNOCK"]
        (knock or buttons)[0].click()
    wait.until(lambda d: d.execute_script(IDLE) and d.execute_script(mark) != before)


def _shot(driver: Any, name: str) -> None:
    if SHOTS:
        driver.execute_script("window.scrollTo(0, 0)")
        driver.execute_script("return new Promise((done) => setTimeout(done, 1300))")  # the highlights settle
        save_shot(driver, os.path.join(SHOTS, name))


def _check_table(driver: Any, server: Server, wait: Any, shot: str) -> None:
    """Play until a trick is on the table, then check the picture: the table seen from seat 0."""
    for _ in range(300):
        state = driver.execute_script("return current")
        view = state["view"]
        if view["phase"] == "play" and len(view["trick"]) >= 2 and view["completed_tricks"]:
            break
        assert not state["over"], "no trick of two cards reached"
        _move(driver, wait)
    page = driver.execute_script(LAYOUT)
    view = state["view"]
    assert page["scrollWidth"] <= page["width"]  # nothing sticks out sideways
    assert page["feltRadius"] == "50%"  # the oval
    seats = {s["seat"]: s for s in page["seats"]}
    assert len(seats) == 4
    # from the player's point of view: seat 0 at the bottom, the next seat to its left, then across, then right
    assert seats[0]["y"] > max(seats[s]["y"] for s in (1, 2, 3))
    assert seats[1]["x"] < seats[0]["x"] < seats[3]["x"] and seats[2]["y"] < seats[1]["y"]
    for s in seats.values():
        assert s["left"] >= 0 and s["right"] <= page["width"]
        assert s["dealer"] == (s["seat"] == view["dealer"]) and s["forehand"] == (s["seat"] == view["forehand"])
        if s["seat"]:
            assert s["backs"] == min(state["counts"][s["seat"]], 8)  # the others' hands as card backs
    assert page["hand"] == view["hand"]  # the own hand as cards
    # the trick in the middle, each card towards who played it, with its order and player
    assert [(t["seat"], t["card"]) for t in page["trick"]] == [tuple(p) for p in view["trick"]]
    for k, t in enumerate(page["trick"]):
        assert t["who"] == f"{k + 1}. player_{t['seat']}"
        seat = seats[t["seat"]]
        assert abs(t["x"] - seat["x"]) + abs(t["y"] - seat["y"]) < abs(page["felt"]["x"] - seat["x"]) + abs(
            page["felt"]["y"] - seat["y"]
        )
    # each agent's moves since the person's last one: its seat highlighted with what it did
    for move in state["recent"]:
        assert seats[move["seat"]]["moved"] and seats[move["seat"]]["said"]
    assert any(s["moved"] for s in seats.values())


@pytest.mark.slow
@needs_browser
def test_the_table_at_1280x800(server: Server, desktop: Any) -> None:
    wait = _start(desktop, server, episode="rams")
    _check_table(desktop, server, wait, "serve-table-1280.png")


@pytest.mark.slow
@needs_browser
def test_the_table_on_a_phone(server: Server, phone: Any) -> None:
    wait = _start(phone, server, episode="rams")
    _check_table(phone, server, wait, "serve-table-phone.png")


@pytest.mark.slow
@needs_browser
def test_buying_marks_cards_and_sends_them_only_on_confirm(server: Server, desktop: Any) -> None:
    from selenium.webdriver.common.by import By

    wait = _start(desktop, server)
    while not desktop.execute_script("return current.buy"):
        _move(desktop, wait)
    live = server.state.games.get(desktop.execute_script("return current.id"))
    before = list(live.log)
    hand = desktop.execute_script("return current.view.hand")
    click = lambda card: desktop.find_element(By.CSS_SELECTOR, f'#hand button[data-card="{card}"]').click()
    marked = lambda: [b.get_attribute("data-card") for b in desktop.find_elements(By.CSS_SELECTOR, "#hand .selected")]
    confirm = lambda: desktop.find_element(By.ID, "confirm-buy")
    assert confirm().text == "Keep all: draw none"
    for card in hand[:3]:
        click(card)
    assert marked() == hand[:3] and confirm().text == "Discard 3 and draw 3"
    click(hand[1])  # changed my mind: keep it
    assert marked() == [hand[0], hand[2]] and confirm().text == "Discard 2 and draw 2"
    assert live.log == before  # nothing was sent while choosing
    confirm().click()
    wait.until(lambda d: d.execute_script(IDLE) and len(live.log) > len(before))
    assert live.log[len(before) : len(before) + 3] == [[0, hand[0]], [0, hand[2]], [0, "DRAW"]]
    assert not marked()


@pytest.mark.slow
@needs_browser
def test_the_deal_over_banner_explains_the_scores_with_a_chart(server: Server, desktop: Any) -> None:
    from selenium.webdriver.common.by import By

    wait = _start(desktop, server, seed=4, episode="rams")
    deals = 0
    for _ in range(400):
        state = desktop.execute_script("return current")
        if state["deal_over"]:
            deals += 1
            rows = desktop.find_elements(By.CSS_SELECTOR, "#deal-summary li")
            summary = state["deal_summary"]["seats"]
            assert len(rows) == 4
            for row, data in zip(rows, summary, strict=True):
                assert f"{data['before']} → {data['after']}" in row.text and data["why"] in row.text
                assert ("✈ flight" in row.text) == data["flew"] == ("flight" in row.get_attribute("class"))
                if data["flew"]:  # a flight the cap makes free is not coloured as a penalty (issue 48)
                    assert ("free-flight" in row.get_attribute("class")) == (data["after"] == data["before"])
            paths = desktop.find_elements(By.CSS_SELECTOR, "#score-chart path.series")
            assert len(paths) == 4 and desktop.find_element(By.ID, "chart-box").is_displayed()
            assert len(desktop.find_elements(By.CSS_SELECTOR, "#score-chart circle")) == 4 * len(state["score_chart"])
            # issue 48: the axis says what it counts, and lines at the same score (all at the start) do not hide
            # each other; the title names who won or the deal's best
            assert desktop.find_element(By.CSS_SELECTOR, "#score-chart .x-caption").text == "deal"
            starts = {p.get_attribute("d").split()[0] for p in paths}
            assert len(starts) == 4, starts
            assert summary and state["deal_summary"]["result"] in desktop.find_element(By.ID, "banner-title").text
            if deals >= 2 or state["over"]:
                break
        _move(desktop, wait)
    assert deals >= 1
    # a short rules tip under the table says what D, F, the bids and a flight are
    tip = desktop.execute_script("return document.getElementById('rules-tip').textContent")
    for words in (
        "dealer",
        "forehand",
        "Bid better cards",
        "Swing",
        "Knock or pass",
        "Flight",
        "at 10 a flight is free",
    ):
        assert words in tip, words
    desktop.find_element(By.ID, "rules-link").click()
    assert desktop.find_element(By.ID, "rules-tip").get_attribute("open") is not None


@pytest.mark.slow
@needs_browser
def test_the_pickers_suggest_the_zoo_for_the_rules_with_its_headline(server: Server, desktop: Any) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select, WebDriverWait

    desktop.get(server.url + "/")
    WebDriverWait(desktop, 30).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#agent-inputs select.agent-pick"))
    options = lambda: [
        o.get_attribute("value") for o in desktop.find_elements(By.CSS_SELECTOR, "#agent-inputs .agent-pick option")
    ]
    names = lambda: {Path(v).stem for v in options() if v.endswith(".pt")}
    long = "mattmar-4p-with-a-very-long-name-that-a-narrow-picker-would-cut-off"
    assert names() == {"mattmar-4p", long}  # mattmar, 4 players: not the russian one
    Select(desktop.find_element(By.ID, "variant")).select_by_value("russian")
    assert names() == {"russian-3to7p"}
    players = desktop.find_element(By.ID, "num-players")
    players.clear()
    players.send_keys("6", Keys.TAB)  # the change event, as when a person leaves the field
    assert names() == {"russian-3to7p"}  # it plays 3 to 7
    Select(desktop.find_element(By.ID, "variant")).select_by_value("mattmar")
    assert names() == set()  # the mattmar policies play 4
    players.clear()
    players.send_keys("4", Keys.TAB)
    pick = desktop.find_elements(By.CSS_SELECTOR, "#agent-inputs select.agent-pick")[0]
    spec = next(v for v in options() if long in v)
    Select(pick).select_by_value(spec)
    field = desktop.find_elements(By.CSS_SELECTOR, "#agent-inputs input.agent-spec")[0]
    assert field.get_attribute("value") == spec
    # the whole name and file show, wrapped under the picker (not cut), with the card's headline
    assert Select(pick).first_selected_option.text == long
    note = desktop.find_elements(By.CSS_SELECTOR, "#agent-inputs .agent-card")[0]
    assert note.text.splitlines() == [
        f"{long}: win share 0.250 [0.200, 0.300] in whole ramsar against 3 heuristics (fair 0.25)",
        spec,
    ]
    assert desktop.execute_script("return arguments[0].scrollWidth <= arguments[0].clientWidth", note)
    # each seat's agent shows once, in its picker; the field for a spec only under "type a spec or a path…"
    fields = lambda: desktop.find_elements(By.CSS_SELECTOR, "#agent-inputs input.agent-spec")
    assert not any(f.is_displayed() for f in fields())
    Select(pick).select_by_value("")
    assert fields()[0].is_displayed() and not any(f.is_displayed() for f in fields()[1:])
    Select(pick).select_by_value("random")
    assert not fields()[0].is_displayed() and fields()[0].get_attribute("value") == "random"
    # the fields that need it say what they mean
    helps = {
        label.text.split("\n")[0]: label.text for label in desktop.find_elements(By.CSS_SELECTOR, "#play-form > label")
    }
    assert "rams: until a score reaches 0" in helps["Episode"] and "random: each from 1" in helps["Scores"]
    assert "the same seed deals the same cards" in helps["Seed"]
    if SHOTS:
        _shot(desktop, "serve-pickers.png")


def test_the_screenshots_are_described_in_docs() -> None:
    text = (ROOT / "docs" / "serve.md").read_text(encoding="utf-8")
    assert "--no-sandbox" in text and "RAMS_SERVE_SCREENSHOTS" in text
    from tests.apps.serve.test_layout import PHASES, SEVEN, SIZES

    names = [f"serve-{phase.replace(' ', '-')}-{size}.png" for phase in [*PHASES, "bid", *SEVEN] for size in SIZES]
    for name in [*names, "serve-pickers.png"]:
        assert name in text and (ROOT / "docs" / name).is_file(), name
        assert (ROOT / "docs" / name).stat().st_size < 80_000, f"{name}: keep the screenshots small"
    assert shutil.which("chromium") is None or "chromium" in text
