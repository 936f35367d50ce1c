"""Observation encoding: one flat float32 vector with named slices, relative to the observer.

Seats are relative: relative seat ``r`` is the player ``r`` places clockwise from the observer
(0 is the observer). Per-seat fields are padded to ``MAX_PLAYERS`` so one network serves every
seat and table size. Only what the observer may know is encoded (docs/rules.md "What each player knows").

Layout (``ObservationEncoder.slices`` gives the same table in code; P = 7):

{table}

The preset is the last field, with room to spare (``PRESET_SLOTS``): adding a preset fills a free
slot, so it moves no field, keeps ``OBS_SIZE`` and every trained network's inputs where they were.
Presets own their slots in the order of ``PRESETS``, so a new one is appended there; one more than
``PRESET_SLOTS`` needs a wider field and a new ``ENCODER_VERSION`` (``preset_slot`` refuses it, and a
test says so). The preset stays a one-hot rather than being replaced by the rule options it sets:
those are not all in the layout (nothing else tells norrlandsknack, which ends at 0, from mattmar
in its first rams), and the one-hot carries exactly what encoder version 2 carried, so a version 2
network moves to this layout by a permutation of its inputs (:mod:`rams_env.obs.layouts`) and
computes the same outputs. Encoding every rule option is a change of what the network sees, for
its own version.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

import numpy as np

from ..rules import Game, Phase, RulesConfig
from ..rules.actions import NUM_ACTIONS, Action
from ..rules.cards import NUM_CARDS, ace_value
from ..rules.config import MAX_PLAYERS, PRESETS

# 2: start_score, score_left, flight_cost (what winning a rams turns on); 3: the preset last, PRESET_SLOTS wide
ENCODER_VERSION = 3
P = MAX_PLAYERS
PRESET_SLOTS = 8  # the width of the preset field: PRESETS in order, the rest kept for presets to come
RACE_FLAGS = 5  # score_left: one flag per score from 1 to this (the end of the race is near)

Scale = float | str  # a number, or config attributes multiplied: "start_score*ramsar_per_match"


@dataclass(frozen=True)
class Field:
    """One named slice of the layout; it unpacks as ``(name, size, meaning)``.

    A field of numbers says how they are written: value / ``scale``, then clipped to
    [-``clip``, ``clip``]. A scale is a number or the name of a rule option (see
    :func:`config_scale`); ``progress`` gives one scale and clip per entry. Every encoder (this
    module and :mod:`rams_env.compiled`) and the decoder read them here.
    """

    name: str
    size: int
    meaning: str
    scale: Scale | tuple[Scale, ...] | None = None
    clip: float | tuple[float | None, ...] | None = None

    def __iter__(self) -> Iterator[str | int]:
        return iter((self.name, self.size, self.meaning))

    def scale_at(self, entry: int = 0) -> Scale:
        """The scale of entry ``entry`` (the same for every entry unless ``scale`` is a tuple)."""
        scale = self.scale[entry] if isinstance(self.scale, tuple) else self.scale
        if scale is None:
            raise ValueError(f"observation field {self.name!r} holds no scaled numbers")
        return scale

    def clip_at(self, entry: int = 0) -> float | None:
        """The clip bound of entry ``entry`` (None: not clipped)."""
        return self.clip[entry] if isinstance(self.clip, tuple) else self.clip


# The single source of the layout: offsets and length derive from it, scales are read from it.
FIELDS: tuple[Field, ...] = (
    Field("hand", NUM_CARDS, "own hand, by card index"),
    Field("trump", 4, "trump suit (C D H S)"),
    Field("turned_card", NUM_CARDS, "the card turned up for trump this deal (its identity stays public)"),
    Field("turned_at", 2, "while its place is public: in the dealer's hand / on the table"),
    Field("phase", Phase.DEAL_OVER + 1, "bid, answer, knock, buy, play, over"),
    Field("to_act", P, "relative seat to act"),
    Field("dealer", P, "relative seat of the dealer"),
    Field("seats", P, "relative seats present at the table"),
    Field("deck32", 1, "1 when the deck has 32 cards"),
    Field("better_bid", 3, "better cards: bid made, answers pending, exchange happened"),
    Field("swing_bid", 3, "swing: bid made, answers pending, trump changed"),
    Field("better_answers", 2 * P, "better cards: accepted by relative seat, then rejected"),
    Field("swing_answers", 2 * P, "swing: accepted by relative seat, then rejected"),
    Field("knocked", P, "relative seats that knocked (a credited dealer counts)"),
    Field("passed", P, "relative seats that passed"),
    Field("discarded", P, "cards discarded by relative seat / 6", 6.0),
    Field("drawn", P, "cards drawn by relative seat / 5", 5.0),
    Field("pending_discards", 1, "discards of the player buying now, not yet replaced / 6", 6.0),
    Field("take_pending", 1, "russian dealer must discard once more, then takes the turned card"),
    Field("trick", P * NUM_CARDS, "current trick: card played by each relative seat"),
    Field("trick_leader", P, "relative seat that led the current trick"),
    Field("played", P * NUM_CARDS, "cards of completed tricks, by the relative seat that played them"),
    Field("out_of_play", NUM_CARDS, "cards known out of play: face-up ones and own face-down ones"),
    Field("shown", NUM_CARDS, "cards shown (russian jacks, five of a suit, four aces)"),
    Field("shown_by", P, "relative seats that showed cards"),
    Field("tricks", P, "tricks taken this deal by relative seat / 5", 5.0),
    Field("tricks_done", 1, "completed tricks this deal / 5", 5.0),
    Field("scores", P, "score / start score, clipped to [-2, 2]", "start_score", 2.0),
    Field("at_one", P, "live score exactly 1 (forced trump lead for the others)"),
    Field("flights", P, "flights this rams / 5, clipped to 2", 5.0, 2.0),
    Field("passed_last_deal", P, "passed in the previous deal of this rams"),
    Field("must_knock", 1, "the observer may not pass this deal"),
    Field("queen_due", 1, "russian: observer won the last trick with trump K/A"),
    Field("talon", 1, "cards left in the talon / deck size", "deck_size"),
    Field("own_jacks", 1, "russian jacks write-off of the observer's dealt hand / 10", 10.0),
    Field("own_aces", 1, "russian value of the aces in the observer's hand / 50", 50.0),
    Field(
        "progress",
        2,
        "rams number / ramsar per match, deal of the rams / 20 (clipped)",
        ("ramsar_per_match", 20.0),
        (None, 1.0),
    ),
    Field(
        "totals", P, "match totals / (start score x ramsar), clipped to [-2, 2]", "start_score*ramsar_per_match", 2.0
    ),
    Field("start_score", 1, "the start score / 200 (Swedish 1-10 by option, russian 100, 150, 200)", 200.0),
    Field("score_left", RACE_FLAGS * P, f"by relative seat, {RACE_FLAGS} flags: score at most 1, 2, ..., {RACE_FLAGS}"),
    Field("flight_cost", P, "what taking no trick after knocking would add to each seat's score now / 5", 5.0),
    # Last, and wider than PRESETS: a new preset takes a free slot and moves nothing (see the module docstring).
    Field(
        "variant",
        PRESET_SLOTS,
        f"preset, a slot each in the order of PRESETS ({', '.join(PRESETS)}); the rest kept for new presets",
    ),
)
FIELD = {f.name: f for f in FIELDS}


def config_scale(scale: Scale, config: RulesConfig | Mapping[str, int]) -> float:
    """A field's scale for ``config``: a number as it is, a name the product of those rule options
    (``config`` may be a mapping of them, as the decoder knows only some)."""
    if not isinstance(scale, str):
        return scale
    value = 1
    for name in scale.split("*"):
        value *= config[name] if isinstance(config, Mapping) else getattr(config, name)
    return float(value)


def fixed_scale(name: str, entry: int = 0) -> float:
    """The scale of a field that is the same under every config (``ValueError`` otherwise)."""
    scale = FIELD[name].scale_at(entry)
    if isinstance(scale, str):
        raise ValueError(f"observation field {name!r} is scaled by the rule options {scale!r}, not by a number")
    return scale


def fixed_clip(name: str, entry: int = 0) -> float:
    """The clip bound of a field that is clipped (``ValueError`` otherwise)."""
    bound = FIELD[name].clip_at(entry)
    if bound is None:
        raise ValueError(f"observation field {name!r} is not clipped")
    return bound


_BID_BETTER = int(Action.BID_BETTER)


def preset_slot(variant: str) -> int:
    """The slot of preset ``variant`` in the ``variant`` field: its place in ``PRESETS``."""
    presets = tuple(PRESETS)
    if variant not in presets:
        raise ValueError(f"unknown preset {variant!r}; the observation has a slot for each of {list(presets)}")
    slot = presets.index(variant)
    if slot >= PRESET_SLOTS:
        raise ValueError(
            f"preset {variant!r} is preset number {slot + 1}, but the observation has {PRESET_SLOTS} preset slots: "
            "widen PRESET_SLOTS in rams_env/obs/encoding.py and bump ENCODER_VERSION (with a migration in "
            "rams_env/obs/layouts.py)"
        )
    return slot


def _offsets() -> tuple[dict[str, slice], int]:
    slices, at = {}, 0
    for name, size, _ in FIELDS:
        slices[name] = slice(at, at + size)
        at += size
    return slices, at


SLICES, OBS_SIZE = _offsets()
_O = {name: s.start for name, s in SLICES.items()}
(_HAND, _TRUMP, _TURNED, _TURNED_AT, _PHASE, _TO_ACT, _DEALER, _SEATS, _VARIANT, _DECK32) = (
    _O[k]
    for k in ("hand", "trump", "turned_card", "turned_at", "phase", "to_act", "dealer", "seats", "variant", "deck32")
)
(_BETTER_BID, _SWING_BID, _BETTER_ANSWERS, _SWING_ANSWERS, _KNOCKED, _PASSED, _TAKE_PENDING) = (
    _O[k] for k in ("better_bid", "swing_bid", "better_answers", "swing_answers", "knocked", "passed", "take_pending")
)
(_TRICK, _TRICK_LEADER, _PLAYED, _OUT, _SHOWN, _SHOWN_BY, _AT_ONE, _PASSED_LAST, _MUST_KNOCK, _QUEEN_DUE) = (
    _O[k]
    for k in (
        "trick",
        "trick_leader",
        "played",
        "out_of_play",
        "shown",
        "shown_by",
        "at_one",
        "passed_last_deal",
        "must_knock",
        "queen_due",
    )
)
_START, _SCORE_LEFT, _FLIGHT_COST = (_O[k] for k in ("start_score", "score_left", "flight_cost"))
_OVER = int(Phase.DEAL_OVER)  # the phase slot of "over", for the end of a deal and of the game
# The scales and clips of FIELDS that do not depend on the rule options (the compiled encoder reads them too).
DISCARDED_SCALE, DRAWN_SCALE, PENDING_SCALE, TRICKS_SCALE, TRICKS_DONE_SCALE = (
    fixed_scale(k) for k in ("discarded", "drawn", "pending_discards", "tricks", "tricks_done")
)
FLIGHTS_SCALE, JACKS_SCALE, ACES_SCALE, START_SCALE, FLIGHT_COST_SCALE = (
    fixed_scale(k) for k in ("flights", "own_jacks", "own_aces", "start_score", "flight_cost")
)
DEAL_SCALE = fixed_scale("progress", 1)
SCORES_CLIP, FLIGHTS_CLIP, TOTALS_CLIP, DEAL_CLIP = (
    fixed_clip("scores"),
    fixed_clip("flights"),
    fixed_clip("totals"),
    fixed_clip("progress", 1),
)


def layout_table() -> str:
    """The index table of the layout as markdown."""
    rows = ["| slice | indices | size | meaning |", "|---|---|---|---|"]
    for name, size, meaning in FIELDS:
        s = SLICES[name]
        rows.append(f"| `{name}` | {s.start}-{s.stop - 1} | {size} | {meaning} |")
    rows.append(f"| total | | {OBS_SIZE} | |")
    return "\n".join(rows)


__doc__ = __doc__ and __doc__.format(table=layout_table())  # None under python -OO


class ObservationEncoder:
    """Encodes what one seat may know of a :class:`Game` into a flat float32 vector."""

    version = ENCODER_VERSION
    size = OBS_SIZE

    def __init__(self, config: RulesConfig) -> None:
        if config.num_players > MAX_PLAYERS:
            raise ValueError(f"at most {MAX_PLAYERS} players can be encoded")
        self.config = config
        self.slices: dict[str, slice] = dict(SLICES)
        n = config.num_players
        self._rel = [[(s - seat) % n for s in range(n)] for seat in range(n)]
        self._order = [[(seat + r) % n for r in range(n)] for seat in range(n)]
        self._static_ones = [_SEATS + r for r in range(n)] + [_VARIANT + preset_slot(config.variant)]
        if config.deck_size == 32:
            self._static_ones.append(_DECK32)
        self._score_scale = config_scale(FIELD["scores"].scale_at(), config)
        self._total_scale = config_scale(FIELD["totals"].scale_at(), config)
        self._talon_scale = config_scale(FIELD["talon"].scale_at(), config)
        self._rams_scale = config_scale(FIELD["progress"].scale_at(0), config)
        per_seat = ("discarded", "drawn", "tricks", "scores", "flights", "totals")
        scalars = ("pending_discards", "tricks_done", "talon", "own_jacks", "own_aces")
        index = [SLICES[name].start + r for name in per_seat for r in range(n)]
        index += [SLICES[name].start for name in scalars] + [SLICES["progress"].start, SLICES["progress"].start + 1]
        self._value_index = np.array(index, np.intp)

    def view(self, obs: np.ndarray, name: str) -> np.ndarray:
        """The named slice of an encoded observation."""
        return obs[..., self.slices[name]]

    def encode(self, game: Game, seat: int, out: np.ndarray | None = None) -> np.ndarray:
        """Encode ``seat``'s knowledge of ``game`` (into ``out`` if given)."""
        cfg, n = self.config, game.n
        obs = np.zeros(OBS_SIZE, np.float32) if out is None else out
        if out is not None:
            obs.fill(0.0)
        rel = self._rel[seat]  # rel[absolute seat] = relative seat
        ones = [_HAND + c for c in game.hands[seat]]
        add = ones.append
        add(_TRUMP + game.trump)
        add(_TURNED + game.turned)
        if game.turned_public:
            add(_TURNED_AT + game.turned_at)  # TurnedAt.DEALER or TABLE while public
        phase = game.phase
        if phase <= Phase.PLAY:
            add(_PHASE + phase)
            add(_TO_ACT + rel[game.current])
        else:
            add(_PHASE + _OVER)
        add(_DEALER + rel[game.dealer])
        ones.extend(self._static_ones)
        for bid, answers, happened in game.bid_log:
            _encode_bid(ones, bid, answers, rel, True, happened)
        if game.pending_bid:
            _encode_bid(ones, game.pending_bid, game.answers, rel, False, False)
        for s, a in enumerate(game.active):
            if a is not None:
                add((_KNOCKED if a else _PASSED) + rel[s])
        if game.take_pending:
            add(_TAKE_PENDING)
        trick = game.trick
        if trick:
            for s, c in trick:
                add(_TRICK + NUM_CARDS * rel[s] + c)
            add(_TRICK_LEADER + rel[trick[0][0]])
        for cards, _ in game.completed:
            for s, c in cards:
                add(_PLAYED + NUM_CARDS * rel[s] + c)
        for c in game.out_public:
            add(_OUT + c)
        for c in game.out_hidden[seat]:
            add(_OUT + c)
        for s, _, cards in game.shown:
            add(_SHOWN_BY + rel[s])
            for c in cards:
                add(_SHOWN + c)
        scores = game.scores
        if 1 in scores:
            for s in range(n):
                if scores[s] == 1:
                    add(_AT_ONE + rel[s])
        if True in game.passed_prev:
            for s in range(n):
                if game.passed_prev[s]:
                    add(_PASSED_LAST + rel[s])
        if phase == Phase.KNOCK and game.current == seat and game.must_knock(seat):
            add(_MUST_KNOCK)
        if game.queen_due == seat:
            add(_QUEEN_DUE)
        obs[ones] = 1.0

        # Per-seat numbers, in relative seat order, written with one fancy assignment.
        order = self._order[seat]
        start, total = self._score_scale, self._total_scale
        values = [game.discards[s] / DISCARDED_SCALE for s in order]
        values += [game.draws[s] / DRAWN_SCALE for s in order]
        values += [game.tricks_won[s] / TRICKS_SCALE for s in order]
        values += [_clip(scores[s] / start, SCORES_CLIP) for s in order]
        values += [_clip(game.rams_flights[s] / FLIGHTS_SCALE, FLIGHTS_CLIP) for s in order]
        values += [_clip(game.totals[s] / total, TOTALS_CLIP) for s in order]
        values += [
            game.pending_discards / PENDING_SCALE,
            len(game.completed) / TRICKS_DONE_SCALE,
            game.talon_size / self._talon_scale,
            game.jacks[seat] / JACKS_SCALE,
            ace_value(game.hands[seat]) / ACES_SCALE if cfg.russian_specials else 0.0,
            game.rams_number / self._rams_scale,
            _clip(game.deal_in_rams / DEAL_SCALE, DEAL_CLIP),
        ]
        obs[self._value_index] = values
        self.write_race(obs, scores, order)
        return obs

    def write_race(self, obs: np.ndarray, scores: list[int], order: list[int]) -> None:
        """The fields of the race to 0: start score, scores near 0, what a flight would cost each seat."""
        cfg = self.config
        obs[_START] = cfg.start_score / START_SCALE
        for r, s in enumerate(order):
            score = scores[s]
            at = _SCORE_LEFT + RACE_FLAGS * r
            for k in range(RACE_FLAGS):
                obs[at + k] = 1.0 if score <= k + 1 else 0.0
            cost = min(cfg.flight_fine, cfg.flight_cap - score) if cfg.swedish else cfg.flight_fine
            obs[_FLIGHT_COST + r] = max(0, cost) / FLIGHT_COST_SCALE


def _clip(x: float, bound: float) -> float:
    return -bound if x < -bound else bound if x > bound else x


def _encode_bid(ones: list[int], bid: int, answers, rel: list[int], done: bool, happened: bool) -> None:
    head, ans = (_BETTER_BID, _BETTER_ANSWERS) if bid == _BID_BETTER else (_SWING_BID, _SWING_ANSWERS)
    ones.append(head)
    if not done:
        ones.append(head + 1)
    elif happened:
        ones.append(head + 2)
    for s, accepted in answers:
        ones.append(ans + rel[s] + (0 if accepted else P))


def action_mask(game: Game, seat: int, out: np.ndarray | None = None) -> np.ndarray:
    """int8 mask of the 60 actions: the legal ones for ``seat`` if it is to act, else all zeros."""
    mask = np.zeros(NUM_ACTIONS, np.int8) if out is None else out
    if out is not None:
        mask.fill(0)
    if game.current == seat:
        mask[game.legal_actions()] = 1
    return mask
