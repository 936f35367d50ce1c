"""What one ``rams serve`` lets requests ask of it: agent budgets, a deadline per request, and its stores.

- **Agent budgets.** An agent named in a request (``search:200``, ``ismcts:...``) may search at most
  ``max_simulations`` per move (search worlds; ISMCTS simulations times rollouts); a larger one is
  refused with a 400 naming the option. A search agent gets ``time_limit=move_seconds`` unless it asks
  for less, and may not ask for more. A named agent of the zoo (``mattmar-search``) is offered as the
  zoo's checkpoints are: its options are the zoo's, not the request's, and its work per move is fixed.
- **A deadline per request.** The agents' moves of one request (an agents' game to watch, or the
  moves up to the person's turn) stop at ``request_seconds``: the request is answered 503 with a
  message, and the work ends there (the deadline is checked before every move, and no move runs longer
  than its budget), so nothing a request names keeps a core busy after its answer.
- **Stores.** Games and replays are kept up to ``max_games`` and ``max_replays``. A finished game stays
  readable for ``keep_finished_seconds`` (a player who reloads still finds it), unless its player has
  started another (``POST /api/games`` with ``previous``: then it is *released*). When a new one needs a
  slot, a released game goes first, then a game finished longer ago than ``keep_finished_seconds``
  (the oldest finished first), then one in play idle for ``idle_seconds``, least recently used first;
  when no slot can be freed, the new one is refused with 503 naming the limit. No game in play is
  ever dropped, unless idle or released.
"""

from __future__ import annotations

import collections
import inspect
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ... import zoo
from ...agents.specs import AgentFactory


