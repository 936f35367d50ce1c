"""Self-play training: a tiny run end to end, per-seat PPO targets, resume, refused files."""

from __future__ import annotations

import dataclasses
import json
import logging
import pickle
import warnings

import numpy as np
import pytest
import torch

from rams_env.agents import load_agent
from rams_env.apps.command import CommandError
from rams_env.envs.seats import HEURISTIC_SEAT, LEARNER_SEAT, RANDOM_SEAT, Seat
from rams_env.eval import agent_source, play_episode
from rams_env.obs import OBS_SIZE
from rams_env.policy import CheckpointError, load_checkpoint, save_checkpoint
from rams_env.rules import Game, make_config
from rams_env.rules.actions import NUM_ACTIONS
from rams_training.cli import args_from, configure
from rams_training.config import TrainArgs
from rams_training.critic import HIDDEN_SIZE, other_hands
from rams_training.dmc import epsilon_greedy_entropy
from rams_training.mixing import OpponentMix, Snapshot, against
from rams_training.rollout import Rollout, episode_rows, gae
from rams_training.run import Trainer, uses_bf16


def tiny(run_dir, **overrides) -> TrainArgs:
    """Arguments of a run that takes seconds."""
    values = dict(
        total_steps=1,
        num_games=6,
        episodes_per_game=1,
        hidden=(16,),
        minibatch=64,
        epochs=1,
        eval_every=0,
        eval_decks=1,
        snapshot_every=1,
        checkpoint_every=1,
        run_dir=str(run_dir),
        progress=False,
        threads=1,
    )
    values.update(overrides)
    return TrainArgs(**values)


def opponent(row: tuple[Seat, ...]) -> Seat:
    """Who a draw seats around the learner (a row of one learner and one opponent)."""
    assert row.count(LEARNER_SEAT) == 1 and len(set(row)) == 2
    return next(seat for seat in row if seat != LEARNER_SEAT)


def _episode(decisions: list[tuple[int, float, float]]) -> tuple[Rollout, np.ndarray]:
    """A rollout holding one episode's decisions ``(seat, reward, value)`` in play order, and its rows."""
    rollout = Rollout(hidden=False)
    n = len(decisions)
    seats, rewards, values = (np.array(column) for column in zip(*decisions, strict=True))
    rows = rollout.add(
        obs=np.zeros((n, OBS_SIZE), np.float32),
        mask=np.ones((n, NUM_ACTIONS), np.int8),
        action=np.zeros(n, np.int64),
        log_prob=np.zeros(n, np.float32),
        value=values,
        seat=seats,
        episode=np.zeros(n, np.int64),
    )
    rollout.reward[rows] = rewards
    return rollout, rows


def test_gae_follows_each_seats_own_chain():
    # Decisions in play order: seat 0, seat 1, seat 0, seat 1. Seat 0 earns 1 then 2, seat 1 earns -1 then 0.
    rollout, rows = _episode([(0, 1.0, 0.5), (1, -1.0, 0.0), (0, 2.0, 1.0), (1, 0.0, 0.25)])

    def run(gamma: float, lam: float) -> None:
        gae(rows, rollout.seat, rollout.reward, rollout.value, rollout.advantage, rollout.ret, gamma, lam)

    run(gamma=1.0, lam=1.0)
    # With lambda = 1 the return is the sum of the seat's own rewards from that decision on.
    assert rollout.ret[rows].tolist() == [3.0, -1.0, 2.0, 0.0]
    assert rollout.advantage[rows].tolist() == [2.5, -1.0, 1.0, -0.25]
    run(gamma=0.5, lam=0.0)  # one-step TD: r + gamma * V(own next decision) - V
    assert rollout.advantage[rows].tolist() == [1.0 + 0.5 * 1.0 - 0.5, -1.0 + 0.5 * 0.25 - 0.0, 1.0, -0.25]


def test_the_rollout_grows_keeps_its_rows_and_refuses_a_missing_column():
    rollout, rows = _episode([(s % 4, 0.0, float(s)) for s in range(5000)])  # past the first capacity
    assert rollout.size == 5000 and rows.tolist() == list(range(5000))
    assert rollout.value[:5000].tolist() == [float(s) for s in range(5000)]
    with pytest.raises(ValueError, match="needs \\['value'\\]"):
        rollout.add(
            obs=np.zeros((1, OBS_SIZE), np.float32),
            mask=np.ones((1, NUM_ACTIONS), np.int8),
            action=np.zeros(1, np.int64),
            log_prob=np.zeros(1, np.float32),
            seat=np.zeros(1, np.int64),
            episode=np.zeros(1, np.int64),
        )
    rollout.clear()
    assert rollout.size == 0


