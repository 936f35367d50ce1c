"""The Flask app of ``rams serve``: :func:`create_app` makes it from groups of routes, each registered by
its own function (the guards and headers, the error answers, the page, playing, watching), with the
server's state in ``app.extensions["rams_serve"]``.

Flask is imported only when the app is made, so that ``rams serve --help`` and the rest of the server
work without it.
"""

from __future__ import annotations

import io
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ... import jsoncheck, zoo
from ...agents.specs import split_spec
from ...eval import SCORES
from ...rules import PRESETS, make_config
from ...rules.episode import EPISODES, EpisodeKind
from ..command import CommandError
from ..game_log import load_log
from .games import LiveGame
from .limits import Refused
from .replays import Replay, agents_game, replay_of_record
from .seat_view import seat_state
from .state import ServeState
from .validation import (
    SEED_LIMIT,
    ApiError,
    agent_sources,
    agent_specs,
    read_choice,
    read_int,
    rules_from_body,
)
from .zoo_cards import AgentCard, read_card

SERVE_EXTRA_HINT = 'rams serve needs Flask: pip install "rams_env[serve]"'


class ServeExtraMissing(ImportError):
    """Flask is not installed: the message is :data:`SERVE_EXTRA_HINT`."""


STATIC = Path(__file__).resolve().with_name("static")
MAX_BODY = 4 * 1024 * 1024  # bytes of a request body (an uploaded log of a whole match is far smaller)
BODY_DEPTH = jsoncheck.MAX_DEPTH  # levels of nesting of a request body (an uploaded log has 4)


def create_app(
    state: ServeState | None = None, allowed_hosts: Sequence[str] | None = ("127.0.0.1", "localhost", "::1")
) -> Any:
    """The Flask app of ``rams serve``. ``allowed_hosts``: the host names requests may address
    (``None``: any, for a server bound to a public address)."""
    try:
        import flask  # with Werkzeug, which the error answers use
    except ImportError as err:
        raise ServeExtraMissing(SERVE_EXTRA_HINT) from err

    state = state or ServeState()
    app = flask.Flask(__name__, static_folder=str(STATIC), static_url_path="/static")
    app.config["MAX_CONTENT_LENGTH"] = MAX_BODY
    app.json.sort_keys = False  # type: ignore[attr-defined]
    app.extensions["rams_serve"] = state
    _add_guards(app, None if allowed_hosts is None else {h.lower() for h in allowed_hosts})
    _add_error_answers(app)
    _add_page_routes(app, state)
    _add_game_routes(app, state)
    _add_replay_routes(app, state)
    return app


# ----------------------------------------------------------------------------- what every route uses
def _body() -> dict[str, Any]:
    """The request's JSON object (415 for another content type, 400 for bad JSON or another value)."""
    import flask

    request = flask.request
    if not request.is_json:
        raise ApiError(415, "send a JSON object with Content-Type: application/json")
    try:
        data = jsoncheck.parse(request.get_data(cache=False), "the body", BODY_DEPTH, MAX_BODY)
    except jsoncheck.JsonInputError as err:
        raise ApiError(400, str(err)[:300]) from None
    if not isinstance(data, dict):
        raise ApiError(400, f"the body must be a JSON object, got {type(data).__name__}")
    return data


def _query_int(name: str, default: int, low: int, high: int) -> int:
    """The integer query parameter ``name``, ``low`` to ``high`` (400 otherwise), or ``default``."""
    import flask

    text = flask.request.args.get(name)
    if text is None:
        return default
    try:
        value = int(text)
    except ValueError:
        raise ApiError(400, f"query parameter {name!r} must be an integer {low} to {high}, got {text!r}") from None
    if not low <= value <= high:
        raise ApiError(400, f"query parameter {name!r} must be {low} to {high}, got {value}")
    return value


def _png_response(data: bytes) -> Any:
    import flask

    return flask.Response(data, mimetype="image/png")


def _png(view_state: dict[str, Any]) -> bytes:
    """A picture of the table as ``view_state``'s seat sees it (501 without Pillow)."""
    from ...envs.render_rgb import render_view, require_pillow

    try:
        image_mod, _, _ = require_pillow()
    except ImportError as err:
        raise ApiError(501, str(err)) from None
    buffer = io.BytesIO()
    image_mod.fromarray(render_view(view_state["view"])).save(buffer, format="PNG")
    return buffer.getvalue()


