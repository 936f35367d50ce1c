"""OpenSpiel: Rams as a Python OpenSpiel game (``python_rams``), and OpenSpiel's ISMCTS as a Rams agent.

Needs the ``rams_env[openspiel]`` extra (the ``open_spiel`` package). Importing this module registers
the game with pyspiel::

    import pyspiel
    import rams_env.integrations.openspiel  # registers python_rams

    game = pyspiel.load_game("python_rams", {"variant": "russian", "players": 4, "episode": "rams"})
    game = pyspiel.load_game("python_rams(variant=mattmar,players=5,rules=flight_fine:3;bids:false)")

Parameters (all optional):

- ``variant`` (``"mattmar"``), ``players`` (4), ``episode`` (``"deal"``, ``"rams"``, ``"match"``) and
  ``reward`` (``"points"``, ``"win"``), as for ``rams_env.env`` (docs/contract.md);
- ``rules``: rule options of :func:`rams_env.rules.make_config` as ``"option:value;option:value"``
  (``"start_score:150"``; OpenSpiel's game strings forbid ``=`` and ``,`` inside a value);
- ``dealer``: the first dealer's seat, or -1 (default) for a chance node that draws it;
- ``scores``: the seats' scores at the first deal, ``"3;5;7;10"`` (default: the start score);
- ``max_deals``: an episode of ``"rams"`` or ``"match"`` stops (terminal, truncated) after this many
  deals; 0 (default) means 1000, which no game of our tests came near (russian, random play: 31 at
  most in 100 games). OpenSpiel needs a finite ``max_game_length``.

The game plays exactly the games of :class:`rams_env.rules.Game`: every state holds a real ``Game``
and every player action is the engine's action (ids 0-59 as in docs/contract.md). Chance is explicit: a
node draws the first dealer (unless ``dealer`` is given), then every deal is dealt by one chance node
per card of the deck, top card first (uniform over the cards not yet placed). The deck so drawn is the
engine's ``deck`` (docs/rules.md "Dealing"), so the same cards give the same deal, and later deals of a
rams or match are dealt by the same chance nodes (the engine's own shuffle is not used).

Returns: ``reward="points"``: each seat's score decrease over the episode so far (the sum of the env's
rewards; a new rams' fresh scores are no reward), with intermediate rewards (``rewards()``) after
every action; ``reward="win"``: at the end +1 shared among the winners, -1 shared among the others
(a truncated episode: the lowest score, in a match the lowest total, wins).

Observations, for a player ``p``:

- tensors (information state and observation alike): the project's encoder
  (:class:`rams_env.obs.encoding.ObservationEncoder`, ``OBS_SIZE`` floats, named pieces as in its
  ``FIELDS``); it holds only what ``p`` may know (docs/rules.md "What each player knows"). It sums up the current deal
  (and the scores, flights and totals of the episode); it is not a perfect-recall history, so
  OpenSpiel's tabular methods should use the strings.
- information state string: ``p``'s perfect-recall history: every action as ``p`` saw it (other
  players' discards as ``x`` without the card), and after each step what changed for ``p``: its hand,
  the scores, cards shown, cards turned face up, the trump card.
- observation string: the engine's ``view(p)`` (docs/contract.md) as compact JSON.

``resample_from_infostate(p, sampler)`` re-deals the cards of the current deal hidden from ``p``
(placement by :class:`rams_env.agents.search.DealSampler`: voids and other holdings ruled out by the
play, the turned card, shown cards, russian passed hands without aces), rebuilds a deck and the
hidden discards that lead there, and replays the deal from its first card: the result is a state of
the game reached by a full, legal history, and it is accepted only when ``p``'s information state
string is the same as in the original (else it samples again; a ``RuntimeError`` after 300 tries,
which the tests never met after the russian shown jacks got their own handling). Shown jacks are
placed where the history needs them (dealt, and discarded at the step where they were shown). The
sampler's weighting (weak cards are likelier among the cards bought away) stays: the resampled
worlds are consistent, not an exact posterior. Earlier deals of the episode are kept as they were:
their hidden cards have no bearing on the rest of the game.

``clone()`` copies the engine state (no deep copy); serialisation (``pyspiel.serialize_game_and_state``)
pickles it.

The agent :class:`ISMCTSAgent` (``rams eval ismcts:200``) runs OpenSpiel's Python ``ISMCTSBot`` on a
state rebuilt from the engine game (:func:`state_from_game`), with uniformly random rollouts (default:
as OpenSpiel's ``RandomRolloutEvaluator``, run on the engine; ``evaluator=openspiel_random`` uses that
class itself) or the search agent's rollout policy (``evaluator=heuristic``).
"""

from __future__ import annotations

import json
import random
import time
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from ..agents.base import Observation, legal_from_mask
from ..agents.search import DealSampler, HiddenCards, rollout_action
from ..envs.aec import seed_int
from ..envs.episode import EPISODES, REWARDS, check_episode, episode_ends, shared_win
from ..keyvalue import parse_value
from ..obs.encoding import FIELDS, OBS_SIZE, SLICES, ObservationEncoder
from ..rules import Game, IllegalActionError, Phase, RulesConfig, card_name, deck_cards, make_config
from ..rules.actions import NUM_ACTIONS, Action
from ..rules.cards import NUM_CARDS
from ..rules.config import OPTION_NAMES, RUSSIAN

SHORT_NAME = "python_rams"
DEFAULT_MAX_DEALS = 1000
PASS, KNOCK, BID_BETTER, BID_SWING, NO_BID, ACCEPT, REJECT, DRAW = (int(a) for a in Action)
_CALL_CODES = {PASS: "p", KNOCK: "k", BID_BETTER: "b", BID_SWING: "w", NO_BID: "n", ACCEPT: "a", REJECT: "r", DRAW: "g"}
_NAMES = tuple(card_name(c) for c in range(NUM_CARDS))

_PARAMETERS: dict[str, Any] = {
    "variant": "mattmar",
    "players": 4,
    "episode": "deal",
    "reward": "points",
    "rules": "",
    "dealer": -1,
    "scores": "",
    "max_deals": 0,
}

_GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Rams (rams_env)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.REWARDS,
    max_num_players=7,
    min_num_players=3,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_PARAMETERS,
)


