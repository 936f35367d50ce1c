"""Policy improvement from counterfactual rollouts (training/improve.py, rams_env/compiled/counterfactual.py):
the compiled branches against the Python engine, the training, the command."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest
import torch

from rams_env import equity
from rams_env.agents import HeuristicAgent, load_agent, observe
from rams_env.compiled.workspace import ramsar_plan
from rams_env.obs.encoding import OBS_SIZE
from rams_env.policy.network import PolicyNet
from rams_env.rules import Game, Phase, make_config
from rams_env.rules.actions import NUM_ACTIONS
from rams_env.rules.episode import next_deal_or_end
from rams_training import improve


def _value(game: Game, seat: int) -> float:
    """``seat``'s chance to win the rams after a deal, as the Python engine and the equity model give it."""
    if game.phase == Phase.GAME_OVER or game.rams_over:
        winners = game.winners if game.winners is not None else game.rams_winners()
        return 1.0 / len(winners) if seat in winners else 0.0
    return float(equity.equity(game.config, game.scores, game.forehand)[seat])


@pytest.mark.parametrize("variant", ["mattmar", "norrlandsknack", "rams32", "russian"])
def test_every_branch_is_the_python_engine_playing_the_action_out_with_heuristics(variant):
    """Every decision of the learner recorded, no exploration: the ramsar replayed in the Python engine
    with Python heuristics reach the same decisions, observations and legal sets, and every action tried
    on a copy of the true game, played out by copies of the heuristics (their generators as they stand:
    bids and answers draw from them), is worth what the compiled branch recorded."""
    config = make_config(variant, 4)
    ramsar, seed = 3, 11
    data = improve.collect_shard(config, ramsar, seed, explore=0.0, record=1.0, random_start=0.7)
    plan = ramsar_plan(config, ramsar, seed, random_start=0.7, learners=True)
    row = 0
    for k in range(ramsar):
        game = Game(config, int(plan.seeds[k]), scores=[int(x) for x in plan.start[k]])
        agents = [HeuristicAgent(config, seed=int(plan.hseeds[k, j])) for j in range(config.num_players)]
        me = int(plan.learner[k])
        while True:
            while game.phase < Phase.DEAL_OVER and game.current >= 0:
                seat, legal = game.current, game.legal_actions()
                if seat == me and len(legal) > 1:
                    seen = observe(game, seat)
                    assert data["rams"][row] == k
                    np.testing.assert_array_equal(data["observation"][row], seen["observation"].astype(np.float16))
                    np.testing.assert_array_equal(data["mask"][row], seen["action_mask"].astype(bool))
                    for action in range(NUM_ACTIONS):
                        if action not in legal:
                            assert np.isnan(data["q"][row, action])
                            continue
                        branch, players = game.clone(), copy.deepcopy(agents)
                        branch.apply(action)
                        while branch.phase < Phase.DEAL_OVER and branch.current >= 0:
                            branch.apply(players[branch.current].act_game(branch, branch.current))
                        assert data["q"][row, action] == pytest.approx(_value(branch, me), abs=1e-6)
                    assert data["base"][row] == agents[seat].act_game(game, seat)
                    row += 1
                game.apply(agents[seat].act_game(game, seat))
            if next_deal_or_end(game, "rams"):
                break
    assert row == len(data["rams"]) and row > 10


def test_recording_and_exploring_shares_are_obeyed():
    config = make_config("mattmar", 4)
    none = improve.collect_shard(config, 5, 3, explore=0.0, record=0.0, random_start=0.0)
    assert len(none["rams"]) == 0
    half = improve.collect_shard(config, 20, 3, explore=0.5, record=0.5, random_start=0.0)
    every = improve.collect_shard(config, 20, 3, explore=0.5, record=1.0, random_start=0.0)
    assert 0.3 < len(half["rams"]) / len(every["rams"]) < 0.7
    q, mask = every["q"], every["mask"]
    assert np.all(np.isnan(q) == ~mask) and np.nanmin(q) >= 0.0 and np.nanmax(q) <= 1.0
    assert mask[np.arange(len(q)), every["base"]].all()


def test_centred_values_and_regrets():
    q = np.array([[0.2, 0.4, np.nan], [0.5, np.nan, 0.1]], np.float32)
    mask = ~np.isnan(q)
    np.testing.assert_allclose(improve.centred(q, mask), [[-0.1, 0.1, 0.0], [0.2, 0.0, -0.2]], atol=1e-6)
    assert improve.regrets(q, mask, np.array([0, 0])) == pytest.approx(0.1)
    assert improve.regrets(q, mask, np.array([1, 2])) == pytest.approx(0.2)


