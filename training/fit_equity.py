"""Fit the rams equity model (rams_env.equity) to simulated all-heuristic ramsar and report its calibration.

For every preset and table size: simulate ``train`` ramsar (half of them from random scores) with
every seat the compiled heuristic, fit the conditional logit of :mod:`rams_env.equity` by L-BFGS
(cross-entropy against each rams's win shares, with a smoothing penalty on neighbouring table
cells), make the table monotone (falling in the seat's own score, rising in the others' lowest),
then score it on ``test`` fresh ramsar played from the start against two baselines: uniform 1/n
and the score rank (each seat's chance by how many seats are below it, fitted on the same train
ramsar). Writes

- ``rams_env/data/equity.json``: the fitted parameters (what ``rams_env.equity`` loads);
- ``docs/equity-calibration.json``: Brier scores and log losses on the held-out ramsar;
- ``docs/equity-reliability.png``: reliability curves of the model and the rank baseline.

Each model is simulated and fitted in one go (the run is not resumable); ``--only mattmar-4p`` refits
one model and keeps the others. Needs scipy (the optimiser) and matplotlib (the plot).

    python -m rams_training.fit_equity
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from scipy.optimize import minimize
from tqdm.auto import tqdm

from rams_env import equity, jsoncheck
from rams_env.options import SEED, arg, check_fields, option_name, parse
from rams_env.rules import PRESETS, RulesConfig, make_config

from .checks import known

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "rams_env" / "data" / equity.DATA_FILE
CALIBRATION = ROOT / "docs" / "equity-calibration.json"
PLOT = ROOT / "docs" / "equity-reliability.png"


@dataclass(kw_only=True)
class Args:
    """The arguments of ``python -m rams_training.fit_equity`` (module docstring)."""

    train: int = arg(20000, "ramsar simulated to fit each model (half from random scores)", low=1)
    test: int = arg(5000, "held-out ramsar per model, played from the start score, for the calibration figures", low=1)
    seed: int = arg(
        2027,
        "seed of the simulations (each model's train and test sets are drawn from it and the model key)",
        check=SEED,
    )
    smooth: float = arg(1e-3, "weight of the squared differences between neighbouring table cells", low=0)
    ridge: float = arg(1e-5, "weight of the squared parameters", low=0)
    only: str = arg("", "comma-separated model keys (e.g. mattmar-4p) to refit; the others are kept from the data file")

    def __post_init__(self) -> None:
        """Every option (``ValueError`` naming the first bad one)."""
        check_fields(self, option_name)  # each field's type and range, declared with it
        known("only", [k for k in self.only.split(",") if k], [equity.model_key(c) for c in configs()])


def configs() -> list[RulesConfig]:
    """Every preset at every table size it allows."""
    out = []
    for variant in PRESETS:
        low, high = make_config(variant).min_players, make_config(variant).max_players
        out.extend(make_config(variant, n) for n in range(low, high + 1))
    return out


def records(rules: RulesConfig, num: int, seed: int, random_start: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Deal-start states of simulated ramsar: scores (M, n), dealers (M,), win shares (M, n)."""
    sim = equity.simulate_ramsar(rules, num, seed, random_start)
    shares = equity.win_shares(sim["winners"], rules.num_players)[sim["rams"]]
    return sim["scores"], sim["dealer"], shares


def _penalty(rules: RulesConfig, theta: np.ndarray, args: Args) -> tuple[float, np.ndarray]:
    k = len(equity.KNOTS[rules.family])
    table = theta[: k * k].reshape(k, k)
    grad = 2 * args.ridge * theta
    value = args.ridge * float(theta @ theta)
    for axis in (0, 1):
        diff = np.diff(table, axis=axis)
        value += args.smooth * float((diff**2).sum())
        g = np.zeros_like(table)
        if axis == 0:
            g[1:] += 2 * diff
            g[:-1] -= 2 * diff
        else:
            g[:, 1:] += 2 * diff
            g[:, :-1] -= 2 * diff
        grad[: k * k] += args.smooth * g.reshape(-1)
    return value, grad


def fit(rules: RulesConfig, scores: np.ndarray, dealers: np.ndarray, shares: np.ndarray, args: Args) -> np.ndarray:
    """The parameter vector minimising the mean cross-entropy plus the penalties."""
    index, weight = equity.seat_features(rules, scores, dealers)
    size = equity.num_parameters(rules)
    count = scores.shape[0]

    def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
        p = equity.chances(theta, index, weight)
        value = -float((shares * np.log(np.maximum(p, 1e-300))).sum()) / count
        g = ((p - shares)[..., None] * weight).reshape(-1)
        grad = np.bincount(index.reshape(-1), weights=g, minlength=size) / count
        extra, extra_grad = _penalty(rules, theta, args)
        return value + extra, grad + extra_grad

    result = minimize(loss, np.zeros(size), jac=True, method="L-BFGS-B", options={"maxiter": 2000})
    return result.x


