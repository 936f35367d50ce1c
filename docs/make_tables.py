"""Write the docs' result tables from their JSON: ``python docs/make_tables.py`` (``--check``: change nothing, fail
and name each table that differs; tests/docs/test_tables.py runs it).

Each table sits in its page between ``<!-- table: NAME -->`` and ``<!-- /table -->``. Every figure of a row comes
from its result file; the words of a row (what an agent is, how an exploiter started, a note after a run's name) are
the page's, kept by the row's first cell. A result with no row yet gets one at the end, its words left blank to
write. Rows are in the page's order, except where the order is a figure (a league's ranks, PSRO's iterates). A
result outside the report set (1,600 ramsar of deal set 7400001) is refused, since every table decides something.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # this checkout's rams_env, as docs/conf.py does

from rams_env import zoo  # noqa: E402
from rams_env.eval.league import tiers  # noqa: E402
from rams_env.eval.stats import bootstrap_interval  # noqa: E402

REPORT_SEED, REPORT_RAMSAR = 7400001, 1600
VECTOR_GOALS = {"env": (0.8, "0.8x"), "train cleanrl": (20_000, "20,000"), "train sb3": (15_000, "15,000")}
VECTOR_GOALS |= {"train torchrl": (15_000, "15,000"), "train rllib": (8_000, "8,000")}


class Words(str):
    """A cell the page writes: it starts with this generated text (often none) and the page's words follow."""


Row = list[str]


@dataclass(frozen=True)
class Table:
    """One generated table: its page, header and alignment line, and its rows from the JSON."""

    page: str
    header: str
    rows: Callable[[], list[Row]]
    ranked: bool = False  # the rows' order is a figure (the generated order), not the page's


def load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def interval(share: float, ci: list[float]) -> str:
    """``0.289 [0.268, 0.312]``."""
    return f"{share:.3f} [{ci[0]:.3f}, {ci[1]:.3f}]"


def expect(fact: bool, what: str) -> None:
    if not fact:
        raise ValueError(f"docs/make_tables.py: {what}")


def on_report_set(report: dict[str, Any], name: str) -> None:
    """A ``rams exploit`` report over the report set."""
    expect((report["ramsar"], report["report_seed"]) == (REPORT_RAMSAR, REPORT_SEED), f"{name}: not the report set")
    expect(report["exploitability"] == report["win_share"] - report["fair_share"], f"{name}: exploitability")


def exploit_cells(report: dict[str, Any]) -> tuple[str, str]:
    """A report's win share with its interval, and its exploitability estimate."""
    return interval(report["win_share"], report["win_share_ci"]), f"{report['exploitability']:+.3f}"


def shown_target(spec: str) -> str:
    """How a table names a target: its spec, a path by its last two parts (``T-idle/best.pt``)."""
    return "+".join("/".join(Path(part).parts[-2:]) if "/" in part else part for part in spec.split("+"))


# ----------------------------------------------------------------------------- the tables
def benchmark_rows() -> list[Row]:
    """docs/benchmarks.md, Results: one row per ``python -m benchmarks.learning`` result in docs/benchmarks/."""
    rows = []
    for path in sorted((HERE / "benchmarks").glob("*.json")):
        result = load(path)
        final = result["final"]
        expect((final["ramsar"], final["seed"]) == (REPORT_RAMSAR, REPORT_SEED), f"{path.name}: not the report set")
        rows.append(
            [
                f"`{path.stem}`",
                f"`{result['pipeline']}`",
                f"{result['minutes']:g}",
                f"{result['decisions']:,}",
                f"{result['decisions_per_s']:,.0f}",
                f"{result['curve'][0]['win_rate']:.3f}",
                interval(final["win_rate"], final["win_rate_ci"]),
                f"{final['points_per_deal_vs_baseline']:+.2f}",
            ]
        )
    return rows


