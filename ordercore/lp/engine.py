"""Solving the order-preference LP: cold fits, warm re-solves as preferences come and go, and a
duality-gap certificate on every answer.

The LP holds the working preferences as columns (``preference_columns.py``) and folds the others in
at a bound; each solve is completed by pricing every preference (``working_set.py``; while f stays put,
those added since: ``PreferenceColumns.priced_shortfall``) and, with centers='all', every candidate
center (``center_set.py``), and ends with the duality-gap certificate (``solution.py``): the primal
objective (9) over all preferences against HiGHS's dual objective.  A warm solve that fails the
certificate is redone cold; a cold one that fails raises ``SolverNumericalError``.
"""

from __future__ import annotations

import copy
import dataclasses
import time
from collections.abc import Callable
from contextlib import contextmanager, suppress

import numpy as np

from ordercore.exceptions import SolverError, SolverNumericalError, SolverTimeLimitError
from ordercore.lp.basis import Basis, basic_solution
from ordercore.lp.center_set import KernelSum, violated_centers
from ordercore.lp.deadline import Deadline
from ordercore.lp.highs import COLD_ATTEMPTS, HighsDualLP, HighsResult, InfeasibleLPError
from ordercore.lp.kernel_rows import KernelRowCache
from ordercore.lp.preference_columns import PreferenceColumns, Priced
from ordercore.lp.problem import (
    DualLP,
    TargetScaling,
    floor_small_entries,
    labeled_block,
    preference_upper,
    primal_objective,
)
from ordercore.lp.solution import LPSolution, check_duality_gap
from ordercore.lp.working_set import ENTRY_BATCH, FIXED, OUT, WORKING, WorkingSet
from ordercore.preferences import PreferenceSet

HOT_ITERATION_FACTOR, HOT_ITERATION_SLACK = 2, 50
"""A hot start may take at most 2 x (pivots of the last cold solve) + 50 pivots; past that a cold
solve is cheaper (measured: after a tenfold change of lambda2 a hot start needed 16606 pivots where
a cold solve needed 78), so the engine stops it and solves cold."""

CENTERS = ("labeled", "all")

MAX_PRICING_ROUNDS = 500
"""Rounds of pricing and re-solving one solve may take (p = 10^6 on California: 12)."""

Kernel = Callable[[np.ndarray, np.ndarray], np.ndarray]

ROLLED_BACK = ("preferences", "center_rows", "problem", "working", "_basis", "lambda1_scaled", "lambda2")
"""What a failed edit restores (``_rollback_on_failure``)."""


