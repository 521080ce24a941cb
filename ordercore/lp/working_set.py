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
one that comes back (its sign was wrong) is not fixed directly again.  Working columns that sit at
a bound, priced there, are set aside again once there are many; one that came back k times only
after 2^k consecutive pricings at its bound, so that within one solve no preference can go back
and forth more than log2(MAX_PRICING_ROUNDS) times (no cycling), yet none stays a column for good
(at p = 10^6, 139,253 such columns had stayed and a warm add took 0.56 s).  Should fixing make the
restricted LP infeasible, the engine lets fixed preferences in as columns instead.
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

ENTRY_NONZEROS, EVICTION_NONZEROS = 2_000_000, 1_200_000
"""The same two limits in matrix entries, for LPs with many rows (centers='all'): a batch is at most
ENTRY_NONZEROS / rows columns, the set-aside threshold EVICTION_NONZEROS / rows (the column limits
above apply up to 100 and 120 rows).  Each pivot prices every entry; u = 5,000, p = 20,000 with ~450
rows: 3.6 s with the column limits alone, 2.7 s with these."""

MAX_COMEBACKS = 20
"""Past this many comebacks a preference waits 2^20 pricings at a bound: in effect it stays."""

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
    comebacks: np.ndarray  # (p,) times let in again after being FIXED
    rounds_at_bound: np.ndarray  # (p,) consecutive pricings a working column sat at a bound, priced there
    fixed_sum: np.ndarray
    fixed_cost: float = 0.0

    @classmethod
    def start(cls, n_preferences: int, n_rows: int) -> WorkingSet:
        """Every preference a column when there are at most ``WORKING_SET_MIN``, else none."""
        whole = n_preferences <= WORKING_SET_MIN
        state = np.full(n_preferences, WORKING if whole else OUT, np.int8)
        working = np.arange(n_preferences) if whole else np.zeros(0, np.int64)
        counts = np.zeros(n_preferences, np.int8), np.zeros(n_preferences, np.int32)
        return cls(state, working, *counts, np.zeros(n_rows))

    def copy(self) -> WorkingSet:
        return replace(
            self,
            state=self.state.copy(),
            comebacks=self.comebacks.copy(),
            rounds_at_bound=self.rounds_at_bound.copy(),
            fixed_sum=self.fixed_sum.copy(),
        )

    @property
    def fixed(self) -> np.ndarray:
        return np.flatnonzero(self.state == FIXED)

    def append(self, n_new: int) -> np.ndarray:
        """New preferences at the end: columns when they fit one batch, else OUT until priced.
        Returns the new working ones (indices)."""
        first = self.state.size
        as_columns = n_new <= ENTRY_BATCH
        self.state = np.concatenate([self.state, np.full(n_new, WORKING if as_columns else OUT, np.int8)])
        self.comebacks = np.concatenate([self.comebacks, np.zeros(n_new, np.int8)])
        self.rounds_at_bound = np.concatenate([self.rounds_at_bound, np.zeros(n_new, np.int32)])
        new = np.arange(first, first + n_new) if as_columns else np.zeros(0, np.int64)
        self.working = np.concatenate([self.working, new])
        return new

    def keep(self, kept: np.ndarray) -> np.ndarray:
        """Drop the preferences where ``kept`` (p,) is False; returns the dropped working columns'
        positions (column order).  The caller takes dropped FIXED ones out of fixed_sum first."""
        dropped_columns = np.flatnonzero(~kept[self.working])
        renumber = np.cumsum(kept) - 1
        self.working = renumber[self.working[kept[self.working]]]
        self.state, self.comebacks, self.rounds_at_bound = (
            self.state[kept],
            self.comebacks[kept],
            self.rounds_at_bound[kept],
        )
        return dropped_columns

    def priced_wrong(self, shortfall: np.ndarray, n_rows: int, first: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """(let in as columns, fix at the upper bound): preference indices priced wrong by
        ``shortfall`` (p,), OUT but violated or FIXED but satisfied, looking from ``first`` on (those
        before were priced right at this same shortfall).  At most ``ENTRY_BATCH`` (and
        ``ENTRY_NONZEROS`` / n_rows) become columns, nearest their margin first; the other violated
        OUT ones that never came back are fixed."""
        state, priced = self.state[first:], shortfall[first:]
        wrong = first + np.flatnonzero(
            ((state == OUT) & (priced > PRICING_TOLERANCE)) | ((state == FIXED) & (priced < -PRICING_TOLERANCE))
        )
        order = np.argsort(np.abs(shortfall[wrong]), kind="stable")
        batch = min(ENTRY_BATCH, ENTRY_NONZEROS // n_rows)
        columns, rest = wrong[order[:batch]], wrong[order[batch:]]
        to_fix = rest[(self.state[rest] == OUT) & (self.comebacks[rest] == 0)]
        self.came_back(columns[self.state[columns] == FIXED])
        return columns, to_fix

    def came_back(self, indices: np.ndarray) -> None:
        """FIXED preferences ``indices`` are let in again as columns: count it."""
        self.comebacks[indices] = np.minimum(self.comebacks[indices] + 1, MAX_COMEBACKS)
        self.rounds_at_bound[indices] = 0

    def at_bounds(self, column_value: np.ndarray, upper: np.ndarray, shortfall: np.ndarray, n_rows: int):
        """(to OUT, to FIXED): working column positions (column order) whose value sits at 0 or at
        its upper bound as the shortfall prices it, once there are more than ``EVICTION_SIZE`` (or
        ``EVICTION_NONZEROS`` / n_rows) working columns; one that came back k times only after
        2^k consecutive such pricings (counted here).  column_value, upper: (k,)."""
        priced = shortfall[self.working]
        at_zero = (column_value <= 0.0) & (priced < -PRICING_TOLERANCE)
        at_upper = (column_value >= upper) & (priced > PRICING_TOLERANCE)
        rounds = np.where(at_zero | at_upper, self.rounds_at_bound[self.working] + 1, 0)
        self.rounds_at_bound[self.working] = rounds
        if self.working.size <= min(EVICTION_SIZE, EVICTION_NONZEROS // n_rows):
            return np.zeros(0, np.int64), np.zeros(0, np.int64)
        patient = rounds >= np.left_shift(1, self.comebacks[self.working].astype(np.int64))
        return np.flatnonzero(at_zero & patient), np.flatnonzero(at_upper & patient)
