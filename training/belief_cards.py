"""The model cards of the zoo's belief networks, written from their files and their measured figures.

Each card (``checkpoints/<preset>/<preset>-beliefs/README.md``) is made from the network's own file (how it
was trained, its held-out figures) and, where they exist, ``docs/beliefs/accuracy-<preset>.json``
(``benchmarks.belief_accuracy``) and ``docs/beliefs/gain-<preset>.json`` (``benchmarks.search_gain``), so a
card cannot drift from its numbers: ``--check`` fails naming a card that differs (a test runs it).

    python -m rams_training.belief_cards [--check]
"""

from __future__ import annotations

import json
from typing import Any

from rams_env import zoo
from rams_env.policy.checkpoint import read_plain

from .card_files import DOCS, interval, write_cards


def card(model: zoo.ZooModel) -> str:
    """The card of one belief network of the zoo."""
    payload = read_plain(model.path, "belief network")
    training = payload["training"]
    args: dict[str, Any] = json.loads(training["args"])
    last = json.loads(training["history"])[-1]
    preset, name = model.preset, model.name
    size = model.path.stat().st_size / 1e6
    hidden = ", ".join(str(h) for h in payload["network"]["hidden"])
    lines = [
        f"# `{name}`: where the hidden cards lie, learned for {preset}",
        "",
        f"- File: `checkpoints/{preset}/{name}/{model.path.name}` ({size:.1f} MB, float16 weights). Use it with",
        f"  `SearchAgent(beliefs={preset!r})` or `rams eval search:beliefs={preset}` (the search draws its",
        "  worlds from it), or `rams_env.policy.beliefs.load_beliefs(path)` for the network itself.",
        f"- What it is: an MLP from a seat's observation (encoder version {payload['encoder_version']}) to, for",
        "  every card, the probability of each place it can lie in: each other hand (relative seats 1-6), the",
        f"  talon, the face-down cards (`rams_env.obs.beliefs`). Hidden layers {hidden}; places without room are",
        "  masked.",
        f"- Data: {training['decisions']:,} decisions with a choice in the knock and the play, from whole ramsar of",
        f"  {preset} at every table size it allows (half at 4 players), each seat played by the compiled heuristic",
        f"  or the preset's trained policy (chance {args['policy_share']} per seat and rams); the labels are the",
        "  true places. No rams starts from a seed below 1,000,000, so the benchmark's deals (seeds 0-999) are",
        "  never seen.",
        f"- Training: cross-entropy of each hidden card's true place, {args['epochs']} epochs, Adam lr {args['lr']}",
        f"  (cosine to a tenth), batch {args['batch']}, {args['holdout']:.0%} of the decisions held out.",
        "- Reproduce: `python -m rams_training.beliefs --variant "
        f"{preset} --decisions {args['decisions']} --epochs {args['epochs']} --out runs/beliefs-{preset}` (resumable:",
        "  the same command continues a stopped run), then this card: `python -m rams_training.belief_cards`.",
        "",
        "## Held out",
        "",
        "| figure | value |",
        "|---|---:|",
        f"| mean log-probability of a hidden card's true place | {last['log_likelihood']:.3f} |",
        f"| the other hands' cards whose likeliest place is right | {last['hand_cards_argmax_right']:.3f} |",
    ]
    return "\n".join(lines + _accuracy_section(preset) + _play_section(preset)) + "\n"


def _accuracy_section(preset: str) -> list[str]:
    """The card's lines on the worlds it gives the search (none before they are measured)."""
    accuracy = DOCS / f"accuracy-{preset}.json"
    lines: list[str] = []
    if accuracy.is_file():
        result = json.loads(accuracy.read_text())
        lines += [
            "",
            "## The worlds it gives the search",
            "",
            f"At the first decision with a choice of the third trick, {result['decisions']} deals of heuristic play",
            f"at 4 players, {result['worlds']} worlds each: `{result['reproduce']}`",
            "",
            "| worlds | placed right [95% CI] | log-likelihood | agrees with the true-deal search [95% CI] |",
            "|---|---|---:|---|",
        ]
        for way, row in result["rows"].items():
            placed, agrees = interval(row["placed"], row["placed_ci"]), interval(row["agrees"], row["agrees_ci"])
            lines.append(f"| {way} | {placed} | {row['log_likelihood']:.3f} | {agrees} |")
    return lines


def _play_section(preset: str) -> list[str]:
    """The card's lines on the search with these beliefs in play (none before it is measured)."""
    gain = DOCS / f"gain-{preset}.json"
    lines: list[str] = []
    if gain.is_file():
        result = json.loads(gain.read_text())
        seconds, options = result["seconds_per_decision"], result["options"]
        lines += [
            "",
            "## In play",
            "",
            f"The search over the flagship with these beliefs, and the flagship alone, in every seat of the same "
            f"{result['ramsar']:,} ramsar of deal set {result['options']['seed']} against three heuristics: "
            f"`{result['reproduce']}`",
            "",
            "| agent | win share [95% CI] |",
            "|---|---|",
            f"| `{options['reference']}` | {interval(result['reference_win_share'], result['reference_ci'])} |",
            f"| `{options['search']}` | {interval(result['search_win_share'], result['search_ci'])} |",
            f"| paired gain | {result['gain']:+.3f} [{result['gain_ci'][0]:+.3f}, {result['gain_ci'][1]:+.3f}] |",
            "",
            f"Seconds per decision with a choice: mean {seconds['mean']:.3f}, 95th percentile {seconds['p95']:.3f}, "
            f"most {seconds['max']:.3f} (one torch thread).",
        ]
    return lines


def main(argv: list[str] | None = None) -> int:
    """Write every card (``--check``: fail naming each that differs); the exit status."""
    return write_cards("rams_training.belief_cards", zoo.belief_models(zoo.SOURCE_ZOO).values(), card, argv)


if __name__ == "__main__":
    raise SystemExit(main())
