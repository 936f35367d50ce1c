"""``rams serve``: a local web page to play Rams against agents and to watch games step by step.

The page (``rams_env/static``) talks to a small JSON API served by Flask:

- ``POST /api/games`` starts a game: you take one seat, agents (any spec ``rams eval`` accepts:
  ``random``, ``heuristic``, ``search:200``, a zoo name, a checkpoint path) the others. The agents move on the
  server until it is your turn; ``POST /api/games/<id>/act`` plays your move, ``.../buy`` your whole
  purchase at once (``{"discards": [cards]}``: those discards, then the draw, checked before any is
  played), ``.../next`` deals the next deal of a ``rams`` or ``match`` episode. Each state also says
  what the deal just over did to every score and why (``deal_summary``), every seat's score after
  each deal (``score_chart``) and the agents' moves since yours (``recent``).
- ``POST /api/replays`` opens a game to watch step by step: a log written by ``rams play --save``
  (uploaded, or one the server was started with or saved), a game of agents on deck ``k`` of the
  deal set ``seed``, which is that deck's game in ``rams eval --seed``, or (``.../replay``) a
  finished game of the page. ``GET /api/replays/<id>?step=k&seat=s`` is the table after ``k``
  actions as seat ``s`` sees it.

No leaks: every state the page receives holds the viewing seat's ``view()`` (what
``env.unwrapped.view(agent)`` returns: ``Game.view(seat)``), the card counts derived from it, the
viewing seat's legal moves and lines of what happened as that seat saw it (``rams_env.cli.describe``:
others' discards face down). Never the deck, the seed of a game in progress or another seat's hand;
the log of a game (which holds the whole deck) stays on the server (``--save-dir``).

Bad requests get a JSON ``{"error": ...}`` with a 4xx status and leave the server running. Bound to
127.0.0.1 by default; then requests naming another host (DNS rebinding) are refused, and the API
takes only ``application/json`` bodies, which other sites cannot send without the browser asking
first (CORS), so a web page elsewhere cannot drive the server.

Budgets (``rams_env.serve_limits``, each a ``rams serve`` option): an agent named in a request may
search at most ``--max-simulations`` per move, and a search agent's move stops at ``--move-time``; the
agents' moves of one request stop at ``--request-time``, answered 503 (a game being played stops with
that message), so no request keeps a core busy after its answer. Games and replays are kept up to
``--max-games`` and ``--max-replays``: a new one takes the place of a finished one, else of one idle for
``--idle-time``, least recently used first; when every slot holds a game in play it is refused with 503
naming the limit, and no game in play is ever dropped.

Flask is imported only when the server is made: ``pip install "rams_env[serve]"``.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import ipaddress
import json
import os
import random
import secrets
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from . import jsoncheck, zoo
from .cli import LOG_FORMAT, LOG_VERSION, MAX_THREADS, Command, CommandError, describe, load_log
from .deal_summary import ScoreHistory, deal_summary
from .envs.episode import EPISODES, episode_ends, next_deal_or_end
from .envs.render_rgb import hand_counts
from .eval import SCORES, Deal, actor_for, agent_seed, agent_source, build_agent, deal_set, deck_of
from .obs.encoding import ObservationEncoder
from .rules import PRESETS, Action, Game, IllegalActionError, Phase, RulesConfig, action_name, card_index, make_config
from .serve_limits import Deadline, Limits, Refused, Store, budgeted
from .zoo_cards import AgentCard, zoo_cards

SERVE_EXTRA_HINT = 'rams serve needs Flask: pip install "rams_env[serve]"'
STATIC = Path(__file__).resolve().with_name("static")
DEFAULT_HOST, DEFAULT_PORT = "127.0.0.1", 8765
MAX_GAMES = Limits.max_games  # default of --max-games and --max-replays (rams_env.serve_limits)
MAX_BODY = 4 * 1024 * 1024  # bytes of a request body (an uploaded log of a whole match is far smaller)
BODY_DEPTH = jsoncheck.MAX_DEPTH  # levels of nesting of a request body (an uploaded log has 4)
MAX_EVENTS = 400  # lines of a game's history sent with each state
MAX_DECK = 100_000  # deck index of an evaluation game
SEED_LIMIT = 2**63
SNAPSHOT_EVERY = 64  # a replay keeps a copy of the game every this many actions
REPLAY_CONTEXT = 12  # actions whose lines a replay step shows (that step and those before it)

_HINT = {
    Phase.BID: "Forehand's bid: bid better cards, bid a swing, or make no (further) bid.",
    Phase.ANSWER: "Answer the bid: accept or reject.",
    Phase.KNOCK: "Knock (play this deal) or pass.",
    Phase.BUY: "Buying: click the cards to discard (click again to keep), then confirm the draw.",
    Phase.PLAY: "Play a card.",
}
_CALLS = {
    Action.PASS: "Pass",
    Action.KNOCK: "Knock",
    Action.BID_BETTER: "Bid better cards",
    Action.BID_SWING: "Bid a swing",
    Action.NO_BID: "No bid",
    Action.ACCEPT: "Accept",
    Action.REJECT: "Reject",
    Action.DRAW: "Draw",
}


class ApiError(Exception):
    """A request the server refuses: answered as ``{"error": message}`` with ``status``."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


