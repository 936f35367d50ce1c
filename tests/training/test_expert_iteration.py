"""Expert iteration (training/expert_iteration.py): rounds of distill's collection and training, each round's
search over the network of the round before, and a stopped run resumed to the files of one never stopped."""

from __future__ import annotations

import json
import shutil
import zipfile

import pytest
import torch

from rams_env import zoo
from rams_env.agents import load_agent
from rams_env.agents.specs import agent_source, build_agent
from rams_env.obs.encoding import OBS_SIZE
from rams_env.policy.checkpoint import load_checkpoint, make_checkpoint, save_checkpoint
from rams_env.policy.network import PolicyNet
from rams_env.rules import make_config
from rams_env.rules.actions import NUM_ACTIONS
from rams_training import distill
from rams_training import expert_iteration as ei

CONFIG = make_config("mattmar", 4)
SEARCH = "simulations=3,confidence=0,objective=win,phases=knock+play"  # confidence 0: it often overrules


@pytest.fixture
def start(tmp_path):
    """A tiny untrained network: round 0's."""
    torch.manual_seed(0)
    path = tmp_path / "tiny.pt"
    save_checkpoint(path, make_checkpoint(PolicyNet(OBS_SIZE, NUM_ACTIONS, (16,)), CONFIG))
    return path


def argv(out, start, rounds):
    """A run of a few dozen decisions a round: three shards of 8, one held out."""
    sizes = ["--decisions-per-round", "24", "--shard", "8", "--held-out", "0.3", "--epochs", "2", "--lr", "1e-3"]
    run = ["--variant", "mattmar", "--start", str(start), "--search", SEARCH, "--rounds", str(rounds)]
    return [*run, *sizes, "--out", str(out)]


def weights_equal(net, path):
    model = load_checkpoint(path)["model"]
    return all(torch.equal(value, model[key]) for key, value in net.state_dict().items())


def test_the_second_round_plays_and_searches_over_the_first_rounds_network(tmp_path, start, monkeypatch):
    seen = []  # (expert spec, student network) of each shard collected
    real = distill.collect_shard

    def spy(config, student, expert, decisions, seed):
        seen.append((expert, student.net))
        return real(config, student, expert, decisions, seed)

    monkeypatch.setattr(distill, "collect_shard", spy)
    out = tmp_path / "run"
    assert ei.main(argv(out, start, 2)) == 0
    first = out / "round-0" / "net.pt"
    spec = ei.expert_spec(SEARCH, str(first))
    assert f"base={first}" in spec and f"rollout_policy={first}" in spec
    assert [s for s, _ in seen] == [ei.expert_spec(SEARCH, str(start))] * 3 + [spec] * 3
    assert json.loads((out / "round-1" / "data" / "collection.json").read_text())["expert"] == spec
    assert all(weights_equal(net, first) for _, net in seen[3:]) and not weights_equal(seen[0][1], first)
    search = build_agent(agent_source(spec, CONFIG), 0)  # the round's search: its base and rollouts are round 0's
    assert weights_equal(search.base.net, first) and weights_equal(search.rollout_agent.net, first)
    report = json.loads((out / "report.json").read_text())
    assert [r["round"] for r in report["rounds"]] == [0, 1]
    for record in report["rounds"]:
        assert (record["decisions"], record["trained_on"], record["held_out"]) == (24, 16, 8)
        assert len(record["losses"]) == 2 and 0 <= record["agreement"]["trained"] <= 1
    assert report["rounds"][0]["seed"] != report["rounds"][1]["seed"]
    assert load_agent(out / "round-1" / "net.pt", expect_config=CONFIG).variant == "mattmar"


def snapshot(out):
    """Every file of a run folder by its path: its bytes, a shard's the bytes of each member (a zip header
    holds the time it was written)."""
    files = {}
    for path in sorted(p for p in out.rglob("*") if p.is_file()):
        if path.suffix == ".npz":
            with zipfile.ZipFile(path) as z:
                files[str(path.relative_to(out))] = {name: z.read(name) for name in z.namelist()}
        else:
            files[str(path.relative_to(out))] = path.read_bytes()
    return files


