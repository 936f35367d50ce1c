"""A game being played on the page: one person's seat against agents, who move on the server until it is
that seat's turn, within the request's deadline."""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ... import jsoncheck
from ...eval import Deal, actor_for, agent_seed, build_agent, deal_set
from ...obs import ObservationEncoder
from ...rules import Action, Game, IllegalActionError, Phase, RulesConfig, action_name
from ...rules.episode import episode_ends, next_deal_or_end
from ..game_log import log_record, write_log
from ..narration import NEXT_DEAL, PAGE, apply_and_narrate, legal_names
from ..scores import DealStart, deal_summary
from .limits import Deadline, Limits
from .score_chart import ScoreHistory
from .seat_view import buy_rules, deal_points, forced_draw, hint, legal_moves, seat_state
from .validation import ApiError, read_action

MAX_EVENTS = 400  # lines of a game's history sent with each state
EMPTY_TALON = "The talon was empty: nothing to buy, so you kept your hand (drawn for you)."


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
        self.start = DealStart.of(self.game)
        self.chart = ScoreHistory(self.game)
        self.recent: list[dict[str, Any]] = []  # the agents' moves since the person's last one, for the page
        self.note = ""  # a move played for the person (his only one, and no choice in it) since his last
        self.over = False
        self.finished_at: float | None = None  # time.monotonic() when it ended: the store keeps it a while
        self.error: str | None = None
        self.save_dir = save_dir
        self.saved: str | None = None
        self.lock = threading.Lock()
        self._advance()

    # -- moves
    def _apply(self, seat: int, action: int) -> None:
        game = self.game
        line, said = apply_and_narrate(game, seat, action, self.seat, self.start, PAGE)
        self.log.append([seat, action_name(action)])
        self.history.append(line)
        self.history.extend(said)
        if seat != self.seat:
            self.recent.append({"seat": seat, "line": line})
        if game.phase >= Phase.DEAL_OVER:
            self.chart.deal_over(game)

    def _advance(self) -> None:
        """Let the agents move until it is the person's turn or the deal is over."""
        game = self.game
        deadline = Deadline(self.request_seconds)
        while (seat := game.current) >= 0:
            if seat == self.seat:
                if not forced_draw(game, seat):
                    break
                self._apply(seat, int(Action.DRAW))  # no decision: an empty talon to buy from
                self.history.append(EMPTY_TALON)
                self.note = EMPTY_TALON
                continue
            if deadline.passed():  # the game stops: its agents may not go on beyond the request
                self.error = deadline.message("the agents' moves")
                self._end()
                self.history.append(self.error)
                raise ApiError(503, self.error)
            actor = self.actors[seat]
            assert actor is not None
            try:
                action = actor(game, seat)
                self._apply(seat, action)
            except Exception as err:  # an agent that fails or moves illegally ends the game, not the server
                self.error = f"agent {self.names[seat]!r} in seat {seat} failed: {err}"
                self._end()
                self.history.append(self.error)
                raise ApiError(500, self.error) from None
        if game.current < 0 and episode_ends(game, self.episode):
            self._end()
            self._save()

    def act(self, value: Any) -> None:
        action = read_action(value)
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
            raise ApiError(400, f"{action_name(action)} is not a legal move now; legal: {legal_names(legal)}")
        self.recent, self.note = [], ""
        try:
            self._apply(self.seat, action)
        except IllegalActionError as err:  # pragma: no cover - legal_actions was checked above
            raise ApiError(400, str(err)) from None
        self._advance()

    def buy(self, value: Any) -> None:
        """The person's whole purchase at once: discard the marked cards, then draw (the page's confirm)."""
        self._check_open()
        rules = buy_rules(self.game, self.seat)
        if rules is None:
            raise ApiError(409, "it is not your turn to buy")
        if not isinstance(value, list) or len(value) > 6:
            raise ApiError(400, f"'discards' must be a list of the cards to discard, got {jsoncheck.short(value)}")
        cards = [read_action(v) for v in value]
        if any(c >= 52 for c in cards) or len(set(cards)) != len(cards):
            raise ApiError(400, f"'discards' must be distinct cards of your hand, got {jsoncheck.short(value)}")
        if not rules["min"] <= len(cards) <= rules["max"]:
            wanted = f"{rules['min']} to {rules['max']}" if rules["min"] != rules["max"] else str(rules["min"])
            raise ApiError(400, f"discard {wanted} cards now, not {len(cards)}: {rules['note']}")
        actions = [*cards, *([int(Action.DRAW)] if rules["draw"] else [])]
        trial = self.game.clone()
        for action in actions:  # all of it checked before any of it is played
            if action not in trial.legal_actions():
                raise ApiError(
                    400, f"{action_name(action)} is not a legal move now; legal: {legal_names(trial.legal_actions())}"
                )
            trial.apply(action)
        self.recent, self.note = [], ""
        for action in actions:
            self._apply(self.seat, action)
        self._advance()

    def next_deal(self) -> None:
        self._check_open()
        if self.game.current >= 0:
            raise ApiError(409, "the deal is still being played")
        self.history.append(NEXT_DEAL)
        next_deal_or_end(self.game, self.episode)  # deals the next deal (the episode goes on: checked above)
        self.start = DealStart.of(self.game)
        self.chart.start(self.game)
        self.recent, self.note = [], ""
        self._advance()

    def _end(self) -> None:
        self.over = True
        self.finished_at = time.monotonic()

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
            **seat_state(game, self.seat),
            "your_turn": game.current == self.seat and not self.over,
            "legal": [] if self.over else legal_moves(game, self.seat),
            "hint": hint(game, self.seat),
            "note": self.note,
            "deal_over": deal_over,
            "deal_points": deal_points(game, self.start.scores),
            "deal_summary": deal_summary(game, self.seat, self.start.scores, self.start.flights) if deal_over else None,
            "score_chart": self.chart.points,
            "recent": self.recent,
            "buy": None if self.over else buy_rules(game, self.seat),
            "next_deal": deal_over and not self.over,
            "over": self.over,
            "error": self.error,
            "events": self.history[-MAX_EVENTS:],
            "events_start": max(0, len(self.history) - MAX_EVENTS),  # the number of the first line sent, less one
            "actions": len(self.log),
            "saved": self.saved,
            # The seed fixes the whole deck: shown once the game is over (then rams play --seed plays it again).
            "seed": self.seed if self.over else None,
        }

    def record(self) -> dict[str, Any]:
        """The game log, as ``rams play --save`` writes it (it holds the whole deck: never sent to the page)."""
        return log_record(self.config, self.episode, self.deal, self.names, self.seat, self.log, self.game)

    def _save(self) -> None:
        if self.save_dir is None:
            return
        stamp = time.strftime("%Y%m%d-%H%M%S")
        path = self.save_dir / f"rams-{self.config.variant}-{stamp}-{secrets.token_hex(3)}.json"
        try:
            write_log(path, self.record())
        except OSError as err:
            self.history.append(f"could not save the game log to {path}: {err.strerror or err}")
            return
        self.saved = path.name
        self.history.append(f"saved the game log as {path.name} (Watch lists it)")
