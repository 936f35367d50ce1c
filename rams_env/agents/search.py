"""Determinized search (perfect-information Monte Carlo) over clones of the rules engine.

At each decision with more than one legal action the agent samples ``simulations`` worlds: the
cards hidden from its seat are dealt again among the places it cannot see into (other hands,
the talon, face-down piles), consistently with everything the seat knows. Every legal action is
then tried in every world and the deal is played out by the rollout policy; an action's value is
its mean result for the seat: its score decrease over the rest of the deal (``objective="points"``)
or its chance to win the rams after the deal (``objective="win"``: the rams equity model of
:mod:`rams_env.equity` from the next deal's start, or the real result where the rams ends). The
same worlds serve all actions (common random numbers). ``rollout_policy=`` a trained policy plays the
rollouts instead of the fast rollout rule, one batched forward pass per ply over all the worlds.

Learned beliefs (``beliefs=``): the worlds are drawn from a belief network's probabilities of where
each hidden card lies (:mod:`rams_env.agents.beliefs`), within the same constraints.

Beliefs from decisions (``opponent_model=``): the worlds can be filtered by how likely the opponents' decisions so
far in the deal are under a model of their play (the heuristic, or a policy). At a knock, each world
replays the knock round with the model in the sampled hands (the engine's
:func:`~rams_env.rules.determinize.knock_turn`); in the play, it replays the play from its start
(:func:`~rams_env.rules.determinize.play_start`). Each decision the model would not have made keeps
the world with the odds ``belief_noise / (1 - belief_noise)`` (the model errs with that chance), and
at most ``belief_draws`` candidates are drawn per world searched (the likeliest of them where none is
kept). The play does not weigh the knocks: once cards are bought, a world no longer tells the hands
that were dealt.

The :class:`~rams_env.agents.HeuristicAgent`'s choice is the default (``base=`` another agent, a
policy for instance, which then also plays the decisions not searched: ``phases=``): the search
replaces it by the best-valued action only when that is better by more than ``confidence`` standard
errors of the paired differences. The knock decision gets ``KNOCK_WORLDS`` times the worlds. Buying (one
discard at a time) is left to the heuristic: there the lookahead's differences were within its
noise and its choices measured no better. The rollout policy plays and buys as the heuristic does (from what each
player knows in the sampled world: its hand, the cards seen, the counts), knocks by a quick
trick count, and makes no bids. So the search is a one-step lookahead over the heuristic, which
it improves where the sampled futures clearly say so.

What the seat knows, and the sampler respects, is listed in :mod:`rams_env.agents.deal_sampler`.

Interface: the search needs the game's public history, which the observation vector does not
hold. So besides ``act(observation)`` every agent of this package has ``act_game(game, seat)``;
the evaluation harness calls it when present. ``SearchAgent.act_game`` clones the real game and
re-deals every card hidden from ``seat`` before it searches, so it uses only what ``seat`` may
know. ``SearchAgent(env=...)`` makes plain ``act(observation)`` work by reading the current game
and acting seat from ``env.unwrapped``. Without ``env=``, ``act(observation)`` raises a
``ValueError`` saying so: the observation alone is not enough to search, and playing the
heuristic instead would pass off another agent's play as the search's. (docs/contract.md promises
agents that need no other argument only for ``RandomAgent`` and ``HeuristicAgent``.)
"""

from __future__ import annotations

import math
import numbers
import random
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from ..equity import equity
from ..rules import Game, Phase, TurnedAt
from ..rules.actions import Action
from ..rules.cards import (
    ACE,
    NUM_CARDS,
    ace_value,
    deck_cards,
    rank_of,
    suit_of,
)
from ..rules.config import RulesConfig
from ..rules.determinize import knock_turn, play_start
from ..rules.seeding import check_seed
from .base import Observation, game_behind, observe
from .beliefs import load_beliefs_option
from .compiled_heuristic import CompiledHeuristicAgent
from .deal_sampler import DealSampler
from .heuristic import HeuristicAgent, Opponent, Situation, choose_play
from .specs import agent_option

PASS, KNOCK, NO_BID, REJECT, DRAW = (
    int(a) for a in (Action.PASS, Action.KNOCK, Action.NO_BID, Action.REJECT, Action.DRAW)
)
OBJECTIVES = ("points", "win")  # what a rollout scores: the seat's points in the deal, or its chance to win the rams
PHASES = {"bid": (Phase.BID, Phase.ANSWER), "knock": (Phase.KNOCK,), "play": (Phase.PLAY,)}  # what can be searched
BELIEF_DRAWS = 8  # default candidate worlds drawn per world searched when an opponent model filters them
KNOCK_WORLDS = 4  # the knock decision (two actions, the largest stakes) samples this many times more worlds

