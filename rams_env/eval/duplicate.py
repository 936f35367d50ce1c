"""Duplicate evaluation of agents on fixed deal sets, and a league rated with OpenSkill.

Duplicate deals: every deck of a deal set is played once by the baseline alone (all seats) and, for
each tested agent and each seat, with that agent in the seat and the baseline in the others. The
duplicate advantage of a deck is the tested agent's points minus the baseline's points in the same
seat on the same deck, averaged over the seats; its confidence interval is a bootstrap over decks.

Points are a seat's rewards (``reward="points"``) summed over the episode: score before a deal less
score after it, so higher is better. An episode is one deal, one rams or one match (docs/contract.md).

Agents are given either as an instance (used as it is for every game: deterministic agents) or as a
factory called with ``seed=`` for every game (``RandomAgent``, ``functools.partial(SearchAgent,
simulations=200)``). The agent in seat ``s`` on deck ``i`` gets a seed derived from ``(seed, i, s)``
whichever agent it is, so a rerun gives identical numbers and an agent evaluated against itself has
an advantage of exactly 0 (common random numbers).
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import json
import math
import multiprocessing
import os
import random
import textwrap
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from tqdm import tqdm

from .. import zoo
from ..envs.episode import EPISODES, next_deal_or_end
from ..keyvalue import parse_pair
from ..obs.encoding import ObservationEncoder, action_mask
from ..rules import Action, Game, IllegalActionError, Phase, RulesConfig, card_name, deck_cards
from .heuristic_games import batch_actor, play_against_heuristic

SCORES = ("start", "random")  # scores of the first deal of each deck: the start score, or drawn
Z95 = 1.959963984540054  # standard normal quantile of 0.975
PLURAL = {"deal": "deals", "rams": "ramsar", "match": "matches"}  # episode kind -> its plural, for tables
KNOCK = int(Action.KNOCK)
TABLE_WIDTH = 100  # columns of Evaluation.table() (a terminal's or a model card's)

# An agent (it has ``act``), or a factory called as ``factory(seed=...)`` that builds one per game.
AgentSource = Any

# Streams of derived seeds, kept apart so that no two uses share numbers.
_DEALS, _AGENTS, _LINEUPS = 0, 1, 2


# ----------------------------------------------------------------------------- statistics
def wilson_interval(successes: float, trials: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion (``successes`` may be fractional: shared wins)."""
    if trials <= 0:
        raise ValueError(f"trials must be positive, got {trials}")
    if not 0 <= successes <= trials:
        raise ValueError(f"successes must lie in 0..trials={trials}, got {successes}")
    p = successes / trials
    z2 = z * z
    denom = 1.0 + z2 / trials
    center = (p + z2 / (2 * trials)) / denom
    half = z / denom * math.sqrt(p * (1.0 - p) / trials + z2 / (4 * trials * trials))
    return max(0.0, center - half), min(1.0, center + half)


def bootstrap_interval(
    values: Sequence[float] | np.ndarray, resamples: int = 10_000, seed: int = 0, level: float = 0.95
) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean of ``values`` (seeded, reproducible)."""
    x = np.asarray(values, dtype=np.float64)
    if x.ndim != 1 or x.size == 0:
        raise ValueError(f"values must be a non-empty 1-d sample, got shape {x.shape}")
    if resamples < 1:
        raise ValueError(f"resamples must be at least 1, got {resamples}")
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must lie strictly between 0 and 1, got {level}")
    rng = np.random.default_rng(seed)
    m = x.size
    means = np.empty(resamples)
    chunk = max(1, 2_000_000 // m)  # bounded memory for the index matrix
    for start in range(0, resamples, chunk):
        k = min(chunk, resamples - start)
        means[start : start + k] = x[rng.integers(0, m, size=(k, m))].mean(axis=1)
    tail = (1.0 - level) / 2.0
    lo, hi = np.quantile(means, [tail, 1.0 - tail])
    return float(lo), float(hi)


# ----------------------------------------------------------------------------- deal sets
def derive_seed(*words: int) -> int:
    """A 63-bit seed derived reproducibly from non-negative integers (numpy ``SeedSequence``)."""
    for w in words:
        if isinstance(w, bool) or not isinstance(w, (int, np.integer)) or w < 0:
            raise ValueError(f"seeds must be non-negative ints, got {w!r}")
    return int(np.random.SeedSequence([int(w) for w in words]).generate_state(1, np.uint64)[0] >> np.uint64(1))


@dataclass(frozen=True)
class Deal:
    """Deck ``index`` of a deal set: the first deal's deck (top card first), dealer, scores and game seed."""

    index: int
    deck: tuple[str, ...]
    dealer: int
    seed: int  # seeds the game's generator, which shuffles the later deals of a rams or match
    scores: tuple[int, ...]  # the seats' scores when the first deal starts

    def game(self, config: RulesConfig) -> Game:
        """A fresh game starting with this deal."""
        return Game(config, self.seed, deck=list(self.deck), dealer=self.dealer, scores=list(self.scores))


def deal_set(config: RulesConfig, seed: int, count: int, scores: str = "start") -> list[Deal]:
    """``count`` decks; deck ``i``, its first dealer and scores depend only on ``(seed, i)`` and the config.

    ``scores="start"``: every seat starts at the start score. ``"random"``: each seat's score is drawn
    from 1 to the start score, so that a single deal also weighs flights and forced knocks (from the
    start score a Swedish flight costs nothing: it is capped there). The decks are the same either way.
    """
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise ValueError(f"count (number of decks) must be a positive int, got {count!r}")
    if scores not in SCORES:
        raise ValueError(f"scores must be one of {SCORES}, got {scores!r}")
    return [_deal(config, seed, i, scores) for i in range(count)]