# ----------------------------------------------------------------------------- parameters
def parse_rules(text: str) -> dict[str, Any]:
    """``"start_score:150;bids:false"`` as ``{"start_score": 150, "bids": False}`` (``=`` works too)."""
    options: dict[str, Any] = {}
    for item in str(text).replace(",", ";").split(";"):
        if not item.strip():
            continue
        sep = ":" if ":" in item else "="
        key, found, value = item.partition(sep)
        if not found or not key.strip() or not value.strip():
            raise ValueError(f"rules: expected option:value items separated by ';', got {item!r}")
        options[key.strip()] = parse_value(value.strip())
    return options


_INT_MAX = 2**31 - 1  # OpenSpiel's C++ int parameters and lengths
_TEXT_MAX = 2000  # characters of a text parameter (rules, scores)
_KINDS = {"variant": str, "players": int, "episode": str, "reward": str, "rules": str, "dealer": int}
_KINDS |= {"scores": str, "max_deals": int}


def check_parameters(params: dict[str, Any]) -> None:
    """``ValueError`` naming the first parameter of the wrong type or out of range (see the module docstring).

    Integers must fit OpenSpiel's C++ int; texts are at most ``_TEXT_MAX`` characters; ``players``,
    ``dealer``, ``scores`` and ``max_deals`` are then checked against the rules by the game itself.
    """
    for name, value in params.items():
        kind = _KINDS.get(name)
        if kind is None:
            continue
        if kind is int:
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                raise ValueError(f"{name} must be an integer, got {value!r}"[:300])
            if not -_INT_MAX <= int(value) <= _INT_MAX:
                raise ValueError(f"{name} must be an integer from -{_INT_MAX} to {_INT_MAX}, got {value}"[:300])
        elif not isinstance(value, str) or len(value) > _TEXT_MAX:
            got = f"{len(value):,} characters" if isinstance(value, str) else repr(value)[:100]
            raise ValueError(f"{name} must be a string of at most {_TEXT_MAX} characters, got {got}")


def _named_config_error(message: str) -> str:
    """A rules error said with the parameter's name: ``players`` for ``num_players``, else ``rules``/``variant``."""
    if "num_players=" in message:
        return f"players: {message}"
    if message.startswith("unknown variant"):
        return f"variant: {message}"
    return f"rules: {message}"


def rules_string(config: RulesConfig) -> str:
    """The ``rules`` parameter giving ``config``'s options that differ from its preset's."""
    preset = make_config(config.variant, config.num_players)
    diff = [(name, getattr(config, name)) for name in OPTION_NAMES if getattr(config, name) != getattr(preset, name)]
    return ";".join(f"{name}:{str(value).lower() if isinstance(value, bool) else value}" for name, value in diff)


def game_parameters(config: RulesConfig, episode: str = "deal", reward: str = "points") -> dict[str, Any]:
    """The ``pyspiel.load_game(SHORT_NAME, params)`` parameters of a rules configuration."""
    return {
        "variant": config.variant,
        "players": config.num_players,
        "episode": episode,
        "reward": reward,
        "rules": rules_string(config),
    }


def load_game(config: RulesConfig, episode: str = "deal", reward: str = "points", **params: Any) -> pyspiel.Game:
    """The ``python_rams`` game of a rules configuration; ``params``: ``dealer``, ``scores``, ``max_deals``.

    Every parameter is checked here first (``ValueError`` naming it), so a value OpenSpiel's C++ side
    cannot hold is refused with its name rather than by pybind11's conversion error.
    """
    extra = sorted(set(params) - {"dealer", "scores", "max_deals"})
    if extra:
        raise ValueError(f"unknown parameter(s) {extra}; load_game takes dealer, scores and max_deals")
    if isinstance(params.get("scores"), (list, tuple)):
        params["scores"] = ";".join(str(s) for s in params["scores"])
    full = {**game_parameters(config, episode, reward), **params}
    _Spec(full)  # ValueError naming a bad parameter before pyspiel sees it
    return pyspiel.load_game(SHORT_NAME, full)


class _Spec:
    """What every state of one game shares: rules, episode, reward and the limits (immutable)."""

    def __init__(self, params: dict[str, Any]) -> None:
        unknown = sorted(set(params) - set(_PARAMETERS))
        if unknown:
            raise ValueError(f"unknown parameter(s) {unknown}; known: {sorted(_PARAMETERS)}")
        p = {**_PARAMETERS, **params}
        check_parameters(p)
        rules = parse_rules(p["rules"])
        if "num_players" in rules or "variant" in rules:
            raise ValueError("rules: give the variant and the number of players as the variant and players parameters")
        try:
            self.config = make_config(str(p["variant"]), int(p["players"]), **rules)
        except ValueError as err:
            raise ValueError(_named_config_error(str(err))) from None
        self.n = n = self.config.num_players
        self.episode, self.reward = str(p["episode"]), str(p["reward"])
        check_episode(self.episode, self.reward)
        dealer = int(p["dealer"])
        if not -1 <= dealer < n:
            raise ValueError(f"dealer must be -1 (drawn by chance) or a seat 0..{n - 1}, got {dealer}")
        self.dealer = dealer
        text = str(p["scores"]).replace(",", ";").strip()
        self.scores: list[int] | None = None
        if text:
            try:
                self.scores = [int(s) for s in text.split(";")]
            except ValueError:
                raise ValueError(f"scores must be ints separated by ';', got {p['scores']!r}") from None
            if len(self.scores) != n:
                raise ValueError(f"scores must give {n} scores (one per player), got {len(self.scores)}")
            try:
                Game(self.config, 0, scores=self.scores, dealer=0)
            except ValueError as err:
                raise ValueError(f"scores: {err}") from None
        max_deals = int(p["max_deals"])
        most = _INT_MAX // self.config.max_deal_actions  # OpenSpiel's max_game_length is a C++ int
        if not 0 <= max_deals <= most:
            raise ValueError(
                f"max_deals must be 0 (the default, {DEFAULT_MAX_DEALS}) or 1 to {most:,} (the longest game OpenSpiel "
                f"can hold: {most:,} deals of up to {self.config.max_deal_actions} actions), got {max_deals}"
            )
        self.max_deals = 1 if self.episode == "deal" else (max_deals or DEFAULT_MAX_DEALS)
        self.deck = deck_cards(self.config.deck_size)
        self.deck_set = frozenset(self.deck)
        self.params = p

    def utilities(self) -> tuple[float, float]:
        """Bounds of every return (OpenSpiel's min_utility, max_utility)."""
        cfg = self.config
        if self.reward == "win":
            return -1.0, 1.0
        if cfg.swedish:
            if self.episode == "deal":
                return -float(cfg.flight_fine), 5.0
            ramsar = 1 if self.episode == "rams" else cfg.ramsar_per_match
            starts = [cfg.start_score, *(self.scores or [])]  # a rams' points: its start less its end score
            return float(ramsar * (min(starts) - cfg.flight_cap)), float(ramsar * (max(starts) + 4))
        worst = cfg.flight_fine + 50  # a fine: 5 plus aces; a deal's best: 5 tricks, aces, jacks
        if self.episode == "deal":
            return -float(worst), 65.0
        return -float(self.max_deals * worst), float(max([cfg.start_score, *(self.scores or [])]) + 64)


