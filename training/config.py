"""The arguments of a training run: :class:`TrainArgs`, five named groups of documented fields, checked where declared.

A run's arguments fall in five frozen groups, each what one part of a run reads:

- :class:`GameArgs`: the rules, the tables and the batched env, and how the games pay (reward, shaping);
- :class:`LearnArgs`: the algorithm (a name of the registry, training/algorithms.py) and its hyper-parameters;
- :class:`OpponentArgs`: who the learner plays (the opponent mix, training/mixing.py) and the snapshot pool;
- :class:`StartArgs`: the starting weights (an imitation warm start or a checkpoint);
- :class:`RunArgs`: the budget, evaluations, checkpoints, seed, device, threads and logging.

:class:`TrainArgs` is all of them at once, flat: the face the command line (``rams train``, built by
rams_env/options.py from its fields), ``args.json`` and every checkpoint see, so a flag, a saved run and a
``TrainArgs(lr=...)`` call name a field as they always did. The parts of a run take the group they read
(``args.learn``, ``args.opponents``, ...), never the whole. Each field is declared with :func:`arg`, which
keeps its documentation next to it and available at run time: ``rams train --help`` shows it, and
:data:`FIELD_TYPES` says how each field's type is read from the command line (training/cli.py) and from a
run's ``args.json`` (training/runargs.py). A run saves its arguments in ``args.json`` and in every
checkpoint, flat under the field names; renaming a field would orphan the runs that have it.

Stages
------
A run has at most two stages, split at ``heuristic_after`` learner decisions:

- the first stage (``steps < heuristic_after``) plays self-play, pool and random opponents only (no
  ``HeuristicAgent``: ``heuristic_fraction`` is taken as 0), with ``lr``, ``ent_coef`` and
  ``points_weight``;
- the second stage (from ``heuristic_after`` learner decisions on; the whole run when it is 0) adds the
  ``heuristic_fraction`` of episodes against heuristics, and each ``late_<name>`` that is set replaces
  ``<name>`` for the fields in :data:`STAGED` (``late_lr``, ``late_ent_coef``, ``late_points_weight``).

Nothing else changes between the stages. The stage follows from the run's counters
(:func:`second_stage`, :func:`stage_value`, :func:`heuristic_fraction_at`), so a resumed run is in
the stage its checkpoint's steps say; a change of learning rate is logged when the optimizer gets
it. The ``full`` recipe of training/cli.py is the two-stage run of the shipped policies.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Protocol, TypeVar

from rams_env import options
from rams_env.apps.cli.options import MAX_THREADS
from rams_env.options import SEED, FieldType, arg, check_fields, field_types
from rams_env.rules.spec import EnvSpec, make_spec

PRECISIONS = ("auto", "bf16", "fp32")
IMITATION_TEACHERS = ("heuristic", "target")

NO_STEP_LIMIT = 2**62
"""``total_steps`` of a run that only ``max_minutes`` ends (``rams exploit --minutes``)"""

STAGED = ("lr", "ent_coef", "points_weight")
"""the fields the second stage may change: ``late_<name>`` replaces ``<name>`` when it is set"""


@dataclass(frozen=True)
class GameArgs:
    """The games a run plays: rules, table sizes, the batched env, and how the games pay the learner."""

    variant: str = arg("mattmar", "rules preset: mattmar, norrlandsknack, rams32 or russian")
    num_players: int = arg(4, "players at the table")
    table_sizes: tuple[int, ...] = arg(
        (), "more table sizes for the same network: update k plays size (num_players, *table_sizes)[k % count]"
    )
    episode: str = arg("deal", "episode kind: deal, rams or match")
    reward: str = arg("points", "points (score decreases per deal) or win (+1/-1 at the end of a rams or match)")
    num_games: int = arg(128, "games stepped together by the batched env", low=1)
    workers: int = arg(1, "env processes (1 steps the compiled env in this process)", low=1)
    episodes_per_game: int = arg(2, "complete episodes each game contributes to one update", low=1)
    reward_scale: float | None = arg(
        None,
        "rewards are multiplied by this before training; default 1 for win, 2 / start score for points",
        low=0,
        open_low=True,
    )
    points_weight: float = arg(
        0.0,
        "with reward=win: add this x (score decrease / start score) at every scoring step, a shaping of the race",
        low=0,
    )
    late_points_weight: float | None = arg(
        None,
        "points_weight from heuristic_after on (unset: points_weight; 0 ends the run on the pure win reward)",
        low=0,
    )
    equity_shaping: bool = arg(
        False,
        "with reward=win and episode=rams: each deal also pays the change of the learner's chance to win the "
        "rams (rams_env.equity), a potential-based shaping that keeps the win reward's optimum (training/shaping.py)",
    )

    def __post_init__(self) -> None:
        check_fields(self)
        check_game(self)

    @property
    def sizes(self) -> tuple[int, ...]:
        """Every table size the run trains for, ``num_players`` first."""
        return (self.num_players, *self.table_sizes)

    def spec(self, num_players: int | None = None) -> EnvSpec:
        """What the run's games play, at ``num_players`` (default the run's own size)."""
        return make_spec(self.variant, num_players or self.num_players, self.episode, self.reward)


@dataclass(frozen=True)
class LearnArgs:
    """The learning algorithm (a name in training/algorithms.py's registry) and its hyper-parameters."""

    algorithm: str = arg(
        "ppo",
        "ppo (clipped policy gradient, GAE advantages from the value head) or dmc (Deep Monte-Carlo as in "
        "DouZero: the action head learns each action's Monte-Carlo return and is played epsilon-greedily), or "
        "another algorithm registered with register_algorithm (training/algorithms.py)",
    )
    epsilon: float = arg(
        0.01,
        "dmc: share of the decisions played uniformly at random among the legal ones (exploration)",
        low=0,
        high=1,
    )
    hidden: tuple[int, ...] = arg((256, 256), "hidden layer widths of the policy/value MLP", low=1)
    lr: float = arg(3e-4, "Adam learning rate", low=0, open_low=True)
    late_lr: float | None = arg(
        None,
        "learning rate from heuristic_after on (unset: lr), the second stage of a two-stage run",
        low=0,
        open_low=True,
    )
    gamma: float = arg(1.0, "discount per decision of a seat", low=0, high=1)
    gae_lambda: float = arg(0.95, "GAE lambda", low=0, high=1)
    clip: float = arg(0.2, "PPO ratio clip", low=0, open_low=True)
    epochs: int = arg(3, "passes over each update's samples", low=1)
    minibatch: int = arg(1024, "samples per gradient step", low=1)
    ent_coef: float = arg(0.01, "entropy bonus (entropy over legal actions only)", low=0)
    late_ent_coef: float | None = arg(None, "entropy bonus from heuristic_after on (unset: ent_coef)", low=0)
    vf_coef: float = arg(0.5, "value loss weight", low=0)
    max_grad_norm: float = arg(0.5, "gradient clipping", low=0)
    privileged_critic: bool = arg(
        False, "advantages from a separate value network that also sees the other hands (training only)"
    )
    critic_warmup: int = arg(
        0,
        "first updates of the run that train only the privileged critic (the policy left as it is)",
        low=0,
    )

    def __post_init__(self) -> None:
        check_fields(self)
        check_learn(self)


@dataclass(frozen=True)
class OpponentArgs:
    """Who the learner plays, episode by episode (training/mixing.py), and the pool of its own snapshots."""

    pool_fraction: float = arg(
        0.2, "share of episodes in which the learner plays one seat against a pool snapshot", low=0, high=1
    )
    heuristic_fraction: float = arg(
        0.0,
        "share of episodes in which the learner plays one seat against HeuristicAgent in the others",
        low=0,
        high=1,
    )
    heuristic_after: int = arg(
        0,
        "learner decisions of self-play before heuristic_fraction applies (0: from the start)",
        low=0,
    )
    random_fraction: float = arg(
        0.0,
        "share of episodes in which the learner plays one seat against random legal moves in the others",
        low=0,
        high=1,
    )
    target: str = arg(
        "",
        "a frozen agent that plays every seat but the learner's in every episode and is the baseline of the "
        "run's evaluations (rams exploit): heuristic, random, a zoo name, a checkpoint or an ensemble manifest; "
        "several joined by + make a mixture, one drawn per episode, the first evaluated against; the opponent "
        "pool is not used ('': none, the opponents of the fractions above)",
    )
    compiled_heuristic: bool = arg(
        True,
        "deprecated: the heuristic seats are played by the compiled heuristic inside the batched env's step "
        "(false: by HeuristicAgent in Python, an outside seat; the same decisions, in another order of the "
        "run's draws)",
    )
    heuristic_processes: int = arg(1, "deprecated, no effect: the heuristic plays in one process", low=1)
    pool_size: int = arg(8, "snapshots kept in the opponent pool (oldest dropped)", low=1)
    snapshot_every: int = arg(10, "updates between snapshots added to the pool", low=0)

    def __post_init__(self) -> None:
        check_fields(self)
        check_opponents(self)


@dataclass(frozen=True)
class StartArgs:
    """The weights a run starts from: an imitation warm start (training/imitation.py) or a checkpoint."""

    imitation: int = arg(
        0,
        "decisions of the compiled heuristic's own play that the network imitates (its actions and the seats' "
        "returns) before the first update, a warm start (training/imitation.py; 0: none)",
        low=0,
    )
    imitation_teacher: str = arg(
        "heuristic",
        "whose play the imitation warm start learns: heuristic (the compiled heuristic's) or target (the run's "
        "target, its first member, playing every seat: an exploiter that starts as a copy of its target)",
    )
    imitation_lr: float = arg(1e-3, "Adam learning rate of the imitation warm start", low=0, open_low=True)
    imitation_smoothing: float = arg(
        0.0,
        "label smoothing of the imitation: that share of each label is spread over the legal actions, so that the "
        "copy keeps trying what its teacher never does (0: none)",
        low=0,
        high=1,
        open_high=True,
    )
    init_from: str = arg(
        "",
        "checkpoint whose weights start the run (any preset; an older encoder whose layout is a prefix of this one)",
    )

    def __post_init__(self) -> None:
        check_fields(self)
        check_start(self)


@dataclass(frozen=True)
class RunArgs:
    """Run control: the budget, evaluations, checkpoints, the folder, the seed, the device and the logging."""

    total_steps: int = arg(
        200_000, "learner decisions to train on (the run stops after the update that passes it)", low=1
    )
    max_minutes: float = arg(
        0.0,
        "minutes of training (imitation, collection and learning; evaluations left out) after which the run "
        "stops at the end of an update, whichever of it and total_steps comes first (0: no limit)",
        low=0,
    )
    eval_every: int = arg(10, "updates between evaluations (0: only at the end)", low=0)
    eval_decks: int = arg(100, "decks of each periodic duplicate evaluation (a fixed deal set)", low=1)
    eval_seed: int = arg(20261129, "seed of the evaluation deal set", check=SEED)
    checkpoint_every: int = arg(5, "updates between checkpoints", low=1)
    keep_last: int = arg(3, "rolling checkpoints kept (plus the best by evaluation)", low=1)
    run_dir: str = arg("runs/quick", "folder of the run: checkpoints, pool, logs, plots")
    resume: bool = arg(False, "continue the run in run_dir from its latest checkpoint")
    seed: int = arg(0, "seed of everything random in the run", check=SEED)
    device: str = arg("cpu", "torch device for the network (cuda where torch sees a GPU)")
    threads: int = arg(
        0, "torch CPU threads; 0: the cores left by the env worker processes (at least 1)", low=0, high=MAX_THREADS
    )
    precision: str = arg(
        "auto",
        "bf16: hidden layers under bfloat16 autocast (heads, weights float32); fp32; auto: bf16 where it is fast",
    )
    progress: bool = arg(True, "show a progress bar")

    def __post_init__(self) -> None:
        check_fields(self)
        check_run(self)


GROUPS: dict[str, type] = {
    "game": GameArgs,
    "learn": LearnArgs,
    "opponents": OpponentArgs,
    "start": StartArgs,
    "run": RunArgs,
}
"""the groups of :class:`TrainArgs`, by the name of the property that gives each (and the ``--help`` section)"""


# The bases in reverse: a dataclass lists its bases' fields from the last base to the first, so the flat
# fields (``--help``, ``args.json``) come group by group in the order of GROUPS.
@dataclass(frozen=True)
class TrainArgs(RunArgs, StartArgs, OpponentArgs, LearnArgs, GameArgs):
    """Arguments of a self-play training run (saved with the run, printed at its start): every group's fields, flat.

    The order of the fields is the order of ``rams train --help`` and of ``args.json``: group by group.
    """

    def __post_init__(self) -> None:
        """Check every argument before any work starts; ``ValueError`` names the first bad one."""
        check_fields(self)  # each field's type and range, declared with it (rams_env/options.py)
        for check in (check_game, check_learn, check_opponents, check_start, check_run):
            check(self)
        # what ties two groups together
        if self.target and self.table_sizes:
            raise ValueError(f"target {self.target!r} plays one table size: table_sizes must be empty")
        if self.imitation_teacher == "target" and not self.target:
            raise ValueError("imitation_teacher target imitates the run's target: it needs target")

    @cached_property
    def game(self) -> GameArgs:
        """The games the run plays."""
        return group(self, GameArgs)

    @cached_property
    def learn(self) -> LearnArgs:
        """The algorithm and its hyper-parameters."""
        return group(self, LearnArgs)

    @cached_property
    def opponents(self) -> OpponentArgs:
        """Who the learner plays."""
        return group(self, OpponentArgs)

    @cached_property
    def start(self) -> StartArgs:
        """The starting weights."""
        return group(self, StartArgs)

    @cached_property
    def run(self) -> RunArgs:
        """The run's control."""
        return group(self, RunArgs)

    @classmethod
    def from_groups(cls, *groups: Any) -> TrainArgs:
        """The arguments made of one instance of each group (any order; a missing group takes its defaults)."""
        values: dict[str, Any] = {}
        for g in groups:
            values.update({f.name: getattr(g, f.name) for f in dataclasses.fields(g)})
        return cls(**values)


G = TypeVar("G")


def group(args: TrainArgs, cls: type[G]) -> G:
    """``args``'s fields of group ``cls``, as a ``cls`` (checked again: a group is valid alone)."""
    return cls(**{f.name: getattr(args, f.name) for f in dataclasses.fields(cls)})  # type: ignore[arg-type]


# ------------------------------------------------------------------------------- each group's checks
# Functions, not methods: TrainArgs runs every group's, and a method of one base would hide another's.
def check_game(args: GameArgs) -> None:
    """The rules, the sizes, the episode kind and the shaping fit together."""
    for n in (args.num_players, *args.table_sizes):
        make_spec(args.variant, n, args.episode, args.reward)  # ValueError naming a bad field
    sizes = (args.num_players, *args.table_sizes)
    if len(set(sizes)) != len(sizes):
        raise ValueError(f"table_sizes must be distinct and differ from num_players, got {sizes!r}")
    if args.equity_shaping and (args.reward, args.episode) != ("win", "rams"):
        raise ValueError(
            "equity_shaping shapes the win reward of whole ramsar: it needs reward=win and episode=rams "
            f"(got reward={args.reward}, episode={args.episode}; the model gives a rams' equity, not a match's)"
        )
    for name in ("points_weight", "late_points_weight"):
        if getattr(args, name) and args.reward != "win":
            raise ValueError(f"{name} shapes the win reward: it needs reward=win")


def check_learn(args: LearnArgs) -> None:
    """The algorithm is a registered one that can learn as asked."""
    from .algorithms import algorithm_class  # torch; the rest of this module needs none

    cls = algorithm_class(args.algorithm)  # ValueError naming the registered algorithms
    if args.privileged_critic and not cls.privileged_critic:
        raise ValueError(
            f"privileged_critic gives PPO its advantages: {args.algorithm} does not learn with it "
            "(dmc learns from Monte-Carlo returns alone)"
        )
    if args.critic_warmup and not args.privileged_critic:
        raise ValueError("critic_warmup trains the privileged critic: it needs privileged_critic")


def check_opponents(args: OpponentArgs) -> None:
    """The shares of the mix add up, and a target leaves no room for the others."""
    if args.heuristic_fraction + args.random_fraction > 1.0:
        raise ValueError(
            f"heuristic_fraction + random_fraction must be at most 1, got "
            f"{args.heuristic_fraction!r} + {args.random_fraction!r}"
        )
    if args.target and (args.heuristic_fraction or args.random_fraction or args.heuristic_after):
        raise ValueError(
            f"target {args.target!r} plays every episode's other seats: heuristic_fraction, random_fraction "
            "and heuristic_after must be 0"
        )


def check_start(args: StartArgs) -> None:
    """One source of starting weights, from a known teacher."""
    if args.imitation_teacher not in IMITATION_TEACHERS:
        raise ValueError(
            f"imitation_teacher must be one of {', '.join(IMITATION_TEACHERS)}, got {args.imitation_teacher!r}"
        )
    if args.imitation and args.init_from and args.imitation_teacher != "target":
        raise ValueError(
            "imitation and init_from both give the starting weights: set one of them (imitation_teacher "
            "target fine-tunes init_from's weights to the target's play)"
        )


def check_run(args: RunArgs) -> None:
    """The device is one torch knows, the precision one of PRECISIONS."""
    import torch  # the device check; the rest of this module needs no torch

    try:
        torch.device(args.device)
    except RuntimeError as err:
        raise ValueError(f"device {args.device!r} is not a torch device ({err})") from None
    if args.precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}, got {args.precision!r}")


