"""The user's ``time_limit`` over a whole solve: every HiGHS run and every round of pricing."""

from __future__ import annotations

import time

from ordercore.exceptions import SolverTimeLimitError


class Deadline:
    """``seconds`` from now (None: no limit).  ``check`` raises ``SolverTimeLimitError`` once it has
    passed; ``remaining`` is what a HiGHS run may still take."""

    def __init__(self, seconds: float | None):
        self.seconds = seconds
        self.end = None if seconds is None else time.perf_counter() + float(seconds)

    def remaining(self) -> float | None:
        return None if self.end is None else max(self.end - time.perf_counter(), 0.0)

    def check(self) -> None:
        if self.end is not None and time.perf_counter() >= self.end:
            raise self.error()

    def error(self) -> SolverTimeLimitError:
        return SolverTimeLimitError(
            f"the LP solve reached time_limit={self.seconds:g} s before the optimum; raise time_limit"
            " or give fewer preferences (the last fit is kept)"
        )
