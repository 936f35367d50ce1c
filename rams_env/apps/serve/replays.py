"""A game to watch step by step: a saved or uploaded log, a game of agents on one deck of a deal set, or a
finished game of the page. :class:`Replay` checks every action once, keeps copies of the game on the
way, and shows the table after any step as any seat saw it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ... import jsoncheck
from ...eval import SCORES, actor_for, agent_seed, build_agent, deck_of
from ...obs import ObservationEncoder
from ...rules import Action, Game, IllegalActionError, Phase, action_name, card_index
from ...rules.episode import EPISODES, EpisodeKind, next_deal_or_end
from ..command import CommandError
from ..game_log import LOG_FORMAT, check_log
from ..narration import NEXT_DEAL, PAGE, apply_and_narrate
from ..scores import DealStart, deal_summary
from .limits import Deadline, Limits
from .score_chart import ScoreHistory
from .seat_view import deal_points, seat_state
from .validation import (
    SEED_LIMIT,
    ApiError,
    agent_sources,
    agent_specs,
    read_choice,
    read_int,
    rules_from_body,
)

MAX_DECK = 100_000  # deck index of an evaluation game
SNAPSHOT_EVERY = 64  # a replay keeps a copy of the game every this many actions
REPLAY_CONTEXT = 12  # actions whose lines a replay step shows (that step and those before it)


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
        self._snapshots: list[tuple[Game, DealStart]] = []
        game, deal_start = start.clone(), DealStart.of(start)
        # For the page: the scores and flights as each deal starts (by the step its first action is), and
        # the chart's points with the step from which each is shown.
        self._deal_starts: list[tuple[int, DealStart]] = [(0, deal_start)]
        chart = ScoreHistory(start)
        self._chart: list[tuple[int, dict[str, Any]]] = [(0, point) for point in chart.points]
        for k, entry in enumerate(actions, 1):
            if (k - 1) % SNAPSHOT_EVERY == 0:  # snapshot i: the game after i * SNAPSHOT_EVERY actions
                self._snapshots.append((game.clone(), deal_start))
            try:
                if game.phase >= Phase.DEAL_OVER:
                    if next_deal_or_end(game, episode):
                        raise ValueError(f"the {episode} is over after action {k - 1}, the log goes on")
                    deal_start = DealStart.of(game)
                    self._deal_starts.append((k, deal_start))
                    chart.start(game)
                seat, action = self._entry(entry, game)
                game.apply(action)
            except (ValueError, IllegalActionError) as err:
                raise ApiError(400, f"action {k} {jsoncheck.short(entry)} does not replay: {err}") from None
            self.actions.append((seat, action))
            if game.phase >= Phase.DEAL_OVER:
                chart.deal_over(game)
            self._chart += [(k, point) for point in chart.points[len(self._chart) :]]
        if not self._snapshots:
            self._snapshots.append((start.clone(), DealStart.of(start)))

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

    def at(self, step: int, seat: int) -> tuple[Game, list[str], DealStart]:
        """The game after ``step`` actions, the lines of the last few actions as ``seat`` saw them, and
        the scores and flights at the start of that deal."""
        first = max(0, step - REPLAY_CONTEXT)
        index = min(first // SNAPSHOT_EVERY, len(self._snapshots) - 1)
        snapshot, before = self._snapshots[index]
        base = index * SNAPSHOT_EVERY
        game, deal_start = snapshot.clone(), before
        lines: list[str] = [f"dealer: player_{game.dealer}"] if first == 0 else []
        for k in range(base + 1, step + 1):
            actor, action = self.actions[k - 1]
            shown = k > first
            if game.phase >= Phase.DEAL_OVER:
                next_deal_or_end(game, self.episode)
                deal_start = DealStart.of(game)
                if shown:
                    lines.append(NEXT_DEAL)
            line, said = apply_and_narrate(game, actor, action, seat, deal_start, PAGE)
            if shown:
                lines.append(f"[{k}] {line}")
                lines.extend(said)
        return game, lines, deal_start

    def state(self, ident: str, step: int, seat: int) -> dict[str, Any]:
        game, lines, deal_start = self.at(step, seat)
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
            **seat_state(game, seat),
            "deal_over": game.current < 0,
            "deal_points": deal_points(game, deal_start.scores),
            "deal_summary": deal_summary(game, seat, deal_start.scores, deal_start.flights)
            if game.current < 0
            else None,
            "score_chart": [point for first, point in self._chart if first <= step],
            "recent": recent,
            "events": lines,
        }


def replay_of_record(record: Any, where: str, title: str) -> Replay:
    """A replay of a ``rams play --save`` log (a parsed JSON object), checked as ``rams replay`` checks it."""
    if not isinstance(record, dict):
        raise ApiError(400, f"{where} is not a rams game log (a JSON object with 'format': {LOG_FORMAT!r})")
    try:
        game, record = check_log(record, where)
    except CommandError as err:
        raise ApiError(400, str(err)) from None
    seats = record.get("seats")
    names = seats if _is_names(seats, game.n) else [f"player_{s}" for s in range(game.n)]
    viewer = record.get("human_seat", 0)
    if not 0 <= viewer < game.n:
        raise ApiError(400, f"{where}: 'human_seat' must be a seat 0..{game.n - 1}, got {viewer!r}")
    return Replay(game, record["actions"], record["episode"], names, viewer, title)


def _is_names(value: Any, n: int) -> bool:
    return isinstance(value, list) and len(value) == n and all(isinstance(v, str) and len(v) <= 500 for v in value)


def agents_game(body: dict[str, Any], limits: Limits | None = None) -> Replay:
    """Deck ``deck`` of the deal set ``seed`` played by ``agents`` (one per seat), as ``rams eval`` plays it."""
    config = rules_from_body(body)
    n = config.num_players
    episode = read_choice(body, "episode", EpisodeKind.DEAL.label, EPISODES)
    scores = read_choice(body, "scores", "start", SCORES)
    seed = read_int(body, "seed", 0, 0, SEED_LIMIT - 1)
    deck = read_int(body, "deck", 0, 0, MAX_DECK - 1)
    specs = agent_specs(body, "agents", n, None)
    limits = limits or Limits()
    sources = agent_sources(specs, config, limits)
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