# ----------------------------------------------------------------------------- reading requests
def _int(body: dict[str, Any], key: str, default: int | None, low: int, high: int) -> int:
    value = body.get(key, default)
    if value is None and default is None:
        raise ApiError(400, f"{key!r} is required: an integer {low} to {high}")
    if isinstance(value, bool) or not isinstance(value, int):
        raise ApiError(400, f"{key!r} must be an integer {low} to {high}, got {_short(value)}")
    if not low <= value <= high:
        raise ApiError(400, f"{key!r} must be {low} to {high}, got {value}")
    return value


def _choice(body: dict[str, Any], key: str, default: str, choices: Sequence[str]) -> str:
    value = body.get(key, default)
    if not isinstance(value, str) or value not in choices:
        raise ApiError(400, f"{key!r} must be one of {', '.join(choices)}, got {_short(value)}")
    return value


def _short(value: Any, limit: int = 120) -> str:
    try:
        text = json.dumps(value)
    except (TypeError, ValueError, RecursionError):
        text = f"a {type(value).__name__}"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _config(body: dict[str, Any]) -> RulesConfig:
    """The rules of a request: ``variant``, ``num_players`` and rule ``options`` (as ``--option``)."""
    variant = _choice(body, "variant", "mattmar", sorted(PRESETS))
    players = _int(body, "num_players", 4, 1, 64)
    options = body.get("options", {})
    if not isinstance(options, dict) or not all(
        isinstance(v, (int, str)) and not isinstance(v, float) for v in options.values()
    ):
        raise ApiError(
            400, f"'options' must be an object of rule options (integers, booleans, strings), got {_short(options)}"
        )
    try:
        return make_config(variant, players, **options)
    except (TypeError, ValueError, OverflowError) as err:
        raise ApiError(400, str(err)) from None


def _specs(body: dict[str, Any], key: str, count: int, default: str | None) -> list[str]:
    """``count`` agent specs from ``body[key]``: a list of that many, or one (string or list) for all."""
    value = body.get(key, default)
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) and 0 < len(v.strip()) <= 500 for v in value):
        raise ApiError(
            400,
            f"{key!r} must be a list of agent specs (random, heuristic, search, search:200 or a "
            f"checkpoint path), got {_short(value)}",
        )
    if len(value) == 1:
        value = value * count
    if len(value) != count:
        raise ApiError(400, f"{key!r} needs one agent for all seats or {count} (one per seat), got {len(value)}")
    return [v.strip() for v in value]


def _sources(specs: Sequence[str], config: RulesConfig, limits: Limits | None = None) -> dict[str, Any]:
    """Each distinct spec's agent source (``rams eval``'s rules) within ``limits``' budget; 400 naming a bad one."""
    sources: dict[str, Any] = {}
    for spec in specs:
        if spec in sources:
            continue
        try:
            sources[spec] = agent_source(spec, config)
        except Exception as err:  # a bad spec, or a checkpoint that does not load: the request is refused
            message = str(err) or type(err).__name__
            raise ApiError(400, message if spec in message else f"agent {spec!r}: {message}") from None
        sources[spec] = budgeted(spec, sources[spec], limits or Limits())
    return sources


def _action(value: Any) -> int:
    """An action id from a request: an int 0-59, a card name (``"TH"``, ``"10H"``) or an action name."""
    if isinstance(value, int) and not isinstance(value, bool):
        if 0 <= value < len(Action) + 52:
            return value
        raise ApiError(400, f"'action' {value} is not an action id 0 to 59")
    if isinstance(value, str) and 0 < len(value) <= 20:
        token = value.strip().upper().replace(" ", "_").replace("-", "_")
        if token in Action.__members__:
            return int(Action[token])
        if token.startswith("10") and len(token) == 3:
            token = "T" + token[2]
        try:
            return card_index(token)
        except ValueError:
            pass
    raise ApiError(
        400, f'\'action\' must be an action id 0 to 59, a card like "TH" or a name like "PASS", got {_short(value)}'
    )


# ----------------------------------------------------------------------------- what a seat is shown
def _seat_state(game: Game, seat: int) -> dict[str, Any]:
    """The seat's ``view()`` and the hand sizes derived from it: everything of the table a page gets."""
    view = game.view(seat)
    return {"view": view, "counts": hand_counts(view)}


def _legal(game: Game, seat: int) -> list[dict[str, Any]]:
    """The moves ``seat`` may make now, labelled for buttons (empty when it is not that seat's turn)."""
    if game.current != seat:
        return []
    verb = "discard" if game.phase == Phase.BUY else "play"
    moves = []
    for a in game.legal_actions():
        if a < 52:
            moves.append({"id": a, "name": action_name(a), "kind": "card", "label": f"{verb} {action_name(a)}"})
        else:
            label = _CALLS[Action(a)]
            if a == Action.DRAW:
                count = game.pending_discards - (1 if game.config.swedish and seat == game.dealer else 0)
                label = f"Draw {count}" if count else "Draw none"
            moves.append({"id": a, "name": action_name(a), "kind": "call", "label": label})
    return moves


