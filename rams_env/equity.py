"""The equity of a score state: each seat's chance to win the rams from ``(rules, scores, dealer)``.

``equity(rules, scores, dealer)`` is the chance of each seat to win the rams that starts its next
deal with ``scores`` and ``dealer`` dealing, when every seat plays as :class:`HeuristicAgent` does
(a tie shares the win: a rams won by two seats counts one half to each). It is a fitted model,
shipped as data (``rams_env/data/equity.json``, written by ``training/fit_equity.py``), for every
preset at its own rule options and every table size the preset allows. Its calibration against
simulated ramsar is on the docs page ``docs/equity.md``.

The model is a conditional logit: seat ``i`` gets the utility::

    u_i = T[score_i, lowest score of the others] + H[position of i after the dealer]

and the chances are ``softmax(u)`` over the seats, so they sum to 1 and permuting the seats
permutes them. ``T`` is a table over score knots (every score 1..10 in the Swedish presets; a few
dozen points apart in russian), read by bilinear interpolation between knots and clamped at the
ends; the shipped ``T`` falls with a seat's own score and rises with the others' lowest, so a seat
that lowers its score never loses equity. A state where somebody is at 0 or less is the end of the
rams, and the lowest scores share the win exactly.

Not modelled: the previous deal's passes (the two-point rule), the totals and flights of a match
(``episode="match"``: :func:`equity` gives the current rams only; :func:`match_equity` estimates the
match by simulation), rule options other than a preset's.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from importlib import resources
from typing import Any

import numpy as np

from . import jsoncheck
from .compiled.layout import config_array
from .compiled.simulate import play_matches, play_ramsar, ramsar_records
from .compiled.workspace import make_workspace, ramsar_plan
from .rules import RulesConfig, make_config

FORMAT = 1
DATA_FILE = "equity.json"
# The score knots of the table T, by family. Swedish scores at a deal start are 1..10 (the cap);
# russian records start at 100 and may rise above it by fines.
KNOTS: dict[str, tuple[int, ...]] = {
    "swedish": tuple(range(1, 11)),
    "russian": (1, 3, 5, 8, 12, 17, 23, 30, 40, 50, 60, 70, 85, 100, 120, 150),
}


def model_key(rules: RulesConfig) -> str:
    """The data's key for ``rules``: ``"<preset>-<players>p"``."""
    return f"{rules.variant}-{rules.num_players}p"


def check_rules(rules: RulesConfig) -> None:
    """Refuse (``ValueError``) rules the model has no data for: options other than the preset's."""
    if not isinstance(rules, RulesConfig):
        raise ValueError(f"rules must be a RulesConfig (rams_env.make_config), got {type(rules).__name__}")
    preset = make_config(rules.variant, rules.num_players).to_dict()
    changed = sorted(k for k, v in rules.to_dict().items() if preset[k] != v)
    if changed:
        raise ValueError(
            f"the equity model covers the presets at their own rule options; these differ from "
            f"{rules.variant!r}'s: {', '.join(f'{k}={getattr(rules, k)!r}' for k in changed)}"
        )


def check_state(rules: RulesConfig, scores: Any, dealer: Any) -> tuple[np.ndarray, np.ndarray]:
    """``scores`` as an int64 array (N, n) and ``dealer`` as (N,), or a ``ValueError`` naming what
    is wrong. Accepts one state (``scores`` of length n, an int ``dealer``) or a batch."""
    n = rules.num_players
    array = np.asarray(scores)
    if array.dtype == bool or not (np.issubdtype(array.dtype, np.integer) or np.issubdtype(array.dtype, np.floating)):
        raise ValueError(f"scores must be numbers, got {array.dtype}")
    if array.ndim not in (1, 2) or array.shape[-1] != n:
        raise ValueError(f"scores must have one entry per seat ({n}) or shape (N, {n}), got shape {array.shape}")
    if np.issubdtype(array.dtype, np.floating) and not np.all(np.isfinite(array) & (array == np.round(array))):
        raise ValueError("scores must be whole numbers")
    batch = array.reshape(-1, n).astype(np.int64)
    dealers = np.asarray(dealer)
    if dealers.dtype == bool or not np.issubdtype(dealers.dtype, np.integer):
        raise ValueError(f"dealer must be an int seat, got {dealer!r}")
    dealers = np.broadcast_to(dealers.reshape(-1), (batch.shape[0],)) if dealers.size == 1 else dealers.reshape(-1)
    if dealers.shape != (batch.shape[0],):
        raise ValueError(f"dealer must be one seat or one per state ({batch.shape[0]}), got shape {np.shape(dealer)}")
    if np.any((dealers < 0) | (dealers >= n)):
        raise ValueError(f"dealer must be a seat 0..{n - 1}, got {dealer!r}")
    if rules.swedish and np.any(batch > rules.flight_cap):
        cap = rules.flight_cap
        raise ValueError(f"a Swedish score never exceeds the flight cap {cap}: got scores {array.tolist()}")
    if rules.end == "at_zero" and np.any(batch < 0):
        raise ValueError(f"{rules.variant} scores stop at 0: got scores {array.tolist()}")
    return batch, dealers.astype(np.int64)