# Rollout knock rule: trick chance of a card, by rank (2..A), as trump and as a side card.
_TRUMP_CHANCE = (0.22, 0.22, 0.22, 0.22, 0.24, 0.26, 0.28, 0.32, 0.38, 0.45, 0.6, 0.8, 1.0)
_SIDE_CHANCE = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.01, 0.02, 0.03, 0.05, 0.1, 0.22, 0.55)
_DRAW_CHANCE = 0.2  # about the trick chance of a card drawn from the talon (the heuristic's average)
_DECKS = {size: frozenset(deck_cards(size)) for size in (32, 52)}


class SearchAgent:
    """Perfect-information Monte Carlo search over re-dealt clones of the game (module docstring).

    ``simulations``: worlds sampled per decision (each legal action is played out in each; the
    knock gets ``KNOCK_WORLDS`` times as many; docs/performance.md gives the time per deal);
    ``simulations=10`` is a cheap budget for tests. ``time_limit``: optional
    seconds per decision, checked between worlds (at least one world). ``seed``: seeds the sampling
    and the rollouts (a Python or numpy integer). ``env``: a rams_env AEC env (wrapped or raw) so
    that ``act(observation)`` can read the game: ``SearchAgent(env=...)`` is required for
    ``act(observation)`` (without it ``act`` raises ``ValueError``), not for ``act_game(game,
    seat)``, which the evaluation harness calls. ``confidence``: standard errors by which the
    search must beat the base's choice to replace it. ``objective``: ``"points"`` scores a
    rollout by the seat's points in the deal, ``"win"`` by its chance to win the rams after it.
    ``rollout_policy``: None for the fast rollout rule, or the policy that plays the rollouts in every
    seat (a zoo name, a checkpoint path, or an agent with ``act_batch``; needs torch).
    ``base``: the agent whose choice is kept unless the search beats it, and who plays the decisions
    not searched: ``"heuristic"``, a zoo name, a checkpoint path, or an agent with ``act_game``.
    ``phases``: what is searched, among ``bid``, ``knock``, ``play`` (a sequence, or a string joined by
    ``+``: ``"knock+play"``); buying is never searched. ``opponent_model``: None, ``"heuristic"``, or a
    policy as for ``base``, to filter the worlds by the opponents' knocks and passes, or their cards played
    (module docstring); ``belief_noise``: the chance that an opponent decides against the model;
    ``belief_draws``: the most candidate worlds drawn per world searched. ``beliefs``: None, or learned
    beliefs to draw the worlds from (:mod:`rams_env.agents.beliefs`: a preset's name for its shipped
    network, a belief model's name, a file, or a network; needs torch), with or without ``opponent_model``.
    """

    def __init__(
        self,
        simulations: int = 40,
        seed: int | None = None,
        time_limit: float | None = None,
        env: Any = None,
        confidence: float = 1.0,
        objective: str = "points",
        rollout_policy: Any = None,
        base: Any = "heuristic",
        phases: Any = tuple(PHASES),
        opponent_model: Any = None,
        belief_noise: float = 0.1,
        belief_draws: int = BELIEF_DRAWS,
        beliefs: Any = None,
    ) -> None:
        if objective not in OBJECTIVES:
            raise ValueError(f"objective must be one of {', '.join(OBJECTIVES)}, got {objective!r}")
        if isinstance(simulations, bool) or not isinstance(simulations, int) or simulations < 1:
            raise ValueError(f"simulations must be a positive int, got {simulations!r}")
        if time_limit is not None and not (_is_number(time_limit) and time_limit > 0):
            raise ValueError(f"time_limit must be a positive number of seconds or None, got {time_limit!r}")
        if not (_is_number(confidence) and confidence >= 0):
            raise ValueError(f"confidence must be a number of standard errors >= 0, got {confidence!r}")
        seed = check_seed(seed)
        self.simulations = simulations
        self.time_limit = time_limit
        self.rng = random.Random(seed)
        self.env = env
        self.confidence = confidence
        self.objective = objective
        if rollout_policy is not None and time_limit is not None:
            raise ValueError(
                "time_limit times the rollout rule's worlds one by one; with rollout_policy set simulations"
            )
        if not (_is_number(belief_noise) and 0 < belief_noise < 0.5):
            raise ValueError(f"belief_noise must be a chance in (0, 0.5), got {belief_noise!r}")
        if isinstance(belief_draws, bool) or not isinstance(belief_draws, int) or belief_draws < 1:
            raise ValueError(f"belief_draws must be a positive int, got {belief_draws!r}")
        self.belief_draws = belief_draws
        self.rollout_agent = agent_option(rollout_policy, "rollout_policy", "act_batch", keep=(None,))
        self.base = agent_option(base, "base", "act_game", keep=("heuristic",))
        self.opponent_model = agent_option(opponent_model, "opponent_model", "act_game", keep=("heuristic", None))
        self.phases = _phases(phases)
        self.beliefs = load_beliefs_option(beliefs)
        self.belief_noise = float(belief_noise)
        self._seed = seed
        self._heuristics: dict[tuple[RulesConfig, bool], Any] = {}

    def seed(self, seed: int | None) -> None:
        """Reseed the sampling, the rollouts and the heuristics it builds, and through their own
        ``seed`` the agents given as ``base``, ``opponent_model`` and ``rollout_policy`` (each with a seed
        drawn from ``seed``): the same seed, the same actions from here on (unless ``time_limit`` is set)."""
        seed = check_seed(seed)
        self.rng = random.Random(seed)
        self._seed = seed
        self._heuristics = {}
        draws = random.Random(seed)
        for agent in (self.base, self.opponent_model, self.rollout_agent):
            reseed = getattr(agent, "seed", None)
            if callable(reseed):
                reseed(None if seed is None else draws.getrandbits(63))

    def act(self, observation: Observation) -> int:
        """A legal action for ``observation`` of the env's player to act.

        Needs ``SearchAgent(env=...)`` to find the game behind the observation (the search needs
        the public history, which the observation vector does not hold): without it, a
        ``ValueError`` says to pass ``env=`` or to call ``act_game(game, seat)``.
        """
        game = game_behind(self.env, observation, "SearchAgent")
        return self.act_game(game, game.current_player)

    def _agent(self, option: Any, config: RulesConfig, compiled: bool = False) -> Any:
        """The agent of an agent option for ``config``: for ``"heuristic"`` the seeded heuristic (its
        compiled twin if ``compiled``: the same decisions, but for the draws of its bids)."""
        if option != "heuristic":
            return option
        if (config, compiled) not in self._heuristics:
            kind = CompiledHeuristicAgent if compiled else HeuristicAgent
            self._heuristics[config, compiled] = kind(config, seed=self._seed)
        return self._heuristics[config, compiled]

    def _prior(self, config: RulesConfig) -> Any:
        """The agent whose choice the search keeps unless it finds a clearly better one (``base``)."""
        return self._agent(self.base, config)

    def _model(self, config: RulesConfig) -> Any:
        """The opponent model that filters the worlds (the compiled heuristic for ``"heuristic"``)."""
        return self._agent(self.opponent_model, config, compiled=True)

    def act_game(self, game: Game, seat: int) -> int:
        """The searched action of ``seat`` (the player to act), using only what ``seat`` may know."""
        return self.search(game, seat)[0]

    def _worlds(self, game: Game, seat: int) -> Callable[[random.Random], Game]:
        """What draws the worlds searched: re-deals of the cards hidden from ``seat``, from the learned
        beliefs where ``beliefs`` is set."""
        if self.beliefs is not None:
            return self.beliefs.worlds(game, seat)
        return DealSampler(game, seat).sample

    def search(self, game: Game, seat: int) -> tuple[int, list[int], list[list[float]]]:
        """The searched action of ``seat``, the legal actions, and the rollout results (a row per
        world, a column per legal action; none where the heuristic's choice is kept unsearched)."""
        if game.current_player != seat:
            raise ValueError(f"seat {seat} is not to act (current player: {game.current_player})")
        legal = game.legal_actions()
        if len(legal) == 1:
            return legal[0], legal, []
        prior = self._prior(game.config).act_game(game, seat)
        if game.phase not in self.phases:
            return prior, legal, []
        worlds = self.simulations * (KNOCK_WORLDS if game.phase == Phase.KNOCK else 1)
        sample = self._worlds(game, seat)
        model = self._model(game.config) if game.phase in (Phase.KNOCK, Phase.PLAY) else None
        if model is not None:
            sample = believed_worlds(sample, game, model, self.belief_noise, self.belief_draws)
        results: list[list[float]] = []
        start = time.perf_counter()
        before = game.scores[seat]
        ends: list[Game] = []
        for done in range(worlds):
            if self.time_limit is not None and done and time.perf_counter() - start > self.time_limit:
                break
            world = sample(self.rng)
            for action in legal:
                clone = world.clone()
                clone.apply(action)
                if self.rollout_agent is None:
                    rollout(clone, self.rng)
                ends.append(clone)
        if self.rollout_agent is not None:
            policy_rollouts(ends, self.rollout_agent)
        width = len(legal)
        results = [[before - g.scores[seat] for g in ends[k : k + width]] for k in range(0, len(ends), width)]
        if self.objective == "win":
            chances = rams_chances(ends, seat)
            results = [chances[k : k + width] for k in range(0, len(ends), width)]
        return legal[_choose(results, legal.index(prior), self.confidence)], legal, results


