"""Playing an evaluation's games: an agent's actor, one episode to its end, and the decks of a job.

Points are a seat's rewards (``reward="points"``) summed over the episode: score before a deal less
score after it, so higher is better. An episode is one deal, one rams or one match (docs/contract.md).
:func:`run_decks` plays the games of every deck of a job (a duplicate evaluation's or a league's) in
this process or in spawned worker processes, with the same records either way.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Protocol

from tqdm import tqdm

from ..agents.specs import AgentSource, build_agent
from ..obs.encoding import ObservationEncoder, action_mask
from ..rules import Action, Game, IllegalActionError, Phase, RulesConfig
from ..rules.episode import EPISODES, EpisodeKind, episode_kind, next_deal_or_end
from ..rules.seeding import require_seed
from .deals import SCORES, Deal, agent_seed, deal_at

KNOCK = int(Action.KNOCK)


@dataclass
class GameRecord:
    """Per-seat outcome of one episode: points, deals, knocks, flights and win shares."""

    points: list[int]
    deals: int
    knocks: list[int]
    flights: list[int]
    wins: list[float] | None  # 1/k for each of k winners; None for episode="deal"
    knock_by_score: list[dict[int, list[int]]] = field(default_factory=list)  # per seat: score -> [decisions, knocks]


def actor_for(agent: Any, encoder: ObservationEncoder) -> Callable[[Game, int], int]:
    """``f(game, seat) -> action``: the agent's ``act_game`` if it has one, else ``act`` on the encoded view."""
    act_game = getattr(agent, "act_game", None)
    if act_game is not None:
        return act_game

    def act(game: Game, seat: int) -> int:
        return agent.act({"observation": encoder.encode(game, seat), "action_mask": action_mask(game, seat)})

    return act


def play_episode(
    game: Game,
    agents: Sequence[Any],
    episode: str = "deal",
    encoder: ObservationEncoder | None = None,
    names: Sequence[str] | None = None,
) -> GameRecord:
    """Play ``game`` to the end of the episode with ``agents[seat]`` in each seat; the record of it."""
    if episode not in EPISODES:
        raise ValueError(f"episode must be one of {EPISODES}, got {episode!r}")
    n = game.n
    if len(agents) != n:
        raise ValueError(f"need one agent per seat ({n}), got {len(agents)}")
    encoder = encoder or ObservationEncoder(game.config)
    acts = [actor_for(a, encoder) for a in agents]
    points, knocks, deals = [0] * n, [0] * n, 0
    by_score: list[dict[int, list[int]]] = [{} for _ in range(n)]
    while True:
        before = list(game.scores)
        deals += 1
        while (seat := game.current) >= 0:
            action = acts[seat](game, seat)
            knocked = action == KNOCK and game.phase == Phase.KNOCK
            if game.phase == Phase.KNOCK:
                tally = by_score[seat].setdefault(game.scores[seat], [0, 0])
                tally[0] += 1
                tally[1] += knocked
            try:
                game.apply(action)
            except IllegalActionError as err:
                who = names[seat] if names is not None else type(agents[seat]).__name__
                raise IllegalActionError(f"agent {who!r} in seat {seat}: {err}") from None
            knocks[seat] += knocked
        points = [p + b - s for p, b, s in zip(points, before, game.scores, strict=True)]
        if next_deal_or_end(game, episode):
            break
    wins = None
    if episode_kind(episode) != EpisodeKind.DEAL:
        winners = game.winners if game.is_over else game.rams_winners()
        wins = [1.0 / len(winners) if s in winners else 0.0 for s in range(n)]
    return GameRecord(points, deals, knocks, list(game.flights), wins, by_score)


def play_deal(
    config: RulesConfig,
    deal: Deal,
    lineup: Sequence[tuple[str, AgentSource]],
    seed: int,
    episode: str,
    encoder: ObservationEncoder,
) -> GameRecord:
    agents = [build_agent(src, agent_seed(seed, deal.index, s)) for s, (_, src) in enumerate(lineup)]
    return play_episode(deal.game(config), agents, episode, encoder, [name for name, _ in lineup])


class DeckJob(Protocol):
    """The games of each deck of an evaluation: its rules, deal set and episode, and a line-up per game."""

    config: RulesConfig
    seed: int
    episode: str
    scores: str

    def lineups(self, index: int) -> Iterator[list[tuple[str, AgentSource]]]: ...


def play_decks(job: DeckJob, indices: Sequence[int]) -> list[list[GameRecord]]:
    """The records of the games of each deck of ``indices`` (what one worker process plays)."""
    encoder = ObservationEncoder(job.config)
    out = []
    for i in indices:
        deal = deal_at(job.config, job.seed, i, job.scores)
        out.append([play_deal(job.config, deal, lineup, job.seed, job.episode, encoder) for lineup in job.lineups(i)])
    return out


def run_decks(
    job: DeckJob, decks: int, workers: int, progress: bool, per_deck: int, desc: str
) -> list[list[GameRecord]]:
    """Records of every deck, in deck order, computed here or in ``workers`` processes."""
    bar = tqdm(total=decks * per_deck, desc=desc, unit="game", disable=not progress, dynamic_ncols=True)
    results: list[list[GameRecord]] = []
    with bar:
        if workers == 1:
            for i in range(decks):
                results += play_decks(job, [i])
                bar.update(per_deck)
            return results
        size = max(1, min(64, decks // (workers * 8)))
        chunks = [list(range(s, min(decks, s + size))) for s in range(0, decks, size)]
        ctx = multiprocessing.get_context("spawn")  # no fork of a process that may hold torch threads
        with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
            for chunk, records in zip(chunks, pool.map(play_decks, [job] * len(chunks), chunks), strict=True):
                results += records
                bar.update(per_deck * len(chunk))
    return results


def check_run_arguments(config: RulesConfig, decks: int, seed: int, episode: str, scores: str, workers: int) -> None:
    """``TypeError`` or ``ValueError`` naming the first bad argument of an evaluation or a league."""
    if not isinstance(config, RulesConfig):
        raise TypeError(f"config must be a RulesConfig (make_config(...)), got {type(config).__name__}")
    if isinstance(decks, bool) or not isinstance(decks, int) or decks < 1:
        raise ValueError(f"decks must be a positive int, got {decks!r}")
    require_seed(seed)
    if episode not in EPISODES:
        raise ValueError(f"episode must be one of {EPISODES}, got {episode!r}")
    if scores not in SCORES:
        raise ValueError(f"scores must be one of {SCORES}, got {scores!r}")
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be a positive int, got {workers!r}")
