"""Each pipeline's own settings (``--set KEY=VALUE``): one declared schema per pipeline, checked before any work.

A schema is a dataclass whose fields are made by :func:`rams_env.options.arg` (a default, a one-line
documentation and the range of a number), so that one declaration gives the check
(:func:`rams_env.options.check_fields`), ``--help`` (:func:`settings_help`) and the table of
docs/benchmarks.md (:func:`settings_table`, kept equal to it by a test). The ``rams`` pipeline's schema
is :class:`rams_training.config.TrainArgs` itself, with the ``quick`` recipe's values as defaults, less the
fields that the harness sets (:data:`RAMS_OWNED`). This module imports no pipeline library, so a
setting is checked, and ``--help`` printed, without importing Ray or TorchRL.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rams_env.options import PARSERS, arg, check_fields, describe, field_types
from rams_env.rules.episode import check_episode
from rams_training.config import TrainArgs

from .harness import OptionError, Settings


@dataclass(frozen=True, kw_only=True)
class ImproveSettings:
    """``improve``: the collection and fitting settings of ``python -m rams_training.improve`` (the same ranges)."""

    shard: int = arg(200, "ramsar per shard", low=1)
    explore: float = arg(0.05, "the learner's chance of a random action", low=0, high=1)
    record: float = arg(0.5, "share of its decisions recorded", low=0, high=1)
    random_start: float = arg(0.3, "share of ramsar from random scores", low=0, high=1)
    lr: float = arg(1e-3, "Adam learning rate", low=0, open_low=True)
    scale: float = arg(100.0, "logits per unit of win chance", low=0, open_low=True)
    held_out: float = arg(0.05, "share of ramsar kept to measure", low=0, high=1, open_high=True)
    collect_share: float = arg(
        0.3, "share of each chunk's time spent collecting (the rest fits)", low=0, high=1, open_low=True, open_high=True
    )

    def __post_init__(self) -> None:
        check_fields(self)


@dataclass(frozen=True, kw_only=True)
class SB3Settings:
    """``sb3``: sb3-contrib's ``MaskablePPO`` (every field but the first two goes to it)."""

    imitation: int = arg(0, "decisions of the imitation warm start (0: from scratch)", low=0)
    n_envs: int = arg(64, "games of the RamsVecEnv (the compiled vector env)", low=1)
    n_steps: int = arg(128, "steps of each game per rollout", low=1)
    batch_size: int = arg(1024, "minibatch size (SB3 needs at least 2)", low=2)
    n_epochs: int = arg(4, "passes over each rollout", low=1)
    learning_rate: float = arg(3e-4, "Adam learning rate", low=0, open_low=True)
    gamma: float = arg(1.0, "discount per decision", low=0, high=1)
    gae_lambda: float = arg(0.95, "GAE lambda", low=0, high=1)
    ent_coef: float = arg(0.01, "entropy bonus", low=0)
    clip_range: float = arg(0.2, "PPO ratio clip", low=0, open_low=True)
    max_grad_norm: float = arg(0.5, "gradient clipping", low=0, open_low=True)

    def __post_init__(self) -> None:
        check_fields(self)


@dataclass(frozen=True, kw_only=True)
class RLlibSettings:
    """``rllib`` and ``rllib-heuristic``: RLlib's PPO through ``ppo_config``."""

    episode: str = arg("rams", "episode kind: deal, rams or match")
    reward: str = arg("win", "points or win")
    hidden: tuple[int, ...] = arg((256, 256), "hidden widths of MaskedPPOModule", low=1)
    batch: int = arg(4000, "train_batch_size_per_learner", low=1)
    minibatch: int = arg(500, "minibatch_size (at most batch)", low=1)
    epochs: int = arg(4, "num_epochs", low=1)
    lr: float = arg(3e-4, "learning rate", low=0, open_low=True)
    entropy: float = arg(0.0, "entropy_coeff", low=0)
    gamma: float = arg(1.0, "discount per decision (RLlib's default is 0.99)", low=0, high=1)
    lmbda: float = arg(1.0, "GAE lambda (RLlib's default 1.0; the other pipelines use 0.95)", low=0, high=1)
    clip: float = arg(0.3, "PPO ratio clip (RLlib's default 0.3; the others use 0.2)", low=0, open_low=True)
    grad_clip: float = arg(0.0, "gradient norm clipping (0: none, RLlib's default; the others clip at 0.5)", low=0)
    imitation: int = arg(0, "decisions of the imitation warm start (0: none; else the module is ReLU)", low=0)
    num_envs: int = arg(
        64, "games of the batched env (num_envs_per_env_runner): self-play games, or the vector env's", low=1
    )

    def __post_init__(self) -> None:
        check_fields(self)
        check_episode(self.episode, self.reward)
        if self.minibatch > self.batch:
            raise ValueError(f"minibatch must be at most batch ({self.batch}), got {self.minibatch}")