# ----------------------------------------------------------------------------- the route groups
def _add_guards(app: Any, hosts: set[str] | None) -> None:
    """Refuse requests that name another host (DNS rebinding); set the security and cache headers."""
    import flask

    @app.before_request
    def check_host() -> None:
        if hosts is None:
            return
        host = flask.request.host.lower()
        name = host[1:].split("]")[0] if host.startswith("[") else host.rsplit(":", 1)[0] if ":" in host else host
        if name not in hosts:
            raise ApiError(403, f"this server answers requests for {', '.join(sorted(hosts))}, not {host!r}")

    @app.after_request
    def headers(response: Any) -> Any:
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "no-referrer"
        response.headers["Content-Security-Policy"] = (
            "default-src 'self'; img-src 'self' data:; object-src 'none'; frame-ancestors 'none'; base-uri 'none'"
        )
        if flask.request.path.startswith("/api/"):
            response.headers["Cache-Control"] = "no-store"
        return response


def _add_error_answers(app: Any) -> None:
    """Answer every failure as JSON ``{"error": message, "status": code}``, never as a traceback."""
    import flask
    from werkzeug.exceptions import HTTPException

    @app.errorhandler(ApiError)
    @app.errorhandler(Refused)
    def api_error(err: ApiError | Refused) -> Any:
        return flask.jsonify(error=err.message, status=err.status), err.status

    @app.errorhandler(HTTPException)
    def http_error(err: Any) -> Any:
        message = err.description or err.name
        if err.code == 413:
            message = f"the request body is larger than {MAX_BODY // (1024 * 1024)} MiB"
        elif err.code == 404:
            message = f"no such page or API route: {flask.request.method} {flask.request.path}"
        elif err.code == 405:
            message = f"{flask.request.method} is not allowed on {flask.request.path}"
        return flask.jsonify(error=message, status=err.code), err.code

    @app.errorhandler(Exception)
    def internal_error(err: Exception) -> Any:
        app.logger.exception("unexpected error")
        return flask.jsonify(error=f"internal error: {type(err).__name__}: {str(err)[:300]}", status=500), 500


def _add_page_routes(app: Any, state: ServeState) -> None:
    """The page, and what its pickers offer (``/api/meta``)."""
    import flask

    @app.get("/")
    def index() -> Any:
        return flask.send_from_directory(STATIC, "index.html")

    @app.get("/api/meta")
    def meta() -> Any:
        return flask.jsonify(
            variants={
                name: {"min_players": make_config(name).min_players, "max_players": make_config(name).max_players}
                for name in sorted(PRESETS)
            },
            episodes=list(EPISODES),
            scores=list(SCORES),
            agents=state.agent_suggestions(),
            agent_cards=[card.to_dict() for card in [*named_agent_cards(), *state.agent_cards()]],
            saving=state.save_dir is not None,
        )


def named_agent_cards() -> list[AgentCard]:
    """The zoo's named agents for the pickers (``mattmar-search``: a search over a preset's flagship), at the
    tables their base plays (its card's); kind "strongest" where :data:`rams_env.zoo.STRONGEST` names it, else
    "search". Nothing is loaded."""
    cards = []
    for name, model in zoo.named_agents().items():
        try:
            base = zoo.resolve(split_spec(zoo.agent_spec(model))[1].get("base", ""))
        except ValueError:  # a base that is not a zoo model: no tables to offer it at
            continue
        played = read_card(base.card, base.folder.parents[2])
        if played is None:
            continue
        strongest = zoo.STRONGEST.get(model.preset) == name
        what = "the strongest agent measured" if strongest else "not measured stronger than its base yet"
        headline = f"a search over {played.name}, slower: {what}"
        kind = "strongest" if strongest else "search"
        cards.append(AgentCard(name, name, kind, played.variant, played.sizes, False, str(model.card), headline))
    return cards


def live_game_from(data: dict[str, Any], state: ServeState) -> LiveGame:
    """The game a ``POST /api/games`` body asks for (``ApiError`` 400 naming a bad field)."""
    config = rules_from_body(data)
    n = config.num_players
    episode = read_choice(data, "episode", EpisodeKind.DEAL.label, EPISODES)
    scores = read_choice(data, "scores", "start", SCORES)
    seat = read_int(data, "seat", 0, 0, n - 1)
    seed = data.get("seed")
    seed = random.SystemRandom().randrange(2**31) if seed is None else read_int(data, "seed", 0, 0, SEED_LIMIT - 1)
    previous = data.get("previous")
    if previous is not None and not (isinstance(previous, str) and 0 < len(previous) <= 100):
        raise ApiError(400, f"'previous' must be the id of your last game, got {jsoncheck.short(previous)}")
    others = agent_specs(data, "agents", n - 1, "heuristic")
    specs = [*others[:seat], "you", *others[seat:]]
    sources = agent_sources(others, config, state.limits)
    return LiveGame(config, episode, seat, specs, sources, seed, scores, state.save_dir, state.limits.request_seconds)