def believed_worlds(
    sample: Callable[[random.Random], Game], game: Game, model: Any, noise: float, draws: int = BELIEF_DRAWS
) -> Callable[[random.Random], Game]:
    """``sample`` filtered by the opponent ``model``: a world is kept with the odds ``noise / (1 - noise)``
    per decision so far that ``model`` would not have made in it (rejection sampling of the worlds given
    the decisions seen), at most ``draws`` draws, else the likeliest world drawn. The decisions
    are the knocks and passes in the knock round, the cards the opponents played in the play."""
    odds = noise / (1.0 - noise)
    seat = game.current
    if game.phase == Phase.KNOCK:
        order = [(game.forehand + i) % game.n for i in range(game.n)]
        decided = order[: order.index(seat)]
        if not decided:
            return sample

        def weight(world: Game) -> float:
            w = 1.0
            for j in decided:
                before = knock_turn(world, j)
                if len(before.legal_actions()) > 1 and (model.act_game(before, j) == KNOCK) != world.active[j]:
                    w *= odds
            return w

    else:
        plays = [(s, c) for cards, _ in game.completed for s, c in cards] + list(game.trick)
        if all(s == seat for s, _ in plays):
            return sample

        def weight(world: Game) -> float:
            w, replay = 1.0, play_start(world)
            for s, card in plays:
                if s != seat and len(replay.legal_actions()) > 1 and model.act_game(replay, s) != card:
                    w *= odds
                replay.apply(card)
            return w

    def believed(rng: random.Random) -> Game:
        best, best_weight = None, -1.0
        for _ in range(draws):
            world = sample(rng)
            w = weight(world)
            if rng.random() < w:
                return world
            if w > best_weight:
                best, best_weight = world, w
        return best

    return believed