class RamsGame(pyspiel.Game):
    """Rams as a Python OpenSpiel game (module docstring); ``pyspiel.load_game("python_rams", ...)``."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        spec = _Spec(dict(params or {}))
        low, high = spec.utilities()
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS,
            max_chance_outcomes=NUM_CARDS,
            num_players=spec.n,
            min_utility=low,
            max_utility=high,
            utility_sum=None,
            max_game_length=spec.max_deals * spec.config.max_deal_actions,
        )
        super().__init__(_GAME_TYPE, info, spec.params)
        self.spec = spec
        self.config = spec.config
        self.encoder = ObservationEncoder(spec.config)

    def new_initial_state(self) -> RamsState:
        """The state before the first chance node."""
        return RamsState(self)

    def make_py_observer(
        self, iig_obs_type: pyspiel.IIGObservationType | None = None, params: dict | None = None
    ) -> RamsObserver:
        """The observer of the information state (perfect recall) or of the observation."""
        if params:
            raise ValueError(f"observation parameters are not supported, got {params}")
        recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        return RamsObserver(self.encoder, perfect_recall=recall)


# ----------------------------------------------------------------------------- the state
class _FixedDeck:
    """Stands in for the engine's generator while ``Game.next_deal`` shuffles: deals the given deck."""

    def __init__(self, deck: list[int]) -> None:
        self.deck = deck

    def shuffle(self, cards: list[int]) -> None:
        if sorted(cards) != sorted(self.deck):
            raise RuntimeError("the dealt deck is not the variant's deck")
        cards[:] = self.deck


class _Core:
    """The whole state of a ``python_rams`` state (plain data; ``copy`` is cheap)."""

    __slots__ = (
        "acc",
        "cache",
        "chance",
        "dealer",
        "deals",
        "deck",
        "game",
        "info",
        "log",
        "over",
        "prev",
        "root",
        "spec",
        "start",
        "start_fields",
        "track",
        "truncated",
    )

    def __init__(self, spec: _Spec) -> None:
        n = spec.n
        self.spec = spec
        self.game: Game | None = None
        self.dealer = spec.dealer
        self.deck: list[int] = []
        self.deals = 0
        self.chance = True
        self.over = self.truncated = False
        self.track = True
        self.info = [f"p{p}" + (f" d{self.dealer}" if self.dealer >= 0 else "") for p in range(n)]
        self.acc = [0.0] * n
        self.start = [0] * n
        self.prev = [0.0] * n
        self.log: list[tuple[int, int, int]] = []  # (seat, action, phase) of this deal's player actions
        self.root: _Core | None = None  # this deal's dealing starts from here (shared, never changed)
        self.start_fields: dict[str, Any] | None = None  # engine fields set on the first deal's Game
        self.cache: dict | None = None  # resampling helpers of this very state (not copied)
        if self.dealer >= 0:
            self.root = self.copy()

    def copy(self, track: bool | None = None) -> _Core:
        other = object.__new__(_Core)
        other.spec, other.dealer, other.deals = self.spec, self.dealer, self.deals
        other.game = self.game.clone() if self.game is not None else None
        other.deck = list(self.deck)
        other.chance, other.over, other.truncated = self.chance, self.over, self.truncated
        other.track = self.track if track is None else track
        other.info = list(self.info)
        other.acc, other.start, other.prev = list(self.acc), list(self.start), list(self.prev)
        other.log = list(self.log)
        other.root, other.start_fields, other.cache = self.root, self.start_fields, None
        return other

    def __deepcopy__(self, memo: dict) -> _Core:
        return self.copy()

    def __getstate__(self) -> dict[str, Any]:
        state = {name: getattr(self, name) for name in self.__slots__ if name != "cache"}
        state["spec"] = self.spec.params
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        for name, value in state.items():
            setattr(self, name, value)
        self.spec = _spec_of(state["spec"])
        self.cache = None

    # -------------------------------------------------------------- queries
    def current_player(self) -> int:
        if self.over:
            return pyspiel.PlayerId.TERMINAL
        if self.chance:
            return pyspiel.PlayerId.CHANCE
        return self.game.current  # type: ignore[union-attr]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.dealer < 0:
            n = self.spec.n
            return [(s, 1.0 / n) for s in range(n)]
        placed = set(self.deck)
        left = [c for c in self.spec.deck if c not in placed]
        return [(c, 1.0 / len(left)) for c in left]

    def returns(self) -> list[float]:
        spec, n = self.spec, self.spec.n
        if spec.reward == "win":
            return self._win() if self.over else [0.0] * n
        game = self.game
        if game is None:
            return [0.0] * n
        return [self.acc[s] + self.start[s] - game.scores[s] for s in range(n)]

    def _win(self) -> list[float]:
        game, n = self.game, self.spec.n
        assert game is not None
        if game.is_over:
            winners = game.winners
        elif game.rams_over:
            winners = game.rams_winners()
        else:  # truncated: the lowest score (in a match: total plus score) wins
            value = [game.scores[s] + (game.totals[s] if self.spec.episode == "match" else 0) for s in range(n)]
            winners = tuple(s for s in range(n) if value[s] == min(value))
        return shared_win(winners, n)  # type: ignore[arg-type]

    # -------------------------------------------------------------- actions
    def apply_chance(self, outcome: int) -> None:
        spec = self.spec
        if self.dealer < 0:
            if not 0 <= outcome < spec.n:
                raise ValueError(f"the first dealer must be a seat 0..{spec.n - 1}, got {outcome}")
            self.dealer = outcome
            if self.track:
                self.info = [s + f" d{outcome}" for s in self.info]
            self.root = self.copy()
            return
        if outcome in self.deck or outcome not in spec.deck_set:
            raise ValueError(f"card {outcome} cannot be dealt now")
        self.deck.append(outcome)
        if len(self.deck) < len(spec.deck):
            return
        game = self.game
        if game is None:
            fields = self.start_fields or {}
            scores = fields.get("scores", spec.scores)
            game = self.game = Game(spec.config, 0, deck=self.deck, dealer=self.dealer, scores=scores)
            for name, value in fields.items():
                if name != "scores":
                    setattr(game, name, _copied(value))
        else:
            rng = game.rng
            game.rng = _FixedDeck(self.deck)  # type: ignore[assignment]
            try:
                game.next_deal()
            finally:
                game.rng = rng
        self.deals += 1
        self.start = list(game.scores)
        self.chance = False
        self.log = []
        if self.track:
            for p in range(spec.n):
                hand = "".join(_NAMES[c] for c in game.hands[p])
                shown = "".join(f"S{s}{w[0]}{_cards(c)}" for s, w, c in game.shown)
                scores = ",".join(map(str, game.scores))
                self.info[p] += f" D{game.dealer}h{hand}t{_NAMES[game.turned]}s{scores}{shown}"
        if game.phase >= Phase.DEAL_OVER:
            self._deal_ended()

    def apply_player(self, action: int) -> None:
        game = self.game
        if self.chance or self.over or game is None:
            raise IllegalActionError(f"no player is to act (action {action})")
        seat, phase = game.current, game.phase
        self.prev = self.returns()
        if not self.track:
            game.apply(action)
            self.log.append((seat, action, phase))
            if game.phase >= Phase.DEAL_OVER:
                self._deal_ended()
            return
        hands = [tuple(h) for h in game.hands]
        scores, shown, public, turned = list(game.scores), len(game.shown), len(game.out_public), game.turned
        game.apply(action)
        self.log.append((seat, action, phase))
        hidden = phase == Phase.BUY and action < NUM_CARDS
        code = _CALL_CODES.get(action) or ("x" if hidden else "") + _NAMES[action]
        common = ""
        if game.scores != scores:
            common += "s" + ",".join(map(str, game.scores))
        if len(game.shown) > shown:
            common += "".join(f"S{s}{w[0]}{_cards(c)}" for s, w, c in game.shown[shown:])
        if len(game.out_public) > public:
            common += "u" + _cards(game.out_public[public:])
        if game.turned != turned:
            common += "t" + _NAMES[game.turned]
        info = self.info
        for p in range(self.spec.n):
            token = f" {seat}{code if p == seat or not hidden else 'x'}"
            if tuple(game.hands[p]) != hands[p]:
                token += "h" + _cards(game.hands[p])
            info[p] += token + common
        if game.phase >= Phase.DEAL_OVER:
            self._deal_ended()

    def _deal_ended(self) -> None:
        game, spec = self.game, self.spec
        assert game is not None
        self.acc = [a + b - s for a, b, s in zip(self.acc, self.start, game.scores, strict=True)]
        self.start = list(game.scores)
        episode = spec.episode
        if episode_ends(game, episode):
            self.over = True
        elif self.deals >= spec.max_deals:
            self.over = self.truncated = True
        else:
            self.chance = True
            self.deck = []
            self.log = []
            if self.track:
                self.info = [s + " |" for s in self.info]
            root = self.copy()
            root.root = None
            self.root = root

    def apply(self, action: int) -> None:
        self.cache = None  # resampling helpers describe the state before this action
        if self.chance:
            self.apply_chance(action)
        else:
            self.apply_player(action)


