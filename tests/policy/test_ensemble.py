"""Ensemble manifests (rams_env.policy.write_ensemble / load_ensemble) and the EnsembleAgent."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
import torch

from rams_env.agents import load_agent, observe
from rams_env.agents.neural import EnsembleAgent
from rams_env.eval import play_episode
from rams_env.obs import OBS_SIZE
from rams_env.policy import (
    ENSEMBLE_FORMAT,
    CheckpointError,
    PolicyNet,
    load_ensemble,
    make_checkpoint,
    save_checkpoint,
    write_ensemble,
)
from rams_env.rules import Game, Phase, make_config
from rams_env.rules.actions import NUM_ACTIONS


def member(tmp_path, name: str, variant: str = "mattmar", n: int = 4, seed: int = 0, **extra):
    """A tiny random network saved as checkpoint ``name``; its path."""
    torch.manual_seed(seed)
    path = tmp_path / name
    net = PolicyNet(OBS_SIZE, NUM_ACTIONS, hidden=(16,))
    save_checkpoint(path, make_checkpoint(net, make_config(variant, n), **extra))
    return path


@pytest.fixture
def pair(tmp_path):
    """A manifest of two different networks in a sub-folder; (manifest, first, second)."""
    (tmp_path / "nets").mkdir()
    first, second = member(tmp_path, "nets/a.pt", seed=1), member(tmp_path, "nets/b.pt", seed=2)
    manifest = tmp_path / "nets" / "pair.json"
    write_ensemble(manifest, [first, second], "two tiny networks")
    return manifest, first, second


def positions(count: int, variant: str = "mattmar", n: int = 4):
    """Observations of the player to act, from random play (every phase with a choice)."""
    rng, out = random.Random(0), []
    for seed in range(count):
        game = Game(make_config(variant, n), seed=seed)
        while game.phase != Phase.GAME_OVER and game.deal_number < 2:
            if game.phase == Phase.DEAL_OVER:
                game.next_deal()
                continue
            out.append(observe(game, game.current_player))
            game.apply(rng.choice(game.legal_actions()))
    return out


def test_the_manifest_names_members_relative_to_itself_with_their_digests(pair):
    manifest, _, _ = pair
    data = json.loads(manifest.read_text())
    assert data["format"] == ENSEMBLE_FORMAT and data["description"] == "two tiny networks"
    assert [m["path"] for m in data["members"]] == ["a.pt", "b.pt"]
    payloads = load_ensemble(manifest)
    assert [m["model_sha256"] for m in data["members"]] == [p["model_sha256"] for p in payloads]


def test_the_ensemble_takes_the_argmax_of_the_members_mean_legal_log_probabilities(pair):
    manifest, first, second = pair
    ensemble = load_agent(manifest)
    assert isinstance(ensemble, EnsembleAgent) and (ensemble.variant, ensemble.num_players) == ("mattmar", 4)
    nets = [load_agent(first).net, load_agent(second).net]
    differs = 0
    for obs in positions(6):
        legal = np.flatnonzero(obs["action_mask"])
        x = torch.from_numpy(obs["observation"])
        with torch.no_grad():
            by_member = [torch.log_softmax(net(x)[0][legal], -1) for net in nets]  # each renormalised on the legal set
        expected = int(legal[int(torch.argmax(by_member[0] + by_member[1]))])
        assert ensemble.act(obs) == expected
        differs += int(legal[int(torch.argmax(by_member[0]))]) != expected
    assert differs > 0  # the test would notice an ensemble that plays its first member only


def test_an_ensemble_plays_legal_whole_games_greedy_and_sampled(pair):
    manifest, _, _ = pair
    for greedy in (True, False):
        agent = load_agent(manifest, greedy=greedy, seed=3)
        play_episode(Game(agent.config, 5), [agent] * 4)


def test_an_ensemble_plays_the_table_sizes_every_member_plays(tmp_path):
    wide = member(tmp_path, "wide.pt", "russian", 4, table_sizes=[4, 3, 5])
    four = member(tmp_path, "four.pt", "russian", 4, seed=1)
    write_ensemble(tmp_path / "both.json", [wide, four])
    assert load_agent(tmp_path / "both.json").table_sizes == (4,)
    with pytest.raises(CheckpointError, match=r"member 'four.pt'.*num_players=4 \(expected 3\)"):
        load_agent(tmp_path / "both.json", expect_config=make_config("russian", 3))
    write_ensemble(tmp_path / "wide.json", [wide])
    agent = load_agent(tmp_path / "wide.json", expect_config=make_config("russian", 3))
    assert (agent.num_players, agent.config.deck_size, agent.table_sizes) == (3, 32, (3, 4, 5))


def test_members_of_different_rules_are_refused(tmp_path):
    mattmar, rams32 = member(tmp_path, "m.pt"), member(tmp_path, "r.pt", "rams32", seed=2)
    write_ensemble(tmp_path / "mixed.json", [mattmar, member(tmp_path, "m1.pt", seed=1)])
    write_ensemble(tmp_path / "rams32.json", [rams32])
    rams32_entry = json.loads((tmp_path / "rams32.json").read_text())["members"][0]
    _rewrite(tmp_path / "mixed.json", lambda d: d["members"].__setitem__(1, rams32_entry))
    with pytest.raises(CheckpointError, match=r"member 'r.pt'.*variant='rams32' \(expected 'mattmar'\)"):
        load_agent(tmp_path / "mixed.json")
    with pytest.raises(CheckpointError, match="variant='rams32'"):
        write_ensemble(tmp_path / "other.json", [mattmar, rams32])


def test_a_member_whose_weights_changed_is_refused(pair, tmp_path):
    manifest, _, _ = pair
    member(tmp_path, "nets/a.pt", seed=9)  # another network saved over the first member
    with pytest.raises(CheckpointError, match=r"member 'a.pt' holds other weights than the ensemble was made of"):
        load_agent(manifest)


def _rewrite(manifest, change):
    data = json.loads(manifest.read_text())
    change(data)
    manifest.write_text(json.dumps(data))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(format="rams_env.checkpoint"), "is not a rams_env ensemble manifest"),
        (lambda d: d.update(format_version=2), "ensemble format version 2; this rams_env reads version 1"),
        (lambda d: d.update(weights="equal"), r"unknown keys \['weights'\]"),
        (lambda d: d.update(description=3), "'description' must be a string"),
        (lambda d: d.update(members=[]), "'members' must be a non-empty list"),
        (lambda d: d["members"][0].pop("model_sha256"), r"member 0 must have exactly the keys"),
        (lambda d: d["members"][1].update(path="/etc/passwd"), "member 1 path '/etc/passwd' must be a path relative"),
        (lambda d: d["members"][0].update(model_sha256="abc"), "member 0 model_sha256 'abc' is not a SHA-256"),
        (lambda d: d["members"][0].update(path="gone.pt"), r"member 'gone.pt'.*does not exist"),
    ],
)
def test_a_bad_manifest_is_refused_with_what_is_wrong(pair, change, message):
    manifest, _, _ = pair
    _rewrite(manifest, change)
    with pytest.raises(CheckpointError, match=message):
        load_agent(manifest)


def test_a_file_that_is_not_json_is_refused(tmp_path):
    (tmp_path / "x.json").write_bytes(b"\x80\x03not json")
    with pytest.raises(CheckpointError, match="is not a rams_env ensemble manifest: it is not JSON"):
        load_agent(tmp_path / "x.json")
    (tmp_path / "big.json").write_text("[" + "0," * 600_000 + "0]")  # JSON, but too large: said so, not "not JSON"
    with pytest.raises(CheckpointError, match=r"manifest: .*big\.json is larger than 1,048,576 bytes$"):
        load_agent(tmp_path / "big.json")
    with pytest.raises(CheckpointError, match="does not exist"):
        load_agent(tmp_path / "missing.json")
    with pytest.raises(ValueError, match=r"is a \.json file"):
        write_ensemble(tmp_path / "x.pt", [])


def test_rams_eval_takes_a_manifest_as_an_agent(pair, capsys):
    from rams_env.apps.cli import main

    manifest, _, _ = pair
    assert main(["eval", str(manifest), "--decks", "2", "--no-progress"]) == 0
    assert "pair.json" in capsys.readouterr().out
