"""Which preferences the dual LP holds as columns: a working set grown by pricing every preference.

At an optimum of the dual of LP (13) most preferences sit at a bound of their box
0 <= mu_q <= lambda2 w_q / p: at 0 when the preference holds with room to spare (shortfall
d~_q - (f~_i - f~_j) < 0), at the upper bound when it is violated (shortfall > 0); at most m + 1
columns are basic.  A column at a bound needs no place in the LP: one at 0 is left out (OUT), one
at its upper bound is folded into the row bounds and the objective as a constant (FIXED).  The
engine solves the LP over the WORKING columns, prices every preference from the primal it gets
(O(p) once f~ is known at the referenced rows) and lets in those priced wrong: OUT but violated,
FIXED but satisfied.  When none remain, the restricted optimum is an optimum of the whole LP: the
left-out columns at their bounds make it feasible for the whole dual, and its primal, evaluated
over all preferences, has the same objective (the engine's duality-gap certificate checks exactly
this on the final answer).

Violated OUT preferences far from their margin are FIXED at once rather than let in as columns, so
that hundreds of thousands of violated preferences cost a shift of the row bounds, not columns;
one that comes back (its sign was wrong) is never set aside again, which rules out cycling.  Should
fixing make the restricted LP infeasible, the engine lets those preferences in as columns instead.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

OUT, WORKING, FIXED = 0, 1, 2

WORKING_SET_MIN = 2000
"""With at most this many preferences every one is a column: the whole LP solves in milliseconds
(measured: 10,000 preferences on California, 0.36 s all at once, 0.23 s by working set)."""

ENTRY_BATCH = 20_000
"""Preferences let in as columns per round at most, those nearest their margin first (the likeliest
to be basic); the other violated OUT preferences are FIXED.  p = 10^6: 9.9 s with 20,000, 55 s with
100,000 (each HiGHS pivot prices every column)."""

EVICTION_SIZE = 10_000
"""Working columns above which those at a bound (and priced at it) are set aside again."""

PRICING_TOLERANCE = 1e-9
"""A shortfall within this of 0 (scaled units) prices as right wherever the preference is: HiGHS's
own dual feasibility tolerance, so the working-set optimum is as exact as an all-at-once solve."""


@dataclass
class WorkingSet:
    """The state of every preference q (p,) and the working columns (k,) in the LP's column order.

    fixed_sum: (m + 1,) sum over FIXED q of w_q times its column [u_q; K(x_i, c) - K(x_j, c)]^T;
    fixed_cost: sum over FIXED q of w_q d~_q.  Times lambda2 / p they are the rows' shift and the
    objective's constant (a FIXED mu_q sits at lambda2 w_q / p)."""

    state: np.ndarray  # (p,) OUT, WORKING or FIXED
    working: np.ndarray  # (k,) preference indices, column order
    returned: np.ndarray  # (p,) let in again after being set aside: never set aside again
    fixed_sum: np.ndarray
    fixed_cost: float = 0.0

    @classmethod
    def start(cls, n_preferences: int, n_rows: int) -> WorkingSet:
        """Every preference a column when there are at most ``WORKING_SET_MIN``, else none."""
        whole = n_preferences <= WORKING_SET_MIN
        state = np.full(n_preferences, WORKING if whole else OUT, np.int8)
        working = np.arange(n_preferences) if whole else np.zeros(0, np.int64)
        return cls(state, working, np.zeros(n_preferences, bool), np.zeros(n_rows))

    def copy(self) -> WorkingSet:
        return replace(self, state=self.state.copy(), returned=self.returned.copy(), fixed_sum=self.fixed_sum.copy())

    @property
    def fixed(self) -> np.ndarray:
        return np.flatnonzero(self.state == FIXED)

    def append(self, n_new: int) -> np.ndarray:
        """New preferences at the end: columns when they fit one batch, else OUT until priced.
        Returns the new working ones (indices)."""
        first = self.state.size
        as_columns = n_new <= ENTRY_BATCH
        self.state = np.concatenate([self.state, np.full(n_new, WORKING if as_columns else OUT, np.int8)])
        self.returned = np.concatenate([self.returned, np.zeros(n_new, bool)])
        new = np.arange(first, first + n_new) if as_columns else np.zeros(0, np.int64)
        self.working = np.concatenate([self.working, new])
        return new

    def keep(self, kept: np.ndarray) -> np.ndarray:
        """Drop the preferences where ``kept`` (p,) is False; returns the dropped working columns'
        positions (column order).  The caller takes dropped FIXED ones out of fixed_sum first."""
        dropped_columns = np.flatnonzero(~kept[self.working])
        renumber = np.cumsum(kept) - 1
        self.working = renumber[self.working[kept[self.working]]]
        self.state, self.returned = self.state[kept], self.returned[kept]
        return dropped_columns

    def priced_wrong(self, shortfall: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(let in as columns, fix at the upper bound): preference indices priced wrong by
        ``shortfall`` (p,), OUT but violated or FIXED but satisfied.  At most ``ENTRY_BATCH`` become
        columns, nearest their margin first; the other violated OUT ones that never came back are
        fixed."""
        wrong = np.flatnonzero(
            ((self.state == OUT) & (shortfall > PRICING_TOLERANCE))
            | ((self.state == FIXED) & (shortfall < -PRICING_TOLERANCE))
        )
        order = np.argsort(np.abs(shortfall[wrong]), kind="stable")
        columns, rest = wrong[order[:ENTRY_BATCH]], wrong[order[ENTRY_BATCH:]]
        to_fix = rest[(self.state[rest] == OUT) & ~self.returned[rest]]
        self.returned[columns[self.state[columns] == FIXED]] = True
        return columns, to_fix

    def at_bounds(self, column_value: np.ndarray, upper: np.ndarray, shortfall: np.ndarray):
        """(to OUT, to FIXED): working column positions (column order) whose value sits at 0 or at
        its upper bound as the shortfall prices it, once there are more than ``EVICTION_SIZE``
        working columns; preferences that came back stay.  column_value, upper: (k,)."""
        if self.working.size <= EVICTION_SIZE:
            return np.zeros(0, np.int64), np.zeros(0, np.int64)
        priced = shortfall[self.working]
        movable = ~self.returned[self.working]
        at_zero = movable & (column_value <= 0.0) & (priced < -PRICING_TOLERANCE)
        at_upper = movable & (column_value >= upper) & (priced > PRICING_TOLERANCE)
        return np.flatnonzero(at_zero), np.flatnonzero(at_upper)
