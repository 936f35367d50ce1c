"""The documentation: the site builds warning-free, its generated tables match the code, every code block
of the README, the docs and the model cards runs (or says why not), every link and file reference
resolves, every section the code cites exists, nothing refers to documents outside the repository, and
every number of the README agrees with its source."""

from __future__ import annotations

import argparse
import html
import json
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import torch

from rams_env import zoo
from rams_env.agents.specs import is_builtin
from rams_env.obs import FIELDS, OBS_SIZE, SLICES
from rams_env.rules.actions import NUM_ACTIONS, Action
from rams_env.rules.cards import card_name
from rams_env.rules.config import PRESETS

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PAGES = sorted(p for p in DOCS.glob("*.md"))
CARDS = sorted(ROOT.glob("checkpoints/*/*/README.md"))
MARKDOWN = [ROOT / "README.md", *PAGES, *CARDS]
FENCE = re.compile(r"(?P<mark><!--(?P<comment>[^>]*)-->\n)?^```(?P<lang>[^\n`]*)\n(?P<code>.*?)^```", re.M | re.S)


def rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def blocks(path: Path) -> list[tuple[str, str, str]]:
    """``(language, code, mark)`` of each fenced block; ``mark`` is the HTML comment right above it."""
    text = path.read_text(encoding="utf-8")
    return [(m["lang"].strip(), m["code"], (m["comment"] or "").strip()) for m in FENCE.finditer(text)]


def prose(path: Path) -> str:
    """The text of a markdown file without its fenced blocks."""
    return FENCE.sub("", path.read_text(encoding="utf-8"))


# ----------------------------------------------------------------------------- the build
@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The HTML site, built from scratch with warnings as errors (as the README says to build it)."""
    out = tmp_path_factory.mktemp("site")
    command = [sys.executable, "-m", "sphinx", "-W", "-q", "-b", "html", "-d", str(out / "doctrees"), "docs"]
    built = subprocess.run([*command, str(out / "html")], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    return out / "html"


STRAIGHT = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2026": "..."})


def page_text(site: Path, name: str) -> str:
    """The visible text of a built page, whitespace collapsed."""
    body = (site / f"{name}.html").read_text(encoding="utf-8")
    body = body[body.index("<article") : body.index("</article>")]
    text = html.unescape(re.sub(r"<[^>]+>", " ", body)).translate(STRAIGHT)
    return re.sub(r"\s+", " ", text)  # Sphinx's curly quotes straightened


def test_the_readme_builds_the_docs_with_the_command_this_test_runs():
    [command] = [code for lang, code, _ in blocks(ROOT / "README.md") if "sphinx" in code]
    assert command.strip() == "python -m sphinx -W -b html docs docs/_build/html"
    assert "docs/_build/" in (ROOT / ".gitignore").read_text()


@pytest.mark.slow
def test_every_page_is_built(site: Path):
    for page in PAGES:
        assert (site / f"{page.stem}.html").is_file(), page.name
    for name in [*zoo.models(), *zoo.belief_models()]:
        assert (site / "zoo" / f"{name}.html").is_file(), name


@pytest.mark.slow
def test_the_observation_table_is_the_encoders(site: Path):
    text = page_text(site, "environment")
    for field in FIELDS:
        s = SLICES[field.name]
        assert f"{field.name} {s.start}-{s.stop - 1} {field.size} {field.meaning}" in text, field.name
    assert f"total {OBS_SIZE}" in text
    assert f"'observation': ({OBS_SIZE},), 'action_mask': ({NUM_ACTIONS},)" in text


@pytest.mark.slow
def test_the_action_table_lists_all_sixty_actions(site: Path):
    text = page_text(site, "environment")
    for card in range(52):
        assert f" {card} {card_name(card)} " in text, card
    for action in Action:
        assert f"{action.value} {action.name} " in text, action.name
    assert 52 + len(Action) == NUM_ACTIONS == 60


@pytest.mark.slow
def test_the_zoo_index_lists_every_model_with_its_evaluations(site: Path):
    text = page_text(site, "zoo")
    for name, model in zoo.models().items():
        agent = json.loads((model.folder / "rams_vs_heuristic.json").read_text())["agents"][0]
        low, high = agent["win_rate_ci"]
        assert f"{name}" in text and f"{agent['win_rate']:.3f} [{low:.3f}, {high:.3f}]" in text, name
    for preset, flagship in zoo.FLAGSHIPS.items():
        assert f"{flagship} , flagship: {preset}" in text
    card = page_text(site, "zoo/mattmar-4p-ensemble")
    assert "Headline" in card and "Reproduce" in card


# ----------------------------------------------------------------------------- code blocks
OUTPUT = {"", "text"}  # blocks that show output (tables of rams eval), not code to run
DIRECTIVE = re.compile(r"\{[\w-]+\}")


def code_blocks() -> list[tuple[str, str, str, str]]:
    found = []
    for path in MARKDOWN:
        for k, (lang, code, mark) in enumerate(blocks(path)):
            if not DIRECTIVE.match(lang):
                found.append((f"{rel(path)}#{k}", lang, code, mark))
    return found


CODE = code_blocks()
PYTHON = [(where, code) for where, lang, code, mark in CODE if lang == "python" and not mark]


def test_every_block_runs_here_or_says_where_or_why_not():
    for where, lang, _, mark in CODE:
        if lang in OUTPUT:
            continue
        assert lang in ("python", "bash"), f"{where}: a {lang!r} block"
        if lang == "bash":
            assert mark, f"{where}: a shell block must say where it runs or why not (<!-- not run: ... -->)"
        if mark.startswith("runs in "):
            test_file = ROOT / mark.split()[2]
            page = where.split("#")[0]
            assert test_file.is_file() and page in test_file.read_text(), f"{where}: {mark!r}"
        elif mark:
            assert re.fullmatch(r"not run: \S.{9,}", mark), f"{where}: {mark!r} (not run: and the reason)"
    assert len(PYTHON) >= 6


@pytest.fixture
def quiet(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """One torch thread, torch's generator restored, in a scratch folder."""
    monkeypatch.chdir(tmp_path)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    with torch.random.fork_rng():
        yield
    torch.set_num_threads(threads)