TORCHRL_OPPONENTS = ("self-play", "heuristic")


@dataclass(frozen=True, kw_only=True)
class TorchRLSettings:
    """``torchrl``: TorchRL's collector, ``GAE`` and ``ClipPPOLoss``."""

    imitation: int = arg(0, "decisions of the imitation warm start (0: none)", low=0)
    opponents: str = arg(
        "self-play",
        "self-play (every seat the learning policy, RamsSelfPlayEnv) or heuristic (one learning seat a game, drawn "
        "at each reset, against compiled heuristics in the others, RamsBatchedEnv)",
    )
    num_games: int = arg(32, "games stepped together (the env's batch)", low=1)
    frames_per_batch: int = arg(4096, "env steps per collected batch (a multiple of num_games)", low=1)
    epochs: int = arg(3, "passes over each batch", low=1)
    minibatch: int = arg(1024, "decisions per gradient step", low=1)
    lr: float = arg(3e-4, "Adam learning rate", low=0, open_low=True)
    gamma: float = arg(1.0, "discount per decision", low=0, high=1)
    lmbda: float = arg(0.95, "GAE lambda", low=0, high=1)
    clip: float = arg(0.2, "PPO ratio clip", low=0, open_low=True)
    ent_coef: float = arg(0.01, "entropy bonus", low=0)
    vf_coef: float = arg(0.5, "value loss weight", low=0)
    max_grad_norm: float = arg(0.5, "gradient clipping", low=0, open_low=True)
    normalize_advantage: bool = arg(
        False, "normalise the advantages of each minibatch (ClipPPOLoss's option; SB3 does it by default)"
    )

    def __post_init__(self) -> None:
        check_fields(self)
        if self.opponents not in TORCHRL_OPPONENTS:
            raise ValueError(f"opponents must be one of {TORCHRL_OPPONENTS}, got {self.opponents!r}")
        if self.frames_per_batch % self.num_games:
            raise ValueError(
                f"frames_per_batch must be a multiple of num_games ({self.num_games}), got {self.frames_per_batch}"
            )


@dataclass(frozen=True, kw_only=True)
class OpenSpielSettings:
    """``openspiel``: OpenSpiel's NFSP, one agent per seat."""

    episode: str = arg("rams", "episode kind: deal, rams or match")
    reward: str = arg("win", "points or win")
    hidden: tuple[int, ...] = arg((256, 256), "hidden widths of the networks", low=1)
    replay_capacity: int = arg(20_000, "replay buffer of the best response", low=1)
    reservoir_capacity: int = arg(50_000, "reservoir buffer of the average policy", low=1)
    batch_size: int = arg(128, "minibatch size", low=1)
    learn_every: int = arg(64, "steps between learning steps", low=1)
    min_buffer: int = arg(1000, "transitions before learning starts", low=0)
    anticipatory: float = arg(0.1, "share of best-response play (NFSP's eta)", low=0, high=1)
    rl_lr: float = arg(0.01, "learning rate of the best response", low=0, open_low=True)
    sl_lr: float = arg(0.01, "learning rate of the average policy", low=0, open_low=True)

    def __post_init__(self) -> None:
        check_fields(self)
        check_episode(self.episode, self.reward)


