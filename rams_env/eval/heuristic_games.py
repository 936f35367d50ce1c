"""Duplicate games against heuristic opponents on the compiled engine, the tested agent batched.

:func:`rams_env.eval.evaluate` plays an agent's games this way when the baseline is the
heuristic and the agent acts on batches (``act_batch``, as greedy trained policies do): every
game of a deal set (each deck with the agent in each seat) runs in one of ``slots`` compiled
game slots, the heuristic seats (:mod:`rams_env.compiled.heuristic`) play inside the compiled
step, and the agent decides for all slots waiting on it with one call. Deals, seeds and the
heuristics' seeds are those of the Python path, so the records are the same games.

The heuristic seats' knock decisions by score are not tallied here (the tested seat's are);
``evaluate`` reads only the tested seat of these records.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from tqdm.auto import tqdm

from ..core import ACT, HOLD, MAX_SEATS, Core, DealStarts
from ..rules import IllegalActionError, RulesConfig, card_index
from ..rules.actions import Action
from ..rules.episode import EPISODES, EpisodeKind, episode_kind
from ..rules.phases import Phase
from ..rules.spec import EnvSpec
from .play import GameRecord

KNOCK = int(Action.KNOCK)
BatchActor = Callable[[np.ndarray, np.ndarray], np.ndarray]  # (observations, masks) -> actions
SeedOf = Callable[[int, int], int]  # (deck index, seat) -> the heuristic's seed


def batch_actor(agent: Any) -> BatchActor | None:
    """The agent's ``act_batch`` if it acts on batches deterministically, else None."""
    act_batch = getattr(agent, "act_batch", None)
    if act_batch is None or not getattr(agent, "greedy", False):
        return None
    return act_batch


def play_against_heuristic(
    act_batch: BatchActor,
    config: RulesConfig,
    deals: Sequence[Any],
    heuristic_seeds: SeedOf,
    episode: str,
    slots: int = 256,
    name: str = "agent",
    progress: bool = False,
) -> list[list[Any]]:
    """Per deal, per seat: the record (``rams_env.eval.GameRecord``) of the game in which ``act_batch``
    plays that seat from the deal and the heuristic every other seat, seat ``s`` seeded
    ``heuristic_seeds(deal.index, s)``; ``episode`` "deal" or "rams"."""
    if episode not in EPISODES or episode_kind(episode) == EpisodeKind.MATCH:
        raise ValueError(f"batched heuristic games play episode 'deal' or 'rams', got {episode!r}")
    n = config.num_players
    jobs = [(d, seat) for d in range(len(deals)) for seat in range(n)]
    table = _Table(config, episode, min(slots, len(jobs)))
    records: list[list[Any]] = [[None] * n for _ in deals]
    job_of = np.full(table.size, -1, np.int64)
    tallies: list[dict[int, list[int]]] = [{} for _ in range(table.size)]
    knocks = np.zeros(table.size, np.int64)
    waiting = list(range(len(jobs)))[::-1]

    def start(free: list[int]) -> None:
        chosen = [waiting.pop() for _ in free[: len(waiting)]]
        if not chosen:
            return
        slots_started = np.array(free[: len(chosen)], np.int64)
        for slot, job in zip(slots_started.tolist(), chosen, strict=True):
            job_of[slot] = job
            tallies[slot] = {}
            knocks[slot] = 0
        table.start(slots_started, [(deals[jobs[j][0]], jobs[j][1]) for j in chosen], heuristic_seeds)

    bar = tqdm(total=len(jobs), desc=f"{name} vs heuristics", unit="game", disable=not progress, dynamic_ncols=True)
    with bar:
        start(list(range(table.size)))
        while (job_of >= 0).any():
            done = np.flatnonzero((job_of >= 0) & table.over)
            for slot in done.tolist():
                d, seat = jobs[job_of[slot]]
                records[d][seat] = table.record(slot, seat, knocks[slot], tallies[slot], GameRecord)
                job_of[slot] = -1
            bar.update(len(done))
            if len(done):
                start(done.tolist())
            live = np.flatnonzero((job_of >= 0) & ~table.over)
            if not len(live):
                continue
            actions = np.asarray(act_batch(table.observations[live], table.masks[live]), np.int64)
            deciding = np.flatnonzero(table.core.view("phase")[live] == Phase.KNOCK)  # the knock decisions, tallied
            for slot, action in zip(live[deciding].tolist(), actions[deciding].tolist(), strict=True):
                seat = jobs[job_of[slot]][1]
                tally = tallies[slot].setdefault(table.score(slot, seat), [0, 0])
                tally[0] += 1
                tally[1] += action == KNOCK
                knocks[slot] += action == KNOCK
            table.step(live, actions, name)
    return records