def _news(game: Game, tricks_before: int, scores_before: Sequence[int], viewer: int) -> list[str]:
    """Public news after an action: a completed trick, the end of a deal or of a rams."""
    who = lambda s: "you" if s == viewer else f"player_{s}"
    lines = []
    if len(game.completed) > tricks_before:
        cards, winner = game.completed[-1]
        lines.append(f"trick ({' '.join(action_name(c) for _, c in cards)}) taken by {who(winner)}")
    if game.phase >= Phase.DEAL_OVER:
        points = ", ".join(
            f"{who(s)} {b - a:+d}" for s, (b, a) in enumerate(zip(scores_before, game.scores, strict=True))
        )
        lines.append(f"deal over ({game.deal_reason}); points: {points}")
        if game.rams_over and game.rams_log:
            lines.append(f"the rams is over; won by {', '.join(who(s) for s in game.rams_log[-1][1])}")
    return lines


def _deal_points(game: Game, scores_before: Sequence[int]) -> list[int] | None:
    if game.phase < Phase.DEAL_OVER:
        return None
    return [b - a for b, a in zip(scores_before, game.scores, strict=True)]


def _buy_rules(game: Game, seat: int) -> dict[str, Any] | None:
    """How many cards ``seat`` may mark for discarding now, for the page's confirm button (None: not buying)."""
    if game.phase != Phase.BUY or game.current != seat:
        return None
    hand, room, done = len(game.hands[seat]), game.talon_size, game.pending_discards
    if game.take_pending:
        return {
            "min": 1,
            "max": 1,
            "draw": False,
            "fewer": 0,
            "note": "Discard one more card: then you take the turned card.",
        }
    if game.config.swedish and seat == game.dealer:
        note = "You hold the turned card: discard at least one; you draw one card fewer than you discard."
        return {
            "min": max(0, 1 - done),
            "max": max(0, min(hand, room + 1 - done)),
            "draw": True,
            "fewer": 1,
            "note": note,
        }
    return {
        "min": 0,
        "max": max(0, min(hand, room - done)),
        "draw": True,
        "fewer": 0,
        "note": f"The talon holds {room}.",
    }