def vector_speed_rows() -> list[Row]:
    """docs/benchmarks.md, the speed of the vector env: ``python -m benchmarks.vector_speed --json``'s rows."""
    results = load(HERE / "speed" / "vector-speed.json")["results"]
    rows = []
    for name, figures in results.items():
        rate = figures["wall"]
        ratio = rate / results["env BatchedRamsEnv" if name.startswith("env") else "train rams"]["wall"]
        goal = VECTOR_GOALS.get("env" if name.startswith("env RamsVectorEnv") else name)
        if goal is None:
            shown, verdict = "", ""
        else:
            shown, verdict = goal[1], "met" if (ratio if name.startswith("env") else rate) >= goal[0] else "missed"
        rows.append([Words(f"`{name}`"), f"{rate:,.0f}", f"{ratio:.2f}", shown, verdict])
    return rows


def rllib_cluster_rows() -> list[Row]:
    """docs/integrations.md: ``benchmarks/rllib_cluster.py``'s sampling rates, one row per record."""
    rows = []
    for path in sorted((HERE / "speed").glob("rllib-cluster-*.json")):
        record = load(path)
        expect(record["steps_after"] > record["steps_before"], f"{path.name}: it did not resume and train on")
        expect(record["reproduce"].startswith("python -m benchmarks.rllib_cluster"), f"{path.name}: its command")
        rates = ", ".join(f"{x:,.0f}" for x in record["rates"])
        rows.append([str(record["env_runners"]), str(record["nodes"]), rates])
    return rows


def exploit_rows() -> list[Row]:
    """docs/agents.md, the table remeasured: each preset's heuristic and flagship, from docs/exploit/*.json."""
    rows = []
    for path in sorted((HERE / "exploit").glob("*.json")):
        report = load(path)
        on_report_set(report, path.name)
        share, bound = exploit_cells(report)
        target, minutes = f"`{shown_target(report['target'])}`", f"{report['train_minutes']:.1f}"
        rows.append([f"`{path.stem}`", target, report["variant"], Words(), f"{report['decisions']:,}", minutes])
        rows[-1] += [share, bound]
    return rows


def calibration_rows() -> list[Row]:
    """docs/agents.md, Calibration: each run's report and its curve's first and best evaluations."""
    folder, rows = HERE / "exploit" / "calibration", []
    for path in sorted(folder.glob("*.csv")):
        report = load(path.with_suffix(".json"))
        on_report_set(report, path.name)
        with path.open(encoding="utf-8") as f:
            curve = [float(r["win_vs_target"]) for r in csv.DictReader(f) if r["win_vs_target"]]
        share, bound = exploit_cells(report)
        rows.append([f"`{path.stem}`", f"`{report['target']}`", f"{report['decisions']:,}", f"{curve[0]:.3f}"])
        rows[-1] += [f"{max(curve):.3f}", share, bound]
    return rows


def psro_rows() -> list[Row]:
    """docs/agents.md, PSRO on russian: each iterate's exploit report and evaluation (the start's: its zoo card)."""
    folder, rows = HERE / "exploit" / "psro-russian", []
    for path in sorted(folder.glob("*-exploit.json"), key=lambda p: int(p.name.split("-")[0])):
        k = int(path.name.split("-")[0])
        report = load(path)
        on_report_set(report, path.name)
        share, bound = exploit_cells(report)
        if k:
            evaluation = load(folder / f"{k}-eval.json")
            expect(evaluation["seed"] == REPORT_SEED, f"{k}-eval.json: not the report set")
            mine = evaluation["agents"][0]
            against = interval(mine["win_rate"], mine["win_rate_ci"])
        else:
            mine = load(zoo.resolve(report["target"]).folder / "rams_vs_heuristic.json")["agents"][0]
            against = f"{interval(mine['win_rate'], mine['win_rate_ci'])} (its zoo card)"
        expect(mine["games"] == REPORT_RAMSAR, f"iterate {k}: not 1,600 ramsar")
        rows.append([f"`{k}`", Words(), f"{bound} ({share})", against])
    return rows


def transfer_rows() -> list[Row]:
    """docs/agents.md, the searches by transfer: an exploiter's evaluation against three searches."""
    rows = []
    for path in sorted((HERE / "exploit" / "transfer").glob("*.json")):
        evaluation = load(path)
        expect((evaluation["episode"], evaluation["seed"]) == ("rams", REPORT_SEED), f"{path.name}: its deal set")
        mine, fair = evaluation["agents"][0], evaluation["agents"][0]["fair_share"]
        low, high = mine["win_rate_ci"]
        bound = f"{mine['win_rate'] - fair:+.3f} [{low - fair:+.3f}, {high - fair:+.3f}]"
        rows.append([f"`{path.stem}`", f"`{shown_target(mine['name'])}`", f"`{evaluation['baseline']['name']}`"])
        rows[-1] += [str(mine["games"]), interval(mine["win_rate"], mine["win_rate_ci"]), bound]
    return rows