def _phases(value: Any) -> tuple[Phase, ...]:
    """The phases to search, from names (a sequence, or a string joined by "+")."""
    names = value.split("+") if isinstance(value, str) else value
    try:
        names = list(names)
    except TypeError:
        names = [value]
    unknown = [p for p in names if not isinstance(p, str) or p not in PHASES]
    if unknown or not names:
        raise ValueError(f"phases must name some of {', '.join(PHASES)}, got {value!r}")
    return tuple(phase for p in names for phase in PHASES[p])


def policy_rollouts(games: list[Game], agent: Any) -> None:
    """Play every game of ``games`` to the end of its deal with ``agent`` in every seat: one batched
    ``agent.act_batch`` per ply over the games still in play (forced moves are played at once)."""
    live = [g for g in games if g.phase < Phase.DEAL_OVER]
    while live:
        asked: list[Game] = []
        for g in live:
            legal = g.legal_actions()
            if len(legal) == 1:
                g.apply(legal[0])
            else:
                asked.append(g)
        if asked:
            seen = [observe(g, g.current) for g in asked]
            obs = np.stack([o["observation"] for o in seen])
            masks = np.stack([o["action_mask"] for o in seen])
            for g, action in zip(asked, agent.act_batch(obs, masks).tolist(), strict=True):
                g.apply(action)
        live = [g for g in live if g.phase < Phase.DEAL_OVER]


def rams_chances(games: list[Game], seat: int) -> list[float]:
    """``seat``'s chance to win the rams after each of ``games`` (each at the end of a deal): its share
    of the win where the rams ended, else the equity model's chance from the next deal's start (the
    forehand deals it), in one batched call of :func:`rams_env.equity.equity`."""
    if not games:
        return []
    out = [0.0] * len(games)
    going = [k for k, g in enumerate(games) if not g.rams_over]
    for k, g in enumerate(games):
        if g.rams_over:
            winners = g.rams_winners() or ()
            out[k] = 1.0 / len(winners) if seat in winners else 0.0
    if going:
        config = games[0].config
        scores = [games[k].scores for k in going]
        dealers = [games[k].forehand for k in going]
        chances = equity(config, scores, dealers)[:, seat]
        for k, chance in zip(going, chances.tolist(), strict=True):
            out[k] = chance
    return out


