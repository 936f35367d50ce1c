"""The model cards of the zoo's named searches (``<preset>-search``), written from their files and measured figures.

Each card (``checkpoints/<preset>/<preset>-search/README.md``) is made from the named agent's file (the spec it
stands for, :func:`rams_env.zoo.agent_spec`), the networks the spec names (their rules, their cards) and, where
it exists and measured that same spec, ``docs/beliefs/gain-<preset>.json`` (``benchmarks.search_gain``; with
``gain-<preset>-uniform.json`` beside it, the same search on uniform worlds). A preset without that file gets a
card that says it is not measured yet, with the command that measures it. So a card cannot drift from its
numbers: ``--check`` fails naming a card that differs (a test runs it).

    python -m rams_training.search_cards [--check]
"""

from __future__ import annotations

import json
from typing import Any

from rams_env import zoo
from rams_env.agents.search import KNOCK_WORLDS
from rams_env.agents.specs import resolve, split_spec

from .card_files import DOCS, interval, signed, write_cards

GAIN_GOAL = 0.02  # the goal of the search over the flagship (docs/agents.md): a paired gain of +0.02, interval above 0


def _card_path(model: zoo.ZooModel) -> str:
    return model.card.relative_to(zoo.SOURCE_ZOO.parent).as_posix()


def measured(model: zoo.ZooModel, suffix: str = "") -> dict[str, Any] | None:
    """``docs/beliefs/gain-<preset><suffix>.json`` when it measured this named agent's spec (``suffix``
    ``"-uniform"``: the same search without ``beliefs=``); else None."""
    path = DOCS / f"gain-{model.preset}{suffix}.json"
    if not path.is_file():
        return None
    result = json.loads(path.read_text(encoding="utf-8"))
    spec = zoo.agent_spec(model)
    if suffix:
        name, options = split_spec(spec)
        options.pop("beliefs", None)
        spec = f"{name}:" + ",".join(f"{k}={v}" for k, v in options.items())
    same = result["options"]["search"] == spec and result["options"]["variant"] == model.preset
    return result if same and "gain" in result else None


def card(model: zoo.ZooModel) -> str:
    """The card of one named search of the zoo."""
    spec = zoo.agent_spec(model)
    name, preset = model.name, model.preset
    _, options = split_spec(spec)
    rules = resolve(name).rules  # loads the networks it names: their rules are its own
    assert rules is not None
    base = zoo.resolve(options["base"])
    rollouts = zoo.resolve(options["rollout_policy"])
    beliefs = zoo.resolve_beliefs(options["beliefs"])
    phases = options.get("phases", "bid+knock+play").replace("+", " and the ")
    lines = [
        f"# `{name}`: a search over the flagship, whole ramsar of {preset}, {rules.num_players} players",
        "",
        f"- File: `{model.path.relative_to(zoo.SOURCE_ZOO.parent).as_posix()}`, a named agent (JSON: the agent spec",
        f"  it stands for, no weights of its own); load with `rams_env.agents.load_agent({name!r})`, or name it",
        f"  wherever an agent is taken: `rams eval {name} --baseline heuristic`, `rams play --agents {name} heuristic",
        "  heuristic`, an agent box of `rams serve`.",
        f"- Spec: `{spec}`",
        f"- What it is: determinized search (`SearchAgent`) over the flagship `{base.name}`: the flagship's choice is",
        f"  kept unless the search finds a move better by more than a standard error. It searches the {phases};",
        f"  {options['simulations']} worlds per decision ({KNOCK_WORLDS} times as many at the knock), drawn from",
        f"  the learned beliefs `{beliefs.name}`, each played out to the end of the deal by `{rollouts.name}` in",
        "  every seat and scored by the seat's chance to win the rams after it (the equity model).",
        "- Networks, each from the zoo with its card:",
        f"  - base: `{base.name}` (card: `{_card_path(base)}`)",
        f"  - rollouts: `{rollouts.name}` (card: `{_card_path(rollouts)}`)",
        f"  - beliefs: `{beliefs.name}` (card: `{_card_path(beliefs)}`)",
        f"- Plays {preset} at {rules.num_players} players, the rules of its networks. Slower than the flagship:",
        "  one search per decision with a choice in the knock and the play, needing torch.",
        "- This card: `python -m rams_training.search_cards`, from the named agent's file and the measured figures.",
        "",
        "## Headline",
        "",
    ]
    return "\n".join(lines + _measured_section(model, spec)) + "\n"