class IncrementalOrderPreferenceLP:
    """LP (13) over fixed data X and labels, whose preferences can be added and removed with
    warm re-solves that reach the same optimum as a cold solve on the final set.

    X: (n, n_features); labeled: (l,) row indices of X; y: (l,) their targets (units of y);
    kernel(A, B) -> K(A, B).  ``centers`` 'labeled' expands f over the labeled rows (seed 001
    eq. (8)); 'all' also over every row a preference compares (the full representer theorem).
    ``problem`` is the LP as arrays; the HiGHS instance mirrors it edit for edit.  ``_columns`` indexes
    the preferences over the rows they compare (``PreferenceColumns``).

    The LP sees K / kernel_scale and lambda1 / kernel_scale, kernel_scale = max |K(x_L, x_L)|: the
    same problem (alpha = alpha' / kernel_scale), with matrix entries near 1 whatever the kernel's
    units (a poly kernel on raw features reaches 1e12).
    """

    def __init__(
        self,
        X,
        labeled,
        y,
        kernel: Kernel,
        *,
        lambda1,
        lambda2,
        epsilon=0.0,
        centers="labeled",
        method="dual",
        time_limit=None,
    ):
        if centers not in CENTERS:
            raise ValueError(f"centers must be one of {CENTERS}, got {centers!r}")
        self.X, self.labeled = X, np.asarray(labeled)
        self.kernel_scale = float(np.abs(kernel(X[self.labeled], X[self.labeled])).max()) or 1.0
        self.lambda1_scaled, self.lambda2, self.centers = float(lambda1) / self.kernel_scale, float(lambda2), centers
        self.method, self.time_limit = method, time_limit
        self.scaling = TargetScaling.from_labels(y)
        self.y_scaled = (np.asarray(y, float) - self.scaling.center) / self.scaling.scale
        self.epsilon_scaled = float(epsilon) / self.scaling.scale
        self.preferences = PreferenceSet.empty()
        self.center_rows = self.labeled.copy()  # the active centers, the LP's rows after alpha_0
        self.problem: DualLP | None = None
        self.working: WorkingSet | None = None
        self._kernel = KernelRowCache(X, kernel, self.kernel_scale)
        self._columns = PreferenceColumns(self._kernel)
        self._highs: HighsDualLP | None = None
        self._basis: Basis | None = None  # the last optimal basis, while it matches the LP's rows
        self._cold_iterations = 0  # pivots of the last cold solve, to bound hot starts
        self._deadline = Deadline(None)  # of the public call under way
        # centers='all': the candidate centers' row values, kept between pricing rounds
        self._upper_kernel_sum = KernelSum(self._kernel.kernel_of_rows, len(X))
        self._rest_kernel_sum = KernelSum(self._kernel.kernel_of_rows, len(X))

    # ------------------------------------------------------------------ public
    def solve_cold(self, preferences: PreferenceSet) -> LPSolution:
        """Build the LP for ``preferences`` and solve it from scratch."""
        with self._rollback_on_failure():
            self.preferences = preferences
            self.center_rows = self.labeled.copy()
            self._kernel.set_centers(self.center_rows)
            self._columns.index(self.preferences, self.scaling)
            self._deadline.check()
            labeled, labeled_cost = labeled_block(self._kernel.rows(self.labeled), self.y_scaled, self.epsilon_scaled)
            self.working = WorkingSet.start(len(preferences), self.center_rows.size + 1)
            columns = self.working.working
            self.problem = DualLP(
                labeled=labeled,
                labeled_cost=labeled_cost,
                preference=np.hstack([self.working.fixed_sum[:, None], self._columns.block(columns)]),
                preference_cost=np.concatenate([[self.working.fixed_cost], self._columns.margins[columns]]),
                preference_upper=np.concatenate([[self._fixed_upper()], self._upper(columns)]),
                lambda1=self.lambda1_scaled,
            )
            return self._solve_cold()

    def add(self, preferences: PreferenceSet, extended: PreferenceSet | None = None) -> LPSolution:
        """Append ``preferences`` and re-solve warm; ``extended``: the set in force with them, if known."""
        extended = self.preferences + preferences if extended is None else extended  # p copied once only
        if self._highs is None:
            return self.solve_cold(extended)
        with self._rollback_on_failure():
            first, self.preferences = len(self.preferences), extended
            self._columns.index(self.preferences, self.scaling, first)
            self._append_columns(self.working.append(len(preferences)))
            return self._resolve(self._basis)

    def remove(self, positions) -> LPSolution:
        """Drop the preferences at ``positions`` (into ``self.preferences``) and re-solve warm."""
        keep = np.ones(len(self.preferences), bool)
        try:
            keep[positions] = False
        except IndexError:
            raise ValueError(f"no preference at positions {positions!r}; there are {len(self.preferences)}") from None
        if self._highs is None:
            return self.solve_cold(self.preferences[keep])
        with self._rollback_on_failure():
            self._unfix(np.flatnonzero(~keep & (self.working.state == FIXED)))
            dropped = self.working.keep(keep)
            basis = self._delete_columns(dropped)
            self.preferences = self.preferences[keep]
            self._columns.keep(keep)
            if self.centers == "all" and self._remove_unused_centers():
                basis = None
            return self._resolve(basis)

    def set_regularization(self, lambda1: float, lambda2: float) -> LPSolution:
        """Change lambda1 and lambda2 (row bounds and mu boxes of the dual LP) and re-solve warm."""
        with self._rollback_on_failure():
            self.lambda1_scaled, self.lambda2 = float(lambda1) / self.kernel_scale, float(lambda2)
            if self._highs is None:
                return self.solve_cold(self.preferences)
            self.problem.lambda1 = self.lambda1_scaled
            row_lower, row_upper = self.problem.row_bounds()
            self._highs.change_row_bounds(np.arange(row_lower.size), row_lower, row_upper)
            return self._resolve(self._basis)

    def branch(self, lambda1: float, lambda2: float) -> tuple[IncrementalOrderPreferenceLP, LPSolution]:
        """A copy of this solved LP at (lambda1, lambda2), with a HiGHS instance of its own started
        from this one's optimal basis and working set, and its solution.  Only bounds change (rows
        -lambda1 <= . <= lambda1, boxes mu_q <= lambda2 w_q / p), so the basis stays dual feasible and
        the dual simplex repairs what the new bounds make primal infeasible (docs/LP.md, "The lambda
        path").  This LP is left as it was."""
        if self._highs is None:
            raise ValueError("branch needs a solved LP with its HiGHS instance (solve_cold first)")
        branched = copy.deepcopy(self, {id(self.X): self.X})
        branched._highs = HighsDualLP(self.problem, method=self._highs.method)
        branched._highs.copy_basis_from(self._highs)
        branched._basis = self._basis
        return branched, branched.set_regularization(lambda1, lambda2)

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_highs"] = state["_basis"] = None  # HiGHS does not pickle; the next edit solves cold
        return state

    # ------------------------------------------------------------------ internals: the LP's arrays
    @contextmanager
    def _rollback_on_failure(self):
        """Start the public call's ``time_limit``; restore the last solved state if the edit or its
        solve fails (or runs out of time); the next edit then solves cold, since the HiGHS instance
        may be part way through the failed change."""
        self._deadline = Deadline(self.time_limit)
        saved = {name: getattr(self, name) for name in ROLLED_BACK}
        saved["problem"] = None if self.problem is None else dataclasses.replace(self.problem)
        saved["working"] = None if self.working is None else self.working.copy()
        try:
            yield
        except BaseException:
            for name, value in saved.items():
                setattr(self, name, value)
            self._kernel.set_centers(self.center_rows)
            self._columns.index(self.preferences, self.scaling)
            self._highs = None
            raise

    def _upper(self, indices=slice(None)) -> np.ndarray:
        """The box bound lambda2 w_q / p of the preferences at ``indices`` (all by default)."""
        return preference_upper(self.preferences.weight[indices], self.lambda2, len(self.preferences))

    def _fixed_upper(self) -> float:
        """phi's box bound lambda2 / p (mu_q = phi w_q for the FIXED preferences q)."""
        return self.lambda2 / max(len(self.preferences), 1)

    @property
    def _phi(self) -> int:
        """phi's LP column (after pi_plus, pi_minus; the working columns follow it)."""
        return 2 * self.labeled.size

    def _candidate_centers(self) -> np.ndarray:
        """Every row f may be expanded over (sorted): the labeled ones, and with centers='all' every
        row a preference in force compares."""
        if self.centers == "labeled":
            return np.sort(self.labeled)
        return np.union1d(self.labeled, self._columns.compared_rows())

    def _append_columns(self, indices: np.ndarray) -> None:
        """Preferences ``indices`` (already WORKING) as new columns at the end of the LP."""
        if not indices.size:
            return
        block, margins, upper = self._columns.block(indices), self._columns.margins[indices], self._upper(indices)
        self._highs.add_columns(block, margins, np.zeros(indices.size), upper)
        self.problem.preference = np.hstack([self.problem.preference, block])
        self.problem.preference_cost = np.concatenate([self.problem.preference_cost, margins])
        self.problem.preference_upper = np.concatenate([self.problem.preference_upper, upper])

    def _delete_columns(self, positions: np.ndarray) -> Basis | None:
        """Delete working columns at ``positions`` (column order, nonbasic); the basis without them."""
        removed = self._phi + 1 + positions
        self._highs.delete_columns(removed)
        keep = np.ones(self.problem.preference.shape[1], bool)
        keep[1 + positions] = False
        self.problem.preference = self.problem.preference[:, keep]
        self.problem.preference_cost = self.problem.preference_cost[keep]
        self.problem.preference_upper = self.problem.preference_upper[keep]
        return None if self._basis is None else self._basis.without_columns(removed)

    def _fix(self, indices: np.ndarray) -> None:
        """Fold OUT or just-removed WORKING preferences ``indices`` in at their upper bound."""
        if indices.size:
            weight = self.preferences.weight[indices]
            self.working.fixed_sum += self._columns.weighted_sum(indices, weight)
            self.working.fixed_cost += float(weight @ self._columns.margins[indices])
            self.working.state[indices] = FIXED

    def _unfix(self, indices: np.ndarray) -> None:
        """Take FIXED preferences ``indices`` out of the fold (the caller says where they go)."""
        if indices.size:
            weight = self.preferences.weight[indices]
            self.working.fixed_sum -= self._columns.weighted_sum(indices, weight)
            self.working.fixed_cost -= float(weight @ self._columns.margins[indices])
            self.working.state[indices] = OUT

    def _sync_fixed_column(self) -> bool:
        """Make phi's column and cost those of the FIXED preferences now (``working.fixed_sum``,
        ``fixed_cost``), in the arrays and in HiGHS; True if they changed."""
        column, cost = floor_small_entries(self.working.fixed_sum), self.working.fixed_cost
        rows = np.flatnonzero(column != self.problem.preference[:, 0])
        if not rows.size and cost == self.problem.preference_cost[0]:
            return False
        preference, costs = self.problem.preference.copy(), self.problem.preference_cost.copy()
        preference[:, 0], costs[0] = column, cost
        self.problem.preference, self.problem.preference_cost = preference, costs
        if self._highs is not None:
            self._highs.change_column(self._phi, rows, column[rows], cost)
        return True

    def _add_centers(self, new_centers: np.ndarray) -> None:
        """Rows -lambda1 <= (column coefficients at the new centers) <= lambda1, appended."""
        if not new_centers.size:
            return
        self.center_rows = np.concatenate([self.center_rows, new_centers])
        self._kernel.set_centers(self.center_rows)
        self._deadline.check()
        new = slice(self.center_rows.size - new_centers.size, None)
        labeled, _ = labeled_block(self._kernel.rows(self.labeled, new), self.y_scaled, self.epsilon_scaled)
        fixed = self.working.fixed
        new_fixed = self._columns.weighted_sum(fixed, self.preferences.weight[fixed], new)
        self.working.fixed_sum = np.concatenate([self.working.fixed_sum, new_fixed])
        preference = np.hstack(
            [floor_small_entries(new_fixed)[:, None], self._columns.kernel_differences(self.working.working, new)]
        )
        new_rows = np.hstack([labeled[1:], preference])  # the alpha_0 row (row 0) is not new
        self._highs.add_rows(
            new_rows, np.full(new_centers.size, -self.lambda1_scaled), np.full(new_centers.size, self.lambda1_scaled)
        )
        self.problem.labeled = np.vstack([self.problem.labeled, labeled[1:]])
        self.problem.preference = np.vstack([self.problem.preference, preference])

    def _remove_unused_centers(self) -> bool:
        """Delete the rows of centers no preference or label uses any more; True if any."""
        unused = ~np.isin(self.center_rows, self._candidate_centers())
        if not unused.any():
            return False
        self._highs.delete_rows(1 + np.flatnonzero(unused))
        keep_rows = np.concatenate([[True], ~unused])
        self.problem.labeled = self.problem.labeled[keep_rows]
        self.problem.preference = self.problem.preference[keep_rows]
        self.working.fixed_sum = self.working.fixed_sum[keep_rows]
        self.center_rows = self.center_rows[~unused]
        self._kernel.set_centers(self.center_rows)
        return True

    # ------------------------------------------------------------------ internals: solving
    def _resolve(self, basis: Basis | None) -> LPSolution:
        """Reset every box 0 <= mu_q <= lambda2 w_q / p and the fixed shift for the new p; keep
        ``basis`` if it is still optimal, else let HiGHS pivot from it; redo cold if that fails or
        the certificate does.  Either way every preference is priced before the answer is certified."""
        self.problem.preference_upper = np.concatenate([[self._fixed_upper()], self._upper(self.working.working)])
        k = self.problem.preference_upper.size
        self._highs.change_column_bounds(self._phi + np.arange(k), np.zeros(k), self.problem.preference_upper)
        if self._sync_fixed_column() and basis is not None and self._phi in basis.basic:
            basis = None  # phi's column is basic and changed: the old row duals no longer hold
        start = time.perf_counter()
        if basis is not None and (kept := basic_solution(self.problem, basis)) is not None:
            x, row_value = kept
            result = HighsResult(x, row_value, basis.row_dual, self.problem.cost() @ x, 0, time.perf_counter() - start)
            self._basis = Basis(basis.basic, x, self.problem.column_bounds()[1], row_value, basis.row_dual)
            with suppress(SolverNumericalError):
                return self._completed(result, start="kept")
        try:
            limit = HOT_ITERATION_FACTOR * self._cold_iterations + HOT_ITERATION_SLACK
            return self._completed(self._run_letting_in_fixed(limit), start="hot")
        except SolverTimeLimitError:
            raise
        except SolverError:  # a wrong or failed hot start: solve again from scratch
            return self._solve_cold()

    def _solve_cold(self) -> LPSolution:
        """Solve from scratch, trying ``COLD_ATTEMPTS`` in turn until one answer is certified."""
        failures = []
        for attempt in range(len(COLD_ATTEMPTS)):
            self._highs = HighsDualLP(self.problem, method=self.method, attempt=attempt)
            try:
                solution = self._completed(self._run_letting_in_fixed(), start="cold")
                self._cold_iterations = solution.iterations
                return solution
            except SolverTimeLimitError:
                raise
            except SolverError as error:
                failures.append(str(error))
        raise SolverNumericalError(f"no certified optimum after {len(failures)} attempts: " + "; ".join(failures))

    def _completed(self, result: HighsResult, *, start: str) -> LPSolution:
        """Price every preference at ``result``'s primal, let in or fold in those priced wrong and
        re-solve hot, until none is; then certify.  Iterations and seconds add up over the rounds."""
        iterations, seconds = result.iterations, result.seconds
        candidates = self._candidate_centers()
        for _ in range(MAX_PRICING_ROUNDS):
            self._deadline.check()
            shortfall, first = self._columns.priced_shortfall(result.row_dual, self.center_rows)
            new_centers = self._priced_centers(result.column_value, candidates)
            columns, to_fix = self.working.priced_wrong(shortfall, self.center_rows.size + 1 + new_centers.size, first)
            if not columns.size and not to_fix.size and not new_centers.size:
                solution = self._certified(result, shortfall, start, iterations, seconds)
                self._columns.priced = Priced(self.center_rows.copy(), result.row_dual.copy(), shortfall)
                self._set_aside_at_bounds(shortfall)  # nonbasic columns only: the basis stays optimal
                return solution
            self._deadline.check()
            self._set_aside_at_bounds(shortfall)
            self._add_centers(new_centers)  # before the new columns: HiGHS adds rows to fewer columns
            self._deadline.check()
            self._let_in(columns)
            self._deadline.check()
            self._fix(to_fix)
            result = self._run_letting_in_fixed(shortfall=shortfall)
            iterations, seconds = iterations + result.iterations, seconds + result.seconds
            start = "cold" if start == "cold" else "hot"
        raise SolverNumericalError(f"the working set did not settle in {MAX_PRICING_ROUNDS} rounds of pricing")

    def _run_letting_in_fixed(self, iteration_limit: int | None = None, shortfall=None) -> HighsResult:
        """Run HiGHS; while it calls the LP infeasible, let FIXED preferences in as columns (nearest
        their margin by ``shortfall`` (p,) first if given, ``ENTRY_BATCH`` at a time, never to be set
        aside again) and run again.  Held at their upper bound they can make the restricted LP
        infeasible (after a fix, a removal that raises every bound lambda2 w / p, or a new center
        row they weigh on) where as columns they could move."""
        while True:
            try:
                return self._run_highs(iteration_limit)
            except InfeasibleLPError:
                fixed = self.working.fixed
                if not fixed.size:
                    raise
                order = (
                    np.arange(fixed.size) if shortfall is None else np.argsort(np.abs(shortfall[fixed]), kind="stable")
                )
                batch = fixed[order[:ENTRY_BATCH]]
                self.working.came_back(batch)
                self._let_in(batch)

    def _priced_centers(self, column_value: np.ndarray, candidates: np.ndarray) -> np.ndarray:
        """Candidate centers outside the LP whose row the dual solution ``column_value`` violates
        (``center_set.py``); none with centers='labeled', where every candidate is a row.

        A row's value is g = (lambda2 / p) K^T nu_upper + K^T nu_rest: nu_upper (in units of w, so
        that it does not change with p) from the preferences at their upper bound, FIXED or working;
        nu_rest from pi and the other working columns' mu (few: at most m + 1 are basic).  Each sum is
        kept between rounds and updated by what changed, which is little: a preference moving between
        FIXED and a working column at its bound changes neither."""
        if candidates.size == self.center_rows.size:
            return candidates[:0]
        n_labeled, working, fixed = self.labeled.size, self.working.working, self.working.fixed
        mu = column_value[self._phi + 1 :]
        at_upper = mu >= self.problem.preference_upper[1:]
        upper = np.concatenate([fixed, working[at_upper]])
        factor = self._fixed_upper()
        phi = column_value[self._phi]
        share = 1.0 if phi >= factor else phi / factor  # the share of the fold in force
        weight = self.preferences.weight[upper] * np.repeat([share, 1.0], [fixed.size, upper.size - fixed.size])
        nu_upper = self._columns.net_at_points(upper, weight)
        nu_rest = self._columns.net_at_points(working[~at_upper], mu[~at_upper])
        np.add.at(nu_rest, self.labeled, column_value[:n_labeled] - column_value[n_labeled : 2 * n_labeled])
        values = factor * self._upper_kernel_sum(candidates, nu_upper, self._deadline)
        values += self._rest_kernel_sum(candidates, nu_rest, self._deadline)
        return violated_centers(values, self.lambda1_scaled, candidates, self.center_rows)

    def _let_in(self, indices: np.ndarray) -> None:
        """OUT or FIXED preferences ``indices`` become working columns."""
        self._unfix(indices[self.working.state[indices] == FIXED])
        self.working.state[indices] = WORKING
        self.working.working = np.concatenate([self.working.working, indices])
        self._append_columns(indices)

    def _set_aside_at_bounds(self, shortfall: np.ndarray) -> bool:
        """Working columns at a bound of the last basis (nonbasic), priced there, leave the LP
        (``WorkingSet.at_bounds``): to OUT at 0, to FIXED at the upper bound.  True if any did."""
        first = self._phi + 1
        value = self._basis.column_value[first:]
        to_out, to_fixed = self.working.at_bounds(
            value, self.problem.preference_upper[1:], shortfall, self.center_rows.size + 1
        )
        if not to_out.size and not to_fixed.size:
            return False
        basic = self._basis.basic[self._basis.basic >= first] - first
        to_out, to_fixed = np.setdiff1d(to_out, basic), np.setdiff1d(to_fixed, basic)
        if not to_out.size and not to_fixed.size:
            return False
        positions = np.concatenate([to_out, to_fixed])
        self.working.state[self.working.working[to_out]] = OUT
        self._fix(self.working.working[to_fixed])
        keep = np.ones(self.working.working.size, bool)
        keep[positions] = False
        self.working.working = self.working.working[keep]
        self._basis = self._delete_columns(np.sort(positions))
        return True

    def _run_highs(self, iteration_limit: int | None = None) -> HighsResult:
        """Solve with HiGHS (hot from its basis if it has one) and keep the basis it ends with."""
        self._sync_fixed_column()
        try:
            result = self._highs.solve(iteration_limit, self._deadline.remaining())
        except SolverTimeLimitError:
            raise self._deadline.error() from None
        self._basis = Basis(
            self._highs.basic_variables(),
            result.column_value,
            self.problem.column_bounds()[1],
            result.row_value,
            result.row_dual,
        )
        return result

    def _certified(self, result: HighsResult, shortfall, start: str, iterations: int, seconds: float) -> LPSolution:
        """The solution in the units of y, if primal (9) over all preferences and the dual objective
        (the restricted LP's plus the FIXED constant) agree to ``CERTIFICATE_TOLERANCE``."""
        primal = primal_objective(
            self.problem, result.row_dual, self.y_scaled, self.epsilon_scaled, shortfall, self._upper()
        )
        check_duality_gap(primal, result.objective)
        return LPSolution.unscaled(
            self.scaling,
            self.kernel_scale,
            self.center_rows,
            result.row_dual,
            primal,
            shortfall,
            iterations=iterations,
            seconds=seconds,
            start=start,
        )
