"""Every Python snippet of the section "Use it with your RL library" of docs/integrations.md runs; every library
has one at least (RLlib two: one seat on the vector env, and self-play on the batched engine)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
import torch

PAGE = Path(__file__).resolve().parents[2] / "docs" / "integrations.md"
SECTION = "## Use it with your RL library"
# A snippet belongs to the library whose import it holds.
LIBRARIES = {
    "sb3": "from sb3_contrib import",
    "rllib": "from rams_env.integrations.rllib import",
    "torchrl": "from rams_env.integrations.torchrl",
    "gymnasium": "gymnasium.make_vec(",
}


def section_snippets() -> list[tuple[str, str]]:
    """(library, code) of each Python block of the section (none if the section is missing)."""
    text = PAGE.read_text(encoding="utf-8")
    start = text.find("\n" + SECTION + "\n")
    if start < 0:
        return []
    end = text.find("\n## ", start + len(SECTION))
    blocks = re.findall(r"^```python\n(.*?)^```", text[start : None if end < 0 else end], re.DOTALL | re.MULTILINE)
    return [(next((lib for lib, mark in LIBRARIES.items() if mark in code), "no library"), code) for code in blocks]


SNIPPETS = section_snippets()


@pytest.fixture(autouse=True)
def quiet_torch() -> Iterator[None]:
    """One torch thread (small MLPs on a busy machine); torch's global generator restored afterwards."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    with torch.random.fork_rng():
        yield
    torch.set_num_threads(threads)


def test_section_has_a_snippet_for_every_library():
    found = sorted(library for library, _ in SNIPPETS)
    assert sorted(set(found)) == sorted(LIBRARIES), f"{SECTION!r} in docs/integrations.md: snippets found for {found}"
    assert found.count("rllib") == 2  # the vector env's one seat, and batched self-play


# TorchRL warns on every wrapper that it was tested with PettingZoo 1.24.3; the TorchRL tests cover 1.27.
@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:PettingZoo in TorchRL is tested using version:UserWarning")
# RLlib registers its env wrapper with gymnasium again for every algorithm built in a process.
@pytest.mark.filterwarnings("ignore:.*Overriding environment rllib-multi-agent-env-v0:UserWarning")
@pytest.mark.parametrize(
    ("library", "code"), SNIPPETS, ids=[f"{library}-{i}" for i, (library, _) in enumerate(SNIPPETS)]
)
def test_snippet_runs(library, code):
    exec(compile(code, f"docs/integrations.md {SECTION} ({library})", "exec"), {"__name__": "readme_snippet"})
