"""Rule options: one frozen dataclass, four named presets, validated in one place."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from .cards import HAND_SIZE

MIN_PLAYERS, MAX_PLAYERS = 3, 7  # the fewest and the most seats any table has (the encoder pads to MAX_PLAYERS)
SWEDISH, RUSSIAN = "swedish", "russian"
END_AFTER_DEAL, END_AT_ZERO = "after_deal", "at_zero"
INDIVIDUAL, UNANIMOUS = "individual", "unanimous"


@dataclass(frozen=True)
class RulesConfig:
    """Every rule option that docs/rules.md lets vary. Build one with :func:`make_config`."""

    variant: str = "mattmar"  # preset this configuration was built from
    num_players: int = 4  # seats at the table
    min_players: int = MIN_PLAYERS  # fewest seats the variant allows
    max_players: int = MAX_PLAYERS  # most seats the variant allows
    deck_size: int = 52  # 52 cards, or 32 (ranks 7..A)
    start_score: int = 10  # score (record) every player starts a rams with; lower is better
    family: str = SWEDISH  # "swedish" or "russian": trick legality, dealer's buying and scoring
    bids: bool = True  # forehand may bid better cards and swing (section 3)
    better_cards: str = INDIVIDUAL  # acceptance of "better cards": "individual" (HD) or "unanimous"
    end: str = END_AFTER_DEAL  # Swedish rams end: "after_deal" (mattmar) or "at_zero" (norrlandsknack)
    ramsar_per_match: int = 6  # ramsar in a match (1: the match is one rams / russian game)
    flight_cap: int = 10  # Swedish: a flight never lifts a score above this
    flight_fine: int = 5  # points added for taking no trick after knocking (both families)
    forced_knock_at_one: bool = True  # Swedish: a player at 1 point must knock
    forced_knock_at_two: bool = True  # Swedish: at 2 points, no second pass in a row
    forced_knock_with_ace: bool = False  # russian: a player dealt an ace may not pass
    overtake_duty: bool = True  # Swedish: following suit, beat the trick if you can; overtrump
    trump_ace_lead: bool = True  # Swedish: trump ace led at first lead, played to a trump lead
    forced_trump_lead: bool = True  # Swedish: while someone is at 1 point, others lead trump
    honour_leads: bool = False  # russian: lead trump A, K, then Q; ace on a led K, Q or J
    jacks: bool = False  # russian: jacks write-off and going out on jacks
    russian_specials: bool = False  # russian: four aces, five of one suit

    def __post_init__(self) -> None:
        _validate(self)

    @property
    def swedish(self) -> bool:
        """True for the Swedish family (mattmar, norrlandsknack, rams32)."""
        return self.family == SWEDISH

    @property
    def max_deal_actions(self) -> int:
        """Upper bound on the actions of one deal (bids, answers, knocks, buying, play)."""
        n = self.num_players
        bidding = (2 * n + 1) if self.bids else 0  # two bids, n - 1 answers each, NO_BID
        buying = n * 7 + 1  # at most 6 discards + DRAW each, + russian dealer's extra discard
        return bidding + n + buying + 5 * n

    def to_dict(self) -> dict[str, Any]:
        """Plain dict of every option (JSON-serialisable)."""
        return dataclasses.asdict(self)


_SWEDISH_BASE: dict[str, Any] = {}
PRESETS: dict[str, dict[str, Any]] = {
    "mattmar": dict(_SWEDISH_BASE),
    "norrlandsknack": dict(_SWEDISH_BASE, end=END_AT_ZERO, ramsar_per_match=1),
    "rams32": dict(_SWEDISH_BASE, deck_size=32, max_players=6),
    "russian": dict(
        family=RUSSIAN,
        start_score=100,
        bids=False,
        ramsar_per_match=1,
        forced_knock_at_one=False,
        forced_knock_at_two=False,
        forced_knock_with_ace=True,
        overtake_duty=False,
        trump_ace_lead=False,
        forced_trump_lead=False,
        honour_leads=True,
        jacks=True,
        russian_specials=True,
    ),
}
OPTION_NAMES = tuple(f.name for f in dataclasses.fields(RulesConfig) if f.name != "variant")
# Bound on every int option: the compiled engine keeps options and scores in int64, and scores grow
# by sums of them (start_score plus flight fines), which must never overflow.
INT_LIMIT = 2**31 - 1


def make_config(variant: str = "mattmar", num_players: int | None = None, **options: Any) -> RulesConfig:
    """Build the configuration of a preset with some options overridden by keyword.

    Raises :class:`ConfigError` (a ``ValueError``) naming an unknown preset, an unknown option or an
    impossible value; when a value clashes with another option, the error names the option the caller
    gave (its ``option`` says which).
    """
    if variant not in PRESETS:
        raise ConfigError(f"unknown variant {variant!r}; choose one of {sorted(PRESETS)}", "variant")
    unknown = sorted(set(options) - set(OPTION_NAMES))
    if unknown:
        raise ConfigError(
            f"unknown rule option(s) {unknown} for variant {variant!r}; known options: {list(OPTION_NAMES)}",
            unknown[0],
        )
    fields: dict[str, Any] = dict(PRESETS[variant], variant=variant)
    if num_players is not None:
        fields["num_players"] = num_players
    fields.update(options)
    if variant == "russian" and "deck_size" not in options:
        # Russian seed: the full deck with four or more players, 32 cards with three.
        players = fields.get("num_players", 4)
        fields["deck_size"] = 32 if players == 3 else 52
    given = set(options) | ({"num_players"} if num_players is not None else set())
    try:
        return RulesConfig(**fields)
    except _InvalidOption as err:
        option = next((o for o in err.options if o in given), err.options[0])
        raise ConfigError(err.message(option), option) from None


class _DefaultVariant(str):
    """The type of :data:`DEFAULT_VARIANT`: ``"mattmar"``, told apart from a ``variant="mattmar"`` given."""

    def __reduce__(self) -> str:
        return "DEFAULT_VARIANT"  # pickles and copies as the one default object


class _DefaultPlayers(int):
    """The type of :data:`DEFAULT_NUM_PLAYERS`: ``4``, told apart from a ``num_players=4`` given."""

    def __reduce__(self) -> str:
        return "DEFAULT_NUM_PLAYERS"


# The defaults of the envs' ``variant`` and ``num_players``: equal to "mattmar" and 4 (and shown so in their
# signatures), and the very objects, so that with ``config=`` a value left at its default is told apart
# from the same value given (which must agree with the config).
DEFAULT_VARIANT: str = _DefaultVariant("mattmar")
DEFAULT_NUM_PLAYERS: int = _DefaultPlayers(4)


def resolve_config(
    variant: str = DEFAULT_VARIANT,
    num_players: int = DEFAULT_NUM_PLAYERS,
    config: RulesConfig | None = None,
    options: dict[str, Any] | None = None,
) -> RulesConfig:
    """The rules of an env given ``variant``, ``num_players`` and rule ``options``, or a ready ``config``.

    Without ``config``: :func:`make_config` of the strings and options. With it: ``config`` itself, which
    must be a :class:`RulesConfig` (else ``TypeError``); a rule option beside it is a :class:`ConfigError`
    naming the option, and so is a ``variant`` or ``num_players`` given and not the config's own (a value
    left at its default, :data:`DEFAULT_VARIANT` or :data:`DEFAULT_NUM_PLAYERS`, is not given).
    """
    options = options or {}
    if config is None:
        players = int(num_players) if num_players is DEFAULT_NUM_PLAYERS else num_players
        return make_config(str(variant) if variant is DEFAULT_VARIANT else variant, players, **options)
    if not isinstance(config, RulesConfig):
        raise TypeError(f"config must be a RulesConfig (from rams_env.make_config), got {type(config).__name__}")
    table = f"config ({config.variant}, {config.num_players} players)"
    if options:
        names = [str(name) for name in sorted(options, key=str)]
        unknown = [name for name in names if name not in OPTION_NAMES]
        if unknown:
            raise ConfigError(
                f"unknown keyword(s) {', '.join(unknown)} given with {table}: not a rule option, and with "
                "config= no rule option is given either (the config holds them all)",
                unknown[0],
            )
        raise ConfigError(
            f"rule option(s) {', '.join(names)} given with {table}: the config holds every rule option; "
            f"give one (make_config({config.variant!r}, {config.num_players}, {names[0]}=...) builds the config)",
            names[0],
        )
    clashes = []
    if variant is not DEFAULT_VARIANT and variant != config.variant:
        clashes.append(("variant", f"variant {variant!r}"))
    if num_players is not DEFAULT_NUM_PLAYERS and num_players != config.num_players:
        clashes.append(("num_players", f"num_players {num_players!r}"))
    if clashes:
        given = ", ".join(what for _, what in clashes)
        raise ConfigError(f"{given} and {table} disagree: give one", clashes[0][0])
    return config


class ConfigError(ValueError):
    """A rules configuration that cannot be made; ``option`` is the option (or ``"variant"``) it names."""

    def __init__(self, message: str, option: str) -> None:
        super().__init__(message)
        self.option = option

    def __reduce__(self) -> tuple[type, tuple[str, str]]:
        return ConfigError, (str(self), self.option)  # pickles (to another process) with its option


class _InvalidOption(ValueError):
    """An impossible value; ``options`` are the options involved, the first named by default."""

    def __init__(self, cfg: RulesConfig, options: tuple[str, ...], why: str) -> None:
        self.options, self.why = options, why
        self.values = {option: getattr(cfg, option) for option in options}
        super().__init__(self.message(options[0]))

    def __reduce__(self) -> tuple[type, tuple[str]]:
        return ValueError, (str(self),)  # pickles (to another process) as the plain ValueError it is

    def message(self, option: str) -> str:
        """The error text naming ``option`` (and the values of the others involved)."""
        others = ", ".join(f"{o}={v!r}" for o, v in self.values.items() if o != option)
        return f"invalid rule option {option}={self.values[option]!r}: {self.why}" + (
            f" (with {others})" if others else ""
        )


def _validate(cfg: RulesConfig) -> None:
    def fail(options: str | tuple[str, ...], why: str) -> None:
        raise _InvalidOption(cfg, (options,) if isinstance(options, str) else options, why)

    def set_ones(*names: str) -> tuple[str, ...]:
        return tuple(name for name in names if getattr(cfg, name))

    for name in OPTION_NAMES:
        field_type = type(getattr(RulesConfig, name, None)) if hasattr(RulesConfig, name) else None
        value = getattr(cfg, name)
        if field_type is bool and not isinstance(value, bool):
            fail(name, "must be True or False")
        if field_type is int and (isinstance(value, bool) or not isinstance(value, int)):
            fail(name, "must be an int")
        if field_type is int and not -INT_LIMIT <= value <= INT_LIMIT:
            fail(name, f"must be an int from {-INT_LIMIT} to {INT_LIMIT} (2**31 - 1)")
    if not isinstance(cfg.variant, str) or not cfg.variant:  # a list here would make the config unhashable
        fail("variant", "must be the name of the preset (a string)")
    if cfg.family not in (SWEDISH, RUSSIAN):
        fail("family", f"must be {SWEDISH!r} or {RUSSIAN!r}")
    if cfg.deck_size not in (52, 32):
        fail("deck_size", "must be 52 or 32")
    if cfg.min_players < MIN_PLAYERS:
        fail("min_players", f"a table has at least {MIN_PLAYERS} players")
    if cfg.max_players > MAX_PLAYERS:
        fail("max_players", f"a table has at most {MAX_PLAYERS} players")
    if cfg.min_players > cfg.max_players:
        fail(("min_players", "max_players"), "the player range min_players..max_players is empty")
    if not cfg.min_players <= cfg.num_players <= cfg.max_players:
        bound = "min_players" if cfg.num_players < cfg.min_players else "max_players"
        fail(("num_players", bound), f"variant {cfg.variant!r} is for {cfg.min_players} to {cfg.max_players} players")
    if HAND_SIZE * cfg.num_players + 1 > cfg.deck_size:  # the hands and the turned card
        need = HAND_SIZE * cfg.num_players + 1
        fail(("num_players", "deck_size"), f"{cfg.num_players} players need {need} cards, the deck has {cfg.deck_size}")
    if cfg.better_cards not in (INDIVIDUAL, UNANIMOUS):
        fail("better_cards", f"must be {INDIVIDUAL!r} or {UNANIMOUS!r}")
    if cfg.end not in (END_AFTER_DEAL, END_AT_ZERO):
        fail("end", f"must be {END_AFTER_DEAL!r} or {END_AT_ZERO!r}")
    if cfg.ramsar_per_match < 1:
        fail("ramsar_per_match", "must be at least 1")
    if cfg.family == RUSSIAN:
        if cfg.start_score not in (100, 150, 200):
            fail(("start_score", "family"), "the russian record starts at 100, 150 or 200")
        if cfg.bids:
            fail(("bids", "family"), "russian has no forehand bids")
        if cfg.end != END_AFTER_DEAL:
            fail(("end", "family"), "the russian game is checked at the end of each deal")
        swedish_tricks = set_ones("overtake_duty", "trump_ace_lead", "forced_trump_lead")
        if swedish_tricks:
            fail((*swedish_tricks, "family"), "Swedish trick rules do not combine with the russian family")
    else:
        if not 1 <= cfg.start_score <= cfg.flight_cap:
            bounds = ("start_score", "flight_cap", "family")
            fail(bounds, f"Swedish scores start between 1 and the flight cap {cfg.flight_cap}")
        russian_rules = set_ones("honour_leads", "jacks", "russian_specials", "forced_knock_with_ace")
        if russian_rules:
            fail((*russian_rules, "family"), "russian rules do not combine with the Swedish family")
    if cfg.flight_fine < 0:
        fail("flight_fine", "must not be negative")