RAMS_RECIPE = "quick"
UNBOUNDED = 10**15  # total_steps: train_update evaluates and checkpoints once steps pass it, so never
RAMS_OWNED: dict[str, str] = {
    "variant": "--variant",
    "num_players": "--num-players",
    "seed": "--seed",
    "threads": "--threads",
    "progress": "--no-progress",
    "run_dir": "--out",
    "resume": "(a benchmark run starts afresh)",
    "total_steps": "--minutes",
    "max_minutes": "--minutes",
}
"""the :class:`TrainArgs` fields the harness sets for ``rams``, and the option that sets them"""


def _rams_defaults() -> dict[str, Any]:
    from rams_training.cli import RECIPES

    return dict(RECIPES[RAMS_RECIPE], eval_every=0)


SCHEMAS: dict[str, type] = {
    "rams": TrainArgs,
    "improve": ImproveSettings,
    "sb3": SB3Settings,
    "rllib": RLlibSettings,
    "rllib-heuristic": RLlibSettings,
    "torchrl": TorchRLSettings,
    "openspiel": OpenSpielSettings,
}
"""each pipeline's schema (every name of :data:`benchmarks.learning.harness.PIPELINES` has one)"""


def schema_fields(name: str) -> list[dataclasses.Field]:
    """The settings ``--set`` may give pipeline ``name``, in declaration order."""
    return [f for f in dataclasses.fields(SCHEMAS[name]) if name != "rams" or f.name not in RAMS_OWNED]


def defaults(name: str) -> dict[str, Any]:
    """Every setting of pipeline ``name`` at its default."""
    own = _rams_defaults() if name == "rams" else {}
    return {f.name: own.get(f.name, f.default) for f in schema_fields(name)}


def _coerce(kind: Any, value: Any) -> Any:
    """A ``--set`` value as its field reads it: ``hidden=64,64`` (text) or ``hidden=64`` as a tuple of ints."""
    if kind.base is tuple:
        if isinstance(value, str):
            try:
                return tuple(int(x) for x in value.split(","))
            except ValueError:
                return value
        if isinstance(value, int) and not isinstance(value, bool):
            return (value,)
        if isinstance(value, list):
            return tuple(value)
    return value


def rams_train_args(settings: Settings, options: Mapping[str, Any]) -> TrainArgs:
    """The ``TrainArgs`` of the ``rams`` pipeline: the recipe, ``options``, and the harness's own fields."""
    values = dict(_rams_defaults(), total_steps=UNBOUNDED, max_minutes=0.0)
    values.update(options)
    values.update(
        run_dir=str(Path(settings.out) / "rams" / "trainer"),
        threads=settings.threads,
        seed=settings.seed,
        progress=settings.progress,
        variant=settings.variant,
        num_players=settings.num_players,
    )
    return TrainArgs(**values)


def read_settings(name: str, texts: Mapping[str, str]) -> dict[str, Any]:
    """``--set KEY=VALUE`` texts as values, each read by its field's type as every command reads an option
    (:data:`rams_env.options.PARSERS`: ``true``/``false``, ``64,64``...). A text its field's type cannot read,
    or of a key the pipeline lacks, is kept as the number or the text it looks like, so that
    :func:`check_options` names it with what it holds (``shard must be a positive integer, got 2.5``)."""
    kinds = field_types(SCHEMAS[name]) if name in SCHEMAS else {}
    values: dict[str, Any] = {}
    for key, text in texts.items():
        try:
            values[key] = PARSERS[kinds[key].base](text)
        except (KeyError, ValueError):
            values[key] = _looks_like(text)
    return values


def _looks_like(text: str) -> Any:
    """An int, a float, true/false, or else the text itself."""
    for parse in (int, float):
        try:
            return parse(text)
        except ValueError:
            pass
    return {"true": True, "false": False}.get(text.lower(), text)