@pytest.mark.slow
@pytest.mark.parametrize(("where", "code"), PYTHON, ids=[where for where, _ in PYTHON])
def test_python_block_runs(where: str, code: str, quiet: None):
    exec(compile(code, where, "exec"), {"__name__": "docs_snippet"})


def _rams_parser() -> argparse.ArgumentParser:
    from rams_env.apps.cli import BUILTIN_COMMANDS
    from rams_env.apps.command import build_parser, plugin_commands

    return build_parser([*BUILTIN_COMMANDS, *plugin_commands()])


def _subcommand(parser: argparse.ArgumentParser, name: str) -> argparse.ArgumentParser:
    [sub] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return sub.choices[name]


def _specs(args: argparse.Namespace) -> list[str]:
    return [*(getattr(args, "agents", None) or []), *([args.baseline] if getattr(args, "baseline", None) else [])]


def test_every_rams_command_of_a_shell_block_parses_and_its_zoo_names_resolve():
    parser, checked = _rams_parser(), 0
    for where, lang, code, _ in CODE:
        if lang != "bash":
            continue
        for line in code.replace("\\\n", " ").splitlines():
            line = line.split(" # ")[0].split("  #")[0].strip()
            if not line.startswith("rams ") or "--help" in line:
                continue
            words = shlex.split(line)[1:]
            try:
                args = parser.parse_args(words)
            except SystemExit:
                pytest.fail(f"{where}: {line!r} does not parse")
            for spec in _specs(args):
                if zoo.is_name(spec) and not is_builtin(spec):  # random, heuristic, search, ismcts, ...
                    zoo.resolve(spec)
            checked += 1
    assert checked >= 10
    assert _subcommand(parser, "train") and _subcommand(parser, "serve")


# ----------------------------------------------------------------------------- links and references
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
PATH = re.compile(r"`((?:checkpoints|docs|examples|rams_env|training|tests|benchmarks|\.ci)/[^`\s]*)`")


@pytest.mark.parametrize("path", MARKDOWN, ids=rel)
def test_every_link_and_file_reference_resolves(path: Path):
    text = prose(path)
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        file = target.split("#")[0]
        assert (path.parent / file).exists(), f"{rel(path)}: link to {target}"
    for reference in PATH.findall(text):
        if not (reference.endswith("/") or "." in reference.rsplit("/", 1)[-1]):
            continue  # a name such as rams_env/Rams-v1, not a file
        if zoo.moved_to(ROOT / reference):
            continue  # a path of the old flat layout, named as such
        if "<" in reference or "*" in reference or "{" in reference:
            pattern = re.sub(r"<[^>]+>|\{[^}]+\}", "*", reference)
            assert list(ROOT.glob(pattern)), f"{rel(path)}: {reference} matches nothing"
        else:
            assert (ROOT / reference).exists(), f"{rel(path)}: {reference}"


def _headings(page: Path) -> set[str]:
    return {line.lstrip("#").strip() for line in page.read_text(encoding="utf-8").splitlines() if line.startswith("#")}


def test_every_section_the_code_cites_exists():
    cited = 0
    headings = {name: _headings(DOCS / f"{name}.md") for name in ("rules", "contract")}
    for file in [*ROOT.glob("rams_env/**/*.py"), *ROOT.glob("tests/**/*.py"), *ROOT.glob("training/*.py")]:
        text = file.read_text(encoding="utf-8")
        for match in re.finditer(r"docs/(rules|contract)\.md([^)\n]*)", text):
            for section in re.findall(r'"([A-Z][^"]*)"', match[2]):
                assert section in headings[match[1]], f"{rel(file)} cites docs/{match[1]}.md {section!r}"
                cited += 1
    assert cited >= 20