# ------------------------------------------------------------------------------- stages
class Staged(Protocol):
    """What the stage functions read: the step of the second stage (any group or TrainArgs that has it)."""

    @property
    def heuristic_after(self) -> int: ...


def second_stage(args: Staged, steps: int) -> bool:
    """Whether a run at ``steps`` learner decisions is in its second stage (see Stages above)."""
    return steps >= args.heuristic_after


def stage_value(args: TrainArgs, steps: int, name: str) -> Any:
    """``name``'s value at ``steps`` learner decisions: ``late_<name>`` in the second stage when it is set."""
    if name not in STAGED:
        raise KeyError(f"{name} does not change between stages (those that do: {', '.join(STAGED)})")
    late = getattr(args, f"late_{name}")
    return late if second_stage(args, steps) and late is not None else getattr(args, name)


def heuristic_fraction_at(args: OpponentArgs, steps: int) -> float:
    """The share of episodes against heuristics at ``steps`` learner decisions: none in the first stage."""
    return args.heuristic_fraction if second_stage(args, steps) else 0.0


# ------------------------------------------------------------------------------- field types
FIELD_TYPES: dict[str, FieldType] = field_types(TrainArgs)  # checked at import, so a test sees a bad one
"""each field's type, in field order"""


def field_docs() -> dict[str, str]:
    """Each field's documentation, in field order."""
    return options.field_docs(TrainArgs)