def _copied(value: Any) -> Any:
    return list(value) if isinstance(value, list) else value


def _cards(cards: Any) -> str:
    return "".join(_NAMES[c] for c in cards)


_SPECS: dict[str, _Spec] = {}


def _spec_of(params: dict[str, Any]) -> _Spec:
    key = json.dumps(params, sort_keys=True)
    if key not in _SPECS:
        _SPECS[key] = _Spec(params)
    return _SPECS[key]


class RamsState(pyspiel.State):
    """A state of ``python_rams``; its ``game`` property is the engine :class:`~rams_env.rules.Game`."""

    def __init__(self, game: RamsGame) -> None:
        super().__init__(game)
        self._core = _Core(game.spec)

    @property
    def game(self) -> Game | None:
        """The engine game (None before the first deal is dealt)."""
        return self._core.game

    def current_player(self) -> int:
        """The seat to act, ``CHANCE`` while dealing, ``TERMINAL`` at the end."""
        return self._core.current_player()

    def _legal_actions(self, player: int) -> list[int]:
        core = self._core
        if core.over or core.chance or core.game is None or player != core.game.current:
            return []
        return core.game.legal_actions()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The first dealer (uniform over the seats), or the next card of the deck (uniform)."""
        return self._core.chance_outcomes()

    def _apply_action(self, action: int) -> None:
        self._core.apply(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"dealer {action}" if self._core.dealer < 0 else f"deal {card_name(int(action))}"
        if 0 <= action < NUM_CARDS:
            core = self._core
            buying = core.game is not None and core.game.phase == Phase.BUY
            return ("discard " if buying else "") + card_name(int(action))
        return Action(action).name

    def is_terminal(self) -> bool:
        """True once the episode is over."""
        return self._core.over

    def returns(self) -> list[float]:
        """Points (or win shares) of every seat over the episode so far."""
        return self._core.returns()

    def rewards(self) -> list[float]:
        """What the last player action changed in the returns."""
        core = self._core
        return [r - p for r, p in zip(core.returns(), core.prev, strict=True)]

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> RamsState:
        """A state of the same information state for ``player_id``, hidden cards dealt again (module docstring)."""
        seed = int(probability_sampler() * 2**53)
        return self._wrap(resample(self._core, int(player_id), random.Random(seed)))

    def _wrap(self, core: _Core) -> RamsState:
        state = self.get_game().new_initial_state()
        state._core = core
        return state

    def __str__(self) -> str:
        core = self._core
        if core.game is None:
            return f"dealing: dealer {core.dealer}, {len(core.deck)} cards"
        game = core.game
        hands = " | ".join(f"{s}:{_cards(h)}" for s, h in enumerate(game.hands))
        talon = _cards(game.talon[game.talon_pos :])
        head = f"deal {core.deals} dealer {game.dealer} phase {game.phase.name} to act {game.current}"
        extra = f" dealing {len(core.deck)} cards" if core.chance else ""
        return (
            f"{head}{extra}\nhands {hands}\ntalon {talon}\nhidden {[_cards(x) for x in game.out_hidden]}\n"
            f"public {_cards(game.out_public)} turned {_NAMES[game.turned]} trick {game.trick} "
            f"tricks {game.tricks_won} scores {game.scores} log {core.log}"
        )


class RamsObserver:
    """OpenSpiel's Python observer: the project's encoder as the tensor, history or view as the string."""

    def __init__(self, encoder: ObservationEncoder, perfect_recall: bool) -> None:
        self.encoder = encoder
        self.perfect_recall = perfect_recall
        self.tensor = np.zeros(OBS_SIZE, np.float32)
        self.dict = {name: self.tensor[SLICES[name]] for name, _, _ in FIELDS}

    def set_from(self, state: RamsState, player: int) -> None:
        """Write ``player``'s observation of ``state`` into ``tensor``."""
        game = state._core.game
        if game is None:
            self.tensor.fill(0.0)
        else:
            self.encoder.encode(game, player, out=self.tensor)

    def string_from(self, state: RamsState, player: int) -> str:
        """The information state string (perfect recall) or the observation string (the view)."""
        core = state._core
        if self.perfect_recall:
            return core.info[player]
        if core.game is None:
            return f"p{player} dealing"
        return json.dumps(core.game.view(player), separators=(",", ":"))