def _isotonic(values: np.ndarray, increasing: bool) -> np.ndarray:
    """The least-squares monotone sequence nearest ``values`` (pool adjacent violators)."""
    y = values if increasing else -values
    blocks: list[list[float]] = []  # [mean, count]
    for v in y:
        blocks.append([float(v), 1.0])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            m2, c2 = blocks.pop()
            m1, c1 = blocks.pop()
            blocks.append([(m1 * c1 + m2 * c2) / (c1 + c2), c1 + c2])
    out = np.concatenate([np.full(int(c), m) for m, c in blocks])
    return out if increasing else -out


def monotone(table: np.ndarray) -> np.ndarray:
    """``table`` made non-increasing down each column (own score) and non-decreasing along each row
    (the others' lowest), by alternating projections."""
    t = table.copy()
    for _ in range(200):
        t = np.stack([_isotonic(t[:, b], increasing=False) for b in range(t.shape[1])], axis=1)
        t = np.stack([_isotonic(t[a], increasing=True) for a in range(t.shape[0])], axis=0)
        if np.all(np.diff(t, axis=0) <= 1e-12) and np.all(np.diff(t, axis=1) >= -1e-12):
            return t
    raise RuntimeError("the table did not become monotone in 200 rounds")


def rank_table(scores: np.ndarray, shares: np.ndarray) -> np.ndarray:
    """The score-rank baseline: the mean win share of a seat with r seats strictly below it."""
    ranks = (scores[:, None, :] < scores[:, :, None]).sum(axis=2)
    n = scores.shape[1]
    totals = np.bincount(ranks.reshape(-1), weights=shares.reshape(-1), minlength=n)
    counts = np.bincount(ranks.reshape(-1), minlength=n)
    return np.where(counts > 0, totals / np.maximum(counts, 1), 0.0)