def check_options(name: str, options: Mapping[str, Any], settings: Settings | None = None) -> dict[str, Any]:
    """Every setting of pipeline ``name``: its defaults with ``options`` applied, each checked against the
    schema (unknown keys, types, ranges, what relates them); :class:`OptionError` naming the first bad one."""
    if name not in SCHEMAS:
        raise OptionError(f"unknown pipeline {name!r}")
    fields = {f.name: f for f in schema_fields(name)}
    owned = sorted(k for k in options if name == "rams" and k in RAMS_OWNED)
    if owned:
        raise OptionError(
            f"{name} pipeline: {', '.join(owned)} is set by the harness ({', '.join(RAMS_OWNED[k] for k in owned)})"
        )
    unknown = sorted(str(k) for k in set(options) - set(fields))
    if unknown:
        raise OptionError(f"{name} pipeline: unknown option(s) {', '.join(unknown)} (known: {', '.join(fields)})")
    kinds = field_types(SCHEMAS[name])
    values = {**defaults(name), **{k: _coerce(kinds[k], v) for k, v in options.items()}}
    try:
        if name == "rams":
            rams_train_args(settings or Settings(), values)
        else:
            SCHEMAS[name](**values)
    except (TypeError, ValueError) as err:
        raise OptionError(f"{name} pipeline: {err}") from None
    return values


def _default_text(value: Any) -> str:
    if isinstance(value, tuple):
        return ",".join(map(str, value)) or "(none)"
    if value is None:
        return "unset"
    if isinstance(value, bool):
        return str(value).lower()
    return repr(value) if isinstance(value, str) else f"{value:g}" if isinstance(value, float) else f"{value:,}"


def _rows(name: str) -> list[tuple[str, str, str, str]]:
    """(key, what it takes, default, doc) of each setting of pipeline ``name``."""
    kinds = field_types(SCHEMAS[name])
    own = defaults(name)
    return [
        (
            f.name,
            describe(kinds[f.name], f.metadata.get("range"), f.metadata.get("check")),
            _default_text(own[f.name]),
            f.metadata["doc"],
        )
        for f in schema_fields(name)
    ]


def settings_help(name: str) -> str:
    """The settings of pipeline ``name`` as ``--help`` lines."""
    lines = [f"settings of {name} (--set KEY=VALUE):"]
    for key, takes, default, doc in _rows(name):
        lines.append(f"  {key}: {takes}, default {default}: {doc}")
    return "\n".join(lines)


def settings_table(name: str) -> str:
    """The settings of pipeline ``name`` as a Markdown table (docs/benchmarks.md)."""
    lines = ["| setting | takes | default | what |", "|---|---|---|---|"]
    for key, takes, default, doc in _rows(name):
        lines.append(f"| `{key}` | {takes} | {default} | {doc.replace('|', '/')} |")
    return "\n".join(lines)


def settings_tables() -> str:
    """Every pipeline's table, under a heading each (``rllib-heuristic`` shares ``rllib``'s)."""
    parts = []
    for name in SCHEMAS:
        if name == "rllib-heuristic":
            continue
        title = "`rllib` and `rllib-heuristic`" if name == "rllib" else f"`{name}`"
        parts.append(f"### {title}\n\n{settings_table(name)}")
    return "\n\n".join(parts)


DOCS_BEGIN = "<!-- settings: begin (python -m benchmarks.learning.schemas) -->"
DOCS_END = "<!-- settings: end -->"


def write_docs(path: Path) -> None:
    """Replace the settings tables of docs/benchmarks.md (between :data:`DOCS_BEGIN` and :data:`DOCS_END`)."""
    text = path.read_text(encoding="utf-8")
    start, stop = text.index(DOCS_BEGIN) + len(DOCS_BEGIN), text.index(DOCS_END)
    path.write_text(text[:start] + "\n\n" + settings_tables() + "\n\n" + text[stop:], encoding="utf-8")


if __name__ == "__main__":  # python -m benchmarks.learning.schemas: the docs' tables from the schemas
    write_docs(Path(__file__).resolve().parents[2] / "docs" / "benchmarks.md")
