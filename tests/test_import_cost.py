"""``import rams_env.rules`` loads the engine alone (no numba, no PettingZoo), and ``import rams_env``
still gives every public name and registers the Gymnasium id. Each in a fresh interpreter."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _run(code: str, *flags: str) -> subprocess.CompletedProcess[str]:
    """``code`` run by a fresh Python in the repository root (its ``rams_env`` first on the path)."""
    return subprocess.run(
        [sys.executable, *flags, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120, check=True
    )


def test_the_rules_engine_imports_without_numba_or_pettingzoo() -> None:
    code = (
        "import json, sys, rams_env.rules\n"
        "print(json.dumps(sorted(m for m in ('numba', 'pettingzoo', 'torch') if m in sys.modules)))"
    )
    done = _run(code, "-X", "importtime")
    assert json.loads(done.stdout) == []
    times = {}  # module -> cumulative microseconds, from -X importtime's lines on stderr
    for line in done.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            _, cumulative, name = (part.strip() for part in line.split("|"))
            if cumulative.isdigit():
                times[name] = int(cumulative)
    assert "numba" not in times and "pettingzoo" not in times
    assert times["rams_env.rules"] < 1_000_000  # well under a second, even on a busy machine


def test_import_rams_env_gives_every_public_name_and_registers_the_gymnasium_id() -> None:
    code = (
        "import rams_env, gymnasium\n"
        "assert 'rams_env/Rams-v1' in gymnasium.registry\n"
        "assert rams_env.card_name(rams_env.card_index('AS')) == 'AS' and int(rams_env.Action.KNOCK) >= 0\n"
        "assert rams_env.make_config('mattmar', 4) == rams_env.RulesConfig()\n"
        "assert rams_env.env is rams_env.rams_v1.env and rams_env.raw_env is rams_env.rams_v1.raw_env\n"
        "assert {'Action', 'Game', 'RamsEnv', 'env', 'raw_env'} <= set(dir(rams_env))\n"
        "from rams_env import *\n"
        "assert RamsEnv is rams_env.envs.RamsEnv and Phase is rams_env.rules.Phase\n"
        "env = gymnasium.make('rams_env/Rams-v1')\n"
        "env.reset(seed=0)\n"
        "assert env.action_masks().any()\n"  # the wrapper that the env's module lists on the spec
        "try:\n"
        "    rams_env.nothing\n"
        "except AttributeError as err:\n"
        "    assert 'nothing' in str(err)\n"
        "else:\n"
        "    raise AssertionError('rams_env.nothing')\n"
    )
    _run(code)


def test_the_registered_id_is_the_envs_own() -> None:
    from rams_env import gym_id
    from rams_env.envs import gym_env

    assert (gym_id.ENV_ID, gym_id.ENTRY_POINT) == (gym_env.ENV_ID, gym_env.ENTRY_POINT)