# ----------------------------------------------------------------------------- a game being played
class LiveGame:
    """One person's game in seat ``seat`` against agents; the agents move until it is that seat's turn."""

    def __init__(
        self,
        config: RulesConfig,
        episode: str,
        seat: int,
        specs: Sequence[str],
        sources: dict[str, Any],
        seed: int,
        scores: str,
        save_dir: Path | None,
        request_seconds: float = Limits.request_seconds,
    ) -> None:
        n = config.num_players
        self.request_seconds = request_seconds
        self.config, self.episode, self.seat, self.seed = config, episode, seat, seed
        self.names = ["you" if s == seat else specs[s] for s in range(n)]
        self.deal: Deal = deal_set(config, seed, 1, scores)[0]
        self.game = self.deal.game(config)
        encoder = ObservationEncoder(config)
        self.actors: list[Callable[[Game, int], int] | None] = [
            None
            if s == seat
            else actor_for(build_agent(sources[specs[s]], agent_seed(seed, self.deal.index, s)), encoder)
            for s in range(n)
        ]
        self.log: list[list[Any]] = []
        self.history: list[str] = [f"you are player_{seat}; dealer: player_{self.game.dealer}"]
        self.scores_before = list(self.game.scores)
        self.flights_before = list(self.game.flights)
        self.chart = ScoreHistory(self.game)
        self.recent: list[dict[str, Any]] = []  # the agents' moves since the person's last one, for the page
        self.over = False
        self.error: str | None = None
        self.save_dir = save_dir
        self.saved: str | None = None
        self.lock = threading.Lock()
        self._advance()

    # -- moves
    def _apply(self, seat: int, action: int) -> None:
        game = self.game
        line = describe(game, seat, action, self.seat)
        tricks_before = len(game.completed)
        game.apply(action)
        self.log.append([seat, action_name(action)])
        self.history.append(line)
        self.history.extend(_news(game, tricks_before, self.scores_before, self.seat))
        if seat != self.seat:
            self.recent.append({"seat": seat, "line": line})
        if game.phase >= Phase.DEAL_OVER:
            self.chart.deal_over(game)

    def _advance(self) -> None:
        """Let the agents move until it is the person's turn or the deal is over."""
        game = self.game
        deadline = Deadline(self.request_seconds)
        while (seat := game.current) >= 0 and seat != self.seat:
            if deadline.passed():  # the game stops: its agents may not go on beyond the request
                self.error = deadline.message("the agents' moves")
                self.over = True
                self.history.append(self.error)
                raise ApiError(503, self.error)
            actor = self.actors[seat]
            assert actor is not None
            try:
                action = actor(game, seat)
                self._apply(seat, action)
            except Exception as err:  # an agent that fails or moves illegally ends the game, not the server
                self.error = f"agent {self.names[seat]!r} in seat {seat} failed: {err}"
                self.over = True
                self.history.append(self.error)
                raise ApiError(500, self.error) from None
        if game.current < 0 and episode_ends(game, self.episode):
            self.over = True
            self._save()

    def act(self, value: Any) -> None:
        action = _action(value)
        self._check_open()
        game = self.game
        if game.current != self.seat:
            raise ApiError(
                409,
                "it is not your turn: "
                + (
                    "the deal is over (POST next for the next deal)"
                    if game.current < 0
                    else f"player_{game.current} is to act"
                ),
            )
        legal = game.legal_actions()
        if action not in legal:
            names = ", ".join(action_name(a) for a in legal)
            raise ApiError(400, f"{action_name(action)} is not a legal move now; legal: {names}")
        self.recent = []
        try:
            self._apply(self.seat, action)
        except IllegalActionError as err:  # pragma: no cover - legal_actions was checked above
            raise ApiError(400, str(err)) from None
        self._advance()

    def buy(self, value: Any) -> None:
        """The person's whole purchase at once: discard the marked cards, then draw (the page's confirm)."""
        self._check_open()
        rules = _buy_rules(self.game, self.seat)
        if rules is None:
            raise ApiError(409, "it is not your turn to buy")
        if not isinstance(value, list) or len(value) > 6:
            raise ApiError(400, f"'discards' must be a list of the cards to discard, got {_short(value)}")
        cards = [_action(v) for v in value]
        if any(c >= 52 for c in cards) or len(set(cards)) != len(cards):
            raise ApiError(400, f"'discards' must be distinct cards of your hand, got {_short(value)}")
        if not rules["min"] <= len(cards) <= rules["max"]:
            wanted = f"{rules['min']} to {rules['max']}" if rules["min"] != rules["max"] else str(rules["min"])
            raise ApiError(400, f"discard {wanted} cards now, not {len(cards)}: {rules['note']}")
        actions = [*cards, *([int(Action.DRAW)] if rules["draw"] else [])]
        trial = self.game.clone()
        for action in actions:  # all of it checked before any of it is played
            if action not in trial.legal_actions():
                names = ", ".join(action_name(a) for a in trial.legal_actions())
                raise ApiError(400, f"{action_name(action)} is not a legal move now; legal: {names}")
            trial.apply(action)
        self.recent = []
        for action in actions:
            self._apply(self.seat, action)
        self._advance()

    def next_deal(self) -> None:
        self._check_open()
        if self.game.current >= 0:
            raise ApiError(409, "the deal is still being played")
        self.history.append("--- next deal ---")
        next_deal_or_end(self.game, self.episode)  # deals the next deal (the episode goes on: checked above)
        self.scores_before = list(self.game.scores)
        self.flights_before = list(self.game.flights)
        self.chart.start(self.game)
        self.recent = []
        self._advance()

    def _check_open(self) -> None:
        if self.error:
            raise ApiError(409, f"the game stopped: {self.error}")
        if self.over:
            raise ApiError(409, "the game is over; start a new one")

    # -- what the page gets
    def state(self, ident: str) -> dict[str, Any]:
        game = self.game
        deal_over = game.current < 0
        return {
            "kind": "game",
            "id": ident,
            "variant": self.config.variant,
            "num_players": self.config.num_players,
            "episode": self.episode,
            "seat": self.seat,
            "seats": self.names,
            **_seat_state(game, self.seat),
            "your_turn": game.current == self.seat and not self.over,
            "legal": [] if self.over else _legal(game, self.seat),
            "hint": _HINT.get(game.phase, "") if game.current == self.seat else "",
            "deal_over": deal_over,
            "deal_points": _deal_points(game, self.scores_before),
            "deal_summary": deal_summary(game, self.seat, self.scores_before, self.flights_before)
            if deal_over
            else None,
            "score_chart": self.chart.points,
            "recent": self.recent,
            "buy": None if self.over else _buy_rules(game, self.seat),
            "next_deal": deal_over and not self.over,
            "over": self.over,
            "error": self.error,
            "events": self.history[-MAX_EVENTS:],
            "actions": len(self.log),
            "saved": self.saved,
            # The seed fixes the whole deck: shown once the game is over (then rams play --seed plays it again).
            "seed": self.seed if self.over else None,
        }

    def record(self) -> dict[str, Any]:
        """The game log, as ``rams play --save`` writes it (it holds the whole deck: never sent to the page)."""
        deal = self.deal
        return {
            "format": LOG_FORMAT,
            "version": LOG_VERSION,
            "config": self.config.to_dict(),
            "episode": self.episode,
            "seed": deal.seed,
            "deck": list(deal.deck),
            "dealer": deal.dealer,
            "scores": list(deal.scores),
            "seats": self.names,
            "human_seat": self.seat,
            "actions": self.log,
            "complete": self.game.phase >= Phase.DEAL_OVER,
            "final_scores": list(self.game.scores),
        }

    def _save(self) -> None:
        if self.save_dir is None:
            return
        stamp = time.strftime("%Y%m%d-%H%M%S")
        path = self.save_dir / f"rams-{self.config.variant}-{stamp}-{secrets.token_hex(3)}.json"
        try:
            with open(path, "w", encoding="utf-8") as f:
                json.dump(self.record(), f, indent=1)
                f.write("\n")
        except OSError as err:
            self.history.append(f"could not save the game log to {path}: {err.strerror or err}")
            return
        self.saved = path.name
        self.history.append(f"saved the game log as {path.name} (Watch lists it)")


