"""A ``python_rams`` state: ``StateCore`` (the engine game, the deal's dealt deck and log, the players'
information state strings, the returns), :class:`RamsState` around it, and :class:`RamsObserver`."""

from __future__ import annotations

import json
import random
from typing import TYPE_CHECKING, Any

import numpy as np
import pyspiel

from ...obs.encoding import FIELDS, OBS_SIZE, SLICES, ObservationEncoder
from ...rules import Game, IllegalActionError, Phase, card_name
from ...rules.actions import Action
from ...rules.cards import NUM_CARDS
from ...rules.episode import EpisodeKind, episode_ends, shared_win
from .parameters import ParameterSpec, spec_of
from .resample import resample

if TYPE_CHECKING:
    from .game import RamsGame

PASS, KNOCK, BID_BETTER, BID_SWING, NO_BID, ACCEPT, REJECT, DRAW = (int(a) for a in Action)
_CALL_CODES = {PASS: "p", KNOCK: "k", BID_BETTER: "b", BID_SWING: "w", NO_BID: "n", ACCEPT: "a", REJECT: "r", DRAW: "g"}
_NAMES = tuple(card_name(c) for c in range(NUM_CARDS))


class _FixedDeck:
    """Stands in for the engine's generator while ``Game.next_deal`` shuffles: deals the given deck."""

    def __init__(self, deck: list[int]) -> None:
        self.deck = deck

    def shuffle(self, cards: list[int]) -> None:
        if sorted(cards) != sorted(self.deck):
            raise RuntimeError("the dealt deck is not the variant's deck")
        cards[:] = self.deck


class StateCore:
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

    def __init__(self, spec: ParameterSpec) -> None:
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
        self.root: StateCore | None = None  # this deal's dealing starts from here (shared, never changed)
        self.start_fields: dict[str, Any] | None = None  # engine fields set on the first deal's Game
        self.cache: dict | None = None  # resampling helpers of this very state (not copied)
        if self.dealer >= 0:
            self.root = self.copy()

    def copy(self, track: bool | None = None) -> StateCore:
        other = object.__new__(StateCore)
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

    def __deepcopy__(self, memo: dict) -> StateCore:
        return self.copy()

    def __getstate__(self) -> dict[str, Any]:
        state = {name: getattr(self, name) for name in self.__slots__ if name != "cache"}
        state["spec"] = self.spec.params
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        for name, value in state.items():
            setattr(self, name, value)
        self.spec = spec_of(state["spec"])
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
            value = [game.scores[s] + (game.totals[s] if self.spec.kind == EpisodeKind.MATCH else 0) for s in range(n)]
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
                    setattr(game, name, copied(value))
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


def copied(value: Any) -> Any:
    return list(value) if isinstance(value, list) else value


def _cards(cards: Any) -> str:
    return "".join(_NAMES[c] for c in cards)


class RamsState(pyspiel.State):
    """A state of ``python_rams``; its ``game`` property is the engine :class:`~rams_env.rules.Game`."""

    def __init__(self, game: RamsGame) -> None:
        super().__init__(game)
        self._core = StateCore(game.spec)

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

    def _wrap(self, core: StateCore) -> RamsState:
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