def deck_of(config: RulesConfig, seed: int, index: int, scores: str = "start") -> Deal:
    """Deck ``index`` of the deal set ``seed``: ``deal_set(config, seed, index + 1, scores)[index]``, the others
    not made (``rams serve`` plays one deck of a set)."""
    if isinstance(index, bool) or not isinstance(index, int) or index < 0:
        raise ValueError(f"index (of a deck) must be a non-negative int, got {index!r}")
    if scores not in SCORES:
        raise ValueError(f"scores must be one of {SCORES}, got {scores!r}")
    return _deal(config, seed, index, scores)


def agent_seed(seed: int, deck: int, seat: int) -> int:
    """Seed of the agent in ``seat`` on deck ``deck`` of the deal set ``seed`` (whichever agent sits there)."""
    return derive_seed(seed, _AGENTS, deck, seat)


def _deal(config: RulesConfig, seed: int, index: int, scores: str) -> Deal:
    rng = random.Random(derive_seed(seed, _DEALS, index))
    cards = deck_cards(config.deck_size)
    rng.shuffle(cards)
    dealer = rng.randrange(config.num_players)
    game_seed = rng.getrandbits(63)
    n, start = config.num_players, config.start_score
    start_scores = tuple(rng.randint(1, start) for _ in range(n)) if scores == "random" else (start,) * n
    return Deal(index, tuple(card_name(c) for c in cards), dealer, game_seed, start_scores)


# ----------------------------------------------------------------------------- agents by name
BUILTIN_AGENTS = ("random", "heuristic", "search", "oracle", "ismcts")
AGENT_SPEC_HELP = (
    "an agent: random, heuristic, search (search:200 for 200 simulations, or search:key=value,key=value "
    "for any SearchAgent keyword), oracle (the same search on the true deal: it sees hidden cards, a "
    "reference, not a fair agent; oracle:200 or oracle:key=value,... as for search), ismcts (OpenSpiel's "
    "ISMCTS, the openspiel extra: ismcts:200, or "
    "ismcts:key=value,... for any ISMCTSAgent keyword), a model of the zoo by name (mattmar-4p; a preset's "
    "name, such as mattmar, for its best model), or the path of a checkpoint file or of an ensemble manifest (.json)"
)


def agent_source(spec: str, config: RulesConfig | None = None) -> AgentSource:
    """The agent (or per-game factory) named by ``spec`` (see ``AGENT_SPEC_HELP``); ``ValueError`` if bad.

    A class whose constructor takes ``seed`` becomes a factory, so that the evaluation seeds it per
    game; one that takes ``config`` gets ``config``; a checkpoint is loaded once (greedy), checked
    against ``config`` when given.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"an agent spec must be a non-empty string, got {spec!r}")
    name, _, rest = spec.partition(":")
    if name not in BUILTIN_AGENTS:
        if os.path.isfile(spec) or (zoo.is_name(spec) and spec in zoo.known_names()):
            from ..agents import load_agent

            return load_agent(spec, expect_config=config)
        moved = zoo.moved_to(spec)
        if moved is not None:
            raise ValueError(f"agent {spec!r}: {moved}")
        if os.sep in spec or "." in spec:
            raise ValueError(f"agent {spec!r}: no checkpoint file at that path")
        names = ", ".join(zoo.known_names()) or f"none: no model zoo found (set {zoo.ZOO_ENV})"
        raise ValueError(f"unknown agent {spec!r}; expected {AGENT_SPEC_HELP}. Zoo names: {names}")
    if name == "ismcts":  # OpenSpiel's ISMCTS: rams_env.integrations.openspiel (the [openspiel] extra)
        try:
            from ..integrations import openspiel as agents
        except ImportError as err:
            raise ValueError(f"agent {spec!r} needs OpenSpiel: pip install 'rams_env[openspiel]' ({err})") from None
    else:
        from .. import agents

    # "heuristic" is HeuristicAgent's compiled twin: the same decisions, seed for seed, much faster.
    agent_classes = {
        "random": "RandomAgent",
        "heuristic": "CompiledHeuristicAgent",
        "search": "SearchAgent",
        "oracle": "OracleAgent",
    }
    cls = agent_classes.get(name, "ISMCTSAgent")
    if not hasattr(agents, cls):
        raise ValueError(f"agent {spec!r}: rams_env.agents has no {cls} yet")
    factory = getattr(agents, cls)
    options = _spec_options(spec, rest, "simulations" if name in ("search", "oracle", "ismcts") else None)
    if "seed" in options:
        raise ValueError(f"agent {spec!r}: the seed is set per game by the evaluation, not in the spec")
    parameters = inspect.signature(factory).parameters
    if config is not None and "config" in parameters and "config" not in options:
        options["config"] = config
    seeded = "seed" in parameters
    try:
        source = functools.partial(factory, **options) if seeded else factory(**options)
        build_agent(source, 0)  # reject bad keywords now, not in the middle of an evaluation
    except TypeError as err:
        raise ValueError(f"agent {spec!r}: {err}") from None
    return source


def sees_hidden_cards(source: AgentSource) -> bool:
    """Whether the agent (or factory) of ``source`` sees cards hidden from its seat (the oracle)."""
    target = source.func if isinstance(source, functools.partial) else source
    return bool(getattr(target, "sees_hidden_cards", False))


def agent_label(name: str, source: AgentSource) -> str:
    """``name`` as reports show it: marked "(sees hidden cards)" for an agent that does."""
    from ..agents.oracle import HIDDEN_CARDS_LABEL

    if sees_hidden_cards(source) and HIDDEN_CARDS_LABEL not in name:
        return f"{name} ({HIDDEN_CARDS_LABEL})"
    return name


def source_name(source: AgentSource) -> str:
    """A short name of an agent or factory for tables: its spec for the built-in agents (``random``,
    ``heuristic``, ``search``), else its class's name."""
    target = source.func if isinstance(source, functools.partial) else source
    cls = target if inspect.isclass(target) else type(target)
    specs = {"RandomAgent": "random", "HeuristicAgent": "heuristic", "CompiledHeuristicAgent": "heuristic"}
    specs |= {"SearchAgent": "search", "ISMCTSAgent": "ismcts", "OracleAgent": "oracle"}
    return specs.get(cls.__name__, cls.__name__)


