"""``python -m benchmarks.learning PIPELINE --minutes M``: train one pipeline for M minutes and show whether it learns.

Every ``--eval-every`` minutes of training the current policy plays ``--eval-decks`` duplicate decks
of whole ramsar against three heuristics (one log line each); at the end ``--final-decks`` decks of
the report set, then the policy is saved where ``rams eval PATH`` loads it. Writes
``OUT/PIPELINE/curve.csv`` and ``OUT/PIPELINE/result.json``.
"""

from __future__ import annotations

import math
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

from rams_env.apps.cli.options import RulesOptions
from rams_env.options import (
    REQUIRED,
    Namespace,
    add_options,
    arg,
    check_fields,
    from_namespace,
    option_name,
    options_parser,
)

from .harness import (
    EVAL_SEED,
    FINAL_SEED,
    PIPELINES,
    OptionError,
    Settings,
    check_run,
    run_benchmark,
)
from .schemas import read_settings, settings_help


@dataclass(kw_only=True)
class LearningOptions:
    """The options of ``python -m benchmarks.learning`` but the rules' (:class:`RulesOptions`: ``--variant``,
    ``--num-players``); a pipeline's own settings are ``--set KEY=VALUE`` (benchmarks/learning/schemas.py)."""

    pipeline: str = arg(REQUIRED, f"the pipeline to train: {', '.join(PIPELINES)}", positional=True)
    minutes: float = arg(REQUIRED, "wall time of training (evaluations not counted)")
    seed: int = arg(0, "seed of the training")
    eval_every: float = arg(1.0, "training minutes per evaluation", metavar="MIN")
    eval_decks: int = arg(50, "decks of each evaluation", metavar="D", low=1)
    final_decks: int = arg(400, "decks of the final evaluation", metavar="D", low=1)
    eval_seed: int = arg(EVAL_SEED, "deal set of the evaluations")
    final_seed: int = arg(FINAL_SEED, "deal set of the final evaluation")
    out: str = arg("runs/learning", "folder of the results")
    threads: int = arg(1, "torch threads", low=1)
    set: tuple[str, ...] = arg(
        (),
        "a pipeline's own setting (repeatable; listed below, with what each takes)",
        metavar="KEY=VALUE",
        repeat=True,
    )
    progress: bool = arg(True, "show progress bars")

    def __post_init__(self) -> None:
        """``ValueError`` naming the first bad option (the seeds, the rules and the folder: the harness's checks)."""
        if self.pipeline not in PIPELINES:
            raise ValueError(f"unknown pipeline {self.pipeline!r}; choose one of {', '.join(PIPELINES)}")
        for name in ("minutes", "eval_every"):
            if not 0 < getattr(self, name) < math.inf:
                raise ValueError(f"{option_name(name)} must be a positive number of minutes, got {getattr(self, name)}")
        check_fields(self, option_name)
        bad = [item for item in self.set if not item.partition("=")[0] or "=" not in item]
        if bad:
            raise ValueError(f"--set takes KEY=VALUE, got {bad[0]!r}")


def parse_args(argv: list[str] | None = None) -> Namespace:
    """The command line (module docstring); a bad argument or setting is a usage error (exit status 2)."""
    argv = sys.argv[1:] if argv is None else argv
    named = [a for a in argv if a in PIPELINES]  # PIPELINE --help: that pipeline's settings only
    first = ("pipeline", "minutes")
    parser = options_parser(
        __doc__.split("\n\n")[0],
        (LearningOptions, first),
        prog="python -m benchmarks.learning",
        epilog="\n\n".join(settings_help(name) for name in (named[:1] or PIPELINES)),
    )
    add_options(parser, RulesOptions, only=("variant", "num_players"), choices=False)  # the harness's message
    add_options(
        parser, LearningOptions, only=[name for name in LearningOptions.__dataclass_fields__ if name not in first]
    )
    args = parser.parse_args(argv)
    try:
        from_namespace(LearningOptions, args)
    except ValueError as err:
        parser.error(str(err))
    texts = dict(item.split("=", 1) for item in args.set)
    args.options = read_settings(args.pipeline, texts)  # by each field's type, as every option is read
    return args


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark of the command line; 2 with a message for bad settings."""
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    try:  # everything, checked before any work or file: a bad one is a message, not a traceback
        settings = Settings(
            variant=args.variant,
            num_players=args.num_players,
            seed=args.seed,
            threads=args.threads,
            out=Path(args.out),
            progress=args.progress,
        )
        check_run(
            args.pipeline,
            settings,
            args.minutes,
            args.eval_every,
            args.eval_decks,
            args.final_decks,
            args.eval_seed,
            args.final_seed,
            args.options,
        )
    except OptionError as err:
        print(f"python -m benchmarks.learning: error: --set: {err}", file=sys.stderr)
        return 2
    except ValueError as err:
        print(f"python -m benchmarks.learning: error: {err}", file=sys.stderr)
        return 2
    try:
        run_benchmark(
            args.pipeline,
            settings,
            args.minutes,
            args.eval_every,
            args.eval_decks,
            args.final_decks,
            args.eval_seed,
            args.final_seed,
            options=args.options,
            command="python -m benchmarks.learning " + shlex.join(argv),
        )
    except OptionError as err:  # raised as the pipeline is built, before any training
        print(f"python -m benchmarks.learning: error: --set: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
