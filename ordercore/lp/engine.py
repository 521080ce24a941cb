"""Solving the order-preference LP: cold fits, warm re-solves as preferences come and go, and a
duality-gap certificate on every answer.

Each solve recovers the primal (alpha_0, alpha) from the dual LP's row duals and evaluates the
primal objective (9) itself.  By weak duality that value can only equal HiGHS's dual objective
at the joint optimum, so a gap above ``CERTIFICATE_TOLERANCE`` exposes a wrong "optimal" answer,
such as the one HiGHS sometimes returns after a hot start (HiGHS issues #3294, #3194).  A warm
solve that fails the certificate is redone cold; a cold one that fails raises
``SolverNumericalError``.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from contextlib import contextmanager, suppress
from dataclasses import dataclass

import numpy as np

from ordercore.exceptions import SolverError, SolverNumericalError, SolverTimeLimitError
from ordercore.lp.basis import Basis, basic_solution
from ordercore.lp.highs import COLD_ATTEMPTS, HighsDualLP, HighsResult
from ordercore.lp.kernel_rows import KernelRowCache
from ordercore.lp.problem import (
    DualLP,
    TargetScaling,
    kernel_difference,
    labeled_block,
    preference_block,
    preference_upper,
    primal_objective,
    referenced_rows,
    unary_sign,
)
from ordercore.preferences import PreferenceSet

CERTIFICATE_TOLERANCE = 1e-8
"""Largest accepted |primal (9) - dual objective| / max(1, |primal|), in scaled units.  With HiGHS's
feasibility tolerances at 1e-9 honest optima agree to ~1e-11; the wrong hot-start optimum reported
in HiGHS #3194 was off by 1.1e-7."""

HOT_ITERATION_FACTOR, HOT_ITERATION_SLACK = 2, 50
"""A hot start may take at most 2 x (pivots of the last cold solve) + 50 pivots; past that a cold
solve is cheaper (measured: after a tenfold change of lambda2 a hot start needed 16606 pivots where
a cold solve needed 78), so the engine stops it and solves cold."""

CENTERS = ("labeled", "all")

Kernel = Callable[[np.ndarray, np.ndarray], np.ndarray]


@dataclass(frozen=True)
class LPSolution:
    """A certified optimum of LP (13) in the units of y: f(x) = K(x, centers) dual_coef + intercept."""

    center_rows: np.ndarray  # (m,) rows of X that carry a dual coefficient
    dual_coef: np.ndarray  # (m,) alpha
    intercept: float  # alpha_0
    objective: float  # objective (9)
    violation: np.ndarray  # (p,) shortfall max(d - (f_i - f_j), 0) of each preference
    iterations: int  # simplex iterations of the solve that produced it
    seconds: float  # HiGHS run time of that solve
    start: str  # 'cold'; 'hot': HiGHS pivoted from the previous basis; 'kept': that basis stayed optimal


