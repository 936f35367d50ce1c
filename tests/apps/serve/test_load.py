"""``rams serve`` under load: players at once over loopback, each playing whole deals (a new game per deal, naming
the last as ``previous`` as the page does, random legal moves, heuristic agents), against the default limits.
No game in play may be lost (a 404), nor a finished one read again right after it ends (a player who reloads),
no request may fail, and the latency is reported (``pytest -s`` prints it). A small run (8 players, a store of
8) runs with every test run; 64 players at the default limits is marked slow.

Bounded: 127.0.0.1 only, a fixed number of deals per player, a timeout on every request and on the test.
"""

from __future__ import annotations

import http.client
import json
import random
import statistics
import threading
import time
from typing import Any

import pytest

from rams_env.apps.serve.limits import Limits
from rams_env.apps.serve.state import ServeState
from tests.apps.serve.test_app import Server

PLAYERS = 64
DEALS = 5  # per player: 320 games in all, five times the 64 the store keeps
TIME_LIMIT = 240.0  # seconds for the whole test on a busy 2-core machine; it takes far less


def _player(
    port: int, index: int, deals: int, latencies: list[float], failures: list[str], lock: threading.Lock
) -> None:
    rng = random.Random(index)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)

    def call(method: str, path: str, body: dict[str, Any] | None = None) -> tuple[int, Any]:
        data = json.dumps(body or {}).encode()
        started = time.perf_counter()
        conn.request(method, path, body=data, headers={"Content-Type": "application/json"})
        response = conn.getresponse()
        payload = json.loads(response.read())
        with lock:
            latencies.append(time.perf_counter() - started)
        return response.status, payload

    try:
        previous: str | None = None
        for deal in range(deals):
            body = {"agents": "heuristic", "seed": 1000 * index + deal, "previous": previous}
            status, state = call("POST", "/api/games", {k: v for k, v in body.items() if v is not None})
            if status != 201:
                failures.append(f"player {index} deal {deal}: new game {status}: {state.get('error')}")
                return
            while not state["over"]:
                move = rng.choice(state["legal"])["id"]
                status, state = call("POST", f"/api/games/{state['id']}/act", {"action": move})
                if status != 200:
                    failures.append(f"player {index} deal {deal}: move {status}: {state.get('error')}")
                    return
            status, again = call("GET", f"/api/games/{state['id']}")  # the reload right after the end
            if status != 200 or not again["over"]:
                failures.append(f"player {index} deal {deal}: the finished game reads {status}: {again.get('error')}")
                return
            previous = state["id"]
    except (OSError, ValueError, KeyError) as err:
        failures.append(f"player {index}: {type(err).__name__}: {err}")
    finally:
        conn.close()


def _load(players: int, deals: int, limits: Limits) -> None:
    server = Server(ServeState(limits=limits))
    latencies: list[float] = []
    failures: list[str] = []
    lock = threading.Lock()
    started = time.perf_counter()
    try:
        threads = [
            threading.Thread(target=_player, args=(server.port, k, deals, latencies, failures, lock), daemon=True)
            for k in range(players)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=max(1.0, TIME_LIMIT - (time.perf_counter() - started)))
        assert not any(thread.is_alive() for thread in threads), "players still playing after the time limit"
    finally:
        server.stop()
    elapsed = time.perf_counter() - started
    assert not failures, f"{len(failures)} players failed, e.g. {failures[:3]}"
    ordered = sorted(latencies)
    p95 = ordered[int(0.95 * (len(ordered) - 1))]
    print(
        f"\n{players} players x {deals} deals: {len(latencies)} requests in {elapsed:.1f} s, 0 lost games; "
        f"latency median {statistics.median(ordered) * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms, "
        f"max {ordered[-1] * 1000:.0f} ms"
    )
    assert len(latencies) > players * deals


def test_8_players_in_a_store_of_8_lose_no_game_and_find_each_finished_one_again() -> None:
    _load(8, 3, Limits(max_games=8))


@pytest.mark.slow
def test_64_players_at_once_lose_no_game_and_latency_is_reported() -> None:
    limits = Limits()
    assert limits.max_games == PLAYERS  # the default store holds exactly one game per player in play
    _load(PLAYERS, DEALS, limits)