# ----------------------------------------------------------------------------- a game to watch
class Replay:
    """A finished (or saved) game to step through: ``at(step, seat)`` is the table after ``step`` actions."""

    def __init__(
        self,
        start: Game,
        actions: Sequence[Any],
        episode: str,
        names: Sequence[str],
        viewer: int,
        title: str,
    ) -> None:
        self.episode, self.title = episode, title
        self.n = start.n
        self.names = list(names)
        self.viewer = viewer
        self.actions: list[tuple[int, int]] = []
        # Checked in full now (every action legal in turn), with copies of the game on the way.
        self._snapshots: list[tuple[Game, list[int]]] = []
        game, scores_before = start.clone(), list(start.scores)
        # For the page: the flights as each deal starts (by the step its first action is), and the chart's
        # points with the step from which each is shown.
        self._deal_flights: list[tuple[int, list[int]]] = [(0, list(start.flights))]
        chart = ScoreHistory(start)
        self._chart: list[tuple[int, dict[str, Any]]] = [(0, point) for point in chart.points]
        for k, entry in enumerate(actions, 1):
            if (k - 1) % SNAPSHOT_EVERY == 0:  # snapshot i: the game after i * SNAPSHOT_EVERY actions
                self._snapshots.append((game.clone(), list(scores_before)))
            try:
                if game.phase >= Phase.DEAL_OVER:
                    if next_deal_or_end(game, episode):
                        raise ValueError(f"the {episode} is over after action {k - 1}, the log goes on")
                    scores_before = list(game.scores)
                    self._deal_flights.append((k, list(game.flights)))
                    chart.start(game)
                seat, action = self._entry(entry, game)
                game.apply(action)
            except (ValueError, IllegalActionError) as err:
                raise ApiError(400, f"action {k} {_short(entry)} does not replay: {err}") from None
            self.actions.append((seat, action))
            if game.phase >= Phase.DEAL_OVER:
                chart.deal_over(game)
            self._chart += [(k, point) for point in chart.points[len(self._chart) :]]
        if not self._snapshots:
            self._snapshots.append((start.clone(), list(start.scores)))

    @staticmethod
    def _entry(entry: Any, game: Game) -> tuple[int, int]:
        if not (
            isinstance(entry, (list, tuple))
            and len(entry) == 2
            and all(isinstance(v, int) and not isinstance(v, bool) for v in entry[:1])
            and (isinstance(entry[1], str) or (isinstance(entry[1], int) and not isinstance(entry[1], bool)))
        ):
            raise ValueError("an action entry must be [seat, action name]")
        seat, action = entry
        if isinstance(action, str):
            name = action.upper()
            action = int(Action[name]) if name in Action.__members__ else card_index(name)
        if seat != game.current:
            raise ValueError(f"it is player_{game.current}'s turn, the log says player_{seat}")
        if action not in game.legal_actions():
            raise ValueError(f"{action_name(action)} is not legal now")
        return seat, action

    def at(self, step: int, seat: int) -> tuple[Game, list[str], list[int]]:
        """The game after ``step`` actions, the lines of the last few actions as ``seat`` saw them, and
        the scores at the start of that deal."""
        first = max(0, step - REPLAY_CONTEXT)
        index = min(first // SNAPSHOT_EVERY, len(self._snapshots) - 1)
        snapshot, before = self._snapshots[index]
        base = index * SNAPSHOT_EVERY
        game, scores_before = snapshot.clone(), list(before)
        lines: list[str] = [f"dealer: player_{game.dealer}"] if first == 0 else []
        for k in range(base + 1, step + 1):
            actor, action = self.actions[k - 1]
            shown = k > first
            if game.phase >= Phase.DEAL_OVER:
                next_deal_or_end(game, self.episode)
                scores_before = list(game.scores)
                if shown:
                    lines.append("--- next deal ---")
            line = describe(game, actor, action, seat)
            tricks_before = len(game.completed)
            game.apply(action)
            if shown:
                lines.append(f"[{k}] {line}")
                lines.extend(_news(game, tricks_before, scores_before, seat))
        return game, lines, scores_before

    def state(self, ident: str, step: int, seat: int) -> dict[str, Any]:
        game, lines, scores_before = self.at(step, seat)
        # The deal of action ``step`` (its first action is at or before it), also when it is over at this step.
        flights_before = next(f for first, f in reversed(self._deal_flights) if first <= step)
        last = f"[{step}] "
        recent = [
            {"seat": self.actions[step - 1][0], "line": line[len(last) :]} for line in lines if line.startswith(last)
        ]
        return {
            "kind": "replay",
            "id": ident,
            "title": self.title,
            "variant": game.config.variant,
            "num_players": self.n,
            "episode": self.episode,
            "step": step,
            "steps": len(self.actions),
            "seat": seat,
            "seats": self.names,
            "default_seat": self.viewer,
            **_seat_state(game, seat),
            "deal_over": game.current < 0,
            "deal_points": _deal_points(game, scores_before),
            "deal_summary": deal_summary(game, seat, scores_before, flights_before) if game.current < 0 else None,
            "score_chart": [point for first, point in self._chart if first <= step],
            "recent": recent,
            "events": lines,
        }


def _replay_of_record(record: Any, where: str, title: str) -> Replay:
    """A replay of a ``rams play --save`` log (a parsed JSON object), checked as ``rams replay`` checks it."""
    if not isinstance(record, dict):
        raise ApiError(400, f"{where} is not a rams game log (a JSON object with 'format': {LOG_FORMAT!r})")
    fd, path = tempfile.mkstemp(prefix="rams-serve-", suffix=".json")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(record, f)
        game, record = load_log(path)
    except CommandError as err:
        raise ApiError(400, str(err).replace(path, where)) from None
    finally:
        os.unlink(path)
    seats = record.get("seats")
    names = seats if _is_names(seats, game.n) else [f"player_{s}" for s in range(game.n)]
    viewer = record.get("human_seat", 0)
    if not 0 <= viewer < game.n:
        raise ApiError(400, f"{where}: 'human_seat' must be a seat 0..{game.n - 1}, got {viewer!r}")
    return Replay(game, record["actions"], record["episode"], names, viewer, title)


def _is_names(value: Any, n: int) -> bool:
    return isinstance(value, list) and len(value) == n and all(isinstance(v, str) and len(v) <= 500 for v in value)


def _agents_game(body: dict[str, Any], limits: Limits | None = None) -> Replay:
    """Deck ``deck`` of the deal set ``seed`` played by ``agents`` (one per seat), as ``rams eval`` plays it."""
    config = _config(body)
    n = config.num_players
    episode = _choice(body, "episode", "deal", EPISODES)
    scores = _choice(body, "scores", "start", SCORES)
    seed = _int(body, "seed", 0, 0, SEED_LIMIT - 1)
    deck = _int(body, "deck", 0, 0, MAX_DECK - 1)
    specs = _specs(body, "agents", n, None)
    limits = limits or Limits()
    sources = _sources(specs, config, limits)
    deadline = Deadline(limits.request_seconds)
    deal = deck_of(config, seed, deck, scores)
    encoder = ObservationEncoder(config)
    actors = [actor_for(build_agent(sources[specs[s]], agent_seed(seed, deal.index, s)), encoder) for s in range(n)]
    game = deal.game(config)
    start = game.clone()
    actions: list[list[int]] = []
    while True:
        while (seat := game.current) >= 0:
            deadline.check(f"the agents' game ({len(actions)} actions so far)")
            try:
                action = actors[seat](game, seat)
                game.apply(action)
            except Exception as err:  # an agent that fails or moves illegally: the request fails, not the server
                raise ApiError(500, f"agent {specs[seat]!r} in seat {seat} failed: {err}") from None
            actions.append([seat, action])
        if next_deal_or_end(game, episode):
            break
    title = f"deck {deck} of deal set {seed}: " + ", ".join(f"player_{s} {spec}" for s, spec in enumerate(specs))
    return Replay(start, actions, episode, specs, 0, title)


# ----------------------------------------------------------------------------- the server's state
def _game_over(live: LiveGame) -> bool:
    """A game that can make room for a new one at once: over, or stopped by an error."""
    return live.over


class ServeState:
    """What one server holds: live games, replays, the saved logs it offers, its settings."""

    def __init__(
        self,
        save_dir: str | os.PathLike[str] | None = None,
        logs: Sequence[str | os.PathLike[str]] = (),
        checkpoint_dir: str | os.PathLike[str] | None = None,
        threads: int = 1,
        limits: Limits | None = None,
    ) -> None:
        self.limits = limits = limits or Limits()
        self.games = Store("game", limits.max_games, limits.idle_seconds, "rams serve --max-games", _game_over)
        self.replays = Store("replay", limits.max_replays, limits.idle_seconds, "rams serve --max-replays")
        self.save_dir = Path(save_dir) if save_dir is not None else None
        self.logs = [Path(p) for p in logs]
        self.checkpoint_dir = Path(checkpoint_dir) if checkpoint_dir is not None else None
        self.threads = threads

    def known_logs(self) -> dict[str, Path]:
        """The logs the page may open by name: those the server was started with and those in ``save_dir``."""
        found = {p.name: p for p in self.logs}
        if self.save_dir is not None and self.save_dir.is_dir():
            for path in sorted(self.save_dir.glob("*.json")):
                found.setdefault(path.name, path)
        return found

    def agent_suggestions(self) -> list[str]:
        names = ["random", "heuristic", "search", "search:200", *zoo.known_names()]
        names += [card.spec for card in self.agent_cards() if card.spec not in names]
        if self.checkpoint_dir is not None and self.checkpoint_dir.is_dir():
            pts = sorted(self.checkpoint_dir.rglob("*.pt"))
            names += [str(p) for p in pts if p.parent.name != p.stem and str(p) not in names]
        return names

    def agent_cards(self) -> list[AgentCard]:
        """The trained agents whose model cards lie under ``checkpoint_dir`` (flagships, ensembles, others)."""
        return zoo_cards(self.checkpoint_dir) if self.checkpoint_dir is not None else []

    def limit_threads(self) -> None:
        """One torch thread for checkpoint agents (as ``rams eval --threads``), once torch is loaded."""
        torch = sys.modules.get("torch")
        if torch is not None and torch.get_num_threads() != self.threads:
            torch.set_num_threads(self.threads)


def _png(view_state: dict[str, Any]) -> bytes:
    from .envs.render_rgb import render_view, require_pillow

    try:
        image_mod, _, _ = require_pillow()
    except ImportError as err:
        raise ApiError(501, str(err)) from None
    buffer = io.BytesIO()
    image_mod.fromarray(render_view(view_state["view"])).save(buffer, format="PNG")
    return buffer.getvalue()


# ----------------------------------------------------------------------------- the web app
def create_app(
    state: ServeState | None = None, allowed_hosts: Sequence[str] | None = ("127.0.0.1", "localhost", "::1")
) -> Any:
    """The Flask app of ``rams serve``. ``allowed_hosts``: the host names requests may address
    (``None``: any, for a server bound to a public address)."""
    try:
        import flask
        from werkzeug.exceptions import HTTPException
    except ImportError as err:
        raise ImportError(SERVE_EXTRA_HINT) from err

    state = state or ServeState()
    app = flask.Flask(__name__, static_folder=str(STATIC), static_url_path="/static")
    app.config["MAX_CONTENT_LENGTH"] = MAX_BODY
    app.json.sort_keys = False  # type: ignore[attr-defined]
    app.extensions["rams_serve"] = state
    hosts = None if allowed_hosts is None else {h.lower() for h in allowed_hosts}

    def body() -> dict[str, Any]:
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

    def query_int(name: str, default: int, low: int, high: int) -> int:
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

    def png_response(data: bytes) -> Any:
        return flask.Response(data, mimetype="image/png")

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
            agent_cards=[card.to_dict() for card in state.agent_cards()],
            saving=state.save_dir is not None,
        )

    # -- playing
    @app.post("/api/games")
    def new_game() -> Any:
        data = body()
        config = _config(data)
        n = config.num_players
        episode = _choice(data, "episode", "deal", EPISODES)
        scores = _choice(data, "scores", "start", SCORES)
        seat = _int(data, "seat", 0, 0, n - 1)
        seed = data.get("seed")
        seed = random.SystemRandom().randrange(2**31) if seed is None else _int(data, "seed", 0, 0, SEED_LIMIT - 1)
        others = _specs(data, "agents", n - 1, "heuristic")
        specs = [*others[:seat], "you", *others[seat:]]
        sources = _sources(others, config, state.limits)
        live = LiveGame(
            config, episode, seat, specs, sources, seed, scores, state.save_dir, state.limits.request_seconds
        )
        state.limit_threads()
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
        data = body()
        live = state.games.get(ident)
        if "action" not in data:
            raise ApiError(400, '\'action\' is required: an action id, a card like "TH" or a name like "PASS"')
        with live.lock:
            live.act(data["action"])
            return flask.jsonify(live.state(ident))

    @app.post("/api/games/<ident>/buy")
    def buy(ident: str) -> Any:
        data = body()
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
            seen = _seat_state(live.game, live.seat)
        return png_response(_png(seen))

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

    # -- watching
    @app.get("/api/logs")
    def logs() -> Any:
        return flask.jsonify(logs=sorted(state.known_logs()))

    @app.post("/api/replays")
    def new_replay() -> Any:
        data = body()
        kinds = [k for k in ("log", "name", "agents") if k in data]
        if len(kinds) != 1:
            raise ApiError(
                400,
                "give exactly one of 'log' (a rams play --save log), 'name' (a log from GET "
                "/api/logs) or 'agents' (one agent per seat, with seed and deck)",
            )
        if kinds[0] == "log":
            replay = _replay_of_record(data["log"], "the uploaded log", "uploaded log")
        elif kinds[0] == "name":
            name = data["name"]
            path = state.known_logs().get(name) if isinstance(name, str) else None
            if path is None:
                raise ApiError(404, f"no saved log named {_short(name)}; GET /api/logs lists them")
            try:
                game_and_record = load_log(path)
            except CommandError as err:
                raise ApiError(400, str(err)) from None
            replay = _replay_of_record(game_and_record[1], name, name)
        else:
            replay = _agents_game(data, state.limits)
            state.limit_threads()
        ident = state.replays.add(replay)
        return flask.jsonify(replay.state(ident, 0, replay.viewer)), 201

    @app.get("/api/replays/<ident>")
    def get_replay(ident: str) -> Any:
        replay = state.replays.get(ident)
        step = query_int("step", 0, 0, len(replay.actions))
        seat = query_int("seat", replay.viewer, 0, replay.n - 1)
        return flask.jsonify(replay.state(ident, step, seat))

    @app.get("/api/replays/<ident>/table.png")
    def replay_png(ident: str) -> Any:
        replay = state.replays.get(ident)
        step = query_int("step", 0, 0, len(replay.actions))
        seat = query_int("seat", replay.viewer, 0, replay.n - 1)
        game, _, _ = replay.at(step, seat)
        return png_response(_png(_seat_state(game, seat)))

    return app