def test_collected_rewards_are_the_acting_seats_own_points(tmp_path, monkeypatch):
    """Every seat's sample rewards over an episode add up to that seat's own score change."""
    trainer = Trainer(tiny(tmp_path, num_games=4, episodes_per_game=3, pool_fraction=0.0, reward_scale=1.0))
    env = trainer.env
    totals = np.zeros((env.num_games, env.num_players))
    finished: list[list[np.ndarray]] = [[] for _ in range(env.num_games)]
    original = env.step

    def recording_step(actions):
        out = original(actions)
        totals[:] += out.rewards
        for i in np.flatnonzero(out.done):
            finished[i].append(totals[i].copy())
            totals[i] = 0.0
        return out

    monkeypatch.setattr(env, "step", recording_step)
    episodes, _ = trainer.collect()
    trainer.env.close()
    assert len(episodes) == 4 * 3
    seen = [0] * env.num_games
    compared = 0
    for episode in episodes:
        truth = finished[episode.game][seen[episode.game]]
        seen[episode.game] += 1
        seats, rewards = trainer.rollout.seat[episode.rows], trainer.rollout.reward[episode.rows]
        for seat in set(seats.tolist()):
            own = rewards[seats == seat].sum()
            assert own == truth[seat], f"game {episode.game}, seat {seat}: samples {own}, score change {truth[seat]}"
            compared += 1
    assert compared >= 3 * len(episodes)


def test_tiny_run_writes_a_checkpoint_that_plays_legally(tmp_path):
    best = Trainer(tiny(tmp_path)).run()
    assert best.exists() and (tmp_path / "latest.pt").exists() and (tmp_path / "progress.csv").exists()
    assert any((tmp_path / "tensorboard").iterdir())
    agent = load_agent(best)
    assert (agent.variant, agent.num_players) == ("mattmar", 4)
    config = make_config("mattmar", 4)
    for seed in range(5):
        play_episode(Game(config, seed), [agent] * 4)  # raises on any illegal action


def test_resume_continues_the_same_run(tmp_path):
    straight = Trainer(tiny(tmp_path / "a", total_steps=10**9))
    rows = [straight.train_update() for _ in range(2)]
    straight.close()

    # An interrupted run: one update and its checkpoint, then a new process resumes from the file.
    first = Trainer(tiny(tmp_path / "b", total_steps=10**9))
    first.train_update()
    first.close()
    resumed = Trainer(tiny(tmp_path / "b", total_steps=10**9, resume=True))
    assert (resumed.updates, resumed.steps, resumed.history) == (1, first.steps, first.history)
    assert resumed.pool.references() == ["snapshot_000001.pt"]
    again = resumed.train_update()
    resumed.close()
    assert (resumed.updates, resumed.steps, resumed.episodes) == (straight.updates, straight.steps, straight.episodes)
    timing = ("train_s", "steps_per_s", "env_steps_per_s")
    assert {k: v for k, v in again.items() if k not in timing} == {k: v for k, v in rows[1].items() if k not in timing}
    for a, b in zip(straight.net.state_dict().values(), resumed.net.state_dict().values(), strict=True):
        assert torch.equal(a, b)


def test_a_resumed_run_takes_the_learning_rate_it_is_given(tmp_path):
    # Adam's saved state carries the old rate: a resume that lowers --lr must not keep it silently.
    first = Trainer(tiny(tmp_path, total_steps=10**9, lr=3e-4))
    first.train_update()
    first.close()
    resumed = Trainer(tiny(tmp_path, total_steps=10**9, lr=1e-4, resume=True))
    assert [group["lr"] for group in resumed.optimizer.param_groups] == [1e-4]
    resumed.close()


def test_an_interrupted_run_resumes_after_its_pool_moved_on(tmp_path):
    """A snapshot that pushes the oldest one out of the pool after the last checkpoint: the
    checkpoint still names the old snapshot, whose file must still be there."""
    trainer = Trainer(tiny(tmp_path, total_steps=10**9, pool_size=2, keep_last=1))
    for _ in range(3):
        trainer.train_update()  # a snapshot and a checkpoint each
    trainer.pool.add(trainer.net, 4)  # the next update's snapshot: pool now 3, 4, snapshot 2 left it
    trainer.close()  # interrupted here
    assert (tmp_path / "pool" / "snapshot_000002.pt").exists()
    assert not (tmp_path / "pool" / "snapshot_000001.pt").exists()  # no kept checkpoint names it
    resumed = Trainer(tiny(tmp_path, total_steps=10**9, pool_size=2, keep_last=1, resume=True))
    assert resumed.pool.references() == ["snapshot_000002.pt", "snapshot_000003.pt"]
    resumed.close()


def test_a_run_is_not_overwritten_and_foreign_rules_are_refused(tmp_path):
    Trainer(tiny(tmp_path)).run()
    with pytest.raises(FileExistsError, match="--resume"):
        Trainer(tiny(tmp_path))
    with pytest.raises(CheckpointError, match="other rules"):
        Trainer(tiny(tmp_path, variant="russian", resume=True))
    for path in tmp_path.glob("*.pt"):
        path.write_bytes(b"not a checkpoint")
    with pytest.raises(CheckpointError, match="no intact checkpoint"):
        Trainer(tiny(tmp_path, resume=True))


