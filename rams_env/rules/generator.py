"""The random generator the engines shuffle with: the size of its state, which both twins keep.

The Python engine draws from ``random.Random`` (CPython's Mersenne Twister); its compiled twin
(:mod:`rams_env.compiled.mt`) runs the same generator on an int64 array of this many words, so that a
seed gives the same deals in both.
"""

from __future__ import annotations

MT_STATE_SIZE = 625  # words of a Mersenne Twister state (random.Random's): 624 and the position