def test_training_learns_the_better_action_of_made_up_values():
    """Observations whose first feature says which of two actions is worth more: the trained network's
    greedy action is the better one, held out too, and its regret falls below a coin's."""
    rng = np.random.default_rng(0)
    size = 4000
    obs = np.zeros((size, OBS_SIZE), np.float16)
    sign = rng.random(size) < 0.5
    obs[:, 0] = sign
    mask = np.zeros((size, NUM_ACTIONS), bool)
    mask[:, [52, 53]] = True
    q = np.full((size, NUM_ACTIONS), np.nan, np.float32)
    q[:, 52] = np.where(sign, 0.6, 0.4) + rng.normal(0, 0.1, size)
    q[:, 53] = 0.5
    data = {"observation": obs, "mask": mask, "q": q, "base": np.full(size, 53), "rams": np.arange(size) // 4}
    torch.manual_seed(0)
    report = improve.train(
        data, PolicyNet(OBS_SIZE, NUM_ACTIONS, (32,)), epochs=10, lr=3e-3, scale=100.0, seed=0, held_out=0.2
    )
    assert report["losses"][-1] < report["losses"][0]
    assert report["regret_network"] < 0.02 < report["regret_base"]


def test_the_command_collects_resumes_refuses_other_options_and_writes_a_loadable_checkpoint(tmp_path):
    argv = ["--variant", "rams32", "--ramsar", "6", "--shard", "3", "--epochs", "1", "--hidden", "16"]
    argv += ["--out", str(tmp_path)]
    assert improve.main(argv) == 0
    shards = sorted((tmp_path / "data").glob("shard-*.npz"))
    assert len(shards) == 2
    report = json.loads((tmp_path / "improve.json").read_text())
    assert report["decisions"] > 0 and "regret_network" in report
    agent = load_agent(tmp_path / "improved.pt", expect_config=make_config("rams32", 4))
    assert agent.variant == "rams32"
    before = [p.stat().st_mtime_ns for p in shards]
    assert improve.main(argv) == 0
    assert [p.stat().st_mtime_ns for p in shards] == before
    with pytest.raises(SystemExit, match="explore"):
        improve.main([*argv, "--explore", "0.2"])


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--explore", "1.5"], "--explore"),
        (["--record", "-0.1"], "--record"),
        (["--held-out", "1"], "--held-out"),
        (["--hidden", "wide"], "--hidden"),
        (["--scale", "0"], "--scale"),
        (["--ramsar", "0"], "--ramsar"),
        (["--device", "tpu"], "--device"),
        (["--base", "no-such-model"], "no-such-model"),
        (["--init-from", "russian-4p"], "russian"),
        (["--num-players", "9"], "9"),
    ],
)
def test_bad_options_are_refused_by_name(tmp_path, capsys, extra, message):
    with pytest.raises(SystemExit):
        improve.main(["--variant", "mattmar", "--out", str(tmp_path), *extra])
    assert message in capsys.readouterr().err


class _HeuristicBatch:
    """The heuristic as a batched policy (``act_batch``), for comparing the two collections."""

    def __init__(self, config):
        self.agent = HeuristicAgent(config, seed=0)

    def act_batch(self, observations, masks):
        return np.array(
            [
                self.agent.act({"observation": o, "action_mask": m.astype(np.int8)})
                for o, m in zip(observations, masks, strict=True)
            ]
        )


def test_a_policy_in_the_learners_seat_gives_the_heuristic_collection_when_it_plays_as_the_heuristic():
    """The batched collection (a policy's decisions batched over games side by side and over branches) with
    the heuristic as that policy records the same decisions, actions and values as the compiled one (russian:
    no bids, whose draws come from each heuristic's own generator)."""
    config = make_config("russian", 4)
    compiled = improve.collect_shard(config, 12, 5, explore=0.0, record=1.0, random_start=0.5)
    batched = improve.collect_policy_shard(
        config, _HeuristicBatch(config), 12, 5, explore=0.0, record=1.0, random_start=0.5, games=5, branch_batch=40
    )
    order_c = np.argsort(compiled["rams"], kind="stable")
    order_b = np.argsort(batched["rams"], kind="stable")
    assert len(order_c) == len(order_b) > 50
    for key in ("observation", "mask", "base", "rams"):
        np.testing.assert_array_equal(compiled[key][order_c], batched[key][order_b])
    np.testing.assert_allclose(compiled["q"][order_c], batched["q"][order_b], atol=1e-6)


def test_the_policy_collection_explores_and_records_its_own_actions():
    config = make_config("mattmar", 4)
    data = improve.collect_policy_shard(
        config, load_agent("mattmar-4p"), 6, 2, explore=0.3, record=0.5, random_start=0.0
    )
    q, mask = data["q"], data["mask"]
    assert len(q) > 20 and np.all(np.isnan(q) == ~mask)
    assert mask[np.arange(len(q)), data["base"]].all()


def test_observations_are_packed_losslessly_and_shards_of_other_dense_columns_join():
    config = make_config("russian", 4)
    first = improve.collect_shard(config, 3, 1, explore=0.1, record=1.0, random_start=0.0)["observation"]
    second = improve.collect_shard(config, 3, 2, explore=0.1, record=1.0, random_start=1.0)["observation"]
    second = second.copy()
    second[:, 0] = 0.5  # a column dense only in the second part
    parts = [improve.Observations.pack(first), improve.Observations.pack(second)]
    assert parts[0].bits.nbytes + parts[0].dense.nbytes < first.nbytes / 4
    np.testing.assert_array_equal(parts[0][np.arange(len(first))], first.astype(np.float32))
    joined = improve.Observations.concatenate(parts)
    assert len(joined) == len(first) + len(second)
    rows = np.array([0, len(first) - 1, len(first), len(joined) - 1])
    np.testing.assert_array_equal(joined[rows], np.concatenate([first, second])[rows].astype(np.float32))