def _three_updates(run_dir) -> TrainArgs:
    return tiny(run_dir, total_steps=10**9, checkpoint_every=1, keep_last=3)


def test_a_second_training_of_the_same_folder_is_refused_while_the_first_runs(tmp_path):
    first = Trainer(tiny(tmp_path))
    with pytest.raises(FileExistsError, match="still going"):
        Trainer(tiny(tmp_path, resume=True))
    first.close()
    (tmp_path / ".lock").write_text("pid 999999")  # a lock file left by a killed run holds nothing
    Trainer(tiny(tmp_path / "other")).close()


def test_resume_takes_the_newest_intact_checkpoint_and_cleans_up(tmp_path, caplog):
    trainer = Trainer(_three_updates(tmp_path))
    for _ in range(3):
        trainer.train_update()
    trainer.close()
    (tmp_path / "latest.pt").write_bytes(b"damaged")
    (tmp_path / "checkpoint_000003.pt").write_bytes(b"")
    (tmp_path / "best.pt").write_bytes(b"damaged too")
    (tmp_path / ".checkpoint_000004.pt.abc.tmp").write_bytes(b"")  # debris of a killed write
    with caplog.at_level("WARNING", logger="rams.train"):
        resumed = Trainer(tiny(tmp_path, total_steps=10**9, checkpoint_every=1, keep_last=3, resume=True))
    assert resumed.updates == 2
    assert "skipped latest.pt" in caplog.text and "skipped checkpoint_000003.pt" in caplog.text
    assert not list(tmp_path.glob(".*.tmp"))
    rows = (tmp_path / "progress.csv").read_text().splitlines()
    assert [r.split(",")[0] for r in rows[1:]] == ["1", "2"]  # update 3 is redone, not logged twice
    resumed.close()


def test_a_policy_checkpoint_cannot_resume_a_run(tmp_path):
    trainer = Trainer(tiny(tmp_path))
    trainer.run()
    export_payload = load_checkpoint(tmp_path / "latest.pt")
    slim = {k: v for k, v in export_payload.items() if k not in ("optimizer", "rng", "pool", "counters")}
    for path in tmp_path.glob("*.pt"):
        save_checkpoint(path, slim)
    with pytest.raises(CheckpointError, match="without training state"):
        Trainer(tiny(tmp_path, resume=True))


def test_resume_takes_the_saved_arguments_and_names_the_given_ones_that_differ(tmp_path, capsys):
    import argparse

    Trainer(tiny(tmp_path, variant="russian")).close()
    parser = argparse.ArgumentParser()
    configure(parser)
    args = args_from(parser.parse_args(["full", "--run-dir", str(tmp_path), "--resume", "--total-steps", "9"]))
    assert (args.variant, args.hidden, args.num_games, args.total_steps) == ("russian", (16,), 6, 9)
    assert "total_steps=9 (saved 1)" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("override", "named"),
    [
        ({"checkpoint_every": 0}, "checkpoint_every"),
        ({"minibatch": 0}, "minibatch"),
        ({"total_steps": 0}, "total_steps"),
        ({"episodes_per_game": 0}, "episodes_per_game"),
        ({"keep_last": 0}, "keep_last"),
        ({"device": "nope"}, "device"),
        ({"reward_scale": 0.0}, "reward_scale"),
        ({"heuristic_fraction": 1.5}, "heuristic_fraction"),
        ({"random_fraction": -0.1}, "random_fraction"),
        ({"precision": "fp16"}, "precision"),
        ({"algorithm": "sarsa"}, "algorithm"),
        ({"epsilon": 1.5}, "epsilon"),
        ({"algorithm": "dmc", "privileged_critic": True}, "privileged_critic"),
        ({"reward": "win"}, "win"),  # with the default one-deal episode
        ({"seed": -1}, "seed must be a non-negative int below 2"),
        ({"eval_seed": 2**64}, "eval_seed must be a non-negative int below 2"),
        ({"num_games": "8"}, "num_games must be a positive integer"),
        ({"lr": float("nan")}, "lr must be a number > 0"),
    ],
)
def test_bad_training_arguments_are_refused_before_any_work(tmp_path, override, named):
    with pytest.raises(ValueError, match=named):
        tiny(tmp_path, **override)
    assert not any(tmp_path.iterdir())


