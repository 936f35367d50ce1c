"""The seed rule: one check and one error wherever a seed enters (engines, agents, envs, evaluation).

Seeds follow Gymnasium's rule (``gymnasium.utils.seeding.np_random``): a non-negative int or None,
here also below 2**64 (the compiled generator is seeded from two 32-bit words; its state size is
:data:`rams_env.rules.generator.MT_STATE_SIZE`). :func:`check_seed` is the one check,
:class:`SeedError` its one error.
"""

from __future__ import annotations

import operator
from typing import Any

SEED_LIMIT = 2**64  # seeds are below this


class SeedError(TypeError, ValueError):
    """A seed that is not a non-negative int below 2**64 (nor None where None is taken).

    Both a ``TypeError`` and a ``ValueError``, so that callers catching either (as Gymnasium's and
    numpy's seed checks raise one or the other) catch it.
    """


def seed_error(seed: Any, what: str = "seed") -> SeedError:
    """The one message of a bad seed."""
    return SeedError(f"{what} must be a non-negative int below 2**64, got {seed!r}")


def check_seed(seed: Any, what: str = "seed") -> int | None:
    """``seed`` as a Python int (numpy integers taken, bools refused), or None; else :class:`SeedError`."""
    if seed is None:
        return None
    if isinstance(seed, bool):
        raise seed_error(seed, what)
    try:
        value = operator.index(seed)
    except TypeError:
        raise seed_error(seed, what) from None
    if not 0 <= value < SEED_LIMIT:
        raise seed_error(seed, what)
    return value


def require_seed(seed: Any, what: str = "seed") -> int:
    """:func:`check_seed` where a seed must be given (None refused with the same message)."""
    value = check_seed(seed, what)
    if value is None:
        raise seed_error(seed, what)
    return value


def wrap_seed(value: int, bits: int = 64) -> int:
    """A seed derived by arithmetic (``seed * 1000 + k``) kept in range: ``value`` modulo ``2**bits``, so
    that every seed :func:`check_seed` takes works, and the seeds that already fit keep their value
    (``bits=32`` for libraries that seed numpy's legacy generator, which takes 32 bits)."""
    return int(value) % (1 << bits)