HANDS_ORACLE = {"mattmar": 0.338, "norrlandsknack": 0.347, "rams32": 0.394, "russian": 0.341}
"""The search that sees the other hands, not the talon, whole ramsar against three heuristics: the long goal, as
an older search configuration measured it (:func:`hands_oracle` prefers today's)."""


def hands_oracle(variant: str) -> float:
    """The hands-oracle's win share: ``docs/beliefs/oracle-V.json`` (today's search seeing the other hands,
    ``benchmarks.search_gain`` on the report set) where it has been measured, else :data:`HANDS_ORACLE`."""
    path = HERE / "beliefs" / f"oracle-{variant}.json"
    if not path.exists():
        return HANDS_ORACLE[variant]
    result = load(path)
    expect(
        (result["ramsar"], result["options"]["seed"]) == (REPORT_RAMSAR, REPORT_SEED),
        f"{path.name}: not the report set",
    )
    expect(result["options"]["search"].startswith("oracle:"), f"{path.name}: not an oracle")
    return result["search_win_share"]


def belief_rows() -> list[Row]:
    """docs/agents.md, learned beliefs: ``python -m benchmarks.belief_accuracy --json`` per preset, a row per way."""
    rows = []
    for path in sorted((HERE / "beliefs").glob("accuracy-*.json")):
        result = load(path)
        for name, row in result["rows"].items():
            placed, agrees = interval(row["placed"], row["placed_ci"]), interval(row["agrees"], row["agrees_ci"])
            cells = [placed, f"{row['log_likelihood']:.3f}", agrees]
            rows.append([Words(f"{result['variant']}: {name}"), str(result["decisions"]), *cells])
    return rows


def learned_worlds(result: dict[str, Any]) -> bool:
    """Whether a ``benchmarks.search_gain`` run's search draws its worlds from learned beliefs."""
    return "beliefs=" in result["options"]["search"]


def gain_runs() -> dict[str, dict[str, Any]]:
    """Each ``docs/beliefs/gain-*.json`` by its name, each checked to be over the report set."""
    runs = {}
    paths = sorted((HERE / "beliefs").glob("gain-*.json"), key=lambda p: (p.stem.removesuffix("-uniform"), p.stem))
    for path in paths:  # a preset's run with learned worlds, then its control with uniform ones
        result = load(path)
        expect(
            (result["ramsar"], result["options"]["seed"]) == (REPORT_RAMSAR, REPORT_SEED),
            f"{path.name}: not the report set",
        )
        runs[path.stem] = result
    return runs


def search_gain_rows() -> list[Row]:
    """docs/agents.md, the search over the flagship: ``python -m benchmarks.search_gain``, a row per run."""
    rows = []
    for name, result in gain_runs().items():
        oracle = hands_oracle(result["options"]["variant"])
        gap = (result["search_win_share"] - result["reference_win_share"]) / (oracle - result["reference_win_share"])
        low = result["gain_ci"][0]
        goal = ("met" if result["gain"] >= 0.02 and low > 0 else "missed") if learned_worlds(result) else "-"
        rows.append(
            [
                Words(f"`{name}`"),
                Words("learned" if learned_worlds(result) else "uniform"),
                interval(result["reference_win_share"], result["reference_ci"]),
                interval(result["search_win_share"], result["search_ci"]),
                f"{result['gain']:+.3f} [{low:+.3f}, {result['gain_ci'][1]:+.3f}]",
                f"{oracle:.3f}",
                f"{gap:.0%}",
                f"{result['seconds_per_decision']['mean']:.2f} / {result['seconds_per_decision']['max']:.2f}",
                goal,
            ]
        )
    return rows