# ----------------------------------------------------------------------------- rams serve
def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("logs", nargs="*", metavar="LOG", help="game logs (rams play --save) to offer for watching")
    parser.add_argument(
        "--host", default=DEFAULT_HOST, help=f"address to listen on (default {DEFAULT_HOST}: this machine only)"
    )
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT}; 0: any free)")
    parser.add_argument(
        "--save-dir",
        metavar="DIR",
        default=None,
        help="save the log of each finished game there and offer them for watching (default: none)",
    )
    parser.add_argument(
        "--checkpoints",
        metavar="DIR",
        default="checkpoints",
        help="folder of trained agents the page suggests after the model zoo's names: their model cards "
        "(*.md, at any depth) with their headlines, and other *.pt files in it (default checkpoints)",
    )
    parser.add_argument("--threads", type=int, default=1, help="torch threads for checkpoint agents (default 1)")
    parser.add_argument("--quiet", action="store_true", help="do not log each request (default: logged)")
    _configure_limits(parser)


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if not 1 <= value <= 10**7:
        raise argparse.ArgumentTypeError(f"expected a positive integer up to 10000000, got {value}")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not 0 < value < 10**7:
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text!r}")
    return value


def _configure_limits(parser: argparse.ArgumentParser) -> None:
    """The options of :class:`rams_env.serve_limits.Limits`: what requests may ask of the server."""
    d = Limits()
    group = parser.add_argument_group("limits", "what requests may ask of the server (rams_env.serve_limits)")
    group.add_argument(
        "--max-games",
        type=_positive_int,
        default=d.max_games,
        metavar="N",
        help="games kept in memory; a new game replaces a finished or idle one, and is refused (503) when all "
        f"are in play (default {d.max_games})",
    )
    group.add_argument(
        "--max-replays",
        type=_positive_int,
        default=d.max_replays,
        metavar="N",
        help=f"replays kept in memory, replaced when idle (default {d.max_replays})",
    )
    group.add_argument(
        "--idle-time",
        type=_seconds,
        default=d.idle_seconds,
        metavar="SECONDS",
        help=f"a game or replay untouched this long may make room for a new one (default {d.idle_seconds:g})",
    )
    group.add_argument(
        "--max-simulations",
        type=_positive_int,
        default=d.max_simulations,
        metavar="N",
        help="most simulations per move of an agent named in a request: search worlds, ISMCTS simulations "
        f"times rollouts; a request asking more is refused (default {d.max_simulations})",
    )
    group.add_argument(
        "--move-time",
        type=_seconds,
        default=d.move_seconds,
        metavar="SECONDS",
        help=f"time limit of each move of a search agent named in a request (default {d.move_seconds:g})",
    )
    group.add_argument(
        "--request-time",
        type=_seconds,
        default=d.request_seconds,
        metavar="SECONDS",
        help="time for the agents' moves of one request; then the request is answered 503 and the agents stop "
        f"(default {d.request_seconds:g})",
    )