def _hat(values: np.ndarray, knots: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The lower knot index and the weight of the upper knot of each value (clamped at the ends)."""
    x = np.clip(values.astype(np.float64), knots[0], knots[-1])
    lower = np.clip(np.searchsorted(knots, x, side="right") - 1, 0, knots.size - 2)
    weight = (x - knots[lower]) / (knots[lower + 1] - knots[lower])
    return lower, weight


def seat_features(rules: RulesConfig, scores: np.ndarray, dealers: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The sparse features of every seat of states (N, n): ``index`` (N, n, 5) into the parameter
    vector (four table cells, then the position) and ``weight`` (N, n, 5)."""
    knots = np.asarray(KNOTS[rules.family], np.float64)
    k = knots.size
    n = rules.num_players
    others = np.empty_like(scores)
    for seat in range(n):
        others[:, seat] = np.delete(scores, seat, axis=1).min(axis=1)
    own_low, own_w = _hat(scores, knots)
    opp_low, opp_w = _hat(others, knots)
    index = np.empty((*scores.shape, 5), np.int64)
    weight = np.empty((*scores.shape, 5), np.float64)
    for slot, (da, wa) in enumerate(((0, 1 - own_w), (1, own_w))):
        for dbi, (db, wb) in enumerate(((0, 1 - opp_w), (1, opp_w))):
            index[..., 2 * slot + dbi] = (own_low + da) * k + (opp_low + db)
            weight[..., 2 * slot + dbi] = wa * wb
    index[..., 4] = k * k + (np.arange(n)[None, :] - dealers[:, None] - 1) % n
    weight[..., 4] = 1.0
    return index, weight


def num_parameters(rules: RulesConfig) -> int:
    """The length of the parameter vector: the table T (knots x knots), then H (one per seat)."""
    return len(KNOTS[rules.family]) ** 2 + rules.num_players


def chances(parameters: np.ndarray, index: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """softmax over the seats of the utilities ``sum(weight * parameters[index])``: (N, n)."""
    utility = (parameters[index] * weight).sum(axis=-1)
    utility -= utility.max(axis=1, keepdims=True)
    exp = np.exp(utility)
    return exp / exp.sum(axis=1, keepdims=True)


def terminal_shares(scores: np.ndarray) -> np.ndarray:
    """The exact result where a rams is over (somebody at 0 or less): the lowest scores share 1."""
    lowest = scores == scores.min(axis=1, keepdims=True)
    return lowest / lowest.sum(axis=1, keepdims=True)


DAMAGED = "reinstall rams_env, or refit the models with python -m rams_training.fit_equity"


@functools.cache
def _load() -> dict[str, Any]:
    where = f"rams_env/data/{DATA_FILE}"
    try:
        data = jsoncheck.parse(resources.files("rams_env").joinpath("data", DATA_FILE).read_bytes(), where)
    except OSError as err:
        raise ValueError(f"cannot read {where} ({err.strerror or err}); {DAMAGED}") from None
    except jsoncheck.JsonInputError as err:
        raise ValueError(f"{err} (damaged); {DAMAGED}") from None
    if not isinstance(data, dict) or not isinstance(data.get("models"), dict):
        raise ValueError(f"{where} is not equity data (no models); {DAMAGED}")
    if data.get("format") != FORMAT:
        raise ValueError(f"{where} has format {data.get('format')!r}; this code reads {FORMAT}")
    return data


def load_data() -> dict[str, Any]:
    """The shipped model data (parsed ``rams_env/data/equity.json``)."""
    return _load()


@functools.cache
def parameters(key: str) -> np.ndarray:
    """The fitted parameter vector of model ``key`` (see :func:`model_key`)."""
    models = _load()["models"]
    if key not in models:
        raise ValueError(f"no equity model for {key!r}; the data has {sorted(models)}")
    model = models[key]
    try:
        table = np.asarray(model["table"], np.float64)
        position = np.asarray(model["position"], np.float64)
    except (TypeError, KeyError, ValueError):
        table = position = np.zeros(0)
    if table.ndim != 2 or table.shape[0] != table.shape[1] or position.ndim != 1:
        raise ValueError(f"rams_env/data/{DATA_FILE}: model {key!r} is damaged (no square table, position); {DAMAGED}")
    if not (np.isfinite(table).all() and np.isfinite(position).all()):
        raise ValueError(f"rams_env/data/{DATA_FILE}: model {key!r} holds a number that is not finite; {DAMAGED}")
    return np.concatenate([table.reshape(-1), position])


def equity(rules: RulesConfig, scores: Sequence[int] | np.ndarray, dealer: int | np.ndarray) -> np.ndarray:
    """Each seat's chance to win the rams from the deal that starts with ``scores``, ``dealer``
    dealing: shape (n,) for one state, (N, n) for a batch (``scores`` (N, n), ``dealer`` (N,))."""
    check_rules(rules)
    batch, dealers = check_state(rules, scores, dealer)
    theta = parameters(model_key(rules))
    if len(theta) != num_parameters(rules):
        raise ValueError(f"rams_env/data/{DATA_FILE}: model {model_key(rules)!r} has the wrong size; {DAMAGED}")
    out = chances(theta, *seat_features(rules, batch, dealers))
    over = batch.min(axis=1) <= 0
    if over.any():
        out[over] = terminal_shares(batch[over])
    return out[0] if np.ndim(scores) == 1 else out


def win_shares(winners: np.ndarray, num_players: int) -> np.ndarray:
    """Seat masks of winners (R,) as each seat's share of the win (R, n)."""
    won = (winners[:, None] >> np.arange(num_players)[None, :]) & 1
    return won / won.sum(axis=1, keepdims=True)


def simulate_ramsar(rules: RulesConfig, num_ramsar: int, seed: int, random_start: float = 0.0) -> dict[str, np.ndarray]:
    """Play ``num_ramsar`` whole ramsar with every seat the compiled heuristic (seeded from
    ``seed``); a fraction ``random_start`` of them start from random scores (each seat uniform
    from 1 to the start score) instead of the start score. Returns ``scores`` (M, n) and
    ``dealer`` (M,) at every deal start, ``rams`` (M,) its rams, and ``winners`` (R,) seat masks."""
    if num_ramsar < 1:
        raise ValueError(f"num_ramsar must be at least 1, got {num_ramsar}")
    if not 0.0 <= random_start <= 1.0:
        raise ValueError(f"random_start must be a fraction from 0 to 1, got {random_start}")
    plan = ramsar_plan(rules, num_ramsar, seed, random_start)
    c = config_array(rules, "rams", "win")
    capacity = 64 * num_ramsar
    while True:
        out = ramsar_records(capacity, num_ramsar, rules.num_players)
        count = play_ramsar(make_workspace(), c, plan.seeds, plan.hseeds, plan.start, out)
        if count >= 0:
            records = {"scores": out.scores[:count], "dealer": out.dealer[:count], "rams": out.rams[:count]}
            return {**records, "winners": out.winners}
        capacity *= 4


def match_equity(
    rules: RulesConfig,
    scores: Sequence[int],
    dealer: int,
    totals: Sequence[int],
    flights: Sequence[int],
    rams_number: int,
    simulations: int = 2000,
    seed: int = 0,
) -> np.ndarray:
    """Each seat's chance to win the match (``episode="match"``) from the deal that starts rams
    ``rams_number`` (0-based) with ``scores``, ``dealer`` dealing, after earlier ramsar that left
    ``totals`` (the sum of their final scores) and ``flights`` (the match's flights so far).

    Not a fitted model: a Monte Carlo estimate from ``simulations`` plays of the rest of the match
    by the compiled heuristic in every seat (standard error at most ``0.5 / sqrt(simulations)`` per
    seat), reproducible for a ``seed``. For a preset whose match is one rams it estimates the same
    chance as :func:`equity`.
    """
    check_rules(rules)
    n = rules.num_players
    batch, dealers = check_state(rules, scores, dealer)
    if batch.shape[0] != 1:
        raise ValueError(f"match_equity takes one state: scores of length {n}, got shape {np.shape(scores)}")
    if batch.min() <= 0:
        raise ValueError(f"scores must be a deal start (every score above 0), got {list(scores)}")
    if isinstance(rams_number, bool) or not isinstance(rams_number, (int, np.integer)):
        raise ValueError(f"rams_number must be an int, got {rams_number!r}")
    if not 0 <= rams_number < rules.ramsar_per_match:
        raise ValueError(f"rams_number must be 0..{rules.ramsar_per_match - 1} (0-based), got {rams_number}")
    named = {"totals": totals, "flights": flights}
    arrays = {}
    for name, values in named.items():
        array = np.asarray(values)
        if array.shape != (n,) or not np.issubdtype(array.dtype, np.integer) or array.dtype == bool:
            raise ValueError(f"{name} must be {n} ints, one per seat, got {values!r}")
        arrays[name] = array.astype(np.int64)
    if np.any(arrays["flights"] < 0):
        raise ValueError(f"flights must not be negative, got {list(flights)}")
    if rams_number == 0 and np.any(arrays["totals"] != 0):
        raise ValueError("in the first rams of a match (rams_number 0) the totals are all 0")
    if isinstance(simulations, bool) or not isinstance(simulations, int) or simulations < 1:
        raise ValueError(f"simulations must be a positive int, got {simulations!r}")
    plan = ramsar_plan(rules, simulations, seed, 0.0)
    winners = np.zeros(simulations, np.int64)
    play_matches(
        make_workspace(),
        config_array(rules, "match", "win"),
        plan.seeds,
        plan.hseeds,
        int(dealers[0]),
        batch[0],
        arrays["totals"],
        arrays["flights"],
        int(rams_number),
        winners,
    )
    return win_shares(winners, n).mean(axis=0)