def _spec_options(spec: str, text: str, positional: str | None) -> dict[str, Any]:
    if not text:
        return {}
    if "=" not in text and positional is not None:
        text = f"{positional}={text}"
    options: dict[str, Any] = {}
    for item in text.split(","):
        try:
            key, value = parse_pair(item)
        except ValueError:
            raise ValueError(
                f"agent {spec!r}: options must be key=value pairs separated by commas, got {item!r}"
            ) from None
        options[key] = value
    return options


# ----------------------------------------------------------------------------- playing
@dataclass
class GameRecord:
    """Per-seat outcome of one episode: points, deals, knocks, flights and win shares."""

    points: list[int]
    deals: int
    knocks: list[int]
    flights: list[int]
    wins: list[float] | None  # 1/k for each of k winners; None for episode="deal"
    knock_by_score: list[dict[int, list[int]]] = field(default_factory=list)  # per seat: score -> [decisions, knocks]


def _is_factory(source: Any) -> bool:
    return isinstance(source, type) or not hasattr(source, "act")


def _check_source(name: str, source: Any) -> None:
    if not _is_factory(source):
        return
    if not callable(source):
        raise TypeError(f"agent {name!r} is neither an agent (with act) nor a factory: {source!r}")


def build_agent(source: AgentSource, seed: int) -> Any:
    """The agent of ``source`` for one game: the instance itself, or ``source(seed=seed)``."""
    if not _is_factory(source):
        return source
    agent = source(seed=seed)
    if not hasattr(agent, "act"):
        raise TypeError(f"agent factory {source!r} returned {agent!r}, which has no act(observation)")
    return agent


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
    if episode != "deal":
        winners = game.winners if game.is_over else game.rams_winners()
        wins = [1.0 / len(winners) if s in winners else 0.0 for s in range(n)]
    return GameRecord(points, deals, knocks, list(game.flights), wins, by_score)


def _play(
    config: RulesConfig,
    deal: Deal,
    lineup: Sequence[tuple[str, AgentSource]],
    seed: int,
    episode: str,
    encoder: ObservationEncoder,
) -> GameRecord:
    agents = [build_agent(src, agent_seed(seed, deal.index, s)) for s, (_, src) in enumerate(lineup)]
    return play_episode(deal.game(config), agents, episode, encoder, [name for name, _ in lineup])


def _header(kind: str, config: RulesConfig, episode: str, decks: int, seed: int, scores: str) -> dict[str, Any]:
    """The fields every result's JSON starts with: what was played, on which deal set."""
    return {
        "kind": kind,
        "config": config.to_dict(),
        "variant": config.variant,
        "num_players": config.num_players,
        "episode": episode,
        "decks": decks,
        "seed": seed,
        "start_scores": scores,
    }


# ----------------------------------------------------------------------------- duplicate evaluation
@dataclass
class AgentReport:
    """Statistics of one agent over its games (for the baseline: over its baseline-only games)."""

    name: str
    games: int
    deals: int
    points_per_deal: float
    flight_rate: float  # flights per deal played
    knock_rate: float  # knocks per deal played
    advantage: float | None = None  # mean duplicate advantage per deck (points per episode)
    advantage_ci: tuple[float, float] | None = None
    win_rate: float | None = None  # episode "rams" / "match": shared wins per game
    win_rate_ci: tuple[float, float] | None = None
    fair_share: float | None = None  # 1 / num_players: the win share of an agent no better than the others
    knock_by_score: dict[int, tuple[int, int]] = field(default_factory=dict)  # score -> (knock decisions, knocks)
    per_deck: np.ndarray | None = field(default=None, repr=False)  # duplicate advantage of each deck

    def knock_rates(self) -> dict[int, float]:
        """Knocks per knock decision, by the agent's score when it decided (ascending scores)."""
        return {s: k / d for s, (d, k) in sorted(self.knock_by_score.items()) if d}

    def to_dict(self) -> dict[str, Any]:
        """Plain data (the per-deck advantages as a list, so that intervals can be recomputed)."""
        out = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        for key in ("advantage_ci", "win_rate_ci"):
            if out[key] is not None:
                out[key] = list(out[key])
        out["knock_by_score"] = {str(s): list(v) for s, v in sorted(self.knock_by_score.items())}
        if self.per_deck is not None:
            out["per_deck"] = self.per_deck.tolist()
        return out


