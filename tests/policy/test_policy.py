"""The shared training pieces: masked categorical, policy network, checkpoint I/O and load_agent."""

from __future__ import annotations

import collections
import math
import pickle
import random
import subprocess
import sys

import numpy as np
import pytest
import torch

from rams_env import policy
from rams_env.agents import load_agent, observe
from rams_env.agents.neural import PolicyAgent
from rams_env.eval import play_episode
from rams_env.obs import OBS_SIZE
from rams_env.policy import (
    CHECKPOINT_FORMAT,
    CheckpointError,
    MaskedCategorical,
    PolicyNet,
    checkpoint,
    load_checkpoint,
    make_checkpoint,
    save_checkpoint,
)
from rams_env.rules import Game, Phase, make_config
from rams_env.rules.actions import NUM_ACTIONS


def tiny_checkpoint(tmp_path, variant: str = "mattmar", n: int = 4, seed: int = 0, **extra):
    """Save a tiny randomly initialised network for ``variant`` / ``n``; return its path."""
    torch.manual_seed(seed)
    net = PolicyNet(OBS_SIZE, NUM_ACTIONS, hidden=(16,))
    path = tmp_path / f"{variant}_{n}.pt"
    save_checkpoint(path, make_checkpoint(net, make_config(variant, n), **extra))
    return path


# ---------------------------------------------------------------------------- MaskedCategorical
def test_masked_categorical_zero_probability_and_legal_samples():
    logits = torch.tensor([[5.0, 0.0, 1.0, -2.0], [0.0, 0.0, 0.0, 9.0]])
    mask = torch.tensor([[False, True, True, False], [True, False, False, False]])
    dist = MaskedCategorical(logits, mask)
    assert torch.all(dist.probs[~mask] == 0.0)
    assert torch.allclose(dist.probs.sum(-1), torch.ones(2))
    gen = torch.Generator().manual_seed(0)
    for _ in range(200):
        sample = dist.sample(gen)
        assert bool(mask[torch.arange(2), sample].all())
    assert dist.mode().tolist() == [2, 0]


def test_masked_categorical_entropy_and_log_prob_by_hand():
    logits = torch.tensor([math.log(1.0), math.log(3.0), 100.0, 7.0])
    mask = torch.tensor([True, True, False, False])
    dist = MaskedCategorical(logits, mask)
    p = (0.25, 0.75)  # the two legal actions, weights 1 and 3
    assert dist.entropy().item() == pytest.approx(-(p[0] * math.log(p[0]) + p[1] * math.log(p[1])), rel=1e-6)
    assert dist.log_prob(torch.tensor(1)).item() == pytest.approx(math.log(0.75), rel=1e-6)
    one_legal = MaskedCategorical(torch.tensor([3.0, -1.0, 2.0]), torch.tensor([False, True, False]))
    assert one_legal.entropy().item() == 0.0


def test_masked_categorical_gradients_are_finite():
    logits = torch.randn(3, 6, requires_grad=True)
    mask = torch.tensor([[1, 0, 1, 0, 0, 0], [0, 0, 0, 0, 0, 1], [1, 1, 1, 1, 1, 1]])
    dist = MaskedCategorical(logits, mask)
    (dist.entropy().sum() + dist.log_prob(torch.tensor([2, 5, 0])).sum()).backward()
    assert torch.isfinite(logits.grad).all()
    assert torch.all(logits.grad[mask == 0] == 0.0)


def test_masked_categorical_rejects_bad_masks():
    with pytest.raises(ValueError, match="at least one legal action"):
        MaskedCategorical(torch.zeros(2, 3), torch.tensor([[1, 0, 0], [0, 0, 0]]))
    with pytest.raises(ValueError, match="shape"):
        MaskedCategorical(torch.zeros(2, 3), torch.ones(2, 4))


def test_policy_net_shapes():
    net = PolicyNet(OBS_SIZE, NUM_ACTIONS, hidden=(32, 16))
    logits, value = net(torch.zeros(5, OBS_SIZE))
    assert logits.shape == (5, NUM_ACTIONS) and value.shape == (5,)
    with pytest.raises(ValueError, match="hidden"):
        PolicyNet(OBS_SIZE, NUM_ACTIONS, hidden=())