pyspiel.register_game(_GAME_TYPE, RamsGame)


# ----------------------------------------------------------------------------- resampling
class _Plan:
    """Who received each position of the current deal's deck: public knowledge, read off the real deal."""

    def __init__(self, core: _Core) -> None:
        game, spec = core.game, core.spec
        assert game is not None
        n = spec.n
        self.n, self.size = n, len(spec.deck)
        self.base = base = 5 * n + 1
        order = [(game.forehand + i) % n for i in range(n)]
        self.packets = {
            s: [3 * i, 3 * i + 1, 3 * i + 2, 3 * n + 1 + 2 * i, 3 * n + 2 + 2 * i] for i, s in enumerate(order)
        }
        deck = core.deck
        if list(game.talon) != deck[base:]:
            raise RuntimeError("the engine's talon is not the dealt deck's")
        holder: dict[int, int] = {}
        for s in range(n):
            for c in game.hands[s]:
                holder[c] = s
            for c in game.out_hidden[s]:
                holder[c] = s
        for cards, _ in game.completed:
            for s, c in cards:
                holder[c] = s
        for s, c in game.trick:
            holder[c] = s
        self.played = {s: [c for cards, _ in game.completed for t, c in cards if t == s] for s in range(n)}
        for s, c in game.trick:
            self.played[s].append(c)
        public = set(game.out_public)
        bid_end = game.talon_pos - sum(game.draws)
        self.exchange: dict[int, list[int]] = {s: [] for s in range(n)}
        self.draw: dict[int, list[int]] = {s: [] for s in range(n)}
        self.public_cards = {deck[3 * n]}  # the turned card; a swing's new one too
        for t in range(game.talon_pos):
            c = deck[base + t]
            if c in public or c == game.turned:
                self.public_cards.add(c)
                continue
            (self.exchange if t < bid_end else self.draw)[holder[c]].append(base + t)
        self.hidden_talon = list(range(base + game.talon_pos, self.size))
        self.thrown = {s: len(game.out_hidden[s]) - game.discards[s] for s in range(n)}
        # Each seat's discards in this deal's log, before and after its DRAW (russian dealer's extra).
        self.discards: dict[int, tuple[list[int], list[int]]] = {s: ([], []) for s in range(n)}
        drawn: set[int] = set()
        for i, (s, a, phase) in enumerate(core.log):
            if phase == Phase.BUY:
                if a == DRAW:
                    drawn.add(s)
                elif a < NUM_CARDS:
                    self.discards[s][1 if s in drawn else 0].append(i)
        # Russian jacks shown when a card of the pair was first discarded: at which of the seat's discards
        # (public: everybody saw the jacks shown then). The shown cards were dealt to him.
        shown = [(t, frozenset(cards)) for t, what, cards in game.shown if what == "jacks"]
        self.jacks = {s: frozenset(c for t, cards in shown if t == s for c in cards) for s in range(n)}
        self.shown_at: dict[int, int | None] = {}
        for s in range(n):
            cards = [core.log[i][1] for i in self.discards[s][0] + self.discards[s][1]]
            self.shown_at[s] = next((k for k, c in enumerate(cards) if c in self.jacks[s]), None)


def resample(core: _Core, player: int, rng: random.Random, tries: int = 300) -> _Core:
    """A core in ``player``'s information state with the hidden cards of this deal dealt again (module docstring)."""
    if not 0 <= player < core.spec.n:
        raise ValueError(f"player must be a seat 0..{core.spec.n - 1}, got {player}")
    if core.over or core.root is None:
        return core.copy()
    if core.chance:  # cards dealt so far are not seen until the deal is complete: deal others
        other = core.root.copy()
        while len(other.deck) < len(core.deck):
            cards = [c for c, _ in other.chance_outcomes()]
            other.apply_chance(rng.choice(cards))
        return other
    if core.cache is None:
        core.cache = {}
    if player not in core.cache:
        core.cache[player] = (DealSampler(core.game, player), _Plan(core))  # type: ignore[arg-type]
    sampler, plan = core.cache[player]
    want = core.info[player]
    for _ in range(tries):
        built = _rebuild(core, plan, sampler.deal(rng), player, rng, sampler.allowed)
        if built is None:
            continue
        other = _replay(core.root, *built)
        if other is not None and other.info[player] == want and other.game.current == core.game.current:  # type: ignore[union-attr]
            return other
    raise RuntimeError(f"could not deal the hidden cards again consistently with player {player}'s information")