def beliefs_in_play_rows() -> list[Row]:
    """docs/agents.md, what the learned beliefs add to the same search: ``gain-V.json`` beside ``gain-V-uniform.json``.

    Both runs play the same decks with the same seeds, so their references' results are identical and the
    searches' results pair deck by deck.
    """
    runs, rows = gain_runs(), []
    for name, learned in runs.items():
        uniform = runs.get(f"{name}-uniform")
        if not learned_worlds(learned) or uniform is None:
            continue
        expect(learned["wins"]["reference"] == uniform["wins"]["reference"], f"{name}: the runs' decks differ")
        per_deck = {
            key: np.asarray(run["wins"]["search"]).mean(axis=1) for key, run in (("l", learned), ("u", uniform))
        }
        diff = per_deck["l"] - per_deck["u"]
        low, high = bootstrap_interval(diff, seed=learned["options"]["seed"])
        share = diff.mean() / learned["gain"]
        rows.append(
            [
                Words(learned["options"]["variant"]),
                interval(uniform["search_win_share"], uniform["search_ci"]),
                interval(learned["search_win_share"], learned["search_ci"]),
                f"{diff.mean():+.3f} [{low:+.3f}, {high:+.3f}]",
                f"{share:.0%}",
            ]
        )
    return rows


def league_rows(preset: str) -> Callable[[], list[Row]]:
    """docs/agents.md, a preset's league at 4 players, best first, from docs/league/<preset>-4p.json."""

    def rows() -> list[Row]:
        league = load(HERE / "league" / f"{preset}-4p.json")
        expect((league["variant"], league["num_players"], league["seed"]) == (preset, 4, REPORT_SEED), preset)
        agents = league["agents"]
        expect([a["ordinal"] for a in agents] == sorted((a["ordinal"] for a in agents), reverse=True), "rank order")
        told = tiers([(a["mu"], a["sigma"]) for a in agents])
        out = []
        for rank, (agent, (above, tier)) in enumerate(zip(agents, told, strict=True), start=1):
            shown = "" if above is None else f"{above:.2f}"
            out.append([f"`{agent['name']}`", str(rank), str(tier), shown, Words()])
            out[-1] += [f"{agent['mu']:.2f}", f"{agent['sigma']:.2f}", f"{agent['ordinal']:.2f}", str(agent["games"])]
            out[-1].append(interval(agent["win_rate"], agent["win_rate_ci"]))
        return out

    return rows


LEAGUE_HEADER = (
    "| agent | rank | tier | P(above next) | what | mu | sigma | ordinal | ramsar | win share |\n"
    "|---|---:|---:|---:|---|---:|---:|---:|---:|---|"
)
TABLES: dict[str, Table] = {
    "benchmarks": Table(
        "benchmarks.md",
        "| run | pipeline | minutes | decisions | decisions/s | first point (7200001) | final win share (7400001) "
        "| points per deal vs heuristic |\n|---|---|---:|---:|---:|---:|---|---:|",
        benchmark_rows,
    ),
    "vector-speed": Table(
        "benchmarks.md",
        "| `vector_speed` row | decisions/s | ratio to its peer | goal | |\n|---|---:|---:|---:|---|",
        vector_speed_rows,
        ranked=True,
    ),
    "rllib-cluster": Table(
        "integrations.md",
        "| env runners | nodes | sampling decisions/s (3 iterations) |\n|---|---|---|",
        rllib_cluster_rows,
        ranked=True,
    ),
    "exploit": Table(
        "agents.md",
        "| run | target | preset | start | decisions | minutes | exploiter's win share | exploitability estimate |\n"
        "|---|---|---|---|---:|---:|---|---:|",
        exploit_rows,
    ),
    "calibration": Table(
        "agents.md",
        "| run | target | decisions | first evaluation | best evaluation | exploiter's win share "
        "| exploitability estimate |\n|---|---|---:|---:|---:|---|---:|",
        calibration_rows,
    ),
    "psro": Table(
        "agents.md",
        "| iterate | what | exploitability estimate (exploiter's win share) | win share against three heuristics |\n"
        "|---|---|---|---|",
        psro_rows,
        ranked=True,
    ),
    "transfer": Table(
        "agents.md",
        "| run | exploiter | against three | ramsar | exploiter's win share | transfer bound |\n"
        "|---|---|---|---:|---|---|",
        transfer_rows,
    ),
    "beliefs": Table(
        "agents.md",
        "| worlds | decisions | placed right [95% CI] | log-likelihood | agrees with the true-deal search [95% CI] |\n"
        "|---|---:|---|---:|---|",
        belief_rows,
    ),
    "search-gain": Table(
        "agents.md",
        "| run | worlds | the flagship alone | the search over it | paired gain | hands-oracle | gap taken "
        "| s/decision (mean / max) | +0.02, interval above 0 |\n|---|---|---|---|---|---:|---:|---:|---|",
        search_gain_rows,
    ),
    "beliefs-in-play": Table(
        "agents.md",
        "| preset | the search, uniform worlds | the search, learned worlds | paired difference "
        "| share of the search's gain |\n|---|---|---|---|---:|",
        beliefs_in_play_rows,
    ),
    **{
        f"league-{preset}": Table("agents.md", LEAGUE_HEADER, league_rows(preset), ranked=True)
        for preset in ("mattmar", "norrlandsknack", "rams32", "russian")
    },
}