def test_command_line_overrides_the_recipe():
    import argparse

    parser = argparse.ArgumentParser()
    configure(parser)
    args = args_from(parser.parse_args(["full", "--total-steps", "5", "--hidden", "32,32", "--no-progress"]))
    assert (args.total_steps, args.hidden, args.progress, args.num_games) == (5, (32, 32), False, 128)
    assert (args.episode, args.reward, args.points_weight) == ("rams", "win", 0.0)  # whole ramsar, no shaping
    assert (args.imitation, args.heuristic_fraction) == (4_000_000, 1.0)  # imitation, then against heuristics
    staged = args_from(parser.parse_args(["staged"]))
    assert (staged.imitation, staged.points_weight, staged.heuristic_after) == (0, 1.0, 15_000_000)
    assert args_from(parser.parse_args(["full", "--table-sizes", "3,5"])).table_sizes == (3, 5)
    assert dataclasses.asdict(args_from(parser.parse_args([])))["run_dir"].startswith("runs/quick-mattmar-")
    with pytest.raises(CommandError, match="--run-dir"):
        args_from(parser.parse_args(["--resume"]))
    with pytest.raises(SystemExit):
        parser.parse_args(["--hidden", "a,b"])


@pytest.mark.slow
def test_export_ships_a_slim_checkpoint_and_a_model_card(tmp_path, monkeypatch):
    import rams_training.export as export

    run = tmp_path / "run"
    Trainer(tiny(run)).run()
    monkeypatch.setattr(export, "SHIPPED", tmp_path / "shipped")
    card = export.export(run, "tiny", decks=1, deal_decks=2, search_decks=1, command="rams train quick")
    text = card.read_text()
    assert "rams train quick" in text
    assert "Whole ramsar against three heuristics (1 decks" in text and "against search (1 decks" in text
    assert "| whole ramsar vs 3 heuristics, win share | >= 0.325 |" in text
    shipped = tmp_path / "shipped" / "mattmar" / "tiny"  # the zoo layout: <preset>/<model>/
    assert card == shipped / "README.md"
    assert "optimizer" not in torch.load(shipped / "tiny.pt", weights_only=True)
    assert load_agent(shipped / "tiny.pt").num_players == 4
    assert 'load_agent("tiny")' in text and "`rams eval checkpoints/mattmar/tiny/tiny.pt --baseline heuristic" in text
    for png in ("curves.png", "knock_rates.png"):
        assert (shipped / png).read_bytes()[:4] == b"\x89PNG"
    assert "Started from" not in text
    # A run that starts from the shipped file and is shipped under the same name: the card names the
    # counters the file had when the run began, though the export replaces the file.
    steps = torch.load(shipped / "tiny.pt", weights_only=True)["counters"]["steps"]
    Trainer(tiny(tmp_path / "more", init_from=str(shipped / "tiny.pt"))).run()
    text = export.export(tmp_path / "more", "tiny", decks=1, deal_decks=0, search_decks=0, command="c").read_text()
    assert f"- Started from `{shipped / 'tiny.pt'}` ({steps:,} learner decisions" in text
    assert json.loads((shipped / "rams_vs_heuristic.json").read_text())["episode"] == "rams"
    config = make_config("mattmar", 4)
    for item in export.card_evaluations(1, 1, 1):  # --workers sends the baselines to other processes
        assert pickle.loads(pickle.dumps(agent_source(item.baseline, config))) is not None


def test_export_ships_an_ensemble_of_shipped_policies_with_its_card(tmp_path, monkeypatch, capsys):
    import rams_training.export as export

    shipped = tmp_path / "shipped"
    monkeypatch.setattr(export, "SHIPPED", shipped)
    for k in range(2):
        Trainer(tiny(tmp_path / f"run{k}", seed=k)).run()
        export.slim_checkpoint(tmp_path / f"run{k}", export.model_folder("mattmar", f"m{k}") / f"m{k}.pt")
    members = [str(shipped / "mattmar" / "m0" / "m0.pt"), str(shipped / "mattmar" / "m1" / "m1.pt")]
    argv = ["--ensemble", *members, "--name", "pair", "--decks", "1", "--deal-decks", "1", "--search-decks", "0"]
    assert export.main([*argv, "--note", "two seeds"]) == 0
    pair = shipped / "mattmar" / "pair"
    text = (pair / "README.md").read_text()
    assert "# `pair`: 2 shipped policies played as one, whole ramsar of mattmar, 4 players" in text
    assert "  - `checkpoints/mattmar/m0/m0.pt` (card: `checkpoints/mattmar/m0/README.md`)" in text
    assert "- Why: two seeds" in text and 'load_agent("pair")' in text
    assert "`rams eval checkpoints/mattmar/pair/pair.json --baseline heuristic --variant mattmar --players 4" in text
    assert "| whole ramsar vs 3 heuristics, win share | >= 0.325 |" in text
    assert (pair / "knock_rates.png").read_bytes()[:4] == b"\x89PNG"
    assert json.loads((pair / "deal_vs_heuristic.json").read_text())["episode"] == "deal"
    assert len(load_agent(pair / "pair.json").nets) == 2
    manifest = json.loads((pair / "pair.json").read_text())
    assert manifest["description"] == "two seeds"
    assert [m["path"] for m in manifest["members"]] == ["../m0/m0.pt", "../m1/m1.pt"]  # relative to the manifest
    outside = tmp_path / "run0" / "latest.pt"
    assert export.main(["--ensemble", str(outside), "--name", "x", "--note", "n"]) == 1
    assert "must be zoo checkpoints" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        export.main(argv)  # no --note
    assert "--ensemble needs --note" in capsys.readouterr().err