def _tally(name: str, records: Sequence[GameRecord], seats: Sequence[int]) -> AgentReport:
    """Pool the given seat of each record."""
    deals = sum(r.deals for r in records)
    points = sum(r.points[s] for r, s in zip(records, seats, strict=True))
    flights = sum(r.flights[s] for r, s in zip(records, seats, strict=True))
    knocks = sum(r.knocks[s] for r, s in zip(records, seats, strict=True))
    report = AgentReport(name, len(records), deals, points / deals, flights / deals, knocks / deals)
    for r, s in zip(records, seats, strict=True):
        for score, (decided, knocked) in (r.knock_by_score[s] if r.knock_by_score else {}).items():
            d, k = report.knock_by_score.get(score, (0, 0))
            report.knock_by_score[score] = (d + decided, k + knocked)
    if records[0].wins is not None:
        report.fair_share = 1.0 / len(records[0].wins)
        wins = sum(r.wins[s] for r, s in zip(records, seats, strict=True))  # type: ignore[index]
        report.win_rate = wins / len(records)
        report.win_rate_ci = wilson_interval(wins, len(records))
    return report


@dataclass
class Evaluation:
    """Result of :func:`evaluate`: one report per tested agent, and the baseline's."""

    config: RulesConfig
    episode: str
    decks: int
    seed: int
    scores: str
    baseline: AgentReport
    agents: list[AgentReport]

    def to_dict(self) -> dict[str, Any]:
        """Plain, JSON-serialisable data."""
        return {
            **_header("duplicate", self.config, self.episode, self.decks, self.seed, self.scores),
            "advantage_unit": f"points per {self.episode} (tested agent minus baseline, same deck and seat)",
            "confidence": 0.95,
            "baseline": self.baseline.to_dict(),
            "agents": [a.to_dict() for a in self.agents],
        }

    def table(self, wide: bool = False) -> str:
        """A printable table of every agent's statistics (and, for whole games, its knock rate by score).

        It fits :data:`TABLE_WIDTH` columns: the units in the header, a long agent name on a line of
        its own. ``wide=True``: the earlier table, one line per agent whatever its width.
        """
        cfg = self.config
        if not wide:
            return self._narrow_table()
        head = (
            f"{cfg.variant}, {cfg.num_players} players, episode {self.episode}: {self.decks} decks (seed {self.seed}"
            f"{_scores_note(self.scores)}), "
            f"duplicate against {self.baseline.name!r}; advantage in points per {self.episode}, 95% CIs"
        )
        if self.episode != "deal":
            head += f"; win rate = share of the {PLURAL[self.episode]} won, fair share 1/{cfg.num_players}"
            head += f" = {1 / cfg.num_players:.3f}"
        rows = [(a.name, a) for a in self.agents] + [(f"{self.baseline.name} (baseline)", self.baseline)]
        return head + "\n" + _format_rows(rows) + "\n\n" + knock_table(rows, cfg)

    def _narrow_table(self) -> str:
        cfg = self.config
        per = self.episode
        notes = [
            f"{cfg.variant}, {cfg.num_players} players, episode {per}: {self.decks} decks (seed {self.seed}"
            f"{_scores_note(self.scores)}), duplicate against {self.baseline.name!r}.",
            f"pts/deal: points per deal; adv/{per}: advantage in points per {per} (tested agent minus the "
            "baseline, same deck and seat); flights, knocks: per deal; [95% CI].",
        ]
        if per != "deal":
            notes.append(
                f"win rate: share of the {PLURAL[per]} won; fair share 1/{cfg.num_players} = "
                f"{1 / cfg.num_players:.3f} (the baseline's own, by construction)."
            )
        rows = [(a.name, a) for a in self.agents] + [(f"{self.baseline.name} (baseline)", self.baseline)]
        head = "\n".join(textwrap.fill(note, TABLE_WIDTH, subsequent_indent="  ") for note in notes)
        return head + "\n" + _narrow_rows(rows, per) + "\n\n" + knock_table(rows, cfg, TABLE_WIDTH)

    def plot_knock_rates(self, path: str | os.PathLike[str]) -> None:
        """A PNG of each agent's knock rate by its score at the decision (the baseline's too)."""
        rows = [(a.name, a) for a in self.agents] + [(f"{self.baseline.name} (baseline)", self.baseline)]
        plot_knock_rates(path, rows, self.config, f"{self.episode}, {self.decks} decks against {self.baseline.name}")

    def save_json(self, path: str | os.PathLike[str]) -> None:
        """Write :meth:`to_dict` as JSON."""
        _write_json(path, self.to_dict())

    def plot(self, path: str | os.PathLike[str]) -> None:
        """A PNG of each agent's headline with its 95% interval: win share for whole games, else advantage."""
        cfg = self.config
        if self.episode != "deal":
            rows = [(a.name, a.win_rate, a.win_rate_ci) for a in [*self.agents, self.baseline]]
            _plot_intervals(
                path,
                rows,
                xlabel=f"share of the {PLURAL[self.episode]} won (dashed: fair share 1/{cfg.num_players})",
                title=f"{cfg.variant} {cfg.num_players}p vs {self.baseline.name!r}, {self.decks} decks, 95% Wilson CI",
                zero_line=False,
                reference=1.0 / cfg.num_players,
            )
            return
        rows = [(a.name, a.advantage, a.advantage_ci) for a in self.agents]
        _plot_intervals(
            path,
            rows,
            xlabel=f"duplicate advantage over {self.baseline.name!r} (points per {self.episode})",
            title=f"{cfg.variant} {cfg.num_players}p, {self.decks} decks, 95% bootstrap CI",
            zero_line=True,
        )