def _rebuild(
    core: _Core, plan: _Plan, placed: HiddenCards, player: int, rng: random.Random, allowed: dict[int, list[int]]
) -> tuple[list[int], list[tuple[int, int, int]]] | None:
    """A deck and a log of this deal that lead to the sampler's placement ``placed`` of the hidden cards, or None.

    ``allowed``: the sampler's places for each hidden card (hands ``j``, face-down piles ``n + j``,
    cards bought away ``2n + j``).
    """
    deck = list(core.deck)
    log = list(core.log)
    active = core.game.active  # type: ignore[union-attr]
    for j in range(plan.n):
        if j == player:
            continue
        hand = list(placed.hands[j])
        pile = placed.piles[j]
        thrown, bought = pile[: plan.thrown[j]], pile[plan.thrown[j] :]
        public = plan.public_cards
        before, after = plan.discards[j]
        if len(before) + len(after) != len(bought):
            return None
        count = len(plan.draw[j])
        if plan.exchange[j] and active[j] is not False and any(c in public for c in thrown):
            # The dealer keeps the turned card when he changes cards: it is not among those he threw in.
            thrown, n = list(thrown), plan.n
            for i, c in enumerate(thrown):
                if c not in public:
                    continue
                places = set(allowed.get(c, ()))  # the turned card goes where the other card was
                spare = [x for x in hand if j in places] + [x for x in bought if 2 * n + j in places]
                spare = [x for x in spare if x not in public and n + j in allowed.get(x, ())]
                if spare:
                    other = rng.choice(spare)
                    where = hand if other in hand else bought
                    where[where.index(other)], thrown[i] = c, other
        if plan.jacks[j] and bought:
            free = count - sum(1 for c in plan.played[j] if c not in public and c not in plan.jacks[j])
            _keep_shown_jacks(hand, bought, plan.jacks[j], plan.shown_at[j] is not None, free, allowed, j, public, rng)
        held = hand + plan.played[j]
        order = _discard_order(bought, plan.jacks[j], plan.shown_at[j], rng)
        if order is None:
            return None
        first, extra = order[: len(before)], order[len(before) :]  # extra: the russian dealer's discard after his draw
        candidates = [c for c in held + extra if c not in public and c not in plan.jacks[j]]  # shown jacks were dealt
        if count > len(candidates):
            return None
        drawn = rng.sample(candidates, count)
        drawn_set = set(drawn)
        hidden = [c for c in held + thrown + bought if c not in public and c not in drawn_set]
        exchanged = bool(plan.exchange[j])
        if exchanged and active[j] is False:
            rest = [c for c in thrown if c not in public]
            rng.shuffle(rest)
            packets, exchange_in = rest[:5], rest[5:]
        elif exchanged:
            packets = [c for c in thrown if c not in public]
            exchange_in = [c for c in hidden if c not in set(packets)]
        else:
            packets, exchange_in = hidden, []
        if len(packets) != 5 or len(exchange_in) != len(plan.exchange[j]):
            return None
        for positions, cards in ((plan.packets[j], packets), (plan.exchange[j], exchange_in), (plan.draw[j], drawn)):
            cards = list(cards)
            rng.shuffle(cards)
            for pos, c in zip(positions, cards, strict=True):
                deck[pos] = c
        for i, c in zip(before + after, first + extra, strict=True):
            s, _, phase = log[i]
            log[i] = (s, c, phase)
    talon = placed.talon
    if len(talon) != len(plan.hidden_talon):
        return None
    for pos, c in zip(plan.hidden_talon, talon, strict=True):
        deck[pos] = c
    if sorted(deck) != sorted(core.deck):
        return None
    return deck, log


def _keep_shown_jacks(
    hand: list[int],
    bought: list[int],
    jacks: frozenset[int],
    discarded: bool,
    draws: int,
    allowed: dict[int, list[int]],
    seat: int,
    public: set[int],
    rng: random.Random,
) -> None:
    """Swap shown jacks of ``seat`` from his hand into his cards bought away where the history needs it.

    Shown jacks were dealt, so they are not among the cards he drew: his hand needs ``draws`` other
    cards (beyond those he has played) for the ones he drew; and jacks shown at a discard had one of
    them among the discards. The sampler knows neither; a card swapped into the hand must be one it
    allows there.
    """
    spare = [c for c in bought if c not in jacks and seat in allowed.get(c, ())]
    rng.shuffle(spare)
    while spare:
        mine = [c for c in hand if c in jacks]
        free = sum(1 for c in hand if c not in public and c not in jacks)
        if not mine or (free >= draws and (not discarded or any(c in jacks for c in bought))):
            return
        jack, other = rng.choice(mine), spare.pop()
        hand[hand.index(jack)] = other
        bought[bought.index(other)] = jack


def _discard_order(
    cards: list[int], jacks: frozenset[int], shown_at: int | None, rng: random.Random
) -> list[int] | None:
    """``cards`` in an order of discarding; with ``shown_at``, the first card of the shown jacks comes there."""
    order = list(cards)
    rng.shuffle(order)
    if shown_at is None:
        return order
    pair = [c for c in order if c in jacks]
    others = [c for c in order if c not in jacks]
    if not pair or len(others) < shown_at:
        return None
    rest = others[shown_at:] + pair[1:]
    rng.shuffle(rest)
    return others[:shown_at] + pair[:1] + rest


def _replay(root: _Core, deck: list[int], log: list[tuple[int, int, int]]) -> _Core | None:
    """The deal replayed from its first card; None when the history is not a legal one."""
    other = root.copy()
    try:
        other.deck = deck[:-1]  # a permutation of the deck (checked): deal it at once
        other.apply_chance(deck[-1])
        for seat, action, _ in log:
            if other.chance or other.over or other.game.current != seat:  # type: ignore[union-attr]
                return None
            other.apply_player(action)
    except (IllegalActionError, ValueError):
        return None
    return other


