"""``check_env``: a public conformance checker of every face of ``rams_env`` (in the spirit of pgx's and
PettingZoo's ``api_test``).

    from rams_env.testing import check_env
    check_env(rams_env.env(variant="russian", num_players=5, episode="rams"))   # raises EnvCheckError on a failure

It finds the env's face (PettingZoo AEC, Gymnasium single or vector, the ``BatchedEnv`` Protocol, or an
SB3, TorchRL or RLlib adapter), plays a few deals through it and checks, by name:

- ``protocol``: the face has what its declared contract lists;
- ``seeding``: the same seed and actions replay bit for bit, another seed deals otherwise; ``bad_seed``: a seed
  of -1 or ``"x"`` raises :class:`~rams_env.rules.seeding.SeedError` (or another clear error, below);
- ``reference_play``: each game plays what the pure-Python reference engine plays from the same (per-game) seed,
  observation for observation and reward for reward; ``action_mask``: every mask is exactly the rules' legal moves;
- ``reward_sum``: ``reward="points"``: a seat's rewards over an episode are its score decrease; ``"win"``: the
  winners share 1;
- ``terminated_truncated``: ``terminated`` exactly at an episode's end, ``truncated`` never (Rams is bounded);
- ``autoreset``: the declared ``AutoresetMode`` (batched envs: ``SAME_STEP``) behaves as Gymnasium defines it;
- ``observation``: a vector env's dict observation holds the mask its info holds;
- ``deepcopy`` and ``pickle``: a copy of a mid-episode env plays on exactly as the original, sharing nothing.

Checks that cannot apply are listed in the report's ``skipped`` with the reason; ``checks=`` runs only the
checks named (:data:`CHECKS`). A bad seed may also be refused by a ``ValueError`` or ``TypeError`` whose message
says "seed", or by an exception of a type in ``seed_errors=`` (an adapter's library's own check). A face that
``check_env`` does not know is checked through a :class:`Driver` of its author's: ``check_env(env,
driver=MyDriver)`` (docs/extending.md, "Checking your own face"). The RLlib env runner
(``rams_env.integrations.rllib_selfplay``) is not an env and is not checked.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from .driver import Decisions, Driver, Outcome
from .report import CHECKS, CheckReport, EnvCheckError, select_checks

__all__ = [
    "CHECKS",
    "CheckReport",
    "Decisions",
    "Driver",
    "EnvCheckError",
    "Outcome",
    "check_env",
]

FACES = ("aec", "gym", "vector", "batched", "sb3", "torchrl_vector", "torchrl_selfplay", "torchrl_aec", "rllib")


def _class_names(env: Any) -> set[str]:
    return {cls.__name__ for cls in type(env).__mro__}


def face_of(env: Any) -> str:
    """Which face ``env`` is checked as (one of :data:`FACES`); ``TypeError`` for an object that is none."""
    names = _class_names(env)
    if "VecEnv" in names and hasattr(env, "step_async"):
        return "sb3"
    if "EnvBase" in names:
        if "PettingZooWrapper" in names:
            return "torchrl_aec"
        if hasattr(env, "games"):
            return "torchrl_selfplay"
        if hasattr(env, "venv"):
            return "torchrl_vector"
    if "MultiAgentEnv" in names and hasattr(env, "aec"):
        return "rllib"
    if "AECEnv" in names:
        return "aec"
    if "VectorEnv" in names or "VectorWrapper" in names:
        return "vector"
    if "Env" in names or "Wrapper" in names:
        return "gym"
    if hasattr(env, "num_games") and hasattr(env, "step"):
        return "batched"
    raise TypeError(
        f"check_env: {type(env).__name__} is no face of rams_env that check_env knows; check it through a driver: "
        "check_env(env, driver=MyDriver), MyDriver(env) implementing rams_env.testing.Driver "
        '(docs/extending.md, "Checking your own face")'
    )


def check_env(
    env: Any,
    checks: Iterable[str] | None = None,
    *,
    driver: Callable[[Any], Driver] | None = None,
    seed: int = 0,
    steps: int = 100,
    episode: str | None = None,
    reward: str | None = None,
    opponents: Any = None,
    seed_errors: tuple[type[BaseException], ...] = (),
    copies: bool = True,
    raise_on_failure: bool = True,
) -> CheckReport:
    """Check ``env`` against its declared face; raise :class:`EnvCheckError` naming every failed check.

    ``checks``: the names of the checks to run (of :data:`CHECKS`; None: every one that applies to the face;
    an unknown name is a ``ValueError``). ``driver``: a class (or function) making a :class:`Driver` of ``env``,
    for a face that check_env does not know. ``steps``: decisions (steps of every game) played per check, from
    ``reset(seed=seed)``; raise it to see more episodes end. ``episode`` and ``reward``: the env's, for faces
    that do not record them (``SubprocBatchedRamsEnv``, a ``RamsVectorEnv`` built directly); ``opponents``: a
    vector env's opponent spec, likewise. ``seed_errors``: exception types that refuse a bad seed clearly
    besides ``SeedError`` and a ``ValueError`` or ``TypeError`` that says "seed". ``copies=False`` leaves out
    the deepcopy and pickle checks. Returns the :class:`CheckReport` (passed, failed and skipped checks);
    with ``raise_on_failure=False`` it never raises for a failed check. The env is reset and stepped; close it
    yourself.
    """
    from . import faces

    selected = select_checks(checks)
    kwargs = dict(
        seed=seed,
        steps=steps,
        episode=episode,
        reward=reward,
        opponents=opponents,
        copies=copies,
        seed_errors=tuple(seed_errors),
    )
    if driver is not None:
        built = driver(env)
        report = CheckReport(face=f"{type(env).__name__} (driver {type(built).__name__})", checks=selected)
        faces.check_driver(report, built, **kwargs)
    else:
        face = face_of(env)
        report = CheckReport(face=f"{type(env).__name__} ({face})", checks=selected)
        getattr(faces, f"check_{face}")(report, env, **kwargs)
    if raise_on_failure:
        report.raise_if_failed()
    return report