def test_the_card_of_a_policy_for_several_table_sizes_evaluates_each(tmp_path, monkeypatch):
    import rams_training.export as export

    Trainer(tiny(tmp_path / "run", episode="rams", reward="win", total_steps=2, table_sizes=(3,))).run()
    monkeypatch.setattr(export, "SHIPPED", tmp_path / "shipped")
    text = export.export(tmp_path / "run", "multi", decks=1, deal_decks=0, search_decks=0, command="c").read_text()
    assert "whole ramsar of mattmar, 3/4 players" in text
    assert "### Whole ramsar against two heuristics, 3 players (fair share 1/3) (1 decks" in text
    assert "--players 3 --episode rams" in text
    evaluation = tmp_path / "shipped" / "mattmar" / "multi" / "3p_rams_vs_random.json"
    assert json.loads(evaluation.read_text())["episode"] == "rams"


def test_a_draw_is_a_row_of_seats_with_one_learner_against_a_pool_snapshot(tmp_path):
    """A draw says who plays each seat: the learner in one, pool snapshot 0 (an outside agent) in the others."""
    trainer = Trainer(tiny(tmp_path, pool_fraction=1.0))
    trainer.pool.add(trainer.net, 1)
    draws = [trainer.mix.draw(4, trainer.steps) for _ in range(20)]
    trainer.close()
    snapshot = Seat.of(Snapshot(trainer.pool, 0, trainer.algorithm.act))
    assert set(draws) <= {against(snapshot, s, 4) for s in range(4)} and snapshot.kind == "agent"


def test_heuristic_opponents_leave_the_learner_one_seat(tmp_path, monkeypatch):
    with pytest.warns(DeprecationWarning, match="compiled_heuristic"):
        trainer = Trainer(tiny(tmp_path, heuristic_fraction=1.0, compiled_heuristic=False))
    heuristic_moves = []
    act = trainer.heuristic.agent.act
    monkeypatch.setattr(trainer.heuristic.agent, "act", lambda obs: heuristic_moves.append(1) or act(obs))
    episodes, _ = trainer.collect()
    assert episodes and heuristic_moves
    for episode in episodes:
        assert len(set(trainer.rollout.seat[episode.rows].tolist())) == 1
    with pytest.warns(DeprecationWarning):
        again = Trainer(tiny(tmp_path / "again", heuristic_fraction=1.0, compiled_heuristic=False))
    repeat, _ = again.collect()  # the same update of the same run: the same games and moves

    def moves(trainer, episodes):
        return [trainer.rollout.action[e.rows].tolist() for e in episodes]

    assert moves(again, repeat) == moves(trainer, episodes)


def test_random_opponents_take_their_share_and_leave_the_learner_one_seat(tmp_path):
    trainer = Trainer(tiny(tmp_path, num_games=40, heuristic_fraction=0.5, random_fraction=0.5))
    opponents = [opponent(trainer.mix.draw(4, trainer.steps)) for _ in range(400)]
    assert set(opponents) == {HEURISTIC_SEAT, RANDOM_SEAT}
    assert 150 < opponents.count(RANDOM_SEAT) < 250
    mix = dataclasses.replace(trainer.args.opponents, heuristic_fraction=0.0, random_fraction=1.0)
    trainer.mix = trainer.collector.mix = OpponentMix(mix, trainer.pool, trainer.rng, policy=trainer.algorithm.act)
    episodes, _ = trainer.collect()
    seats = [set(trainer.rollout.seat[e.rows].tolist()) for e in episodes]  # a deal can end before the learner's turn
    assert max(map(len, seats)) == 1 and sum(map(len, seats)) > len(seats) // 2
    trainer.close()
    with pytest.raises(ValueError, match="heuristic_fraction \\+ random_fraction"):
        TrainArgs(heuristic_fraction=0.7, random_fraction=0.4)


def test_precision_auto_takes_bf16_only_where_the_cpu_has_it(monkeypatch):
    cpu = torch.device("cpu")
    assert uses_bf16("bf16", cpu) and not uses_bf16("fp32", cpu)
    monkeypatch.setattr(torch.ops.mkldnn, "_is_mkldnn_bf16_supported", lambda: False)
    assert not uses_bf16("auto", cpu)
    monkeypatch.setattr(torch.ops.mkldnn, "_is_mkldnn_bf16_supported", lambda: True)
    assert uses_bf16("auto", cpu)