# ----------------------------------------------------------------------------- from an engine game
def state_from_game(game: Game, pyspiel_game: pyspiel.Game | None = None) -> RamsState:
    """A ``python_rams`` state (episode ``"deal"``, reward ``"points"``) at ``game``'s current decision.

    The history of the current deal is rebuilt from the engine game (its deck from where the cards
    are now, its actions from the public record and the players' face-down piles) and replayed; the
    result is checked to be ``game`` exactly. Earlier deals are not part of the state: its returns
    count the points of the current deal. ``pyspiel_game`` (optional) is ``load_game(game.config)``.
    """
    if game.current < 0:
        raise ValueError("state_from_game needs a game with a player to act")
    pyspiel_game = pyspiel_game or load_game(game.config)
    spec: _Spec = pyspiel_game.spec
    if spec.config != game.config or spec.episode != "deal" or spec.reward != "points":
        raise ValueError("pyspiel_game must be load_game(game.config) (episode deal, reward points)")
    deck, actions = _history(game)
    root = _Core(spec)
    root.dealer = game.dealer
    root.info = [f"p{p} d{game.dealer}" for p in range(spec.n)]
    start = list(game.scores)
    if game.config.swedish:  # a Swedish trick takes its point off at once
        start = [s + t for s, t in zip(start, game.tricks_won, strict=True)]
    names = ("flights", "rams_flights", "totals", "passed_prev", "rams_log", "rams_number", "deal_number")
    root.start_fields = {name: _copied(getattr(game, name)) for name in (*names, "deal_in_rams")}
    root.start_fields["scores"] = start  # the first Game is dealt with the deal's start scores
    root.root = None
    core = root.copy()
    core.root = root
    for c in deck:
        core.apply_chance(c)
    for _, action in actions:
        core.apply_player(action)
    mine, theirs = core.game.to_dict(), game.to_dict()  # type: ignore[union-attr]
    mine.pop("rng")
    theirs.pop("rng")
    if mine != theirs:
        diff = sorted(k for k in mine if mine[k] != theirs[k])
        raise RuntimeError(f"rebuilding the deal's history failed (differs in {diff})")
    state = pyspiel_game.new_initial_state()
    state._core = core
    return state


def _history(game: Game) -> tuple[list[int], list[tuple[int, int]]]:
    """The current deal's deck and its (seat, action) history, read off an engine game."""
    n, cfg, dealer = game.n, game.config, game.dealer
    order = [(game.forehand + i) % n for i in range(n)]
    swung = any(bid == BID_SWING and happened for bid, _, happened in game.bid_log)
    first_turned = game.out_public[0] if swung else game.turned
    talon_from = {c: t for t, c in enumerate(game.talon[: game.talon_pos])}
    held: dict[int, list[int]] = {s: list(game.hands[s]) + list(game.out_hidden[s]) for s in range(n)}
    for cards, _ in game.completed:
        for s, c in cards:
            held[s].append(c)
    for s, c in game.trick:
        held[s].append(c)
    turned = {first_turned, game.turned}
    deck: list[int] = []
    packets = {s: sorted(c for c in held[s] if c not in talon_from and c not in turned) for s in range(n)}
    if any(len(p) != 5 for p in packets.values()):
        raise RuntimeError("the engine game's cards do not add up to a deal")
    deck = [c for s in order for c in packets[s][:3]] + [first_turned] + [c for s in order for c in packets[s][3:]]
    deck += list(game.talon)
    fh = game.forehand
    actions: list[tuple[int, int]] = []
    for bid, answers, _ in game.bid_log:
        actions += [(fh, bid)] + [(s, ACCEPT if a else REJECT) for s, a in answers]
    if game.pending_bid:
        actions += [(fh, game.pending_bid)] + [(s, ACCEPT if a else REJECT) for s, a in game.answers]
    phase = game.phase
    if phase >= Phase.KNOCK and cfg.bids:
        actions.append((fh, NO_BID))
    for s in order:
        if game.active[s] is None:
            break
        actions.append((s, KNOCK if game.active[s] else PASS))
    if phase >= Phase.BUY:
        for i, s in enumerate(game.buy_order):
            if phase == Phase.BUY and i > game.buyer_index:
                break
            count = game.discards[s]
            cards = list(game.out_hidden[s][len(game.out_hidden[s]) - count :]) if count else []
            drew = phase > Phase.BUY or i < game.buyer_index or (game.take_pending and s == game.current)
            if not drew:
                actions += [(s, c) for c in cards]
                break
            extra = 1 if cfg.family == RUSSIAN and s == dealer and not game.take_pending else 0
            actions += [(s, c) for c in cards[: count - extra]] + [(s, DRAW)] + [(s, c) for c in cards[count - extra :]]
    for cards, _ in game.completed:
        actions += list(cards)
    actions += list(game.trick)
    return deck, actions


# ----------------------------------------------------------------------------- ISMCTS
class HeuristicRolloutEvaluator(mcts.Evaluator):
    """Rollouts by the search agent's rollout policy (:func:`rams_env.agents.search.rollout_action`)."""

    def __init__(self, n_rollouts: int = 1, seed: int | None = None) -> None:
        self.n_rollouts = n_rollouts
        self.rng = random.Random(seed)

    def evaluate(self, state: RamsState) -> np.ndarray:
        """Mean returns of ``n_rollouts`` rollouts to the end of the episode."""
        total = np.zeros(state.num_players())
        for _ in range(self.n_rollouts):
            core = state._core.copy(track=False)
            while not core.over:
                if core.chance:
                    core.apply_chance(self.rng.choice(core.chance_outcomes())[0])
                else:
                    core.apply_player(rollout_action(core.game, self.rng))  # type: ignore[arg-type]
            total += core.returns()
        return total / self.n_rollouts

    def prior(self, state: RamsState) -> list[tuple[int, float]]:
        """Uniform over the legal actions (chance: the chance outcomes)."""
        if state.is_chance_node():
            return state.chance_outcomes()
        legal = state.legal_actions()
        return [(a, 1.0 / len(legal)) for a in legal]


class FastRandomRolloutEvaluator(HeuristicRolloutEvaluator):
    """OpenSpiel's random rollouts (uniform legal actions) run on the engine without OpenSpiel's per-step cost."""

    def evaluate(self, state: RamsState) -> np.ndarray:
        """Mean returns of ``n_rollouts`` uniformly random rollouts."""
        total = np.zeros(state.num_players())
        rng = self.rng
        for _ in range(self.n_rollouts):
            core = state._core.copy(track=False)
            while not core.over:
                if core.chance:
                    core.apply_chance(rng.choice(core.chance_outcomes())[0])
                else:
                    core.apply_player(rng.choice(core.game.legal_actions()))  # type: ignore[union-attr]
            total += core.returns()
        return total / self.n_rollouts


EVALUATORS = ("random", "heuristic", "openspiel_random")


