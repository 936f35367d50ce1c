"""The learning benchmark's harness: train one pipeline for a wall-time budget, evaluate it as it goes.

A pipeline (:class:`Pipeline`) trains one RL recipe on whole ramsar (``episode="rams"``, the win
reward). :func:`run_benchmark` gives it the budget in chunks of ``eval_every`` minutes; after each
chunk the current policy plays the duplicate deals of a fixed set against three heuristics
(:func:`rams_env.eval.evaluate`), and at the end a larger final set. Evaluation time is reported but
not counted in the budget. Writes ``out/<name>/curve.csv`` (one row per evaluation) and
``out/<name>/result.json``.
"""

from __future__ import annotations

import csv
import dataclasses
import importlib
import importlib.metadata
import io
import json
import math
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from rams_env.apps.cli.options import MAX_THREADS
from rams_env.eval import agent_source, evaluate
from rams_env.eval.deals import CHOOSING_SEED, REPORT_SEED
from rams_env.rules import make_config
from rams_env.rules.seeding import check_seed, wrap_seed
from rams_training.checks import rules
from rams_training.cli import check_folder


@dataclass(frozen=True)
class Settings:
    """What every pipeline is built with."""

    variant: str = "mattmar"
    num_players: int = 4
    seed: int = 0
    threads: int = 1
    """torch threads every pipeline uses (the harness sets them before building the pipeline)"""
    out: Path = Path("runs/learning")
    """the pipeline writes its files under ``out / name``"""
    progress: bool = True

    def __post_init__(self) -> None:
        """Check every setting as the command line names it (``ValueError``), before any work."""
        check_seed(self.seed, "--seed")
        if isinstance(self.threads, bool) or not isinstance(self.threads, int) or not 1 <= self.threads <= MAX_THREADS:
            raise ValueError(f"--threads must be an integer from 1 to {MAX_THREADS}, got {self.threads!r}")
        rules(self.variant, self.num_players)
        check_folder(self.out, "--out")


class OptionError(ValueError):
    """A pipeline's own setting (``options``, ``--set KEY=VALUE``) that it does not know or refuses."""


class Pipeline(Protocol):
    """One RL recipe, trained in chunks of wall time."""

    name: str

    def __init__(self, settings: Settings) -> None: ...

    def train_for(self, seconds: float) -> int:
        """Train about ``seconds`` (may overshoot by one update); the learner decisions trained on so far."""
        ...

    def agent(self) -> Any:
        """The current policy as an agent ``rams_env.eval.evaluate`` accepts (greedy where it can be)."""
        ...

    def save(self) -> Path:
        """Write the current policy where ``rams eval PATH`` loads it; returns the path."""
        ...

    def close(self) -> None: ...


def imitate_heuristic(net: Any, settings: Settings, decisions: int) -> int:
    """The project's imitation warm start (training/imitation.py), in place on the ``PolicyNet`` ``net``:
    ``decisions`` of the compiled heuristic's whole ramsar (win reward), each seen once; the decisions seen."""
    from rams_training.imitation import imitate

    config = make_config(settings.variant, settings.num_players)
    result = imitate(
        net,
        config,
        episode="rams",
        reward="win",
        reward_scale=1.0,
        decisions=int(decisions),
        seed=wrap_seed(settings.seed),
        progress=settings.progress,
    )
    return int(result.decisions)


PIPELINES: dict[str, str] = {
    "rams": "benchmarks.learning.rams_ppo:RamsPPO",
    "improve": "benchmarks.learning.improve:Improve",
    "sb3": "benchmarks.learning.sb3_ppo:SB3PPO",
    "rllib": "benchmarks.learning.rllib_ppo:RLlibPipeline",
    "rllib-heuristic": "benchmarks.learning.rllib_ppo:RLlibHeuristicPipeline",
    "torchrl": "benchmarks.learning.torchrl_ppo:TorchRLPPO",
    "openspiel": "benchmarks.learning.openspiel_nfsp:OpenSpielPipeline",
}
"""pipeline name -> ``module:Class``, imported only when that pipeline is asked for"""

EXTRAS: dict[str, str] = {
    "rams": "train",
    "improve": "train",
    "sb3": "sb3",
    "rllib": "rllib",
    "rllib-heuristic": "rllib",
    "torchrl": "torchrl",
    "openspiel": "openspiel,torch",
}
"""the extra that installs each pipeline's libraries"""

LIBRARIES: dict[str, tuple[str, ...]] = {
    "rams": (),
    "improve": (),
    "sb3": ("stable_baselines3", "sb3_contrib"),
    "rllib": ("ray",),
    "rllib-heuristic": ("ray",),
    "torchrl": ("torchrl", "tensordict"),
    "openspiel": ("open_spiel",),
}
"""each pipeline's own libraries, whose versions the result records (beside :data:`COMMON_LIBRARIES`)"""

