"""CPython's random generator (MT19937 with ``random.Random``'s seeding and ``_randbelow``),
compiled, so that a compiled game shuffles exactly as ``Game(config, seed)`` does."""

from __future__ import annotations

import numpy as np

from .compiler import jit


# ----------------------------------------------------------------------------- CPython's random
# MT19937 as CPython's _randommodule.c runs it: ``mt[0:624]`` the state, ``mt[624]`` the index.
def _init_genrand(seed: int) -> np.ndarray:
    mt = [seed]
    for i in range(1, 624):
        mt.append((1812433253 * (mt[-1] ^ (mt[-1] >> 30)) + i) & 0xFFFFFFFF)
    return np.array(mt, np.int64)


MT_START = _init_genrand(19650218)  # init_by_array starts every seeding from this state


@jit
def mt_seed(mt: np.ndarray, seed: int) -> None:
    """``random.Random(seed)`` for a non-negative int below 2**64 (init_by_array of its words)."""
    mask = np.int64(0xFFFFFFFF)
    for k in range(624):
        mt[k] = MT_START[k]
    low, high = seed & mask, (seed >> 32) & mask
    two_words = high != 0
    i, j = 1, 0
    prev = mt[0]
    for _ in range(624):
        key = high if j else low
        prev = ((mt[i] ^ (((prev ^ (prev >> 30)) * 1664525) & mask)) + key + j) & mask
        mt[i] = prev
        i += 1
        j = 1 - j if two_words else 0
        if i >= 624:
            mt[0] = prev
            i = 1
    for _ in range(623):
        prev = ((mt[i] ^ (((prev ^ (prev >> 30)) * 1566083941) & mask)) - i) & mask
        mt[i] = prev
        i += 1
        if i >= 624:
            mt[0] = prev
            i = 1
    mt[0] = 0x80000000
    mt[624] = 624


@jit
def mt_next(mt: np.ndarray) -> int:
    """The next 32-bit output (genrand_uint32)."""
    if mt[624] >= 624:
        for k in range(623):
            y = (mt[k] & 0x80000000) | (mt[k + 1] & 0x7FFFFFFF)
            mt[k] = mt[k + 397 if k < 227 else k - 227] ^ (y >> 1) ^ (0x9908B0DF if y & 1 else 0)
        y = (mt[623] & 0x80000000) | (mt[0] & 0x7FFFFFFF)
        mt[623] = mt[396] ^ (y >> 1) ^ (0x9908B0DF if y & 1 else 0)
        mt[624] = 0
    y = mt[mt[624]]
    mt[624] += 1
    y ^= y >> 11
    y ^= (y << 7) & 0x9D2C5680
    y ^= (y << 15) & 0xEFC60000
    y ^= y >> 18
    return y


@jit
def mt_randbelow(mt: np.ndarray, n: int) -> int:
    """``random.Random._randbelow(n)``: getrandbits(n.bit_length()) until below n (n < 2**32)."""
    k = 0
    while (1 << k) <= n:
        k += 1
    r = mt_next(mt) >> (32 - k)
    while r >= n:
        r = mt_next(mt) >> (32 - k)
    return r


@jit
def mt_bits63(mt: np.ndarray) -> int:
    """``random.Random.getrandbits(63)``."""
    low = mt_next(mt)
    high = mt_next(mt) >> 1
    return low | (high << 32)