class ISMCTSAgent:
    """OpenSpiel's ``ISMCTSBot`` as a Rams agent (``rams eval ismcts:<simulations>``).

    Each decision rebuilds the deal as a ``python_rams`` state (:func:`state_from_game`, episode
    ``deal``, reward ``points``: the search maximises the seat's points in this deal) and runs
    ``simulations`` ISMCTS simulations; each samples the hidden cards again with
    ``resample_from_infostate`` (only what the seat knows). ``evaluator``: ``"random"`` (uniformly
    random rollouts, as OpenSpiel's ``RandomRolloutEvaluator``, run on the engine), ``"openspiel_random"``
    (OpenSpiel's own ``RandomRolloutEvaluator``, slower) or ``"heuristic"`` (the search agent's
    rollout policy); ``rollouts`` per leaf. ``uct_c``: the UCT constant (default 5 Swedish, 20 russian:
    points, not win rates, are the values). ``final_policy``: ``max_visit_count`` or ``max_value``.
    ``seed`` seeds the bot, the evaluator and the resampling. ``env``: a rams_env AEC env, for
    ``act(observation)`` (as for ``SearchAgent``); the evaluation harness calls ``act_game``.
    ``decisions`` and ``seconds`` count the searched decisions and their time. Should resampling fail
    (``RuntimeError``, not seen in the tests), a world already sampled for the decision is reused.
    """

    def __init__(
        self,
        simulations: int = 100,
        seed: int | None = None,
        evaluator: str = "random",
        rollouts: int = 1,
        uct_c: float | None = None,
        final_policy: str = "max_visit_count",
        env: Any = None,
    ) -> None:
        if isinstance(simulations, bool) or not isinstance(simulations, int) or simulations < 1:
            raise ValueError(f"simulations must be a positive int, got {simulations!r}")
        if evaluator not in EVALUATORS:
            raise ValueError(f"evaluator must be one of {EVALUATORS}, got {evaluator!r}")
        if isinstance(rollouts, bool) or not isinstance(rollouts, int) or rollouts < 1:
            raise ValueError(f"rollouts must be a positive int, got {rollouts!r}")
        policies = {"max_visit_count": ismcts.ISMCTSFinalPolicyType.MAX_VISIT_COUNT}
        policies["max_value"] = ismcts.ISMCTSFinalPolicyType.MAX_VALUE
        if final_policy not in policies:
            raise ValueError(f"final_policy must be one of {sorted(policies)}, got {final_policy!r}")
        if uct_c is not None and not uct_c > 0:
            raise ValueError(f"uct_c must be positive, got {uct_c!r}")
        seed = None if seed is None else seed_int(seed)
        self.simulations, self.evaluator, self.rollouts = simulations, evaluator, rollouts
        self.uct_c, self.final_policy = uct_c, policies[final_policy]
        self.env = env
        self.rng = random.Random(seed)
        self.np_rng = np.random.RandomState(None if seed is None else seed % 2**32)
        self._bots: dict[RulesConfig, tuple[pyspiel.Game, ismcts.ISMCTSBot]] = {}
        self.decisions, self.seconds = 0, 0.0
        self._worlds: list[_Core] = []  # worlds sampled for the current decision (a fallback)

    def _bot(self, config: RulesConfig) -> tuple[pyspiel.Game, ismcts.ISMCTSBot]:
        if config not in self._bots:
            game = load_game(config)
            if self.evaluator == "openspiel_random":
                evaluator: mcts.Evaluator = mcts.RandomRolloutEvaluator(self.rollouts, self.np_rng)
            elif self.evaluator == "random":
                evaluator = FastRandomRolloutEvaluator(self.rollouts, self.rng.getrandbits(63))
            else:
                evaluator = HeuristicRolloutEvaluator(self.rollouts, self.rng.getrandbits(63))
            c = self.uct_c if self.uct_c is not None else (5.0 if config.swedish else 20.0)
            bot = ismcts.ISMCTSBot(
                game, evaluator, c, self.simulations, random_state=self.np_rng, final_policy_type=self.final_policy
            )
            bot.set_resampler(self._resample)
            self._bots[config] = (game, bot)
        return self._bots[config]

    def _resample(self, state: RamsState, player: int) -> RamsState:
        try:
            core = resample(state._core, player, self.rng)
        except RuntimeError:  # a world far from what the sampler proposes: reuse one sampled for this decision
            if not self._worlds:
                raise
            core = self.rng.choice(self._worlds).copy()
        else:
            if len(self._worlds) < 32:
                self._worlds.append(core.copy())
        return state._wrap(core)

    def act_game(self, game: Game, seat: int) -> int:
        """The ISMCTS action of ``seat`` (the player to act), using only what ``seat`` may know."""
        if game.current_player != seat:
            raise ValueError(f"seat {seat} is not to act (current player: {game.current_player})")
        legal = game.legal_actions()
        if len(legal) == 1:
            return legal[0]
        start = time.perf_counter()
        pgame, bot = self._bot(game.config)
        state = state_from_game(game, pgame)
        self._worlds = []
        action = int(bot.step(state))
        self.decisions += 1
        self.seconds += time.perf_counter() - start
        return action

    def act(self, observation: Observation) -> int:
        """The action for ``observation`` of the env's player to act (needs ``ISMCTSAgent(env=...)``)."""
        legal = legal_from_mask(observation)
        if self.env is None:
            raise ValueError(
                "ISMCTSAgent.act(observation) needs the game's history: build it with "
                "ISMCTSAgent(env=your_env) or call act_game(game, seat)"
            )
        game = getattr(self.env.unwrapped, "game", None)
        if game is not None and not isinstance(game, Game) and hasattr(game, "clone"):
            game = game.clone()  # the compiled env's live view: search on a real Game
        if not isinstance(game, Game) or game.current_player < 0:
            raise ValueError("ISMCTSAgent: the env has no game with a player to act (call env.reset() first)")
        if sorted(int(a) for a in legal) != game.legal_actions():
            raise ValueError("ISMCTSAgent: the observation does not belong to the env's player to act")
        return self.act_game(game, game.current_player)


__all__ = [
    "EPISODES",
    "REWARDS",
    "SHORT_NAME",
    "FastRandomRolloutEvaluator",
    "HeuristicRolloutEvaluator",
    "ISMCTSAgent",
    "RamsGame",
    "RamsObserver",
    "RamsState",
    "game_parameters",
    "load_game",
    "parse_rules",
    "resample",
    "rules_string",
    "state_from_game",
]
