"""Sphinx extension of the rams_env docs: tables generated from the code, so that they cannot drift.

- ``{rams-observation-table}``: the observation layout, from ``rams_env.obs.encoding.FIELDS`` (``layout_table``).
- ``{rams-actions}``: the 60 actions, from ``rams_env.Action`` and the card indices.
- ``{rams-env-summary}``: the environment card's opening table, read from a live environment.
- ``{rams-zoo-index}``: the model zoo, one row per folder of ``checkpoints/``, from its card and evaluations.

At ``builder-inited`` each card of the zoo (``checkpoints/<preset>/<model>/README.md``) gets a page
``zoo/<model>.md`` that includes it (generated, not in git).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

from rams_env import zoo
from rams_env.obs import OBS_SIZE, layout_table
from rams_env.rules.actions import NUM_ACTIONS, Action
from rams_env.rules.cards import NUM_CARDS, card_name

ZOO_PAGES = Path(__file__).resolve().parents[1] / "zoo"

# What each call means; the build fails when Action gains or loses a member this table does not know.
CALL_MEANINGS = {
    Action.PASS: "sit the deal out (knock round)",
    Action.KNOCK: "play the deal, promising a trick (knock round)",
    Action.BID_BETTER: "forehand bids better cards (Swedish presets)",
    Action.BID_SWING: "forehand bids a swing, a new trump (Swedish presets)",
    Action.NO_BID: "forehand makes no (further) bid (Swedish presets)",
    Action.ACCEPT: "accept the bid being answered",
    Action.REJECT: "reject the bid being answered",
    Action.DRAW: "end buying: draw a card from the talon for each card discarded",
}
SUITS = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}


def action_table() -> str:
    """The 60 actions as markdown: the card ids by suit and rank, then each call."""
    if set(CALL_MEANINGS) != set(Action):
        raise ValueError(f"docs/_ext/rams_docs.py CALL_MEANINGS must describe exactly {[a.name for a in Action]}")
    ranks = [card_name(r)[0] for r in range(13)]
    rows = ["| suit | " + " | ".join(ranks) + " |", "|---|" + "---:|" * 13]
    for s, (letter, suit) in enumerate(SUITS.items()):
        cells = [f"{s * 13 + r} `{card_name(s * 13 + r)}`" for r in range(13)]
        assert all(card_name(s * 13 + r).endswith(letter) for r in range(13))
        rows.append(f"| {suit} | " + " | ".join(cells) + " |")
    rows += ["", "| id | `Action` | meaning |", "|---:|---|---|"]
    rows += [f"| {a.value} | `{a.name}` | {CALL_MEANINGS[a]} |" for a in sorted(Action)]
    assert NUM_CARDS + len(Action) == NUM_ACTIONS
    return "\n".join(rows)


def env_summary() -> str:
    """The environment card's opening table, in PettingZoo's format, read from ``rams_env.env()``."""
    import rams_env

    env = rams_env.env()
    agent = env.possible_agents[0]
    obs = env.observation_space(agent)
    inner = obs["observation"]
    rows = [
        ("Import", "`from rams_env import rams_v1` (or `import rams_env`; `rams_env.env(...)`)"),
        ("Gymnasium id", "`rams_env/Rams-v1` (one learning seat, `gymnasium.make`)"),
        ("Name", f"`{env.metadata['name']}`"),
        ("Actions", f"Discrete, masked: {env.action_space(agent).n} ids (`observation['action_mask']`)"),
        ("Parallel API", "no (turn-based AEC; a batched env for training: `rams_env.envs.vector`)"),
        ("Manual control", "`rams play`, `rams serve`"),
        ("Agents", "`agents = ['player_0', ..., 'player_{n-1}']`, n = 3 to 7 (the preset's range)"),
        ("Agents (default)", f"{len(env.possible_agents)}"),
        ("Action shape", "`()`, one integer"),
        ("Action values", f"`Discrete({env.action_space(agent).n})`"),
        (
            "Observation shape",
            f"`{{'observation': {inner.shape}, 'action_mask': {obs['action_mask'].shape}}}`",
        ),
        (
            "Observation values",
            f"`observation` float32 in [{inner.low.min():g}, {inner.high.max():g}]; `action_mask` int8, 0 or 1",
        ),
        ("Rewards", "`reward='points'`: the decrease of the seat's score; `reward='win'`: +1/-1 shared at the end"),
        ("Render modes", f"{', '.join(repr(m) for m in env.metadata['render_modes'])}"),
    ]
    assert inner.shape == (OBS_SIZE,)
    return "\n".join(["| | |", "|---|---|", *(f"| {k} | {v} |" for k, v in rows)])


def _rate(path: Path) -> str:
    """``0.282 [0.252, 0.314]`` from an evaluation JSON of the card, or empty."""
    if not path.is_file():
        return ""
    agent = json.loads(path.read_text(encoding="utf-8"))["agents"][0]
    low, high = agent["win_rate_ci"]
    return f"{agent['win_rate']:.3f} [{low:.3f}, {high:.3f}] ({agent['games']})"


def _advantage(path: Path) -> str:
    """``+0.009 [-0.035, +0.052]`` (points per deal) from an evaluation JSON of the card, or empty."""
    if not path.is_file():
        return ""
    agent = json.loads(path.read_text(encoding="utf-8"))["agents"][0]
    low, high = agent["advantage_ci"]
    return f"{agent['advantage']:+.3f} [{low:+.3f}, {high:+.3f}]"


def zoo_rows() -> list[tuple[str, ...]]:
    """One row per zoo model: name, preset, kind, title of its card, its headline evaluations."""
    flagships = set(zoo.FLAGSHIPS.values())
    rows = []
    for name, model in zoo.models(zoo.SOURCE_ZOO).items():
        title = model.card.read_text(encoding="utf-8").splitlines()[0].split(": ", 1)[1]
        rows.append(
            (
                f"[`{name}`](zoo/{name}.md)" + (f", flagship: `{model.preset}`" if name in flagships else ""),
                model.preset,
                "ensemble" if model.ensemble else "policy",
                title,
                _rate(model.folder / "rams_vs_heuristic.json"),
                _rate(model.folder / "rams_vs_random.json"),
                _advantage(model.folder / "deal_vs_heuristic.json"),
                _advantage(model.folder / "deal_vs_search.json"),
            )
        )
    return rows


def zoo_index() -> str:
    """The zoo's index table as markdown."""
    head = [
        "| name | preset | kind | card | whole ramsar vs 3 heuristics: win share (ramsar) | vs 3 random | "
        "single deals from random scores vs heuristic: points per deal | vs search |",
        "|---|---|---|---|---|---|---|---|",
    ]
    return "\n".join(head + [f"| {' | '.join(row)} |" for row in zoo_rows()])