COMMON_LIBRARIES = ("torch", "numpy", "gymnasium", "pettingzoo", "numba", "rams_env")

BASELINE = "heuristic"
EVAL_SEED = CHOOSING_SEED
FINAL_SEED = REPORT_SEED


def pipeline_class(name: str) -> type:
    """The class of pipeline ``name``, imported now; ``ValueError`` naming a bad name or a missing extra."""
    if name not in PIPELINES:
        raise ValueError(f"unknown pipeline {name!r}; choose one of {', '.join(PIPELINES)}")
    module_name, class_name = PIPELINES[name].split(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as err:
        if err.name is not None and (err.name == module_name or module_name.startswith(err.name + ".")):
            raise ValueError(f"pipeline {name!r}: its module {module_name} is not there") from None
        raise ValueError(
            f'pipeline {name!r} needs {err.name}, which is not installed: pip install -e ".[{EXTRAS[name]}]"'
        ) from None
    try:
        return getattr(module, class_name)
    except AttributeError:
        raise ValueError(f"pipeline {name!r}: {module_name} defines no {class_name}") from None


def library_versions(name: str) -> dict[str, str | None]:
    """The installed version of each library the result depends on (None: not installed)."""
    versions: dict[str, str | None] = {}
    for library in (*COMMON_LIBRARIES, *LIBRARIES.get(name, ())):
        try:
            versions[library] = importlib.metadata.version(library)
        except importlib.metadata.PackageNotFoundError:
            versions[library] = None
    return versions


def measure(agent: Any, name: str, settings: Settings, decks: int, seed: int) -> dict[str, Any]:
    """``agent`` in duplicate deals of whole ramsar against three heuristics: win share, advantage, time."""
    config = make_config(settings.variant, settings.num_players)
    started = time.perf_counter()
    result = evaluate(
        {name: agent},
        agent_source(BASELINE, config),
        config,
        decks=decks,
        seed=seed,
        episode="rams",
        baseline_name=BASELINE,
        progress=False,
    )
    report, baseline = result.agents[0], result.baseline
    return {
        "decks": decks,
        "seed": seed,
        "ramsar": report.games,
        "win_rate": report.win_rate,
        "win_rate_ci": list(report.win_rate_ci),
        "fair_share": report.fair_share,
        "advantage_per_rams": report.advantage,
        "advantage_per_rams_ci": list(report.advantage_ci),
        # points per deal played, the agent's less the baseline's (deals differ in number: no interval)
        "points_per_deal_vs_baseline": report.points_per_deal - baseline.points_per_deal,
        "eval_seconds": time.perf_counter() - started,
    }


def log_line(name: str, row: Mapping[str, Any]) -> str:
    """One line of an evaluation: minutes trained, decisions, decisions/s, win share, advantage."""
    lo, hi = row["win_rate_ci"]
    alo, ahi = row["advantage_per_rams_ci"]
    return (
        f"{name}: {row['train_minutes']:.2f} min, {row['decisions']:,} decisions ({row['decisions_per_s']:,.0f}/s); "
        f"vs {BASELINE} over {row['ramsar']} ramsar: win {row['win_rate']:.3f} [{lo:.3f}, {hi:.3f}] "
        f"(fair {row['fair_share']:.3f}), adv/rams {row['advantage_per_rams']:+.2f} [{alo:+.2f}, {ahi:+.2f}], "
        f"pts/deal {row['points_per_deal_vs_baseline']:+.3f} (eval {row['eval_seconds']:.0f} s)"
    )


CURVE_FIELDS = (
    "train_minutes",
    "decisions",
    "decisions_per_s",
    "ramsar",
    "win_rate",
    "win_lo",
    "win_hi",
    "advantage_per_rams",
    "advantage_lo",
    "advantage_hi",
    "points_per_deal_vs_baseline",
    "eval_seconds",
)


def write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically (a temporary file beside it, then ``os.replace``)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def curve_csv(curve: list[dict[str, Any]]) -> str:
    """The curve as CSV text, one row per evaluation."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CURVE_FIELDS)
    for row in curve:
        flat = dict(row)
        flat["win_lo"], flat["win_hi"] = row["win_rate_ci"]
        flat["advantage_lo"], flat["advantage_hi"] = row["advantage_per_rams_ci"]
        writer.writerow([flat[k] for k in CURVE_FIELDS])
    return buffer.getvalue()


def check_arguments(
    minutes: float,
    eval_every_minutes: float,
    eval_decks: int,
    final_decks: int,
    eval_seed: int = EVAL_SEED,
    final_seed: int = FINAL_SEED,
) -> None:
    """``ValueError`` naming the first bad benchmark argument (as the command line spells it)."""
    for option, value in (("--minutes", minutes), ("--eval-every", eval_every_minutes)):
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < math.inf:
            raise ValueError(f"{option} must be a positive number of minutes, got {value!r}")
    for option, value in (("--eval-decks", eval_decks), ("--final-decks", final_decks)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{option} must be a positive integer, got {value!r}")
    check_seed(eval_seed, "--eval-seed")
    check_seed(final_seed, "--final-seed")
    if eval_seed is None or final_seed is None:
        raise ValueError("--eval-seed and --final-seed must be given (a deal set is a seed)")


def check_run(
    name: str,
    settings: Settings,
    minutes: float,
    eval_every_minutes: float,
    eval_decks: int,
    final_decks: int,
    eval_seed: int = EVAL_SEED,
    final_seed: int = FINAL_SEED,
    options: Mapping[str, Any] | None = None,
) -> type:
    """Every check of a run before any work or file: the arguments, the pipeline (imported now), its
    folder and its settings (:func:`benchmarks.learning.schemas.check_options`); the pipeline's class.
    ``ValueError`` (:class:`OptionError` for a setting) naming the first bad one."""
    from .schemas import check_options

    check_arguments(minutes, eval_every_minutes, eval_decks, final_decks, eval_seed, final_seed)
    if name not in PIPELINES:
        raise ValueError(f"unknown pipeline {name!r}; choose one of {', '.join(PIPELINES)}")
    check_folder(Path(settings.out) / name, "--out")
    check_options(name, options or {}, settings)
    return pipeline_class(name)  # last: importing a library (Ray) takes seconds


def run_benchmark(
    name: str,
    settings: Settings,
    minutes: float,
    eval_every_minutes: float,
    eval_decks: int,
    final_decks: int,
    eval_seed: int = EVAL_SEED,
    final_seed: int = FINAL_SEED,
    *,
    options: Mapping[str, Any] | None = None,
    command: str | None = None,
) -> dict[str, Any]:
    """Train pipeline ``name`` for ``minutes`` of wall time, evaluating every ``eval_every_minutes``.

    ``options`` go to the pipeline's constructor as keywords (pipeline-specific settings, say a smaller
    imitation for a smoke test); ``command`` is recorded in the result. Returns the result written to
    ``settings.out / name / "result.json"``.
    """
    cls = check_run(
        name, settings, minutes, eval_every_minutes, eval_decks, final_decks, eval_seed, final_seed, options
    )
    import torch  # every pipeline trains a torch network

    torch.set_num_threads(settings.threads)
    folder = Path(settings.out) / name
    folder.mkdir(parents=True, exist_ok=True)
    pipeline = cls(settings, **dict(options or {}))
    budget, trained, decisions = 60.0 * minutes, 0.0, 0
    curve: list[dict[str, Any]] = []
    try:
        while trained < budget:
            started = time.perf_counter()
            decisions = int(pipeline.train_for(min(60.0 * eval_every_minutes, budget - trained)))
            trained += time.perf_counter() - started
            row = {
                "train_minutes": trained / 60.0,
                "decisions": decisions,
                "decisions_per_s": decisions / trained,
                **measure(pipeline.agent(), name, settings, eval_decks, eval_seed),
            }
            curve.append(row)
            print(log_line(name, row), flush=True)
            write_text(folder / "curve.csv", curve_csv(curve))
        final = measure(pipeline.agent(), name, settings, final_decks, final_seed)
        saved = pipeline.save()
        info = pipeline.info() if callable(getattr(pipeline, "info", None)) else {}
    finally:
        pipeline.close()
    result = {
        "pipeline": name,
        "settings": {k: str(v) if isinstance(v, Path) else v for k, v in dataclasses.asdict(settings).items()},
        "options": dict(options or {}),
        "versions": library_versions(name),
        "minutes": minutes,
        "train_seconds": trained,
        "eval_seconds": sum(r["eval_seconds"] for r in curve) + final["eval_seconds"],
        "decisions": decisions,
        "decisions_per_s": decisions / trained,
        "eval_every_minutes": eval_every_minutes,
        "baseline": BASELINE,
        "episode": "rams",
        "curve": curve,
        "final": final,
        "pipeline_info": info,
        "saved": str(saved),
        "command": command,
    }
    fair = final["fair_share"]
    print(
        f"{name}: final over {final['ramsar']} ramsar (seed {final_seed}): win {final['win_rate']:.3f} "
        f"[{final['win_rate_ci'][0]:.3f}, {final['win_rate_ci'][1]:.3f}] (fair {fair:.3f}), "
        f"adv/rams {final['advantage_per_rams']:+.2f}; saved {saved}",
        flush=True,
    )
    write_text(folder / "result.json", json.dumps(result, indent=2) + "\n")
    return result