def _limits(args: argparse.Namespace) -> Limits:
    """The :class:`Limits` of ``rams serve``'s options."""
    return Limits(
        max_games=args.max_games,
        max_replays=args.max_replays,
        idle_seconds=args.idle_time,
        max_simulations=args.max_simulations,
        move_seconds=args.move_time,
        request_seconds=args.request_time,
    )


def _check_host(host: str, port: int) -> None:
    """``CommandError`` naming ``--host`` for an address that does not resolve (Werkzeug would print and exit)."""
    import socket

    try:
        socket.getaddrinfo(host.strip("[]"), port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as err:
        raise CommandError(f"--host {host!r} does not resolve to an address to listen on: {err}") from None


def _run(args: argparse.Namespace) -> int:
    for path in args.logs:
        load_log(path)  # a bad log is a CommandError now, not a surprise on the page
    if args.save_dir is not None and not os.path.isdir(args.save_dir):
        raise CommandError(f"--save-dir {args.save_dir}: no such folder")
    if not 0 <= args.port <= 65535:
        raise CommandError(f"--port must be 0 to 65535, got {args.port}")
    if not 1 <= args.threads <= MAX_THREADS:
        raise CommandError(f"--threads must be 1 to {MAX_THREADS}, got {args.threads}")
    try:
        from werkzeug.serving import make_server

        local = _loopback(args.host)
        app = create_app(
            ServeState(args.save_dir, args.logs, args.checkpoints, args.threads, _limits(args)),
            allowed_hosts=("127.0.0.1", "localhost", "::1") if local else None,
        )
    except ImportError as err:
        raise CommandError(str(err) if "rams_env[serve]" in str(err) else SERVE_EXTRA_HINT) from None
    if args.quiet:
        import logging

        logging.getLogger("werkzeug").setLevel(logging.WARNING)
    _check_host(args.host, args.port)
    said = io.StringIO()  # Werkzeug prints why it cannot listen, then exits: said here in one line instead
    try:
        with contextlib.redirect_stderr(said):
            server = make_server(args.host, args.port, app, threaded=True)
    except (OSError, SystemExit) as err:
        why = " ".join(said.getvalue().split()) or str(err)
        raise CommandError(f"cannot listen on {args.host}:{args.port}: {why}") from None
    host = f"[{args.host}]" if ":" in args.host else args.host
    print(f"rams serve: http://{host}:{server.server_port}/  (Ctrl-C stops)", flush=True)
    if not local:
        print(
            f"rams serve: warning: listening on {args.host}, not this machine only: anyone who can reach it can "
            "play, and load checkpoint files by path",
            flush=True,
        )
    try:
        server.serve_forever()  # Werkzeug's returns on Ctrl-C
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    print("\nrams serve: stopped", flush=True)
    return 0


COMMAND = Command("serve", "a local web page: play against agents, watch saved games step by step", _configure, _run)