class _Generated(SphinxDirective):
    """A directive whose body is markdown made by a function of the code."""

    has_content = False
    make: Any = None

    def run(self) -> list[nodes.Node]:
        container = nodes.container()
        self.state.nested_parse(self.make().splitlines(), self.content_offset, container)
        return container.children


def _directive(function: Any) -> type[_Generated]:
    return type(f"{function.__name__}_directive", (_Generated,), {"make": staticmethod(function)})


def write_zoo_pages(app: Sphinx) -> None:
    """``zoo/<model>.md`` for each model, belief network and named agent: its card, included from ``checkpoints/``."""
    ZOO_PAGES.mkdir(exist_ok=True)
    wanted = {}
    every = {**zoo.models(zoo.SOURCE_ZOO), **zoo.belief_models(zoo.SOURCE_ZOO), **zoo.named_agents(zoo.SOURCE_ZOO)}
    for name, model in every.items():
        relative = Path("..", "..", model.card.relative_to(zoo.SOURCE_ZOO.parent)).as_posix()
        wanted[f"{name}.md"] = f"```{{include}} {relative}\n```\n"
    for old in ZOO_PAGES.glob("*.md"):
        if old.name not in wanted:
            old.unlink()
    for file, text in wanted.items():
        path = ZOO_PAGES / file
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_directive("rams-observation-table", _directive(layout_table))
    app.add_directive("rams-actions", _directive(action_table))
    app.add_directive("rams-env-summary", _directive(env_summary))
    app.add_directive("rams-zoo-index", _directive(zoo_index))
    app.connect("builder-inited", write_zoo_pages)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