def _is_number(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _choose(results: list[list[float]], prior: int, confidence: float) -> int:
    """The best action by mean result if it beats the prior's by ``confidence`` standard errors, else the prior."""
    worlds = len(results)
    means = [sum(col) / worlds for col in zip(*results, strict=True)]
    best = max(range(len(means)), key=lambda i: means[i])
    if worlds < 2 or best == prior:
        return prior
    diffs = [row[best] - row[prior] for row in results]
    mean = sum(diffs) / worlds
    var = sum((d - mean) ** 2 for d in diffs) / (worlds - 1)
    return best if mean > confidence * math.sqrt(var / worlds) else prior


# ---------------------------------------------------------------------------- rollouts
def rollout(game: Game, rng: random.Random) -> None:
    """Play ``game`` to the end of the deal with the fast rollout policy."""
    while game.phase < Phase.DEAL_OVER:
        game.apply(rollout_action(game, rng))


def _chance(card: int, trump: int) -> float:
    return (_TRUMP_CHANCE if suit_of(card) == trump else _SIDE_CHANCE)[rank_of(card)]


def rollout_action(game: Game, rng: random.Random) -> int:
    """The rollout policy's action for the player to act (module docstring)."""
    legal = game.legal_actions()
    if len(legal) == 1:
        return legal[0]
    phase, seat, trump = game.phase, game.current, game.trump
    hand = game.hands[seat]
    if phase == Phase.PLAY:
        return _heuristic_play(game, legal)
    if phase == Phase.BUY:
        return _heuristic_buy(game, legal)
    if phase == Phase.KNOCK:
        chances = sorted((max(_chance(c, trump), _DRAW_CHANCE) for c in hand), reverse=True)[:5]
        expected, zero = sum(chances), 1.0
        for p in chances:
            zero *= 1.0 - p
        cost, bonus = _stakes(game, seat)
        value = expected + bonus * (1.0 - zero) - cost * zero
        return KNOCK if value > 0.0 or (value > -0.3 and rng.random() < 0.5) else PASS
    return NO_BID if phase == Phase.BID else REJECT


def _stakes(game: Game, seat: int) -> tuple[float, float]:
    cfg = game.config
    if cfg.swedish:
        score = game.scores[seat]
        return float(max(0, min(score + cfg.flight_fine, cfg.flight_cap) - score)), 0.0
    aces = ace_value(game.hands[seat])
    return (float(cfg.flight_fine) if game.jacks[seat] else cfg.flight_fine + aces), float(aces)


def _situation(game: Game, seat: int) -> Situation:
    """Unseen cards and active opponents as ``seat`` sees them in this (sampled) game."""
    dealer, turned = game.dealer, game.turned
    seen = set(game.hands[seat])
    seen.update(game.out_public, game.out_hidden[seat])
    for cards, _ in game.completed:
        seen.update(c for _, c in cards)
    seen.update(c for _, c in game.trick)
    known: frozenset[int] = frozenset()
    if game.turned_at == TurnedAt.TABLE:
        seen.add(turned)
    elif game.turned_public and game.turned_at == TurnedAt.DEALER and dealer != seat:
        seen.add(turned)
        known = frozenset((turned,))
    opponents = [
        Opponent(j, 1.0, len(game.hands[j]), known if j == dealer else frozenset())
        for j in range(game.n)
        if j != seat and game.active[j]
    ]
    return Situation(game.trump, _DECKS[game.config.deck_size] - seen, opponents)


def _heuristic_play(game: Game, legal: list[int]) -> int:
    """The heuristic's choice of card, from what the player to act knows in this (sampled) game."""
    seat = game.current
    cost, bonus = _stakes(game, seat) if game.tricks_won[seat] == 0 else (0.0, 0.0)
    return choose_play(_situation(game, seat), game.hands[seat], legal, game.trick, cost + bonus)


def _heuristic_buy(game: Game, legal: list[int]) -> int:
    """Throw the weakest card while its trick chance is below a card's from the talon (russian: keep aces)."""
    seat = game.current
    hand = game.hands[seat]
    cards = [a for a in legal if a < NUM_CARDS]
    if not cards:
        return DRAW
    sit = _situation(game, seat)
    keep_aces = not game.config.swedish
    worst = min(cards, key=lambda c: (keep_aces and rank_of(c) == ACE, sit.card_chance(c, hand, planning=True)))
    if DRAW not in legal or game.take_pending:
        return worst
    weak = sit.card_chance(worst, hand, planning=True) < _DRAW_CHANCE and not (keep_aces and rank_of(worst) == ACE)
    return worst if weak else DRAW
