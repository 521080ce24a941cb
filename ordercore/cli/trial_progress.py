"""One line on standard error per finished trial, with the time the rest will take at this run's pace."""

from __future__ import annotations

import sys
import time


class TrialProgress:
    """``gp-table1 abalone: trial 7 done in 312 s CPU; 9 of 20 trials done, about 40 min left``.

    The time left is the wall time since it was made per trial finished since, times the
    trials left (trials taken from a progress file do not count: they took no time here)."""

    def __init__(self, label: str, stream=None, clock=time.perf_counter):
        self.label, self.stream, self.clock = label, stream, clock
        self.start, self.finished_here = clock(), 0

    def __call__(self, trial: int, cpu_seconds: float, done: int, total: int) -> None:
        self.finished_here += 1
        left = (self.clock() - self.start) / self.finished_here * (total - done)
        estimate = f", about {_duration(left)} left" if done < total else ""
        stream = self.stream or sys.stderr
        stream.write(
            f"{self.label}: trial {trial} done in {cpu_seconds:.0f} s CPU; {done} of {total} trials done{estimate}\n"
        )
        stream.flush()


def _duration(seconds: float) -> str:
    """``45 s``, ``40 min`` or ``2.5 h``."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