@pytest.mark.parametrize("precision", ["bf16", "fp32"])
def test_both_precisions_train_and_act_in_float32_heads(tmp_path, precision):
    trainer = Trainer(tiny(tmp_path, precision=precision))
    assert trainer.bf16 == (precision == "bf16")
    episodes, _ = trainer.collect()
    losses = trainer.update(episode_rows(episodes))
    assert all(np.isfinite(v) for v in losses.values())
    assert abs(losses["approx_kl"]) < 0.05  # the update's log-probabilities match the acting ones
    trainer.close()


def test_heuristic_opponents_wait_for_heuristic_after_and_leave_the_run_as_before_until_then(tmp_path):
    def first_update(run_dir, **overrides):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # compiled_heuristic false
            trainer = Trainer(tiny(run_dir, **overrides))
        moves = []
        if trainer.heuristic.kind == "agent":  # not the env's compiled heuristic
            act = trainer.heuristic.agent.act
            trainer.heuristic.agent.act = lambda obs: moves.append(1) or act(obs)
        episodes, _ = trainer.collect()
        trainer.close()
        return [trainer.rollout.action[e.rows].tolist() for e in episodes], len(moves)

    python = dict(compiled_heuristic=False)
    plain, none = first_update(tmp_path / "a")
    waiting, before = first_update(tmp_path / "b", heuristic_fraction=1.0, heuristic_after=10**9, **python)
    assert none == before == 0 and waiting == plain  # the same games: no random draw spent on opponents
    _, after = first_update(tmp_path / "c", heuristic_fraction=1.0, heuristic_after=0, **python)
    assert after > 0
    compiled_waiting, _ = first_update(tmp_path / "d", heuristic_fraction=1.0, heuristic_after=10**9)
    assert compiled_waiting == plain


def test_compiled_heuristic_opponents_play_inside_the_env_and_leave_the_learner_one_seat(tmp_path):
    def first_update(run_dir, **overrides):
        trainer = Trainer(tiny(run_dir, heuristic_fraction=1.0, **overrides))
        episodes, stats = trainer.collect()
        trainer.close()
        return trainer, episodes, stats

    trainer, episodes, stats = first_update(tmp_path / "a")
    assert trainer.table.inside and trainer.heuristic == HEURISTIC_SEAT and episodes
    heuristic = trainer.env.heuristic_seats
    assert (heuristic.sum(axis=1) == trainer.config.num_players - 1).all()  # every game: one learner seat
    for episode in episodes:
        seats = set(trainer.rollout.seat[episode.rows].tolist())
        assert len(seats) == 1  # the env returned only the learner's decisions
    # A learner row per env step: the heuristic seats' decisions were made inside the step.
    assert trainer.rollout.size <= stats["env_steps"]
    again, repeat, _ = first_update(tmp_path / "b")
    assert [again.rollout.action[e.rows].tolist() for e in repeat] == [
        trainer.rollout.action[e.rows].tolist() for e in episodes
    ]
    with pytest.warns(DeprecationWarning, match="compiled_heuristic"):
        python, python_episodes, _ = first_update(tmp_path / "c", compiled_heuristic=False)
    assert not python.table.inside and python.heuristic.kind == "agent" and python_episodes
    with pytest.warns(DeprecationWarning, match="Trainer.table.inside"):
        assert not python.versus


def test_the_late_stage_switches_rate_entropy_and_shaping_at_heuristic_after(tmp_path, caplog):
    late = dict(late_lr=1e-4, late_ent_coef=0.003, late_points_weight=0.0)
    common = dict(episode="rams", reward="win", points_weight=1.0, lr=3e-4, ent_coef=0.01, total_steps=10**9)
    names = ("lr", "ent_coef", "points_weight")
    trainer = Trainer(tiny(tmp_path / "a", heuristic_after=1, **common, **late))
    assert not trainer.late and [trainer.stage_value(k) for k in names] == [3e-4, 0.01, 1.0]
    trainer.train_update()  # the first stage's update, at the first stage's rate
    assert trainer.late and [trainer.stage_value(k) for k in names] == [1e-4, 0.003, 0.0]
    assert trainer.optimizer.param_groups[0]["lr"] == 3e-4
    with caplog.at_level(logging.INFO, logger="rams.train"):
        trainer.train_update()
    assert trainer.optimizer.param_groups[0]["lr"] == 1e-4 and "learning rate 0.0001 (it was 0.0003)" in caplog.text
    # Unset late values keep the first stage's, and a resumed run picks the stage from its counters.
    trainer.close()
    resumed = Trainer(tiny(tmp_path / "a", heuristic_after=1, resume=True, **common, **late))
    assert resumed.optimizer.param_groups[0]["lr"] == 1e-4
    resumed.close()
    plain = Trainer(tiny(tmp_path / "b", heuristic_after=1, **common))
    plain.train_update()
    assert [plain.stage_value(k) for k in names] == [3e-4, 0.01, 1.0]
    plain.close()
    with pytest.raises(ValueError, match="late_lr"):
        tiny(tmp_path / "c", late_lr=0.0)
    with pytest.raises(ValueError, match="late_points_weight"):
        Trainer(tiny(tmp_path / "d", late_points_weight=1.0))  # one-deal points reward: nothing to shape