class _Table:
    """``size`` game slots of the compiled core, heuristic seats played inside, each slot playing one episode
    from a deal (held at its end: the core without autoreset)."""

    def __init__(self, config: RulesConfig, episode: str, size: int) -> None:
        self.config, self.size, self.n, self.episode = config, size, config.num_players, episode
        self.core = Core(EnvSpec(config, episode, "points"), size)
        self.observations, self.masks = self.core.outputs.observations, self.core.outputs.masks  # what the loop reads
        self.over = np.zeros(size, bool)  # the slot's episode has ended
        self.start_scores = np.zeros((size, self.n), np.int64)
        self._commands = np.zeros(size, np.int64)
        self._actions = np.zeros(size, np.int64)

    def start(self, slots: np.ndarray, games: list[tuple[Any, int]], heuristic_seeds: SeedOf) -> None:
        """Start each slot from its (deal, tested seat)."""
        n = self.n
        count = len(games)
        decks = np.array([[card_index(c) for c in deal.deck] for deal, _ in games], np.int64)
        scores = np.array([deal.scores for deal, _ in games], np.int64)
        hseeds = np.zeros((count, MAX_SEATS), np.int64)
        start_masks = np.zeros(count, np.int64)
        for k, (deal, seat) in enumerate(games):
            hseeds[k, :n] = [heuristic_seeds(deal.index, s) for s in range(n)]
            start_masks[k] = ((1 << n) - 1) & ~(1 << seat)
        self.start_scores[slots] = scores
        starts = DealStarts(
            np.array([deal.seed for deal, _ in games], np.int64),
            np.array([deal.dealer for deal, _ in games], np.int64),
            scores,
            decks,
            start_masks,
            hseeds,
        )
        self.over[slots] = self.core.start(slots, starts).over[slots]

    def step(self, slots: np.ndarray, actions: np.ndarray, name: str) -> None:
        commands, moves = self._commands, self._actions
        commands[:] = HOLD
        commands[slots] = ACT
        moves[slots] = actions
        bad = self.core.run(commands, moves)
        if bad >= 0:
            raise IllegalActionError(f"agent {name!r} chose the illegal action {int(moves[bad])}")
        self.over[slots] = self.core.outputs.over[slots]

    def score(self, slot: int, seat: int) -> int:
        return int(self.core.view("scores")[slot, seat])

    def record(self, slot: int, seat: int, knocks: int, tally: dict[int, list[int]], record_type: type) -> Any:
        """The finished game's record (only ``seat``'s knocks and knock tally are counted)."""
        core, n = self.core, self.n
        scores, flights = core.view("scores")[slot], core.view("flights")[slot]
        wins = None
        if self.episode != "deal":
            game_winners = int(core.view("game_winners")[slot])
            winners = game_winners if game_winners >= 0 else int(core.view("rams_winners")[slot])
            won = [(winners >> k) & 1 for k in range(n)]
            wins = [1.0 / sum(won) if w else 0.0 for w in won]
        seat_knocks = [int(knocks) if k == seat else 0 for k in range(n)]
        by_score = [tally if k == seat else {} for k in range(n)]
        points = (self.start_scores[slot] - scores).tolist()
        return record_type(points, int(core.tables.deals[slot]), seat_knocks, flights.tolist(), wins, by_score)


__all__ = ["batch_actor", "play_against_heuristic"]