# ---------------------------------------------------------------------------- checkpoints
def test_checkpoint_round_trip_keeps_extra_keys(tmp_path):
    path = tiny_checkpoint(tmp_path, step=12, args={"lr": 0.001})
    payload = load_checkpoint(path, expect_config=make_config("mattmar", 4))
    assert payload["format"] == CHECKPOINT_FORMAT and payload["step"] == 12 and payload["args"] == {"lr": 0.001}
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # no temporary file left behind


def test_make_checkpoint_refuses_reserved_extra_keys():
    with pytest.raises(ValueError, match="reserved"):
        make_checkpoint(PolicyNet(OBS_SIZE, NUM_ACTIONS, (4,)), make_config("mattmar", 4), model={})


@pytest.mark.parametrize(("variant", "n"), [("mattmar", 4), ("norrlandsknack", 3), ("rams32", 6), ("russian", 7)])
def test_load_agent_plays_only_legal_actions(tmp_path, variant, n):
    agent = load_agent(tiny_checkpoint(tmp_path, variant, n), greedy=False, seed=1)
    assert (agent.variant, agent.num_players) == (variant, n)
    rng = random.Random(n)
    for seed in range(3):
        game = Game(make_config(variant, n), seed=seed)
        while game.phase != Phase.GAME_OVER and game.deal_number < 3:
            if game.phase == Phase.DEAL_OVER:
                game.next_deal()
                continue
            seat = game.current_player
            action = agent.act_game(game, seat) if rng.random() < 0.5 else agent.act(observe(game, seat))
            assert action in game.legal_actions()
            game.apply(action)


def test_greedy_agent_takes_the_masked_argmax(tmp_path):
    agent = load_agent(tiny_checkpoint(tmp_path))
    game = Game(make_config("mattmar", 4), seed=3)
    obs = observe(game, game.current_player)
    with torch.no_grad():
        logits, _ = agent.net(torch.from_numpy(obs["observation"]))
    legal = np.flatnonzero(obs["action_mask"])
    assert agent.act(obs) == int(legal[int(torch.argmax(logits[legal]))])


def test_refuses_a_missing_file(tmp_path):
    with pytest.raises(CheckpointError, match="does not exist"):
        load_agent(tmp_path / "nothing.pt")


