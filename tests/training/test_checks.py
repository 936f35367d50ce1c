"""The training scripts' options (training/checks.py): every bad option is one error line naming the
option, exit status 2, before any collection, allocation or file write."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from rams_env.obs.encoding import OBS_SIZE
from rams_env.policy.network import PolicyNet
from rams_env.rules import make_config
from rams_env.rules.actions import NUM_ACTIONS
from rams_env.rules.config import ConfigError
from rams_env.rules.seeding import SeedError, seed_error
from rams_training import checks, distill, fit_equity, improve

EXPERT = "search:simulations=1,base=mattmar-4p,opponent_model=heuristic"


def refused(main, argv, capsys, option: str) -> str:
    """Run ``main(argv)``, expecting exit status 2 and an error line naming ``option``; returns that line."""
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    line = err[-1]
    assert "error:" in line and option in line, err
    assert "Traceback" not in "\n".join(err)
    return line


@pytest.mark.parametrize(
    "extra, option",
    [
        (["--hidden", "0"], "--hidden"),
        (["--hidden", "64,-3"], "--hidden"),
        (["--hidden", "100000000,100000000"], "--hidden"),  # refused by count, never allocated
        (["--lr", "0"], "--lr"),
        (["--lr", "nan"], "--lr"),
        (["--lr", "-1e-3"], "--lr"),
        (["--scale", "nan"], "--scale"),
        (["--scale", "inf"], "--scale"),
        (["--explore", "nan"], "--explore"),
        (["--random-start", "1.5"], "--random-start"),
        (["--held-out", "nan"], "--held-out"),
        (["--seed", "-1"], "--seed"),
        (["--seed", str(2**64)], "--seed"),
        (["--threads", "0"], "--threads"),
        (["--epochs", "-2"], "--epochs"),
        (["--device", "tpu"], "--device"),
        (["--variant", "nosuch"], "--variant"),
        (["--num-players", "8"], "--num-players"),
        (["--base", "no-such-model"], "no-such-model"),
    ],
)
def test_improve_refuses_each_bad_option_by_name(tmp_path, capsys, extra, option):
    out = tmp_path / "run"
    refused(improve.main, ["--variant", "mattmar", "--out", str(out), *extra], capsys, option)
    assert not out.exists()  # nothing written


def test_a_network_too_large_is_refused_with_the_limit(tmp_path, capsys):
    argv = ["--variant", "mattmar", "--out", str(tmp_path / "r"), "--hidden", "8000,8000"]
    line = refused(improve.main, argv, capsys, "--hidden")
    assert f"{checks.MAX_PARAMETERS:,}" in line


@pytest.mark.parametrize(
    "change, option",
    [
        ({"--student": "no-such-model"}, "--student"),
        ({"--student": "russian-4p"}, "--student"),  # trained for other rules
        ({"--expert": "no-such-agent"}, "--expert"),
        ({"--expert": "search:simulations=-1"}, "--expert"),
        ({"--expert": "search:nonsense=1"}, "--expert"),
        ({"--variant": "nosuch"}, "--variant"),
        ({"--num-players": "2"}, "--num-players"),
        ({"--lr": "0"}, "--lr"),
        ({"--lr": "nan"}, "--lr"),
        ({"--kl": "nan"}, "--kl"),
        ({"--kl": "-1"}, "--kl"),
        ({"--seed": "-5"}, "--seed"),
        ({"--decisions": "0"}, "--decisions"),
        ({"--device": "gpu"}, "--device"),
    ],
)
def test_distill_refuses_each_bad_option_by_name(tmp_path, capsys, change, option):
    out = tmp_path / "run"
    options = {"--student": "mattmar-4p", "--variant": "mattmar", "--expert": EXPERT, "--out": str(out), **change}
    refused(distill.main, [x for kv in options.items() for x in kv], capsys, option)
    assert not out.exists()


@pytest.mark.parametrize(
    "extra, option",
    [
        (["--train", "0"], "--train"),
        (["--test", "-1"], "--test"),
        (["--seed", "-1"], "--seed"),
        (["--smooth", "nan"], "--smooth"),
        (["--ridge", "-1"], "--ridge"),
        (["--only", "mattmar-9p"], "--only"),
    ],
)
def test_fit_equity_refuses_each_bad_option_by_name(capsys, monkeypatch, extra, option):
    def run(args):  # never fit (it would rewrite the shipped data)
        raise AssertionError("a bad option reached the fit")

    monkeypatch.setattr(fit_equity, "run", run)
    refused(fit_equity.main, extra, capsys, option)


def test_the_parameter_count_is_the_networks():
    for widths in [(8,), (16, 4), (3, 5, 7)]:
        net = PolicyNet(OBS_SIZE, NUM_ACTIONS, widths)
        assert checks.network_parameters(OBS_SIZE, NUM_ACTIONS, widths) == sum(p.numel() for p in net.parameters())
    assert checks.network_size("hidden", (256, 256)) < checks.MAX_PARAMETERS


def test_each_check_names_the_option():
    with pytest.raises(checks.OptionError, match=r"^--some-option"):
        checks.device("some_option", "tpu")
    with pytest.raises(checks.OptionError, match=r"^--some-option"):
        checks.known("some_option", ["x"], ["y"])
    with pytest.raises(checks.OptionError, match=r"^--some-option"):
        checks.network_size("some_option", (10**5, 10**5))


def test_seeds_follow_the_one_seed_rule_with_its_message(tmp_path, capsys):
    """Every script's seed is checked by rams_env.rules.seeding.check_seed: any seed below 2**64 is taken."""
    line = refused(
        improve.main, ["--variant", "mattmar", "--out", str(tmp_path / "r"), "--seed", "-1"], capsys, "--seed"
    )
    assert str(seed_error(-1, "--seed")) in line
    args = improve.ImproveArgs(variant="mattmar", out=str(tmp_path / "r"), seed=2**64 - 1)
    assert args.seed == 2**64 - 1
    assert fit_equity.Args(seed=2**40).seed == 2**40
    with pytest.raises(SeedError, match=r"^--seed must be a non-negative int below 2\*\*64"):
        fit_equity.Args(seed=2**64)


def test_the_rules_check_names_the_option_by_the_errors_type_not_its_text():
    with pytest.raises(checks.OptionError, match=r"^--variant: unknown variant 'players'"):
        checks.rules("players", 4)  # the word "player" in the text names no option
    with pytest.raises(checks.OptionError, match=r"^--num-players: invalid rule option num_players=9"):
        checks.rules("mattmar", 9)
    with pytest.raises(ConfigError) as err:
        make_config("mattmar", 4, nonsense=1)
    assert err.value.option == "nonsense"
    assert pickle.loads(pickle.dumps(err.value)).option == "nonsense"


def test_the_checks_take_good_values():
    assert checks.device("device", "cpu") == "cpu"
    assert checks.rules("mattmar", 4).num_players == 4
    assert improve.ImproveArgs(variant="mattmar", out="r", held_out=0.0, seed=np.int64(3)).held_out == 0.0


@pytest.mark.parametrize(
    "extra, option",
    [
        (["--decks", "0"], "--decks"),
        (["--deal-decks", "-1"], "--deal-decks"),
        (["--workers", "0"], "--workers"),
        (["--checkpoint", "worst"], "--checkpoint"),
    ],
)
def test_export_refuses_each_bad_option_by_name(tmp_path, capsys, extra, option):
    from rams_training import export

    refused(export.main, ["--run-dir", str(tmp_path), "--name", "x", "--command", "c", *extra], capsys, option)
