"""``rams eval``: duplicate evaluation of agents against a baseline, or a league of them."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ...agents.specs import ResolvedAgent, is_policy
from ...eval import AGENT_SPEC_HELP, evaluate, league
from ...options import REQUIRED, SEED, Namespace, Parser, add_options, arg
from ...rules import RulesConfig
from ..command import Command, CommandError
from .options import (
    MAX_RESAMPLES,
    MAX_THREADS,
    MAX_WORKERS,
    add_rules_options,
    check_output,
    resolve_agent,
    rules_from_args,
    torch_threads,
)


@dataclass(kw_only=True)
class EvalOptions:
    """The options of ``rams eval`` but the rules' (:class:`rams_env.apps.cli.options.RulesOptions`)."""

    agents: tuple[str, ...] = arg(REQUIRED, AGENT_SPEC_HELP, positional=True, nargs="+", metavar="AGENT")
    baseline: str | None = arg(None, "baseline agent (default random)", metavar="AGENT")
    decks: int = arg(200, "decks in the deal set (default 200)", low=1, metavar="N")
    seed: int = arg(0, "seed of the deal set (default 0)", check=SEED)
    json: str | None = arg(None, "write the results as JSON (default: none)", metavar="PATH")
    plot: str | None = arg(None, "write a PNG plot of the results (default: none)", metavar="PATH")
    knock_plot: str | None = arg(
        None, "write a PNG of each agent's knock rate by score, not with --league (default: none)", metavar="PATH"
    )
    workers: int = arg(1, "processes to split the decks over (default 1)", low=1, high=MAX_WORKERS)
    threads: int = arg(
        1,
        "torch threads in each process for checkpoint agents (default 1: one game's small network gains nothing "
        "from more, and several processes with torch's default of one thread per core slow each other down)",
        low=1,
        high=MAX_THREADS,
    )
    resamples: int = arg(10_000, "bootstrap resamples (default 10000)", low=1, high=MAX_RESAMPLES)
    league: bool = arg(False, "rate the agents against each other with OpenSkill (default: off)")
    progress: bool = arg(True, "show the progress bar (default: shown)")
    wide: bool = arg(False, "print the earlier wide table, one line per agent (default: a table within 100 columns)")


def _configure(parser: Parser) -> None:
    first = ("agents", "baseline")  # then the rules options, then the rest
    add_options(parser, EvalOptions, validate=True, only=first)
    add_rules_options(parser, own="a checkpoint agent's own, else ")
    add_options(
        parser, EvalOptions, validate=True, only=[n for n in EvalOptions.__dataclass_fields__ if n not in first]
    )


def _run(args: Namespace) -> int:
    if len(set(args.agents)) != len(args.agents):
        raise CommandError(f"an agent is named twice: {' '.join(args.agents)}")
    if args.league and args.baseline is not None:
        raise CommandError("--baseline has no meaning with --league (every agent is rated against the others)")
    if args.league and len(args.agents) < 2:
        raise CommandError("--league needs at least 2 agents")
    check_output(args.json, "--json")
    check_output(args.plot, "--plot")
    check_output(args.knock_plot, "--knock-plot")
    if args.league and args.knock_plot:
        raise CommandError("--knock-plot is for a duplicate evaluation, not --league")
    with torch_threads(args.threads):
        config, agents = _resolve_agents(args)
        return _evaluate_and_report(args, config, agents)


def _resolve_agents(args: Namespace) -> tuple[RulesConfig, dict[str, Any]]:
    """The rules and the agent sources of ``rams eval``, the baseline's under ``--baseline``'s spec (default
    ``random``). The trained policies are resolved first, each read once; the rules played are the first
    one's own (:func:`_checkpoint_rules`) or the rules options'; then each policy is set to those rules
    (not read again) and each built-in agent made for them."""
    specs = list(dict.fromkeys([*args.agents, args.baseline or "random"]))
    policies = {spec: resolve_agent(spec) for spec in specs if is_policy(spec)}
    config = _checkpoint_rules(args, policies.values()) or rules_from_args(args)
    agents = {}
    for spec in specs:
        try:
            agents[spec] = (policies[spec].at(config) if spec in policies else resolve_agent(spec, config)).source
        except ValueError as err:
            raise CommandError(str(err)) from None
    return config, agents


def _evaluate_and_report(args: Namespace, config: RulesConfig, sources: dict[str, Any]) -> int:
    agents = {spec: sources[spec] for spec in args.agents}
    if "torch" in sys.modules:  # a checkpoint agent imported it: its threads now, the workers' from the environment
        sys.modules["torch"].set_num_threads(args.threads)
    progress = args.progress
    if args.league:
        result: Any = league(
            agents,
            config,
            decks=args.decks,
            seed=args.seed,
            episode=args.episode,
            scores=args.scores,
            workers=args.workers,
            progress=progress,
        )
    else:
        baseline = args.baseline or "random"
        result = evaluate(
            agents,
            sources[baseline],
            config,
            decks=args.decks,
            seed=args.seed,
            episode=args.episode,
            scores=args.scores,
            baseline_name=baseline,
            resamples=args.resamples,
            workers=args.workers,
            progress=progress,
        )
    print(result.table(wide=args.wide))
    if args.json:
        result.save_json(args.json)
        print(f"wrote {args.json}")
    if args.plot:
        result.plot(args.plot)
        print(f"wrote {args.plot}")
    if args.knock_plot:
        result.plot_knock_rates(args.knock_plot)
        print(f"wrote {args.knock_plot}")
    return 0


def _checkpoint_rules(args: Namespace, agents: Iterable[ResolvedAgent]) -> RulesConfig | None:
    """``rams eval``'s rules from its first checkpoint agent: its own where ``--variant`` and
    ``--num-players`` are left out; a ``CommandError`` naming the option to change where a given one
    conflicts. ``None`` when no agent is a checkpoint that records its rules (the options decide)."""
    first = next((agent for agent in agents if agent.trained and agent.rules is not None), None)
    if first is None:
        return None
    from ...policy import config_at_size  # torch is there

    spec, own = first.spec, first.rules
    assert own is not None
    if args.variant is not None and args.variant != own.variant:
        raise CommandError(
            f"{spec} plays {own.variant}, not --variant {args.variant}: change it to --variant {own.variant}, "
            "or leave --variant out (rams eval then plays the checkpoint's own rules)"
        )
    sizes = tuple(sorted(first.table_sizes))
    n = args.num_players if args.num_players is not None else own.num_players
    if n not in sizes:
        allowed = str(sizes[0]) if len(sizes) == 1 else f"one of {', '.join(map(str, sizes))}"
        raise CommandError(
            f"{spec} plays {allowed} players, not --num-players {n}: change it to --num-players {own.num_players}"
            f"{'' if len(sizes) == 1 else f' ({allowed})'}, or leave --num-players out"
        )
    config = config_at_size(own, n)
    if args.option:
        wanted = rules_from_args(Namespace(**{**vars(args), "variant": own.variant, "num_players": n}))
        if wanted != config:
            ours, theirs = wanted.to_dict(), config.to_dict()
            diff = ", ".join(f"{k}={ours[k]!r} (it plays {theirs[k]!r})" for k in ours if ours[k] != theirs[k])
            raise CommandError(f"{spec} was trained for other rules than --option gives: {diff}; drop those --option")
    return config


COMMAND = Command("eval", "duplicate evaluation of agents against a baseline, or a league", _configure, _run)