class Stop(KeyboardInterrupt):
    """A stop (^C) planted in the run."""


def stop_at(monkeypatch, module, name, call):
    """Make ``module.name`` stop the run at its ``call``-th call from now (1: the first)."""
    real, calls = getattr(module, name), []

    def stopping(*args, **kwargs):
        calls.append(1)
        if len(calls) == call:
            raise Stop
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, stopping)


def test_a_run_stopped_anywhere_and_run_again_ends_with_the_files_of_one_never_stopped(tmp_path, start, monkeypatch):
    out = tmp_path / "run"
    assert ei.main(argv(out, start, 2)) == 0
    never_stopped = snapshot(out)
    shutil.rmtree(out)  # the same folder again: the search's specs name its files
    assert ei.main(argv(out, start, 1)) == 0  # stopped after round 0
    with monkeypatch.context() as m:
        stop_at(m, distill, "collect_shard", 2)  # in round 1's collection, its first shard written
        with pytest.raises(Stop):
            ei.main(argv(out, start, 2))
    assert len(list((out / "round-1" / "data").glob("shard-*.npz"))) == 1
    with monkeypatch.context() as m:
        stop_at(m, distill, "fine_tune", 1)  # in round 1's training
        with pytest.raises(Stop):
            ei.main(argv(out, start, 2))
    with monkeypatch.context() as m:
        stop_at(m, ei, "write_state", 1)  # round 1's net.pt written, its round not yet recorded
        with pytest.raises(Stop):
            ei.main(argv(out, start, 2))
    assert (out / "round-1" / "net.pt").exists()
    assert len(json.loads((out / "state.json").read_text())["rounds"]) == 1
    collected = []
    monkeypatch.setattr(distill, "collect_shard", _counting(distill.collect_shard, collected))
    assert ei.main(argv(out, start, 2)) == 0
    assert collected == []  # every shard was kept
    assert snapshot(out) == never_stopped


def _counting(function, calls):
    """``function``, each call appended to ``calls``."""

    def counted(*args, **kwargs):
        calls.append(1)
        return function(*args, **kwargs)

    return counted


def test_a_resume_with_other_options_is_refused_by_name(tmp_path, start):
    out = tmp_path / "run"
    args = ei.parse(ei.ExpertIterationArgs, argv(out, start, 1), ei.PROG, "")
    ei.write_state(out, {**ei.run_options(args), "epochs": 5}, [])
    with pytest.raises(SystemExit, match="--epochs"):
        ei.main(argv(out, start, 1))


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (["--rounds", "0"], "--rounds"),
        (["--search", "simulations=2,base=heuristic"], "--search sets base"),
        (["--search", "simulations=2,time_limit=1"], "--search sets time_limit"),
        (["--search", "simulations=-1"], "--search"),
        (["--held-out", "0.9"], "--held-out 0.9 keeps all 3 shards"),
        (["--start", "mattmar"], "--start 'mattmar'"),  # the flagship ensemble: not one network to train
    ],
)
def test_a_bad_option_is_one_error_line_naming_it(tmp_path, start, change, named, capsys):
    with pytest.raises(SystemExit) as stop:
        ei.main([*argv(tmp_path / "run", start, 2), *change])
    assert stop.value.code == 2
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert error.startswith(f"{ei.PROG}: error: ") and named in error
    assert not (tmp_path / "run").exists()


def test_by_default_the_search_is_the_presets_named_search_over_its_network(tmp_path):
    args = ei.ExpertIterationArgs(variant="mattmar", out=str(tmp_path / "run"))
    spec = zoo.agent_spec(zoo.named_agent("mattmar-search"))
    items = dict(item.split("=") for item in spec.removeprefix("search:").split(","))
    assert args.start == items["rollout_policy"]
    ours = dict(item.split("=") for item in ei.expert_spec(args.search, args.start).removeprefix("search:").split(","))
    assert ours == {**items, "base": args.start}