def evaluate(
    agents: Mapping[str, AgentSource],
    baseline: AgentSource,
    config: RulesConfig,
    *,
    decks: int = 100,
    seed: int = 0,
    episode: str = "deal",
    scores: str = "start",
    baseline_name: str | None = None,
    resamples: int = 10_000,
    workers: int = 1,
    progress: bool = True,
    batched: bool | None = None,
) -> Evaluation:
    """Duplicate evaluation of ``agents`` (name -> agent or factory) against ``baseline`` on ``decks`` decks.

    Plays ``decks * (1 + num_players * len(agents))`` episodes; ``scores`` as in :func:`deal_set`;
    ``workers > 1`` splits the decks over spawned processes with the same numbers as one process (the
    sources must then be picklable, and a script must call this under ``if __name__ == "__main__":``).
    ``batched`` (default: whenever it can) plays the agents' games against a heuristic baseline on the
    compiled engine, each agent's decisions batched over games (:mod:`rams_env.eval.heuristic_games`):
    the same games, for greedy trained policies and episodes "deal" and "rams"; True requires it.
    ``baseline_name`` defaults to the baseline's own (``random`` for ``RandomAgent``, see :func:`source_name`).
    """
    if not agents:
        raise ValueError("evaluate needs at least one agent to test")
    if baseline_name is None:
        baseline_name = source_name(baseline)
    _check_common(config, decks, seed, episode, scores, workers)
    for name, src in {**agents, baseline_name: baseline}.items():
        _check_source(name, src)
    agents = {agent_label(name, src): src for name, src in agents.items()}
    baseline_name = agent_label(baseline_name, baseline)
    n = config.num_players
    named = list(agents.items())
    job = _DuplicateJob(config, seed, episode, scores, named, (baseline_name, baseline))
    actors = _batch_actors(named, baseline, config, episode, batched)
    if actors is None:
        by_deck = _run(job, decks, workers, progress, job.games_per_deck, "duplicate")
    else:  # the baseline's games in Python, the agents' on the compiled engine with compiled heuristics
        alone = _DuplicateJob(config, seed, episode, scores, [], (baseline_name, baseline))
        by_deck = _run(alone, decks, workers, progress, 1, "heuristics alone")
        deals = [_deal(config, seed, i, scores) for i in range(decks)]
        for (name, _), act_batch in zip(named, actors, strict=True):
            games = play_against_heuristic(
                act_batch, config, deals, lambda d, s: agent_seed(seed, d, s), episode, name=name, progress=progress
            )
            for records, deck_games in zip(by_deck, games, strict=True):
                records += deck_games
    base_records = [d[0] for d in by_deck]
    baseline_report = _tally(baseline_name, [r for r in base_records for _ in range(n)], list(range(n)) * decks)
    reports = []
    for k, (name, _) in enumerate(named):
        tested = [d[1 + k * n + s] for d in by_deck for s in range(n)]
        report = _tally(name, tested, list(range(n)) * decks)
        adv = np.array([np.mean([d[1 + k * n + s].points[s] - d[0].points[s] for s in range(n)]) for d in by_deck])
        report.per_deck = adv
        report.advantage = float(adv.mean())
        report.advantage_ci = bootstrap_interval(adv, resamples, seed)
        reports.append(report)
    return Evaluation(config, episode, decks, seed, scores, baseline_report, reports)


def _batch_actors(
    named: Sequence[tuple[str, AgentSource]],
    baseline: AgentSource,
    config: RulesConfig,
    episode: str,
    batched: bool | None,
) -> list[Any] | None:
    """Each agent's batched ``act_batch`` when the batched heuristic path can play this evaluation, else None
    (``ValueError`` when ``batched`` is True and it cannot)."""
    if batched is False:
        return None
    actors = [batch_actor(source) for _, source in named]
    why = None
    if not _is_heuristic(baseline, config):
        why = "the baseline is not the heuristic for these rules"
    elif episode not in ("deal", "rams"):
        why = f"episode {episode!r} (only 'deal' and 'rams')"
    elif None in actors:
        why = "an agent without a greedy act_batch (trained policies have one)"
    if why is None:
        return actors
    if batched:
        raise ValueError(f"batched=True, but the batched heuristic games cannot play this evaluation: {why}")
    return None


def _is_heuristic(source: AgentSource, config: RulesConfig) -> bool:
    """Whether ``source`` is the heuristic factory (``agent_source("heuristic")``) for ``config``'s rules."""
    from ..agents import CompiledHeuristicAgent, HeuristicAgent

    if not isinstance(source, functools.partial) or source.func not in (CompiledHeuristicAgent, HeuristicAgent):
        return False
    return not source.args and set(source.keywords) <= {"config"} and source.keywords.get("config") in (None, config)


@dataclass(frozen=True)
class _DuplicateJob:
    """The games of one deck: baseline alone, then each agent in each seat (picklable for workers)."""

    config: RulesConfig
    seed: int
    episode: str
    scores: str
    agents: list[tuple[str, AgentSource]]
    baseline: tuple[str, AgentSource]

    @property
    def games_per_deck(self) -> int:
        return 1 + self.config.num_players * len(self.agents)

    def lineups(self, index: int) -> Iterator[list[tuple[str, AgentSource]]]:
        n = self.config.num_players
        yield [self.baseline] * n
        for agent in self.agents:
            for seat in range(n):
                lineup = [self.baseline] * n
                lineup[seat] = agent
                yield lineup