class Refused(Exception):
    """A request the server refuses with ``status`` (answered as ``{"error": message}``)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True)
class Limits:
    """A server's limits (each a ``rams serve`` option; see the module docstring)."""

    max_games: int = 64
    """games being played kept in memory (``--max-games``)"""
    max_replays: int = 64
    """replays kept in memory (``--max-replays``)"""
    idle_seconds: float = 900.0
    """a game or replay untouched this long may make room for a new one (``--idle-time``)"""
    keep_finished_seconds: float = 600.0
    """a finished game stays readable this long, unless its player started another (``--keep-finished``)"""
    max_simulations: int = 400
    """most search worlds (ISMCTS: simulations x rollouts) per agent move (``--max-simulations``)"""
    move_seconds: float = 5.0
    """time limit of a search agent's move (``--move-time``)"""
    request_seconds: float = 30.0
    """time for the agents' moves of one request (``--request-time``)"""

    def __post_init__(self) -> None:
        for name in ("max_games", "max_replays", "max_simulations"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        for name in ("idle_seconds", "keep_finished_seconds", "move_seconds", "request_seconds"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 10**7:
                raise ValueError(f"{name} must be a positive number of seconds, got {value!r}")


# ----------------------------------------------------------------------------- agent budgets
def budgeted(spec: str, source: Any, limits: Limits) -> Any:
    """``source`` (``agent_source(spec)``) within the budget: its simulations checked, its time limit set.

    A factory whose agent takes ``simulations`` (the search, ISMCTS) over ``limits.max_simulations``
    (times ``rollouts`` where it has them) is a :class:`Refused` 400 naming the option; one that takes
    ``time_limit`` gets ``limits.move_seconds`` unless it asks for less (more is refused). Other agents
    (random, heuristic, checkpoints) do bounded work per move and are returned as they are, and so are the
    zoo's named agents by name (``mattmar-search``: a fixed number of worlds over the zoo's own networks).
    """
    if not isinstance(source, AgentFactory) or (zoo.is_name(spec) and zoo.named_agent(spec) is not None):
        return source
    try:
        parameters = inspect.signature(source.cls).parameters
    except (TypeError, ValueError):  # pragma: no cover - a builtin without a signature
        return source
    if "simulations" not in parameters:
        return source
    options = dict(source.options)
    if "rollout_policy" in options:  # it would load a checkpoint named by the request
        raise Refused(
            400, f"agent {spec!r}: rollout_policy is not offered by this server (its rollouts are not timed per move)"
        )
    for name in ("base", "opponent_model"):  # a policy would be a checkpoint named by the request
        if options.get(name, "heuristic") != "heuristic":
            raise Refused(400, f"agent {spec!r}: {name} other than heuristic is not offered by this server")
    if "belief_draws" in options and options["belief_draws"] > parameters["belief_draws"].default:
        raise Refused(
            400,
            f"agent {spec!r}: belief_draws above {parameters['belief_draws'].default} is not offered by this "
            "server (a world's draws are not timed)",
        )

    def given(name: str) -> Any:
        return options[name] if name in options else parameters[name].default

    work = given("simulations") * (given("rollouts") if "rollouts" in parameters else 1)
    if work > limits.max_simulations:
        per = "simulations x rollouts" if "rollouts" in parameters else "simulations"
        raise Refused(
            400,
            f"agent {spec!r}: {per} {work} is over this server's budget of {limits.max_simulations} per move "
            "(rams serve --max-simulations)",
        )
    if "time_limit" in parameters:
        asked = given("time_limit")
        if asked is not None and asked > limits.move_seconds:
            raise Refused(
                400,
                f"agent {spec!r}: time_limit {asked} is over this server's {limits.move_seconds:g} s per move "
                "(rams serve --move-time)",
            )
        options["time_limit"] = limits.move_seconds if asked is None else asked
    return AgentFactory(source.cls, options)


class Deadline:
    """The end of the agents' time in one request; :meth:`check` before every move."""

    def __init__(self, seconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.seconds, self.clock = seconds, clock
        self.end = clock() + seconds

    def passed(self) -> bool:
        """Whether the time is up."""
        return self.clock() > self.end

    def message(self, what: str) -> str:
        """What a request whose time is up answers."""
        return (
            f"{what} took longer than this server's {self.seconds:g} s for one request (rams serve --request-time): "
            "choose cheaper agents, fewer simulations or a shorter episode"
        )

    def check(self, what: str) -> None:
        """:class:`Refused` 503 once the time is up."""
        if self.passed():
            raise Refused(503, self.message(what))


# ----------------------------------------------------------------------------- stores
def never_finished(item: Any) -> float | None:
    """The ``finished`` time of replays (never): someone may be stepping through one until it is idle."""
    return None


class Store:
    """Games or replays by id, at most ``limit``; a new one takes the slot of a released, finished or idle one.

    ``finished(item)`` is the time (on ``clock``) the item finished (a game over or stopped), or None.
    Eviction order: items released by their player (:meth:`release`), least recently used first; then items
    finished at least ``keep_seconds`` ago, the oldest finished first; then items not finished and
    untouched for ``idle_seconds``, least recently used first. A finished item is never dropped sooner
    than ``keep_seconds`` after it finished unless released. When no slot can be freed, :meth:`add` is a
    :class:`Refused` 503 naming the limit and its ``option``.
    """

    def __init__(
        self,
        kind: str,
        limit: int,
        idle_seconds: float,
        option: str,
        finished: Callable[[Any], float | None] = never_finished,
        clock: Callable[[], float] = time.monotonic,
        keep_seconds: float = 0.0,
    ) -> None:
        self.kind, self.limit, self.idle_seconds, self.option = kind, limit, idle_seconds, option
        self.finished, self.clock, self.keep_seconds = finished, clock, keep_seconds
        self._released: set[str] = set()
        self._items: collections.OrderedDict[str, Any] = collections.OrderedDict()  # least recently used first
        self._used: dict[str, float] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._items)

    def add(self, item: Any) -> str:
        """Keep ``item`` under a fresh id; make room first (module docstring), or refuse with 503."""
        ident = secrets.token_urlsafe(9)
        with self._lock:
            while len(self._items) >= self.limit:
                self._evict_one()
            self._items[ident] = item
            self._used[ident] = self.clock()
        return ident

    def release(self, ident: str) -> None:
        """Let ``ident`` (if it is still kept) make room first: its player has started another."""
        with self._lock:
            if ident in self._items:
                self._released.add(ident)

    def _evict_one(self) -> None:
        now = self.clock()
        victim = next((k for k in self._items if k in self._released), None)
        if victim is None:
            ended = [(t, k) for k, v in self._items.items() if (t := self.finished(v)) is not None]
            victim = min(((t, k) for t, k in ended if now - t >= self.keep_seconds), default=(0.0, None))[1]
        if victim is None:
            victim = next(
                (
                    k
                    for k, v in self._items.items()
                    if self.finished(v) is None and now - self._used[k] >= self.idle_seconds
                ),
                None,
            )
        if victim is None:
            kept = f", or finished in the last {self.keep_seconds:g} s" if self.keep_seconds else ""
            raise Refused(
                503,
                f"the server is full: it keeps {self.limit} {self.kind}s ({self.option}) and every one is in use "
                f"(played or watched in the last {self.idle_seconds:g} s{kept}); try again later",
            )
        del self._items[victim]
        del self._used[victim]
        self._released.discard(victim)

    def get(self, ident: str) -> Any:
        """The item of ``ident`` (now the most recently used); :class:`Refused` 404 if there is none."""
        with self._lock:
            item = self._items.get(ident)
            if item is not None:
                self._items.move_to_end(ident)
                self._used[ident] = self.clock()
        if item is None:
            raise Refused(
                404,
                f"no {self.kind} {ident!r} (unknown, or dropped to make room: idle for {self.idle_seconds:g} s"
                + (f", finished {self.keep_seconds:g} s ago" if self.keep_seconds else "")
                + ", or its player started another)",
            )
        return item