def _add_game_routes(app: Any, state: ServeState) -> None:
    """Playing: ``/api/games`` and a game's moves, its picture, and its replay once it is over."""
    import flask

    @app.post("/api/games")
    def new_game() -> Any:
        data = _body()
        live = live_game_from(data, state)
        previous = data.get("previous")
        state.limit_threads()
        if previous is not None:  # the player's last game may make room now
            state.games.release(previous)
        ident = state.games.add(live)
        with live.lock:
            return flask.jsonify(live.state(ident)), 201

    @app.get("/api/games/<ident>")
    def get_game(ident: str) -> Any:
        live = state.games.get(ident)
        with live.lock:
            return flask.jsonify(live.state(ident))

    @app.post("/api/games/<ident>/act")
    def act(ident: str) -> Any:
        data = _body()
        live = state.games.get(ident)
        if "action" not in data:
            raise ApiError(400, '\'action\' is required: an action id, a card like "TH" or a name like "PASS"')
        with live.lock:
            live.act(data["action"])
            return flask.jsonify(live.state(ident))

    @app.post("/api/games/<ident>/buy")
    def buy(ident: str) -> Any:
        data = _body()
        live = state.games.get(ident)
        if "discards" not in data:
            raise ApiError(400, "'discards' is required: the list of cards to discard (empty: draw none)")
        with live.lock:
            live.buy(data["discards"])
            return flask.jsonify(live.state(ident))

    @app.post("/api/games/<ident>/next")
    def next_deal(ident: str) -> Any:
        live = state.games.get(ident)
        with live.lock:
            live.next_deal()
            return flask.jsonify(live.state(ident))

    @app.get("/api/games/<ident>/table.png")
    def game_png(ident: str) -> Any:
        live = state.games.get(ident)
        with live.lock:
            seen = seat_state(live.game, live.seat)
        return _png_response(_png(seen))

    @app.post("/api/games/<ident>/replay")
    def replay_game(ident: str) -> Any:
        live = state.games.get(ident)
        with live.lock:
            if not live.over:
                raise ApiError(409, "a game can be watched once it is over")
            record = live.record()
        replay = Replay(
            live.deal.game(live.config),
            record["actions"],
            live.episode,
            live.names,
            live.seat,
            f"your game ({live.config.variant}, seed {live.seed})",
        )
        ident = state.replays.add(replay)
        return flask.jsonify(replay.state(ident, len(replay.actions), replay.viewer)), 201


def _add_replay_routes(app: Any, state: ServeState) -> None:
    """Watching: the saved logs, opening a replay, and its table after any step as any seat saw it."""
    import flask

    @app.get("/api/logs")
    def logs() -> Any:
        return flask.jsonify(logs=sorted(state.known_logs()))

    @app.post("/api/replays")
    def new_replay() -> Any:
        data = _body()
        kinds = [k for k in ("log", "name", "agents") if k in data]
        if len(kinds) != 1:
            raise ApiError(
                400,
                "give exactly one of 'log' (a rams play --save log), 'name' (a log from GET "
                "/api/logs) or 'agents' (one agent per seat, with seed and deck)",
            )
        if kinds[0] == "log":
            replay = replay_of_record(data["log"], "the uploaded log", "uploaded log")
        elif kinds[0] == "name":
            name = data["name"]
            path = state.known_logs().get(name) if isinstance(name, str) else None
            if path is None:
                raise ApiError(404, f"no saved log named {jsoncheck.short(name)}; GET /api/logs lists them")
            try:
                game_and_record = load_log(path)
            except CommandError as err:
                raise ApiError(400, str(err)) from None
            replay = replay_of_record(game_and_record[1], name, name)
        else:
            replay = agents_game(data, state.limits)
            state.limit_threads()
        ident = state.replays.add(replay)
        return flask.jsonify(replay.state(ident, 0, replay.viewer)), 201

    @app.get("/api/replays/<ident>")
    def get_replay(ident: str) -> Any:
        replay = state.replays.get(ident)
        step = _query_int("step", 0, 0, len(replay.actions))
        seat = _query_int("seat", replay.viewer, 0, replay.n - 1)
        return flask.jsonify(replay.state(ident, step, seat))

    @app.get("/api/replays/<ident>/table.png")
    def replay_png(ident: str) -> Any:
        replay = state.replays.get(ident)
        step = _query_int("step", 0, 0, len(replay.actions))
        seat = _query_int("seat", replay.viewer, 0, replay.n - 1)
        game, _, _ = replay.at(step, seat)
        return _png_response(_png(seat_state(game, seat)))