# ----------------------------------------------------------------------------- pages
# A block's body never holds another marker: an empty block (no blank line inside) is not read across to the next one.
BLOCK = re.compile(r"(<!-- table: (?P<name>[\w-]+) -->\n)(?P<body>(?:(?!<!-- /?table).)*?)(\n?<!-- /table -->)", re.S)


def cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def key(cell: str) -> str:
    """A row's key: the first cell's backquoted name, or the cell."""
    found = re.match(r"`[^`]*`", cell)
    return found.group(0) if found else cell


def render(table: Table, shown: str) -> str:
    """The table as it should read, keeping the words (and, unless ranked, the order) of the rows ``shown``."""
    old = {key(row[0]): row for row in map(cells, shown.strip().splitlines()[2:])}
    made = []
    for row in table.rows():
        before = old.get(key(row[0]))
        filled = []
        for k, cell in enumerate(row):
            if isinstance(cell, Words):
                kept = before[k] if before is not None and k < len(before) else ""
                filled.append(kept if kept.startswith(cell) else str(cell))
            else:
                filled.append(cell)
        made.append(filled)
    if not table.ranked:
        order = list(old)
        made.sort(key=lambda row: order.index(key(row[0])) if key(row[0]) in order else len(order))
    return "\n".join([table.header, *("| " + " | ".join(row) + " |" for row in made)])


def make(page: Path) -> str:
    """The page with each of its tables generated."""
    text = page.read_text(encoding="utf-8")

    def one(match: re.Match[str]) -> str:
        table = TABLES[match["name"]]
        expect(table.page == page.name, f"table {match['name']} belongs in docs/{table.page}, not {page.name}")
        return f"{match[1]}\n{render(table, match['body'])}\n{match[4]}"

    return BLOCK.sub(one, text)


def pages() -> dict[Path, str]:
    """Each page holding a table: its text as it stands and as generated."""
    names = {table.page for table in TABLES.values()}
    found = {HERE / name: (HERE / name).read_text(encoding="utf-8") for name in sorted(names)}
    for name in TABLES:
        expect(any(f"<!-- table: {name} -->" in text for text in found.values()), f"no page shows the table {name}")
    return {page: make(page) for page in found}


def differing() -> list[str]:
    """The tables whose page does not hold what their JSON makes."""
    out = []
    for page, made in pages().items():
        shown = {m["name"]: m["body"] for m in BLOCK.finditer(page.read_text(encoding="utf-8"))}
        out += [f"{page.name}: {m['name']}" for m in BLOCK.finditer(made) if m["body"] != shown[m["name"]]]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 naming each table that differs")
    args = parser.parse_args()
    if args.check:
        stale = differing()
        print("\n".join(f"stale: {name}" for name in stale) or f"all {len(TABLES)} tables are their JSON")
        raise SystemExit(1 if stale else 0)
    for page, made in pages().items():
        if made != page.read_text(encoding="utf-8"):
            page.write_text(made, encoding="utf-8")
            print(f"wrote {page.relative_to(HERE.parent)}")


if __name__ == "__main__":
    main()
