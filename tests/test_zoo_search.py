"""The zoo's named searches (``<preset>-search``): a declarative file per preset that ``load_agent`` and every
agent spec resolve to the search over the preset's own networks, listed with the zoo's names, offered by
``rams eval``, ``rams play`` and ``rams serve``, with a card written from its file and its measured figures."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

import rams_env
from rams_env import zoo
from rams_env.agents import SearchAgent, load_agent
from rams_env.agents.beliefs import load_beliefs_option
from rams_env.agents.specs import AGENT_SPEC_HELP, AgentFactory, loaded_policy, resolve
from rams_env.rules import Action, Phase, make_config
from rams_env.rules.config import PRESETS
from rams_training import search_cards

ROOT = Path(__file__).resolve().parents[1]
CHECKPOINTS = ROOT / "checkpoints"
GAINS = ROOT / "docs" / "beliefs"


def expected_spec(preset: str) -> str:
    """The one search every preset names: the measured one (docs/beliefs/gain-mattmar.json), with its own networks."""
    return (
        f"search:simulations=20,base={preset},rollout_policy={preset}-4p,objective=win,phases=knock+play,"
        f"beliefs={preset}"
    )


@pytest.fixture(autouse=True)
def one_torch_thread(monkeypatch: pytest.MonkeyPatch):
    """One torch thread; the registry's own zoo (no RAMS_ZOO from the caller's shell)."""
    monkeypatch.delenv(zoo.ZOO_ENV, raising=False)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def test_every_preset_has_a_named_search_over_its_own_networks():
    named = zoo.named_agents()
    assert sorted(named) == sorted(f"{p}-search" for p in PRESETS)
    for preset in PRESETS:
        model = named[f"{preset}-search"]
        assert model.folder == CHECKPOINTS / preset / model.name and model.preset == preset
        assert model.named and model.path == model.folder / f"{model.name}{zoo.AGENT_SUFFIX}" and model.card.is_file()
        assert zoo.agent_spec(model) == expected_spec(preset)
        assert f"{preset}-4p" in zoo.models() and f"{preset}-beliefs" in zoo.belief_models()
        assert model.name not in zoo.models(), "a named agent is not a policy: no weights of its own"
        assert zoo.resolve(model.name) == model and model.name in zoo.known_names()
    assert (
        json.loads(named["mattmar-search"].path.read_text())["spec"]
        == json.loads((GAINS / "gain-mattmar.json").read_text())["options"]["search"]
    ), "mattmar-search is the search measured in docs/beliefs/gain-mattmar.json"


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_load_agent_gives_the_search_over_the_presets_networks_and_it_plays_a_legal_action(preset: str):
    agent = load_agent(f"{preset}-search", seed=3)
    assert isinstance(agent, SearchAgent)
    assert agent.base is loaded_policy(preset) and agent.base.variant == preset  # the flagship, loaded once
    assert type(agent.base).__name__ == ("EnsembleAgent" if zoo.resolve(preset).ensemble else "PolicyAgent")
    assert agent.rollout_agent is loaded_policy(f"{preset}-4p")
    assert agent.beliefs.net is load_beliefs_option(preset).net and agent.beliefs.variant == preset
    assert agent.phases == (Phase.KNOCK, Phase.PLAY) and agent.objective == "win" and agent.simulations == 20
    agent.simulations = 2  # one cheap decision: the named agent's own networks, fewer worlds
    env = rams_env.env(variant=preset)
    env.reset(seed=5)
    agent.env = env
    for _ in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        assert not (terminated or truncated), "a deal without a knock decision"
        legal = np.flatnonzero(observation["action_mask"])
        if len(legal) > 1 and set(legal) <= {int(Action.PASS), int(Action.KNOCK)}:
            assert observation["action_mask"][agent.act(observation)] == 1
            break
        env.step(int(legal[0]))


def test_a_named_search_resolves_as_its_spec_seeded_per_game_and_plays_only_its_networks_rules():
    resolved = resolve("mattmar-search")
    assert resolved.spec == "mattmar-search" and resolved.trained
    assert resolved.rules == make_config("mattmar", 4) and resolved.table_sizes == (4,)
    assert isinstance(resolved.source, AgentFactory) and resolved.source.cls is SearchAgent
    assert dict(resolved.source.options) == {
        "simulations": 20,
        "base": "mattmar",
        "rollout_policy": "mattmar-4p",
        "objective": "win",
        "phases": "knock+play",
        "beliefs": "mattmar",
    }
    assert resolved.at(make_config("mattmar", 4)).source == resolved.source
    with pytest.raises(ValueError, match="'mattmar-search' was trained for other rules: variant='mattmar'"):
        resolve("mattmar-search", make_config("russian", 4))
    with pytest.raises(ValueError, match=r"num_players=4 \(expected 5\)"):
        load_agent("mattmar-search", expect_config=make_config("mattmar", 5))
    path = zoo.named_agents()["rams32-search"].path  # its file works where its name does
    assert resolve(str(path)).source == resolve("rams32-search").source


def _named_file(folder: Path, data: object) -> str:
    path = folder / "mattmar" / "mine" / f"mine{zoo.AGENT_SUFFIX}"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return str(path)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ("{not json", "not a named agent's file"),
        ({"format": "rams_env.ensemble", "format_version": 1, "spec": "search"}, "is not 'rams_env.agent'"),
        ({"format": "rams_env.agent", "format_version": 2, "spec": "search"}, "format version 2"),
        ({"format": "rams_env.agent", "format_version": 1, "spec": "search", "code": "x"}, "unknown keys"),
        ({"format": "rams_env.agent", "format_version": 1, "spec": ""}, "'spec' must be"),
        ({"format": "rams_env.agent", "format_version": 1, "spec": "mattmar-4p"}, "not a built-in agent spec"),
        ({"format": "rams_env.agent", "format_version": 1, "spec": "search:base=mattmar-search"}, "not a path or"),
        ({"format": "rams_env.agent", "format_version": 1, "spec": "search:rollout_policy=/x/y.pt"}, "not a path or"),
        (
            {"format": "rams_env.agent", "format_version": 1, "spec": "search:base=mattmar,rollout_policy=russian-4p"},
            "plays other rules",
        ),
    ],
)
def test_a_named_agents_file_is_plain_data_checked_before_use(tmp_path: Path, data: object, message: str):
    with pytest.raises(ValueError, match=message):
        resolve(_named_file(tmp_path, data))


def test_the_listings_offer_them_and_mark_the_strongest(capsys: pytest.CaptureFixture[str]):
    assert zoo.main() == 0
    listing = capsys.readouterr().out
    for name, model in zoo.named_agents().items():
        [line] = [line for line in listing.splitlines() if line.startswith(f"{name} ")]
        strongest = zoo.STRONGEST.get(model.preset) == name
        assert ("the strongest measured" in line) == strongest and "slower" in line and zoo.agent_spec(model) in line
    assert "mattmar-search" in AGENT_SPEC_HELP and "strongest" in AGENT_SPEC_HELP


def test_the_strongest_are_measured_to_beat_their_flagship():
    """zoo.STRONGEST holds only a named search whose measured gain over the flagship has its interval above 0."""
    assert set(zoo.STRONGEST.values()) <= set(zoo.named_agents())
    for preset, name in zoo.STRONGEST.items():
        result = json.loads((GAINS / f"gain-{preset}.json").read_text())
        assert result["options"]["search"] == zoo.agent_spec(zoo.named_agents()[name])
        assert result["options"]["reference"] == zoo.FLAGSHIPS[preset] and result["decks"] == 400
        assert result["gain_ci"][0] > 0, (preset, result["gain_ci"])


def test_the_cards_are_their_files_and_figures_and_unmeasured_ones_say_so():
    assert search_cards.main(["--check"]) == 0
    for name, model in zoo.named_agents(zoo.SOURCE_ZOO).items():
        card = model.card.read_text(encoding="utf-8")
        assert card.startswith(f"# `{name}`: a search over the flagship, whole ramsar of {model.preset}, 4 players")
        assert f"Spec: `{zoo.agent_spec(model)}`" in card
        if search_cards.measured(model) is None:
            assert "Not measured yet" in card and "win share" not in card and "0." not in card
        else:
            result = search_cards.measured(model)
            assert f"| {result['search_win_share']:.3f} |" in card and result["reproduce"] in card
    assert "Not measured yet" not in zoo.named_agents()["mattmar-search"].card.read_text()


def test_rams_serve_offers_them_first_and_seats_one():
    pytest.importorskip("flask")
    from rams_env.apps.serve.app import create_app
    from rams_env.apps.serve.state import ServeState

    state = ServeState(checkpoint_dir=CHECKPOINTS)
    assert set(zoo.named_agents()) <= set(state.agent_suggestions())
    client = create_app(state).test_client()
    cards = client.get("/api/meta", headers={"Host": "127.0.0.1"}).get_json()["agent_cards"]
    named = {c["name"]: c for c in cards if c["name"] in zoo.named_agents()}
    assert list(named) == [c["name"] for c in cards[: len(named)]] == sorted(zoo.named_agents())
    assert named["mattmar-search"]["kind"] == "strongest" and named["mattmar-search"]["sizes"] == [4]
    assert named["rams32-search"]["kind"] == ("strongest" if "rams32" in zoo.STRONGEST else "search")
    assert all(c["spec"] == c["name"] and c["variant"] == c["name"].split("-")[0] for c in named.values())
    body = {"variant": "russian", "seed": 1, "agents": ["russian-search", "russian", "heuristic"]}
    created = client.post("/api/games", json=body, headers={"Host": "127.0.0.1"})
    assert created.status_code == 201, created.get_json()
    assert created.get_json()["seats"] == ["you", "russian-search", "russian", "heuristic"]
    refused = client.post(
        "/api/games", json={"agents": ["mattmar-search"], "variant": "russian"}, headers={"Host": "127.0.0.1"}
    )
    assert refused.status_code == 400 and "mattmar-search" in refused.get_json()["error"]


def test_rams_eval_and_play_take_them(capsys: pytest.CaptureFixture[str]):
    from rams_env.apps.cli import main
    from rams_env.apps.cli.options import make_agent

    assert main(["eval", "rams32-search", "--baseline", "heuristic", "--decks", "1", "--no-progress"]) == 0
    table = capsys.readouterr().out
    assert "rams32-search" in table and "heuristic (baseline)" in table  # the rules: its networks' (rams32 at 4)
    source = make_agent("mattmar-search", make_config("mattmar", 4))  # rams play's seats
    assert isinstance(source, AgentFactory) and source.cls is SearchAgent