def test_nothing_refers_to_rules_or_contract_documents_outside_the_repository():
    names = ["RULES" + ".md", "CONTRACT" + ".md"]  # spelt apart, so that this file does not match itself
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    for name in tracked:
        path = ROOT / name
        if path.suffix in (".py", ".md", ".toml", ".txt", ".json", ".cfg", ".yml", ".yaml", "") and path.is_file():
            text = path.read_text(encoding="utf-8", errors="replace")
            assert not any(n in text for n in names), f"{name} refers to a document outside the repository"
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")
    assert 'license = { text = "MIT" }' in (ROOT / "pyproject.toml").read_text()


# ----------------------------------------------------------------------------- the README's numbers
REPORT_SEED, REPORT_RAMSAR = 7400001, 1600  # the flagships' table: the report set of the docs, 400 decks at 4 players


def _win(path: Path) -> str:
    agent = json.loads(path.read_text())["agents"][0]
    low, high = agent["win_rate_ci"]
    return f"{agent['win_rate']:.3f} [{low:.3f}, {high:.3f}]"


def test_the_readme_is_a_front_page():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 200
    assert "docs/table.png" in readme
    assert not re.search(r"(?i)this session|issue \d+|we tried", readme)


def test_the_readme_names_each_flagship_with_its_cards_figures():
    rows = re.findall(r"^\| `(\w+)` \| `([\w-]+)`[^|]*\| ([^|]+) \| ([^|]+) \|$", prose(ROOT / "README.md"), re.M)
    assert {preset: name for preset, name, _, _ in rows} == zoo.FLAGSHIPS
    for preset, name, heuristic, random in rows:
        model = zoo.resolve(name)
        assert model.preset == preset
        assert heuristic.strip() == _win(model.folder / "rams_vs_heuristic.json"), name
        assert random.strip() == _win(model.folder / "rams_vs_random.json"), name
        for file in ("rams_vs_heuristic.json", "rams_vs_random.json"):  # the docs' report set, 1,600 ramsar
            result = json.loads((model.folder / file).read_text())
            assert (result["seed"], result["agents"][0]["games"]) == (REPORT_SEED, REPORT_RAMSAR), (name, file)
    assert f"{REPORT_RAMSAR:,} ramsar of the report deal set (seed {REPORT_SEED}" in prose(ROOT / "README.md")


def test_each_flagship_card_shows_its_files_and_their_command():
    for name in zoo.FLAGSHIPS.values():
        model = zoo.resolve(name)
        card = model.card.read_text(encoding="utf-8")
        for file, label in (("rams_vs_heuristic.json", "3 heuristics"), ("rams_vs_random.json", "3 random")):
            result = json.loads((model.folder / file).read_text())
            agent = result["agents"][0]
            low, high = agent["win_rate_ci"]
            [row] = [line for line in card.splitlines() if line.startswith(f"| whole ramsar vs {label}, win share |")]
            assert f"| {agent['win_rate']:.3f} | [{low:.3f}, {high:.3f}] |" in row, (name, file)
            command = (
                f"`rams eval {name} --baseline {result['baseline']['name']} --variant {model.preset} --players 4"
                f" --episode rams --scores start --decks {result['decks']} --seed {result['seed']}`"
            )
            assert command in card, (name, file)


def test_every_number_in_the_readme_has_its_source():
    performance = (DOCS / "performance.md").read_text(encoding="utf-8")
    performance += (DOCS / "training.md").read_text(encoding="utf-8")  # the main job's times and figures
    sources = {f"{OBS_SIZE:,}", str(NUM_ACTIONS), str(len(zoo.models())), str(len(PRESETS))}
    sources |= {str(REPORT_SEED), f"{REPORT_RAMSAR:,}"}  # the flagships' deal set and size
    sources |= {f"{1 / 4:.3f}", "2.13.0", "8765"}  # fair share at 4; the torch of .ci/run; rams serve's port
    assert (
        "torch==2.13.0" in (ROOT / ".ci" / "run").read_text()
        and "8765" in (ROOT / "rams_env" / "apps" / "serve" / "command.py").read_text()
    )
    for model in zoo.models().values():
        for file in model.folder.glob("rams_vs_*.json"):
            agent = json.loads(file.read_text())["agents"][0]
            sources |= {f"{x:.3f}" for x in (agent["win_rate"], *agent["win_rate_ci"])}
    for file in (DOCS / "recipes").glob("*.json"):  # the recipes' evaluations (tests/docs/test_recipes.py)
        agent = json.loads(file.read_text())["agents"][0]
        sources |= {f"{x:.3f}" for x in (agent["win_rate"], *agent["win_rate_ci"])}
    text = re.sub(r"\([^)]*://[^)]*\)", "", prose(ROOT / "README.md"))  # no URLs
    for number in re.findall(r"(?<![\w.-])\d[\d,]*(?:\.\d+)*x?(?![\w-])", text):
        if re.fullmatch(r"\d", number):
            continue  # counting words: two cores, 4 players
        assert number in sources or number in performance, f"README number {number} has no source"
