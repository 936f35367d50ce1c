"""How many of this machine's cores are free now: the torch threads a run starts with.

Torch threads that share a core with another busy process wait on each other at every operation's
barrier; on a 2-core machine beside two other CPU-bound processes, two threads made training ten
times slower than on the idle machine, one thread about twice (docs/training.md). So a run counts
the cores that are idle over a short sample of ``/proc/stat`` and never starts more busy threads
than there are free cores (at least one).
"""

from __future__ import annotations

import os
import time


def usable_cores() -> int:
    """The cores this process may run on (its affinity where the system tells it)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _cpu_times() -> tuple[int, int] | None:
    """``(idle, total)`` jiffies of all cores from ``/proc/stat``, or None where there is none."""
    try:
        with open("/proc/stat") as stat:
            fields = [int(x) for x in stat.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    return idle, sum(fields[:8])


def free_cores(sample_s: float = 0.5) -> int:
    """The cores idle over the next ``sample_s`` seconds, rounded, at least 1 and at most
    :func:`usable_cores` (all of them where ``/proc/stat`` cannot be read)."""
    usable = usable_cores()
    before = _cpu_times()
    if before is None:
        return usable
    time.sleep(sample_s)
    after = _cpu_times()
    if after is None or after[1] <= before[1]:
        return usable
    idle_share = (after[0] - before[0]) / (after[1] - before[1])
    cores = os.cpu_count() or usable
    return max(1, min(usable, round(idle_share * cores)))


class ThreadGovernor:
    """Torch threads that follow the load while a run trains: at each :meth:`adjust`, the cores the
    rest of the machine left idle since the last call, plus those this process used itself.

    Other work that starts in the middle of a run then takes threads away before they spin on each
    other, and gives them back when it ends. Changing the count changes no result beyond the rounding
    of a sum; ``--threads N`` fixes it for bit-exact runs.
    """

    def __init__(self, threads: int) -> None:
        self.threads = threads
        self.cores = os.cpu_count() or 1
        self.usable = usable_cores()
        self._last = self._sample()

    @staticmethod
    def _sample() -> tuple[tuple[int, int] | None, float, float]:
        return _cpu_times(), time.process_time(), time.monotonic()

    def adjust(self) -> int | None:
        """The new thread count when it should change, else None (also where nothing can be measured)."""
        (before, cpu0, wall0), now = self._last, self._sample()
        self._last = now
        after, cpu1, wall1 = now
        if before is None or after is None or after[1] <= before[1] or wall1 <= wall0:
            return None
        busy_cores = (1.0 - (after[0] - before[0]) / (after[1] - before[1])) * self.cores
        own_cores = (cpu1 - cpu0) / (wall1 - wall0)
        others = max(0.0, busy_cores - own_cores)
        threads = max(1, min(self.usable, int(self.cores - others + 0.5)))
        if threads == self.threads:
            return None
        self.threads = threads
        return threads