def rank_chances(table: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """The rank baseline's chances (N, n)."""
    ranks = (scores[:, None, :] < scores[:, :, None]).sum(axis=2)
    p = table[ranks] + 1e-9
    return p / p.sum(axis=1, keepdims=True)


def brier(p: np.ndarray, shares: np.ndarray) -> float:
    """Mean over states of the squared error summed over seats."""
    return float(((p - shares) ** 2).sum(axis=1).mean())


def log_loss(p: np.ndarray, shares: np.ndarray) -> float:
    """Mean over states of the cross-entropy against the win shares (nats)."""
    return float(-(shares * np.log(np.maximum(p, 1e-12))).sum(axis=1).mean())


def reliability(p: np.ndarray, shares: np.ndarray, bins: int = 10) -> list[list[float]]:
    """Per bin of predicted chance (every seat of every state): [mean predicted, mean share, count]."""
    flat_p, flat_y = p.reshape(-1), shares.reshape(-1)
    which = np.minimum((flat_p * bins).astype(int), bins - 1)
    out = []
    for b in range(bins):
        inside = which == b
        if inside.any():
            out.append([float(flat_p[inside].mean()), float(flat_y[inside].mean()), int(inside.sum())])
    return out


def model_seed(args: Args, key: str, part: int) -> int:
    """The simulation seed of one model's train (part 0) or test (part 1) set."""
    return int.from_bytes(f"{args.seed}/{key}/{part}".encode(), "little") % 2**63


def kept_models(path: Path) -> dict:
    """The file whose other models ``--only`` keeps, checked: a damaged one is a ``SystemExit`` naming it."""
    try:
        data = jsoncheck.read(path)
    except jsoncheck.JsonInputError as err:
        raise SystemExit(f"{err} (damaged); run without --only to refit every model") from None
    if not isinstance(data, dict) or not isinstance(data.get("models"), dict):
        raise SystemExit(f"{path} holds no models (damaged); run without --only to refit every model")
    return data


def run(args: Args) -> None:
    """Fit every model (or those of ``--only``), write the data, the calibration and the plot."""
    only = {k for k in args.only.split(",") if k}
    all_configs = configs()
    keys = [equity.model_key(c) for c in all_configs]
    unknown = only - set(keys)
    if unknown:
        raise SystemExit(f"--only: unknown model key(s) {sorted(unknown)}; known: {keys}")
    old_data = kept_models(DATA) if only and DATA.exists() else {"models": {}}
    old_cal = kept_models(CALIBRATION) if only and CALIBRATION.exists() else {"models": {}}
    models, calibration = dict(old_data["models"]), dict(old_cal["models"])
    todo = [c for c in all_configs if not only or equity.model_key(c) in only]
    for rules in (bar := tqdm(todo, desc="equity models", unit="model")):
        key = equity.model_key(rules)
        bar.set_postfix_str(f"{key}: simulating")
        scores, dealers, shares = records(rules, args.train, model_seed(args, key, 0), 0.5)
        bar.set_postfix_str(f"{key}: fitting {scores.shape[0]} deal starts")
        theta = fit(rules, scores, dealers, shares, args)
        k = len(equity.KNOTS[rules.family])
        table = monotone(theta[: k * k].reshape(k, k))
        position = theta[k * k :] - theta[k * k :].mean()
        shift = table.mean()
        models[key] = {
            "table": np.round(table - shift, 4).tolist(),
            "position": np.round(position, 4).tolist(),
            "train_ramsar": args.train,
            "train_deal_starts": int(scores.shape[0]),
        }
        ranks = rank_table(scores, shares)
        bar.set_postfix_str(f"{key}: held-out")
        calibration[key] = held_out_calibration(rules, args, models[key], ranks)
    settings = dataclasses.asdict(args)
    settings.pop("only")
    DATA.parent.mkdir(parents=True, exist_ok=True)
    data = {
        "format": equity.FORMAT,
        "about": "rams_env.equity: conditional-logit table per model; written by training/fit_equity.py",
        "knots": {family: list(knots) for family, knots in equity.KNOTS.items()},
        "settings": settings,
        "models": {k: models[k] for k in keys if k in models},
    }
    DATA.write_text(json.dumps(data, separators=(",", ":")) + "\n")
    CALIBRATION.write_text(
        json.dumps({"settings": settings, "models": {k: calibration[k] for k in keys if k in calibration}}, indent=1)
        + "\n"
    )
    plot(calibration)
    print(f"wrote {DATA.relative_to(ROOT)}, {CALIBRATION.relative_to(ROOT)}, {PLOT.relative_to(ROOT)}")
    for key in keys:
        if key in calibration:
            b = calibration[key]["brier"]
            print(f"{key:20s} brier uniform {b['uniform']:.4f} rank {b['rank']:.4f} model {b['model']:.4f}")


def held_out_calibration(rules: RulesConfig, args: Args, model: dict[str, Any], ranks: np.ndarray) -> dict[str, Any]:
    """The shipped ``model``'s Brier score, log loss and reliability on ``rules``' held-out ramsar, beside
    the rank table's (``ranks``) and a uniform guess."""
    key = equity.model_key(rules)
    t_scores, t_dealers, t_shares = records(rules, args.test, model_seed(args, key, 1), 0.0)
    theta_shipped = np.concatenate([np.asarray(model["table"]).reshape(-1), model["position"]])
    p_model = equity.chances(theta_shipped, *equity.seat_features(rules, t_scores, t_dealers))
    p_rank = rank_chances(ranks, t_scores)
    p_uniform = np.full_like(p_model, 1.0 / rules.num_players)
    return {
        "test_ramsar": args.test,
        "test_deal_starts": int(t_scores.shape[0]),
        "brier": {
            "uniform": brier(p_uniform, t_shares),
            "rank": brier(p_rank, t_shares),
            "model": brier(p_model, t_shares),
        },
        "log_loss": {
            "uniform": log_loss(p_uniform, t_shares),
            "rank": log_loss(p_rank, t_shares),
            "model": log_loss(p_model, t_shares),
        },
        "reliability": {"rank": reliability(p_rank, t_shares), "model": reliability(p_model, t_shares)},
    }


def plot(calibration: dict) -> None:
    """Reliability curves of the 4-player models (model and rank baseline) into ``docs/``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    keys = [k for k in calibration if k.endswith("-4p")]
    fig, axes = plt.subplots(1, len(keys), figsize=(3.2 * len(keys), 3.4), squeeze=False)
    for ax, key in zip(axes[0], keys, strict=True):
        ax.plot([0, 1], [0, 1], color="0.7", lw=1, label="perfect")
        for name, style in (("rank", "s--"), ("model", "o-")):
            points = np.asarray(calibration[key]["reliability"][name])
            ax.plot(points[:, 0], points[:, 1], style, ms=3, label=name)
        ax.set_title(key, fontsize=10)
        ax.set_xlabel("predicted chance")
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
    axes[0][0].set_ylabel("observed win share")
    axes[0][0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(PLOT, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> None:
    args = parse(Args, argv, "python -m rams_training.fit_equity", __doc__.split("\n")[0])
    print(args)
    run(args)


if __name__ == "__main__":
    main()