def test_other_hands_lists_the_other_seats_in_order_after_the_acting_one():
    hands = np.array([[1 << 0, 1 << 1, 1 << 2], [1 << 5, 1 << 6 | 1 << 7, 1 << 51]], np.int64)
    flags = other_hands(hands, np.array([1, 2]))
    assert flags.shape == (2, HIDDEN_SIZE) and flags.dtype == np.uint8
    blocks = flags.reshape(2, -1, 52)
    assert [np.flatnonzero(b).tolist() for b in blocks[0]] == [[2], [0], [], [], [], []]  # seats 2 then 0
    assert [np.flatnonzero(b).tolist() for b in blocks[1]] == [[5], [6, 7], [], [], [], []]  # seats 0 then 1


def straight_and_resumed(tmp_path, **overrides) -> tuple[Trainer, Trainer]:
    """A whole-rams run of two updates in one go, and the same run stopped after one and resumed for
    the other (left open); the second updates' rows must be equal, timings aside."""
    kwargs = dict(episode="rams", reward="win", total_steps=10**9, **overrides)
    straight = Trainer(tiny(tmp_path / "a", **kwargs))
    rows = [straight.train_update() for _ in range(2)]
    straight.close()
    first = Trainer(tiny(tmp_path / "b", **kwargs))
    first.train_update()
    first.close()
    resumed = Trainer(tiny(tmp_path / "b", resume=True, **kwargs))
    again = resumed.train_update()
    timing = ("train_s", "steps_per_s", "env_steps_per_s")
    assert {k: v for k, v in again.items() if k not in timing} == {k: v for k, v in rows[1].items() if k not in timing}
    return straight, resumed


def test_a_privileged_critic_gives_the_values_resumes_exactly_and_stays_out_of_exports(tmp_path):
    from rams_training.export import slim_checkpoint

    straight, resumed = straight_and_resumed(tmp_path, privileged_critic=True)
    for a, b in zip(straight.critic.state_dict().values(), resumed.critic.state_dict().values(), strict=True):
        assert torch.equal(a, b)
    # The samples' values are the critic's, from the observation and the other hands of that moment.
    episodes, _ = resumed.collect()
    rollout, row = resumed.rollout, int(episodes[0].rows[0])
    assert rollout.hidden is not None and rollout.hidden[row].sum() > 0
    with torch.no_grad():
        obs, hidden = torch.from_numpy(rollout.obs[row][None]), torch.from_numpy(rollout.hidden[row][None])
        value = resumed.critic(obs, hidden, bf16_torso=resumed.bf16)
    assert float(value[0]) == pytest.approx(rollout.value[row], abs=1e-5)
    resumed.close()
    assert "critic" in torch.load(tmp_path / "b" / "latest.pt", weights_only=True)
    slim = slim_checkpoint(tmp_path / "b", tmp_path / "policy.pt")
    assert "critic" not in slim and "critic" not in torch.load(tmp_path / "policy.pt", weights_only=True)


def test_critic_warmup_leaves_the_policy_as_it_is(tmp_path):
    trainer = Trainer(
        tiny(tmp_path, episode="rams", reward="win", total_steps=10**9, privileged_critic=True, critic_warmup=1)
    )
    before = [t.clone() for t in trainer.net.state_dict().values()]
    critic_before = [t.clone() for t in trainer.critic.state_dict().values()]
    trainer.train_update()
    assert all(torch.equal(a, b) for a, b in zip(before, trainer.net.state_dict().values(), strict=True))
    assert not all(torch.equal(a, b) for a, b in zip(critic_before, trainer.critic.state_dict().values(), strict=True))
    trainer.train_update()  # warm-up over: the policy learns
    assert not all(torch.equal(a, b) for a, b in zip(before, trainer.net.state_dict().values(), strict=True))
    trainer.close()
    with pytest.raises(ValueError, match="critic_warmup"):
        tiny(tmp_path / "b", critic_warmup=3)