class IncrementalOrderPreferenceLP:
    """LP (13) over fixed data X and labels, whose preferences can be added and removed with
    warm re-solves that reach the same optimum as a cold solve on the final set.

    X: (n, n_features); labeled: (l,) row indices of X; y: (l,) their targets (units of y);
    kernel(A, B) -> K(A, B).  ``centers`` 'labeled' expands f over the labeled rows (seed 001
    eq. (8)); 'all' also over every row a preference compares (the full representer theorem).
    ``problem`` is the LP as arrays; the HiGHS instance mirrors it edit for edit.

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
        self.center_rows = self.labeled.copy()
        self.problem: DualLP | None = None
        self._kernel = KernelRowCache(X, kernel, self.kernel_scale)
        self._highs: HighsDualLP | None = None
        self._basis: Basis | None = None  # the last optimal basis, while it matches the LP's rows
        self._cold_iterations = 0  # pivots of the last cold solve, to bound hot starts

    # ------------------------------------------------------------------ public
    def solve_cold(self, preferences: PreferenceSet) -> LPSolution:
        """Build the whole LP for ``preferences`` and solve it from scratch."""
        with self._rollback_on_failure():
            self.preferences = preferences
            self.center_rows = self._centers_for(preferences)
            self._kernel.set_centers(self.center_rows)
            labeled, labeled_cost = labeled_block(self._kernel.rows(self.labeled), self.y_scaled, self.epsilon_scaled)
            self.problem = DualLP(
                labeled=labeled,
                labeled_cost=labeled_cost,
                preference=self._preference_block(preferences),
                preference_cost=self.scaling.margins(preferences),
                preference_upper=preference_upper(preferences.weight, self.lambda2, len(preferences)),
                lambda1=self.lambda1_scaled,
            )
            return self._solve_cold()

    def add(self, preferences: PreferenceSet) -> LPSolution:
        """Append ``preferences`` and re-solve from the previous basis."""
        if self._highs is None:
            return self.solve_cold(self.preferences + preferences)
        with self._rollback_on_failure():
            basis = self._basis
            if self.centers == "all" and self._add_centers(
                np.setdiff1d(referenced_rows(preferences), self.center_rows)
            ):
                basis = None  # new rows: let HiGHS extend the basis
            block, margins = self._preference_block(preferences), self.scaling.margins(preferences)
            self._highs.add_columns(block, margins, np.zeros(len(preferences)), np.zeros(len(preferences)))
            self.problem.preference = np.hstack([self.problem.preference, block])
            self.problem.preference_cost = np.concatenate([self.problem.preference_cost, margins])
            self.preferences = self.preferences + preferences
            return self._resolve(basis)

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
            removed = 2 * self.labeled.size + np.flatnonzero(~keep)
            self._highs.delete_columns(removed)
            basis = self._basis.without_columns(removed)
            self.problem.preference = self.problem.preference[:, keep]
            self.problem.preference_cost = self.problem.preference_cost[keep]
            self.preferences = self.preferences[keep]
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

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_highs"] = state["_basis"] = None  # HiGHS does not pickle; the next edit solves cold
        return state

    # ------------------------------------------------------------------ internals
    @contextmanager
    def _rollback_on_failure(self):
        """Restore the last solved state if an edit or its solve fails; the next edit then solves
        cold, since the HiGHS instance may be part way through the failed change."""
        saved = (
            self.preferences,
            self.center_rows,
            None if self.problem is None else dataclasses.replace(self.problem),
            self._basis,
            self.lambda1_scaled,
            self.lambda2,
        )
        try:
            yield
        except BaseException:
            self.preferences, self.center_rows, self.problem, self._basis, self.lambda1_scaled, self.lambda2 = saved
            self._kernel.set_centers(self.center_rows)
            self._highs = None
            raise

    def _centers_for(self, preferences: PreferenceSet) -> np.ndarray:
        if self.centers == "labeled":
            return self.labeled.copy()
        extra = np.setdiff1d(referenced_rows(preferences), self.labeled)
        return np.concatenate([self.labeled, extra])

    def _preference_block(self, preferences: PreferenceSet) -> np.ndarray:
        rows = referenced_rows(preferences)
        return preference_block(kernel_difference(preferences, rows, self._kernel.rows(rows)), unary_sign(preferences))

    def _add_centers(self, new_centers: np.ndarray) -> bool:
        """Rows -lambda1 <= (column coefficients at the new centers) <= lambda1, appended; True if any."""
        if not new_centers.size:
            return False
        self.center_rows = np.concatenate([self.center_rows, new_centers])
        self._kernel.set_centers(self.center_rows)
        labeled, _ = labeled_block(
            self._kernel.rows(self.labeled)[:, -new_centers.size :], self.y_scaled, self.epsilon_scaled
        )
        preference = self._preference_block(self.preferences)[-new_centers.size :]
        new_rows = np.hstack([labeled[1:], preference])  # the alpha_0 row (row 0) is not new
        self._highs.add_rows(
            new_rows, np.full(new_centers.size, -self.lambda1_scaled), np.full(new_centers.size, self.lambda1_scaled)
        )
        self.problem.labeled = np.vstack([self.problem.labeled, labeled[1:]])
        self.problem.preference = np.vstack([self.problem.preference, preference])
        return True

    def _remove_unused_centers(self) -> bool:
        """Delete the rows of centers no preference or label uses any more; True if any."""
        unused = ~np.isin(self.center_rows, np.union1d(self.labeled, referenced_rows(self.preferences)))
        if not unused.any():
            return False
        self._highs.delete_rows(1 + np.flatnonzero(unused))
        keep_rows = np.concatenate([[True], ~unused])
        self.problem.labeled = self.problem.labeled[keep_rows]
        self.problem.preference = self.problem.preference[keep_rows]
        self.center_rows = self.center_rows[~unused]
        self._kernel.set_centers(self.center_rows)
        return True

    def _resolve(self, basis: Basis | None) -> LPSolution:
        """Reset every box 0 <= mu_q <= lambda2 w_q / p for the new p; keep ``basis`` if it is still
        optimal, else let HiGHS pivot from it; redo cold if that fails or the certificate does."""
        p = len(self.preferences)
        self.problem.preference_upper = preference_upper(self.preferences.weight, self.lambda2, p)
        self._highs.change_column_bounds(
            2 * self.labeled.size + np.arange(p), np.zeros(p), self.problem.preference_upper
        )
        if basis is not None:
            start = time.perf_counter()
            kept = basic_solution(self.problem, basis)
            if kept is not None:
                x, row_value = kept
                result = HighsResult(
                    x, row_value, basis.row_dual, float(self.problem.cost() @ x), 0, time.perf_counter() - start
                )
                with suppress(SolverNumericalError):
                    solution = self._certified(result, start="kept")
                    self._basis = Basis(basis.basic, x, self.problem.column_bounds()[1], row_value, basis.row_dual)
                    return solution
        try:
            limit = HOT_ITERATION_FACTOR * self._cold_iterations + HOT_ITERATION_SLACK
            return self._certified(self._run_highs(limit), start="hot")
        except SolverTimeLimitError:
            raise
        except SolverError:  # a wrong or failed hot start: solve again from scratch
            return self._solve_cold()

    def _solve_cold(self) -> LPSolution:
        """Solve from scratch, trying ``COLD_ATTEMPTS`` in turn until one answer is certified."""
        failures = []
        for attempt in range(len(COLD_ATTEMPTS)):
            self._highs = HighsDualLP(self.problem, method=self.method, time_limit=self.time_limit, attempt=attempt)
            try:
                solution = self._certified(self._run_highs(), start="cold")
                self._cold_iterations = solution.iterations
                return solution
            except SolverTimeLimitError:
                raise
            except SolverError as error:
                failures.append(str(error))
        raise SolverNumericalError(f"no certified optimum after {len(failures)} attempts: " + "; ".join(failures))

    def _run_highs(self, iteration_limit: int | None = None) -> HighsResult:
        """Solve with HiGHS (hot from its basis if it has one) and keep the basis it ends with."""
        result = self._highs.solve(iteration_limit)
        self._basis = Basis(
            self._highs.basic_variables(),
            result.column_value,
            self.problem.column_bounds()[1],
            result.row_value,
            result.row_dual,
        )
        return result

    def _certified(self, result: HighsResult, *, start: str) -> LPSolution:
        primal, shortfall = primal_objective(self.problem, result.row_dual, self.y_scaled, self.epsilon_scaled)
        gap = abs(primal - result.objective) / max(1.0, abs(primal))
        if not gap <= CERTIFICATE_TOLERANCE:
            raise SolverNumericalError(
                f"HiGHS reported an optimum whose duality gap is {gap:.2e} (> {CERTIFICATE_TOLERANCE:g})"
            )
        scale, center = self.scaling.scale, self.scaling.center
        return LPSolution(
            center_rows=self.center_rows.copy(),
            dual_coef=scale / self.kernel_scale * result.row_dual[1:],
            intercept=scale * result.row_dual[0] + center,
            objective=scale * primal,
            violation=scale * shortfall,
            iterations=result.iterations,
            seconds=result.seconds,
            start=start,
        )


def solve_order_preference_lp(X, labeled, y, preferences: PreferenceSet, kernel: Kernel, **options) -> LPSolution:
    """One cold solve of LP (13).  X, labeled, y, kernel and the keyword ``options`` (lambda1,
    lambda2, epsilon, centers, method, time_limit) are as for ``IncrementalOrderPreferenceLP``."""
    return IncrementalOrderPreferenceLP(X, labeled, y, kernel, **options).solve_cold(preferences)