def test_refuses_a_damaged_file(tmp_path):
    path = tiny_checkpoint(tmp_path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(CheckpointError, match="damaged"):
        load_agent(path)


def test_refuses_a_text_file(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("these are not the weights you are looking for\n")
    with pytest.raises(CheckpointError, match="damaged or not a torch checkpoint"):
        load_agent(path)


def test_refuses_a_plain_tensor(tmp_path):
    path = tmp_path / "tensor.pt"
    torch.save(torch.zeros(3), path)
    with pytest.raises(CheckpointError, match='no "format" marker'):
        load_agent(path)


def test_refuses_a_pickled_object_without_unpickling_it(tmp_path):
    path = tmp_path / "object.pkl"
    path.write_bytes(pickle.dumps(collections.Counter("abc")))
    with pytest.raises(CheckpointError, match="Python objects"):
        load_agent(path)


def test_refuses_a_foreign_format_and_a_newer_version(tmp_path):
    path = tmp_path / "foreign.pt"
    torch.save({"format": "someone.else", "model": {}}, path)
    with pytest.raises(CheckpointError, match="not a rams_env checkpoint"):
        load_agent(path)
    payload = load_checkpoint(tiny_checkpoint(tmp_path))
    torch.save(dict(payload, format_version=2), path)
    with pytest.raises(CheckpointError, match="format version 2"):
        load_agent(path)


@pytest.mark.parametrize(("key", "value"), [("encoder_version", 0), ("obs_size", OBS_SIZE + 1)])
def test_refuses_another_encoder(tmp_path, key, value):
    path = tmp_path / "old.pt"
    torch.save(dict(load_checkpoint(tiny_checkpoint(tmp_path)), **{key: value}), path)
    with pytest.raises(CheckpointError, match=key):
        load_agent(path)


def test_refuses_weights_that_do_not_fit(tmp_path):
    path = tmp_path / "bad_weights.pt"
    torch.save(dict(load_checkpoint(tiny_checkpoint(tmp_path)), network={"hidden": [17]}), path)
    with pytest.raises(CheckpointError, match="do not fit"):
        load_agent(path)


def test_refuses_a_config_mismatch(tmp_path):
    path = tiny_checkpoint(tmp_path, "mattmar", 4)
    with pytest.raises(CheckpointError, match=r"num_players=4 \(expected 5\)"):
        load_agent(path, expect_config=make_config("mattmar", 5))
    with pytest.raises(CheckpointError, match="variant='mattmar'"):
        load_agent(path, expect_config=make_config("rams32", 4))


def test_a_policy_for_several_sizes_plays_each_size_by_the_presets_rules_at_that_size(tmp_path):
    # Russian deals 32 cards at 3 players and 52 at 4 or more; an option the run chose carries over.
    path = tiny_checkpoint(tmp_path, "russian", 4, table_sizes=[4, 3, 5])
    for n, deck in ((3, 32), (4, 52), (5, 52)):
        agent = load_agent(path, expect_config=make_config("russian", n))
        assert (agent.num_players, agent.config.deck_size) == (n, deck)
        play_episode(Game(agent.config, 3), [agent] * n)  # legal at every size
    with pytest.raises(CheckpointError, match=r"deck_size=32 \(expected 52\)"):
        load_agent(path, expect_config=make_config("russian", 3, deck_size=52))
    torch.manual_seed(0)
    net = PolicyNet(OBS_SIZE, NUM_ACTIONS, hidden=(16,))
    custom = tmp_path / "custom.pt"
    save_checkpoint(custom, make_checkpoint(net, make_config("russian", 4, start_score=150), table_sizes=[4, 3]))
    assert load_agent(custom, expect_config=make_config("russian", 3, start_score=150)).config.deck_size == 32
    with pytest.raises(CheckpointError, match=r"start_score=150 \(expected 100\)"):
        load_agent(custom, expect_config=make_config("russian", 3))


def test_save_checkpoint_refuses_a_payload_without_the_marker(tmp_path):
    with pytest.raises(ValueError, match="format"):
        save_checkpoint(tmp_path / "x.pt", {"model": {}})
    assert not list(tmp_path.iterdir())


# ---------------------------------------------------------------------------- forged sizes, checksum (issue 13 item 10)
def _forbid_building(monkeypatch, refused=lambda hidden: True):
    """Fail the test if a PolicyNet is built for hidden sizes that ``refused`` names (it would allocate them)."""
    real = policy.PolicyNet

    def guarded(obs_size, num_actions, hidden=policy.DEFAULT_HIDDEN):
        if refused(tuple(hidden)):
            raise AssertionError(f"a PolicyNet with hidden={tuple(hidden)} was built before the sizes were checked")
        return real(obs_size, num_actions, hidden)

    monkeypatch.setattr(checkpoint, "PolicyNet", guarded)  # the name network_from_checkpoint builds


@pytest.mark.parametrize("hidden", [[10**6, 10**6], [10**6], [16, 10**6], [16, 16], [15], [True]])
def test_forged_hidden_sizes_are_refused_before_any_network_is_built(tmp_path, monkeypatch, hidden):
    path = tmp_path / "forged.pt"
    torch.save(dict(load_checkpoint(tiny_checkpoint(tmp_path)), network={"hidden": hidden}), path)
    _forbid_building(monkeypatch, lambda h: h != (16,))
    with pytest.raises(CheckpointError, match=r"do not fit|not a list of positive ints"):
        load_agent(path)


def test_forged_hidden_sizes_are_one_line_in_rams_eval(tmp_path, monkeypatch, capsys):
    from rams_env.apps.cli import main

    path = tmp_path / "forged.pt"
    torch.save(dict(load_checkpoint(tiny_checkpoint(tmp_path)), network={"hidden": [10**6, 10**6]}), path)
    _forbid_building(monkeypatch, lambda h: max(h) >= 10**6)
    assert main(["eval", str(path), "--decks", "1", "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("rams eval: error:") and err.count("\n") == 1
    assert "do not fit the network (missing ['torso.2.bias'" in err


def test_weights_of_the_wrong_shape_kind_or_value_are_refused(tmp_path):
    payload = load_checkpoint(tiny_checkpoint(tmp_path))
    payload.pop("model_sha256")  # as an older checkpoint: the shapes and values are still checked
    model = payload["model"]
    bad = {
        "transposed": dict(model, **{"torso.0.weight": model["torso.0.weight"].T.contiguous()}),
        "integer": dict(model, **{"policy_head.bias": model["policy_head.bias"].to(torch.int64)}),
        "missing": {k: v for k, v in model.items() if k != "value_head.bias"},
        "extra": dict(model, **{"torso.9.weight": torch.zeros(1)}),
        "nan": dict(model, **{"value_head.weight": torch.full_like(model["value_head.weight"], math.nan)}),
    }
    for name, weights in bad.items():
        path = tmp_path / f"{name}.pt"
        torch.save(dict(payload, model=weights), path)
        with pytest.raises(CheckpointError, match="do not fit"):
            load_agent(path)


def test_new_checkpoints_carry_a_checksum_of_their_weights(tmp_path):
    path = tiny_checkpoint(tmp_path)
    payload = load_checkpoint(path)
    assert payload["model_sha256"] == policy.model_digest(payload["model"])
    assert len(payload["model_sha256"]) == 64
    with pytest.raises(ValueError, match="reserved"):
        make_checkpoint(PolicyNet(OBS_SIZE, NUM_ACTIONS, (4,)), make_config("mattmar", 4), model_sha256="x")


def test_a_flipped_byte_in_the_weights_is_refused(tmp_path):
    path = tiny_checkpoint(tmp_path)
    payload = load_checkpoint(path)
    raw = bytearray(path.read_bytes())
    start = raw.find(payload["model"]["policy_head.bias"].numpy().tobytes())
    assert start > 0
    raw[start + 1] ^= 0x01  # a low mantissa bit: the network would still load and play, slightly changed
    path.write_bytes(bytes(raw))
    with pytest.raises(CheckpointError, match="do not match the checksum"):
        load_agent(path)
    # The same change made through torch (the file itself intact) is caught the same way.
    weights = dict(payload["model"], **{"value_head.bias": payload["model"]["value_head.bias"] + 1e-6})
    torch.save(dict(payload, model=weights), path)
    with pytest.raises(CheckpointError, match="do not match the checksum"):
        load_agent(path)


def test_a_checkpoint_without_a_checksum_still_loads(tmp_path):
    path = tiny_checkpoint(tmp_path)
    payload = load_checkpoint(path)
    expected = load_agent(path).net.state_dict()
    payload.pop("model_sha256")
    torch.save(payload, path)
    agent = load_agent(path)
    assert all(torch.equal(agent.net.state_dict()[k], v) for k, v in expected.items())


def test_a_migrated_payload_records_the_checksum_of_its_padded_weights(tmp_path):
    from rams_env.obs.layouts import LAYOUT_SIZES

    net = PolicyNet(LAYOUT_SIZES[1], NUM_ACTIONS, hidden=(8,))
    payload = make_checkpoint(net, make_config("mattmar", 4))
    payload.update(encoder_version=1, obs_size=LAYOUT_SIZES[1])
    save_checkpoint(tmp_path / "v1.pt", payload)
    migrated = load_checkpoint(tmp_path / "v1.pt", migrate=True)
    assert migrated["model_sha256"] == policy.model_digest(migrated["model"])
    save_checkpoint(tmp_path / "v2.pt", migrated)
    assert load_agent(tmp_path / "v2.pt").net.hidden == (8,)


def test_a_bf16_torso_gives_float32_outputs_close_to_float32():
    torch.manual_seed(0)
    net = PolicyNet(OBS_SIZE, NUM_ACTIONS, (64, 64))
    obs = (torch.rand(32, OBS_SIZE) < 0.05).float()
    logits, value = net(obs)
    low_logits, low_value = net(obs, bf16_torso=True)
    assert low_logits.dtype == low_value.dtype == torch.float32
    assert torch.allclose(low_logits, logits, atol=0.02) and torch.allclose(low_value, value, atol=0.02)
    assert not torch.equal(low_logits, logits)  # the torso really ran in bfloat16


# ---------------------------------------------------------------------------- layers
@pytest.mark.slow
def test_the_policy_module_imports_no_agent(tmp_path):
    """The trained-policy agent imports the policy, never the reverse: no import cycle between them."""
    code = "import sys, rams_env.policy; print(sorted(m for m in sys.modules if m.startswith('rams_env.agents')))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
    assert isinstance(load_agent(tiny_checkpoint(tmp_path)), PolicyAgent)