@dataclass(frozen=True)
class _LeagueJob:
    """The games of one deck in a league: one line-up of the pool, rotated through every seat."""

    config: RulesConfig
    seed: int
    episode: str
    scores: str
    agents: list[tuple[str, AgentSource]]

    @property
    def games_per_deck(self) -> int:
        return self.config.num_players

    def lineups(self, index: int) -> Iterator[list[tuple[str, AgentSource]]]:
        n, k = self.config.num_players, len(self.agents)
        rng = random.Random(derive_seed(self.seed, _LINEUPS, index))
        if k >= n:
            pool = rng.sample(self.agents, n)
        else:  # everyone sits at the table, some twice or more
            pool = self.agents + rng.choices(self.agents, k=n - k)
            rng.shuffle(pool)
        for shift in range(n):
            yield [pool[(s - shift) % n] for s in range(n)]


def _play_decks(job: _DuplicateJob | _LeagueJob, indices: Sequence[int]) -> list[list[GameRecord]]:
    encoder = ObservationEncoder(job.config)
    out = []
    for i in indices:
        deal = _deal(job.config, job.seed, i, job.scores)
        out.append([_play(job.config, deal, lineup, job.seed, job.episode, encoder) for lineup in job.lineups(i)])
    return out


def _run(
    job: _DuplicateJob | _LeagueJob, decks: int, workers: int, progress: bool, per_deck: int, desc: str
) -> list[list[GameRecord]]:
    """Records of every deck, in deck order, computed here or in ``workers`` processes."""
    bar = tqdm(total=decks * per_deck, desc=desc, unit="game", disable=not progress, dynamic_ncols=True)
    results: list[list[GameRecord]] = []
    with bar:
        if workers == 1:
            for i in range(decks):
                results += _play_decks(job, [i])
                bar.update(per_deck)
            return results
        size = max(1, min(64, decks // (workers * 8)))
        chunks = [list(range(s, min(decks, s + size))) for s in range(0, decks, size)]
        ctx = multiprocessing.get_context("spawn")  # no fork of a process that may hold torch threads
        with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
            for chunk, records in zip(chunks, pool.map(_play_decks, [job] * len(chunks), chunks), strict=True):
                results += records
                bar.update(per_deck * len(chunk))
    return results


def _check_common(config: RulesConfig, decks: int, seed: int, episode: str, scores: str, workers: int) -> None:
    if not isinstance(config, RulesConfig):
        raise TypeError(f"config must be a RulesConfig (make_config(...)), got {type(config).__name__}")
    if isinstance(decks, bool) or not isinstance(decks, int) or decks < 1:
        raise ValueError(f"decks must be a positive int, got {decks!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative int, got {seed!r}")
    if episode not in EPISODES:
        raise ValueError(f"episode must be one of {EPISODES}, got {episode!r}")
    if scores not in SCORES:
        raise ValueError(f"scores must be one of {SCORES}, got {scores!r}")
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be a positive int, got {workers!r}")


# ----------------------------------------------------------------------------- league
@dataclass
class LeagueEntry:
    """One agent's OpenSkill rating and statistics over the league games it sat in."""

    report: AgentReport
    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        """Conservative rating mu - 3 sigma (the ranking key)."""
        return self.mu - 3.0 * self.sigma

    def to_dict(self) -> dict[str, Any]:
        """Plain data."""
        return {**self.report.to_dict(), "mu": self.mu, "sigma": self.sigma, "ordinal": self.ordinal}


@dataclass
class League:
    """Result of :func:`league`: the agents ranked by OpenSkill (Plackett-Luce) ordinal."""

    config: RulesConfig
    episode: str
    decks: int
    seed: int
    scores: str
    entries: list[LeagueEntry]

    def to_dict(self) -> dict[str, Any]:
        """Plain, JSON-serialisable data."""
        return {
            **_header("league", self.config, self.episode, self.decks, self.seed, self.scores),
            "rating": "openskill PlackettLuce, ranked by ordinal = mu - 3 sigma",
            "agents": [e.to_dict() for e in self.entries],
        }

    def table(self, wide: bool = False) -> str:
        """A printable table: rating first, then the per-deal statistics (``wide``: as :meth:`Evaluation.table`)."""
        cfg = self.config
        lines = [
            f"{cfg.variant}, {cfg.num_players} players, episode {self.episode}: league over {self.decks} decks "
            f"(seed {self.seed}{_scores_note(self.scores)}), OpenSkill Plackett-Luce",
            f"{'agent':<20}{'mu':>8}{'sigma':>8}{'ordinal':>9}",
        ]
        lines += [f"{e.report.name:<20}{e.mu:>8.2f}{e.sigma:>8.2f}{e.ordinal:>9.2f}" for e in self.entries]
        rows = [(e.report.name, e.report) for e in self.entries]
        stats = _format_rows(rows) if wide else _narrow_rows(rows, self.episode, baseline_last=False)
        return "\n".join(lines) + "\n\n" + stats

    def save_json(self, path: str | os.PathLike[str]) -> None:
        """Write :meth:`to_dict` as JSON."""
        _write_json(path, self.to_dict())

    def plot(self, path: str | os.PathLike[str]) -> None:
        """A PNG of each agent's rating mu with mu +- 3 sigma."""
        rows = [(e.report.name, e.mu, (e.mu - 3 * e.sigma, e.mu + 3 * e.sigma)) for e in self.entries]
        cfg = self.config
        _plot_intervals(
            path,
            rows,
            xlabel="OpenSkill mu (bars: mu +- 3 sigma)",
            title=f"{cfg.variant} {cfg.num_players}p league, {self.decks} decks",
            zero_line=False,
        )


def league(
    agents: Mapping[str, AgentSource],
    config: RulesConfig,
    *,
    decks: int = 100,
    seed: int = 0,
    episode: str = "deal",
    scores: str = "start",
    workers: int = 1,
    progress: bool = True,
) -> League:
    """Rate several agents sitting at one table: per deck one seeded line-up, rotated through every seat.

    With at least as many agents as seats a line-up is a seeded sample of them; with fewer, every agent
    sits and some sit twice. Each game ranks the agents at the table by their mean points in it.
    ``scores`` as in :func:`deal_set`.
    """
    from openskill.models import PlackettLuce

    if len(agents) < 2:
        raise ValueError(f"a league needs at least 2 agents, got {len(agents)}")
    _check_common(config, decks, seed, episode, scores, workers)
    for name, src in agents.items():
        _check_source(name, src)
    named = [(agent_label(name, src), src) for name, src in agents.items()]
    job = _LeagueJob(config, seed, episode, scores, named)
    by_deck = _run(job, decks, workers, progress, job.games_per_deck, "league")
    model = PlackettLuce()
    ratings = {name: model.rating(name=name) for name, _ in named}
    seats: dict[str, tuple[list[GameRecord], list[int]]] = {name: ([], []) for name, _ in named}
    for i, records in enumerate(by_deck):
        for lineup, record in zip(job.lineups(i), records, strict=True):
            points: dict[str, list[int]] = {}
            for s, (name, _) in enumerate(lineup):
                points.setdefault(name, []).append(record.points[s])
                seats[name][0].append(record)
                seats[name][1].append(s)
            names = list(points)
            rated = model.rate([[ratings[m]] for m in names], scores=[float(np.mean(points[m])) for m in names])
            for m, team in zip(names, rated, strict=True):
                ratings[m] = team[0]
    entries = [
        LeagueEntry(_tally(name, *seats[name]), ratings[name].mu, ratings[name].sigma)
        for name, _ in named
        if seats[name][0]
    ]
    entries.sort(key=lambda e: e.ordinal, reverse=True)
    return League(config, episode, decks, seed, scores, entries)


# ----------------------------------------------------------------------------- output
def _scores_note(scores: str) -> str:
    return ", random start scores" if scores == "random" else ""


def _ci(ci: tuple[float, float] | None, fmt: str) -> str:
    return "" if ci is None else f"[{ci[0]:{fmt}}, {ci[1]:{fmt}}]"


def _format_rows(rows: Sequence[tuple[str, AgentReport]]) -> str:
    """Aligned lines of (label, report); advantage and win-rate columns only where some row has them."""
    reports = [r for _, r in rows]
    show_win = any(r.win_rate is not None for r in reports)
    show_adv = any(r.advantage is not None for r in reports)
    width = max(12, *(len(label) + 2 for label, _ in rows))
    head = f"{'agent':<{width}}{'games':>8}{'deals':>9}{'pts/deal':>10}"
    if show_adv:
        head += f"{'advantage':>11}  {'95% CI':<18}"
    head += f"{'flights/deal':>14}{'knocks/deal':>13}"
    if show_win:
        head += f"{'win rate':>10}  {'95% CI':<16}"
    lines = [head.rstrip()]
    for label, r in rows:
        line = f"{label:<{width}}{r.games:>8}{r.deals:>9}{r.points_per_deal:>10.3f}"
        if show_adv:
            adv = "" if r.advantage is None else f"{r.advantage:+.3f}"
            line += f"{adv:>11}  {_ci(r.advantage_ci, '+.3f'):<18}"
        line += f"{r.flight_rate:>14.3f}{r.knock_rate:>13.3f}"
        if show_win:
            win = "" if r.win_rate is None else f"{r.win_rate:.3f}"
            line += f"{win:>10}  {_ci(r.win_rate_ci, '.3f'):<16}"
        lines.append(line.rstrip())
    return "\n".join(lines)


def _narrow_rows(rows: Sequence[tuple[str, AgentReport]], episode: str, baseline_last: bool = True) -> str:
    """:func:`_format_rows` within :data:`TABLE_WIDTH` columns: column widths from the cells, and a
    label too long for its column on a line of its own. The baseline's row (the last, when
    ``baseline_last``) shows no interval: its win rate is the fair share by construction."""
    reports = [r for _, r in rows]
    columns: list[tuple[str, list[str]]] = [
        ("games", [str(r.games) for r in reports]),
        ("deals", [str(r.deals) for r in reports]),
        ("pts/deal", [f"{r.points_per_deal:.3f}" for r in reports]),
    ]
    last = len(rows) - 1 if baseline_last else -1
    if any(r.advantage is not None for r in reports):
        cells = [
            "" if r.advantage is None or k == last else f"{r.advantage:+.3f} {_tight(r.advantage_ci, '+.3f')}"
            for k, r in enumerate(reports)
        ]
        columns.append((f"adv/{episode} [95% CI]", cells))
    columns.append(("flights", [f"{r.flight_rate:.3f}" for r in reports]))
    columns.append(("knocks", [f"{r.knock_rate:.3f}" for r in reports]))
    if any(r.win_rate is not None for r in reports):
        cells = [
            ""
            if r.win_rate is None
            else f"{r.win_rate:.3f} (fair share)"
            if k == last
            else f"{r.win_rate:.3f} {_tight(r.win_rate_ci, '.3f')}"
            for k, r in enumerate(reports)
        ]
        columns.append(("win rate [95% CI]", cells))
    widths = [max(len(name), *(len(c) for c in cells)) + 1 for name, cells in columns]  # a space before each
    label_width = max(8, *(len(label) for label, _ in rows))
    own_line = label_width + sum(widths) > TABLE_WIDTH
    if own_line:
        label_width = 2  # labels above their numbers, which are indented
    ragged = {f"adv/{episode} [95% CI]", "win rate [95% CI]"}  # left-aligned: a value and its interval
    cell = lambda text, name, w: " " + text.ljust(w - 1) if name in ragged else text.rjust(w)
    lines = ["agent".ljust(label_width) + "".join(cell(n, n, w) for (n, _), w in zip(columns, widths, strict=True))]
    for i, (label, _) in enumerate(rows):
        line = "" if own_line else label.ljust(label_width)
        line += "".join(cell(cells[i], name, w) for (name, cells), w in zip(columns, widths, strict=True))
        if own_line:
            lines.append(label)
            line = " " * label_width + line
        lines.append(line.rstrip())
    return "\n".join(line.rstrip() for line in lines)


def _tight(ci: tuple[float, float] | None, fmt: str) -> str:
    """An interval without the space after its comma (``[0.104,0.171]``): the narrow table's."""
    return "" if ci is None else f"[{ci[0]:{fmt}},{ci[1]:{fmt}}]"


def score_bins(config: RulesConfig) -> list[tuple[int, int]]:
    """Score ranges (low, high) for knock rates: each Swedish score, tenths of the start score in russian."""
    if config.swedish:
        return [(s, s) for s in range(1, config.flight_cap + 1)]
    width = max(1, config.start_score // 10)
    return [(1 + k * width, (k + 1) * width) for k in range(10)]


def binned_knock_rates(report: AgentReport, config: RulesConfig) -> list[tuple[str, int, float | None]]:
    """(score range, knock decisions, knock rate or None) for each of :func:`score_bins`."""
    out = []
    for low, high in score_bins(config):
        decided = knocked = 0
        for score, (d, k) in report.knock_by_score.items():
            if low <= score <= high or (high == config.start_score and score > high):
                decided, knocked = decided + d, knocked + k
        out.append((_bin_label(low, high), decided, knocked / decided if decided else None))
    return out


def knock_table(rows: Sequence[tuple[str, AgentReport]], config: RulesConfig, fit: int | None = None) -> str:
    """Knock rate (knocks per knock decision) by the agent's score when it decided, one line per agent.

    ``fit``: a width in columns; a name that would make a line wider goes on a line of its own."""
    labels = [_bin_label(low, high) for low, high in score_bins(config)]
    width = max(12, *(len(label) + 2 for label, _ in rows))
    if fit is not None:  # the rates are right-aligned in 8 columns: no space needed after a name
        width = max(len("knock rate by score"), *(len(label) for label, _ in rows))
    own_line = fit is not None and width + 8 * len(labels) > fit
    width = 20 if own_line else width
    lines = [f"{'knock rate by score':<{width}}" + "".join(f"{label:>8}" for label in labels)]
    for name, report in rows:
        cells = binned_knock_rates(report, config)
        rates = "".join(f"{'-' if r is None else f'{r:.2f}':>8}" for _, _, r in cells)
        lines += [name, " " * width + rates] if own_line else [f"{name:<{width}}" + rates]
    return "\n".join(lines)


def _bin_label(low: int, high: int) -> str:
    return str(low) if low == high else f"{low}-{high}"


def plot_knock_rates(
    path: str | os.PathLike[str], rows: Sequence[tuple[str, AgentReport]], config: RulesConfig, subtitle: str
) -> None:
    """Knock rate against score, one line per agent, each point with its Wilson 95% interval."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    try:
        for k, (name, report) in enumerate(rows):
            cells = binned_knock_rates(report, config)
            xs = [i for i, (_, d, _) in enumerate(cells) if d]
            rates = [cells[i][2] for i in xs]
            cis = [wilson_interval(cells[i][2] * cells[i][1], cells[i][1]) for i in xs]  # type: ignore[operator]
            lo = [max(0.0, r - c[0]) for r, c in zip(rates, cis, strict=True)]  # rounding can cross the rate
            hi = [max(0.0, c[1] - r) for r, c in zip(rates, cis, strict=True)]
            ax.errorbar(xs, rates, yerr=[lo, hi], marker="o", capsize=3, label=name, color=f"C{k}")
        ax.set_xticks(range(len(score_bins(config))), [_bin_label(low, high) for low, high in score_bins(config)])
        ax.set_ylim(-0.02, 1.02)
        ax.set_xlabel("own score at the knock decision (lower is closer to winning)")
        ax.set_ylabel("knocks per decision")
        ax.set_title(f"{config.variant} {config.num_players}p knock rate by score ({subtitle})", fontsize=9)
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(path, format="png", dpi=100)
    finally:
        plt.close(fig)


def _write_json(path: str | os.PathLike[str], data: dict[str, Any]) -> None:
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=2)
        f.write("\n")


def _plot_intervals(
    path: str | os.PathLike[str],
    rows: Sequence[tuple[str, float | None, tuple[float, float] | None]],
    xlabel: str,
    title: str,
    zero_line: bool,
    reference: float | None = None,
) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 1.2 + 0.5 * len(rows)))
    try:
        for y, (_, value, ci) in enumerate(rows):
            lo, hi = ci if ci is not None else (value, value)
            ax.errorbar([value], [y], xerr=[[value - lo], [hi - value]], fmt="o", capsize=4, color="C0")
        if zero_line or reference is not None:
            ax.axvline(reference or 0.0, color="grey", linewidth=1, linestyle="--")
        ax.set_yticks(range(len(rows)), [name for name, _, _ in rows])
        ax.set_ylim(-0.7, len(rows) - 0.3)
        ax.invert_yaxis()
        ax.set_xlabel(xlabel)
        ax.set_title(title)
        fig.tight_layout()
        fig.savefig(path, format="png", dpi=100)
    finally:
        plt.close(fig)