def test_one_network_trains_for_several_table_sizes_and_plays_each(tmp_path):
    from rams_training.export import slim_checkpoint

    trainer = Trainer(tiny(tmp_path / "run", episode="rams", reward="win", total_steps=10**9, table_sizes=(3, 7)))
    played = []
    for _ in range(3):  # the sizes take turns, update by update
        played.append(trainer.table.config.num_players)
        trainer.train_update()
    assert played == [4, 3, 7]
    trainer.close()
    slim = slim_checkpoint(tmp_path / "run", tmp_path / "policy.pt")
    assert slim["table_sizes"] == [4, 3, 7]
    for n in (3, 4, 7):
        agent = load_agent(tmp_path / "policy.pt", expect_config=make_config("mattmar", n))
        assert agent.num_players == n and agent.table_sizes == (4, 3, 7)
        play_episode(Game(make_config("mattmar", n), 1), [agent] * n)  # legal at every size
    assert load_agent(tmp_path / "policy.pt").num_players == 4
    with pytest.raises(CheckpointError, match="num_players=4 \\(expected 5\\)"):
        load_agent(tmp_path / "policy.pt", expect_config=make_config("mattmar", 5))
    with pytest.raises(ValueError, match="table_sizes"):
        tiny(tmp_path / "bad", table_sizes=(4,))
    with pytest.raises(ValueError, match="num_players"):
        tiny(tmp_path / "bad", variant="rams32", table_sizes=(7,))


def test_a_run_for_several_table_sizes_resumes_at_the_size_it_stopped_before(tmp_path):
    # The second update is the 6-player one: other games, so equal rows show the resumed run played it.
    _, resumed = straight_and_resumed(tmp_path, table_sizes=(6,))
    resumed.close()


def test_heuristic_runs_resume_exactly_and_heuristic_processes_is_deprecated(tmp_path):
    kwargs = dict(heuristic_fraction=1.0, heuristic_processes=2, num_games=6)
    with pytest.warns(DeprecationWarning, match="heuristic_processes"):
        straight, resumed = straight_and_resumed(tmp_path, **kwargs)
    resumed.close()
    for a, b in zip(straight.net.state_dict().values(), resumed.net.state_dict().values(), strict=True):
        assert torch.equal(a, b)
    with pytest.raises(ValueError, match="heuristic_processes must be a positive integer"):
        TrainArgs(heuristic_processes=0)


@pytest.mark.slow
def test_dmc_plays_epsilon_greedily_and_learns_each_decisions_monte_carlo_return(tmp_path):
    def greedy_share(trainer: Trainer) -> float:
        """Collect an update; the share of its decisions that are the masked argmax of the action head."""
        episodes, _ = trainer.collect()
        rows = episode_rows(episodes)
        rollout = trainer.rollout
        with torch.no_grad():
            q, _ = trainer.net(torch.from_numpy(rollout.obs[rows]))
        q[torch.from_numpy(rollout.mask[rows]) == 0] = -torch.inf
        return float((q.argmax(dim=1).numpy() == rollout.action[rows]).mean())

    kwargs = dict(episode="rams", reward="win", algorithm="dmc", total_steps=10**9, pool_fraction=0.0)
    greedy = Trainer(tiny(tmp_path / "greedy", epsilon=0.0, **kwargs))
    assert greedy_share(greedy) == 1.0
    rollout = greedy.rollout
    episodes, _ = greedy.collect()
    rows = episode_rows(episodes)
    assert not rollout.value[rows].any() and not rollout.log_prob[rows].any()
    for episode in episodes:  # ret: the sum of the seat's own rewards from that decision to the episode's end
        seats, rewards = rollout.seat[episode.rows], rollout.reward[episode.rows]
        for k, row in enumerate(episode.rows):
            own_later = rewards[k:][seats[k:] == seats[k]].sum()
            assert rollout.ret[row] == pytest.approx(own_later)
    # The played actions' entries of the action head move toward those returns.
    actions = torch.from_numpy(rollout.action[rows])
    targets = torch.from_numpy(rollout.ret[rows]).float()

    def error() -> float:
        with torch.no_grad():
            q, _ = greedy.net(torch.from_numpy(rollout.obs[rows]))
        return float((q.gather(1, actions[:, None]).squeeze(1) - targets).pow(2).mean())

    before = error()
    greedy.algorithm.learn = dataclasses.replace(greedy.args.learn, epochs=5)
    losses = greedy.update(rows)
    assert error() < before and losses["policy_loss"] > 0.0
    greedy.close()
    explorer = Trainer(tiny(tmp_path / "explorer", epsilon=1.0, **kwargs))
    assert greedy_share(explorer) < 0.9  # uniform among the legal actions, mostly not the argmax
    explorer.close()
    _, resumed = straight_and_resumed(tmp_path / "resume", algorithm="dmc")
    resumed.close()
    assert load_agent(tmp_path / "resume" / "b" / "latest.pt").greedy  # played as argmax Q


def test_epsilon_greedy_entropy():
    assert epsilon_greedy_entropy(np.array([1, 1]), 0.5) == 0.0  # one legal action: no choice
    assert epsilon_greedy_entropy(np.array([5]), 0.0) == 0.0
    assert epsilon_greedy_entropy(np.array([4]), 1.0) == pytest.approx(np.log(4))
    p = 1 - 0.1 + 0.05
    assert epsilon_greedy_entropy(np.array([2]), 0.1) == pytest.approx(-p * np.log(p) - 0.05 * np.log(0.05))