def _measured_section(model: zoo.ZooModel, spec: str) -> list[str]:
    """The card's headline and evaluation, from the measured figures (or how to measure them)."""
    preset, result = model.preset, measured(model)
    if result is None:
        return [
            f"Not measured yet: no run of this spec is in docs/beliefs/gain-{preset}.json. The measurement, the search",
            "and the flagship alone in every seat of the same 1,600 ramsar of the report set against three heuristics",
            "(resumable: the same command continues a stopped run), then this card:",
            "",
            f"`python -m benchmarks.search_gain --variant {preset} --decks 400 --out docs/beliefs/gain-{preset}.json "
            f"--search {spec}`",
        ]
    options_run, seconds = result["options"], result["seconds_per_decision"]
    low = result["gain_ci"][0]
    above = "yes" if low > 0 else "no"
    goal = "yes" if result["gain"] >= GAIN_GOAL and low > 0 else "no"
    lines = [
        "| yardstick | goal | measured | 95% CI | met |",
        "|---|---|---:|---|---|",
        f"| whole ramsar vs 3 heuristics, win share | above the flagship's | {result['search_win_share']:.3f} | "
        f"[{result['search_ci'][0]:.3f}, {result['search_ci'][1]:.3f}] | {above} |",
        f"| the flagship `{options_run['reference']}` alone, the same ramsar | | "
        f"{result['reference_win_share']:.3f} | [{result['reference_ci'][0]:.3f}, {result['reference_ci'][1]:.3f}] | |",
        f"| paired gain over the flagship | {GAIN_GOAL:+.2f}, interval above 0 | {result['gain']:+.3f} | "
        f"[{low:+.3f}, {result['gain_ci'][1]:+.3f}] | {goal} |",
        "",
        "## Evaluation",
        "",
        f"The search and the flagship alone, each in every seat of the same {result['ramsar']:,} ramsar "
        f"({result['decks']} decks) of the report set {options_run['seed']} against three heuristics, as `rams eval "
        "--baseline heuristic --episode rams` plays them; 95% bootstrap intervals over the decks, the gain's paired",
        "(each deck's seats together). Fair share 0.25.",
        "",
        f"`{result['reproduce']}` (`docs/beliefs/gain-{preset}.json`)",
        "",
        f"Seconds per decision with a choice: mean {seconds['mean']:.3f}, 95th percentile {seconds['p95']:.3f}, "
        f"most {seconds['max']:.3f} (one torch thread).",
    ]
    uniform = measured(model, "-uniform")
    if uniform is not None and uniform["options"]["reference"] == options_run["reference"]:
        lines += [
            "",
            f"The same search with uniform worlds (the spec without `beliefs=`) on the same decks: "
            f"{interval(uniform['search_win_share'], uniform['search_ci'])}, a gain of "
            f"{signed(uniform['gain'], uniform['gain_ci'])} over the flagship",
            f"(`docs/beliefs/gain-{preset}-uniform.json`; docs/agents.md, learned beliefs, pairs the two).",
        ]
    return lines


def main(argv: list[str] | None = None) -> int:
    """Write every card (``--check``: fail naming each that differs); the exit status."""
    return write_cards("rams_training.search_cards", zoo.named_agents(zoo.SOURCE_ZOO).values(), card, argv)


if __name__ == "__main__":
    raise SystemExit(main())
