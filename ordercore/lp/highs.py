"""HiGHS behind one small class: the only module of ordercore that imports ``highspy``.

It loads a ``DualLP`` whole (``passModel``, column-wise sparse arrays), edits it in place for
hot starts (HiGHS keeps the basis when columns or rows are added, deleted or rebounded), and maps
every HiGHS model status to an ordercore exception through ``STATUS_ERRORS``.  ``solve_qp`` hands a
dense convex QP to HiGHS's QP solver (active set), for the comparators that need a general-purpose one.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from dataclasses import dataclass
from typing import NamedTuple

import highspy
import numpy as np
import scipy.sparse as sp

from ordercore.exceptions import SolverError, SolverTimeLimitError
from ordercore.lp.problem import KERNEL_ENTRY_FLOOR, DualLP

_Status = highspy.HighsModelStatus


class InfeasibleLPError(SolverError):
    """HiGHS called the LP it holds infeasible.  The whole dual LP never is (mu = pi = 0 is a point
    of it), but the engine's restricted one can be while preferences sit fixed at a bound."""


_banner = {"shown": False, "lock": threading.Lock()}


def quiet_highs() -> highspy.Highs:
    """``highspy.Highs()``, the first of the process made with standard output (file descriptor 1) sent
    nowhere: HiGHS prints its two-line banner there when it makes its first instance, before any option
    can be set (ERGO-Code/HiGHS#2749), and a library prints nothing unasked (``python -m ordercore fit
    ... > out.csv`` writes only the CSV).  Later instances print nothing."""
    if _banner["shown"]:
        return highspy.Highs()
    with _banner["lock"]:
        if _banner["shown"]:
            return highspy.Highs()
        sys.stdout.flush()
        saved = os.dup(1)
        try:
            with open(os.devnull, "wb") as nowhere:
                os.dup2(nowhere.fileno(), 1)
                highs = highspy.Highs()
        finally:
            os.dup2(saved, 1)
            os.close(saved)
        _banner["shown"] = True
        return highs


STATUS_ERRORS = {
    _Status.kTimeLimit: (SolverTimeLimitError, "HiGHS stopped at the time limit before the optimum; raise time_limit"),
    _Status.kIterationLimit: (SolverError, "HiGHS stopped at its iteration limit before the optimum"),
    _Status.kInfeasible: (InfeasibleLPError, "HiGHS called the dual LP infeasible"),
    _Status.kUnbounded: (SolverError, "HiGHS called the dual LP unbounded, which its box bounds rule out"),
    _Status.kUnboundedOrInfeasible: (SolverError, "HiGHS called the LP unbounded or infeasible"),
    _Status.kModelError: (SolverError, "HiGHS rejected the LP as malformed"),
    _Status.kLoadError: (SolverError, "HiGHS could not load the LP"),
    _Status.kSolveError: (SolverError, "HiGHS failed during the solve"),
    _Status.kMemoryLimit: (SolverError, "HiGHS ran out of memory"),
    _Status.kInterrupt: (SolverError, "the HiGHS solve was interrupted"),
}
"""HiGHS model status -> (exception class, message); any status not listed and not optimal is a
plain ``SolverError`` naming the status."""

FEASIBILITY_TOLERANCE = 1e-9
"""HiGHS's primal and dual feasibility tolerances (its defaults are 1e-7).  The LP is scaled to
entries near 1, so these hold cheaply, and they keep the duality gap of an honest optimum well
inside the engine's certificate."""

SIMPLEX_STRATEGIES = {"dual": 1, "primal": 4}
"""HiGHS ``simplex_strategy`` codes.  Dual simplex is the default: after a preference is added or
removed the old basis stays dual feasible (every column is boxed), so it restarts hot."""


_threads = 1
"""The ``threads`` option our HiGHS instances ask for: 1 (a serial dual simplex; worker threads only add
~0.3 ms to every run), or 0 (whatever scheduler is running) once another HiGHS in this process has
started HiGHS's one global thread scheduler with more threads, after which a run asking for 1 is
refused (``HighsDualLP._run``)."""


class ColdAttempt(NamedTuple):
    """One way to try a cold solve: HiGHS options that override ours, and whether to use the other
    simplex method than the configured one."""

    options: dict
    other_method: bool = False


COLD_ATTEMPTS = (
    ColdAttempt({}),
    ColdAttempt(
        {"simplex_scale_strategy": 2, "primal_feasibility_tolerance": 1e-7, "dual_feasibility_tolerance": 1e-7}
    ),
    ColdAttempt({}, other_method=True),
)
"""Successive attempts at a cold solve, each answer still certified: as configured (no
HiGHS scaling, tolerances 1e-9); HiGHS's own scaling with its default tolerances; the other simplex
method.  HiGHS's scaling together with 1e-9 tolerances stalls on degenerate LPs (an Abalone fit with
gamma = 3 ran 429 s and failed; unscaled it took 92 pivots, 0.06 s), hence never both at once.
All 8100 Boston cross-validation fits of a Table 1 run pass at the first attempt."""


def _compressed(vectors: np.ndarray):
    """Starts, indices and values of the nonzeros of each row of a dense (k, n) array (HiGHS's
    compressed format, rows as the packed vectors)."""
    rows, index = np.nonzero(vectors)
    start = np.searchsorted(rows, np.arange(vectors.shape[0])).astype(np.int32)
    return start, index.astype(np.int32), vectors[rows, index]


@dataclass(frozen=True)
class HighsResult:
    """What one solve returns: column values x (n_columns,), row activities A x and row duals
    (n_rows,) = (alpha_0, alpha)."""

    column_value: np.ndarray
    row_value: np.ndarray
    row_dual: np.ndarray
    objective: float
    iterations: int
    seconds: float


def _run(highs: highspy.Highs, asked_threads: int) -> int:
    """``Highs.run``, asking for the running scheduler's threads from now on if a run asking for
    one thread is refused (a user's program ran HiGHS with its default threads first).  Returns the
    threads asked at the end."""
    global _threads
    status = highs.run()
    if status == highspy.HighsStatus.kError and asked_threads == 1:
        _threads = asked_threads = 0
        HighsDualLP._check(highs.setOptionValue("threads", 0), "option threads")
        status = highs.run()
    HighsDualLP._check(status, "run")
    return asked_threads


class HighsDualLP:
    """A HiGHS instance holding one ``DualLP`` (maximised), editable in place for hot starts."""

    def __init__(self, problem: DualLP, *, method: str = "dual", attempt: int = 0):
        if method not in SIMPLEX_STRATEGIES:
            raise ValueError(f"unknown simplex method {method!r}; choose one of {sorted(SIMPLEX_STRATEGIES)}")
        settings = COLD_ATTEMPTS[attempt]
        if settings.other_method:
            method = "primal" if method == "dual" else "dual"
        self.method = method
        self._highs = self._new_highs(settings.options)
        lp = highspy.HighsLp()
        matrix = problem.matrix()
        lp.num_row_, lp.num_col_ = matrix.shape
        lp.sense_ = highspy.ObjSense.kMaximize
        lp.col_cost_ = problem.cost()
        lp.col_lower_, lp.col_upper_ = problem.column_bounds()
        lp.row_lower_, lp.row_upper_ = problem.row_bounds()
        lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
        lp.a_matrix_.num_row_, lp.a_matrix_.num_col_ = matrix.shape
        lp.a_matrix_.start_, lp.a_matrix_.index_, lp.a_matrix_.value_ = matrix.indptr, matrix.indices, matrix.data
        self._check(self._highs.passModel(lp), "passModel")

    def _new_highs(self, overrides: dict) -> highspy.Highs:
        highs = quiet_highs()
        highs.disableCallbacks()  # highspy enables Python callbacks by default: ~0.4 ms a run here
        options = {
            "output_flag": False,
            "solver": "simplex",
            "simplex_strategy": SIMPLEX_STRATEGIES[self.method],
            "presolve": "off",  # presolve costs more than it saves here and would bar hot starts
            "simplex_scale_strategy": 0,  # the LP is scaled by construction (see problem.py)
            "threads": _threads,
            "primal_feasibility_tolerance": FEASIBILITY_TOLERANCE,
            "dual_feasibility_tolerance": FEASIBILITY_TOLERANCE,
            "small_matrix_value": KERNEL_ENTRY_FLOOR,
        }
        options.update(overrides)
        for name, value in options.items():
            self._check(highs.setOptionValue(name, value), f"option {name}")
        self._asked_threads = options["threads"]
        return highs

    def _run(self) -> None:
        self._asked_threads = _run(self._highs, self._asked_threads)

    @staticmethod
    def _check(status, action: str) -> None:
        if status == highspy.HighsStatus.kError:
            raise SolverError(f"HiGHS refused {action}")

    @property
    def shape(self) -> tuple[int, int]:
        return self._highs.getNumRow(), self._highs.getNumCol()

    def copy_basis_from(self, other: HighsDualLP) -> None:
        """Start from ``other``'s basis (an instance of the same rows and columns) at the next run."""
        self._check(self._highs.setBasis(other._highs.getBasis()), "setBasis")

    # ------------------------------------------------------------------ edits (basis kept)
    def add_columns(self, block: np.ndarray, cost, lower, upper) -> None:
        """Append columns; ``block`` is dense, shape (n_rows, k)."""
        start, index, value = _compressed(block.T)
        self._check(
            self._highs.addCols(
                block.shape[1],
                np.asarray(cost, float),
                np.asarray(lower, float),
                np.asarray(upper, float),
                value.size,
                start,
                index,
                value,
            ),
            "addCols",
        )

    def add_rows(self, block: np.ndarray, lower, upper) -> None:
        """Append rows; ``block`` is dense, shape (k, n_columns)."""
        start, index, value = _compressed(block)
        self._check(
            self._highs.addRows(
                block.shape[0], np.asarray(lower, float), np.asarray(upper, float), value.size, start, index, value
            ),
            "addRows",
        )

    def change_column(self, column: int, rows: np.ndarray, values: np.ndarray, cost: float) -> None:
        """Set column ``column``'s coefficients in ``rows`` to ``values`` (a zero deletes the entry), and its cost."""
        for row, value in zip(rows.tolist(), values.tolist(), strict=True):
            self._check(self._highs.changeCoeff(row, column, value), "changeCoeff")
        self._check(self._highs.changeColCost(column, float(cost)), "changeColCost")

    def delete_columns(self, columns: np.ndarray) -> None:
        columns = np.asarray(columns, dtype=np.int32)
        self._check(self._highs.deleteCols(columns.size, columns), "deleteCols")

    def delete_rows(self, rows: np.ndarray) -> None:
        rows = np.asarray(rows, dtype=np.int32)
        self._check(self._highs.deleteRows(rows.size, rows), "deleteRows")

    def change_column_bounds(self, columns: np.ndarray, lower, upper) -> None:
        columns = np.asarray(columns, dtype=np.int32)
        self._check(
            self._highs.changeColsBounds(columns.size, columns, np.asarray(lower, float), np.asarray(upper, float)),
            "changeColsBounds",
        )

    def change_row_bounds(self, rows: np.ndarray, lower, upper) -> None:
        rows = np.asarray(rows, dtype=np.int32)
        self._check(
            self._highs.changeRowsBounds(rows.size, rows, np.asarray(lower, float), np.asarray(upper, float)),
            "changeRowsBounds",
        )

    def basic_variables(self) -> np.ndarray:
        """After a solve: (n_rows,) basic variables, a column index >= 0 or -(row + 1) for a row."""
        status, basic = self._highs.getBasicVariables()
        self._check(status, "getBasicVariables")
        return np.asarray(basic, dtype=np.int64)

    def matrix(self) -> sp.csc_matrix:
        """The LP's constraint matrix as HiGHS holds it, shape (n_rows, n_columns)."""
        lp = self._highs.getLp()
        a = lp.a_matrix_
        shape = (lp.num_row_, lp.num_col_)
        if a.format_ == highspy.MatrixFormat.kRowwise:
            return sp.csr_matrix((np.array(a.value_), np.array(a.index_), np.array(a.start_)), shape=shape).tocsc()
        return sp.csc_matrix((np.array(a.value_), np.array(a.index_), np.array(a.start_)), shape=shape)

    # ------------------------------------------------------------------ solve
    def solve(self, iteration_limit: int | None = None, time_limit: float | None = None) -> HighsResult:
        """Run the simplex from the current basis (hot) or from scratch (cold), stopping with a
        ``SolverError`` after ``iteration_limit`` pivots, and a ``SolverTimeLimitError`` after
        ``time_limit`` seconds, if given."""
        limit = highspy.kHighsIInf if iteration_limit is None else int(iteration_limit)
        self._check(self._highs.setOptionValue("simplex_iteration_limit", limit), "simplex_iteration_limit")
        # HiGHS 1.x compares its time_limit with the run time summed over all runs of the instance
        # (HiGHS #1331, #1477), so a limit for this run is counted on from that sum.
        seconds = float("inf") if time_limit is None else self._highs.getRunTime() + time_limit
        self._check(self._highs.setOptionValue("time_limit", seconds), "time_limit")
        start = time.perf_counter()
        self._run()
        seconds = time.perf_counter() - start
        status = self._highs.getModelStatus()
        if status != _Status.kOptimal:
            error, message = STATUS_ERRORS.get(status, (SolverError, "HiGHS did not reach the optimum"))
            raise error(f"{message} (status: {self._highs.modelStatusToString(status)})")
        solution = self._highs.getSolution()
        info = self._highs.getInfo()
        return HighsResult(
            column_value=np.array(solution.col_value),
            row_value=np.array(solution.row_value),
            row_dual=np.array(solution.row_dual),
            objective=float(info.objective_function_value),
            iterations=int(info.simplex_iteration_count),
            seconds=seconds,
        )


def _lower_triangle(hessian: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Starts (n + 1,), row indices and values of the lower triangle of a symmetric (n, n) array, column by
    column (HiGHS's triangular Hessian format; zeros kept)."""
    n = hessian.shape[0]
    columns, rows = np.triu_indices(n)  # the upper triangle row by row is the lower one column by column
    start = np.concatenate([[0], np.cumsum(np.arange(n, 0, -1))]).astype(np.int32)
    return start, rows.astype(np.int32), hessian[columns, rows]


def solve_qp(
    hessian: np.ndarray, cost, constraints: np.ndarray, column_bounds, row_bounds, iteration_limit: int | None = None
) -> np.ndarray:
    """x (n,) minimising ½ xᵀ hessian x + costᵀ x subject to row_lower ≤ constraints x ≤ row_upper
    (constraints (k, n), row_bounds two (k,)) and column_bounds two (n,), by HiGHS's QP solver (an
    active-set method, serial).  ``hessian`` (n, n) is dense and symmetric; HiGHS calls some positive
    semidefinite ones non-convex, so a caller adds a small ridge.  ``SolverError`` unless optimal, as
    after ``iteration_limit`` active-set iterations (the method can cycle on degenerate problems)."""
    n = hessian.shape[0]
    model = highspy.HighsModel()
    lp = model.lp_
    matrix = sp.csc_matrix(constraints)
    lp.num_row_, lp.num_col_ = matrix.shape
    lp.col_cost_ = np.asarray(cost, float)
    lp.col_lower_, lp.col_upper_ = (np.asarray(bound, float) for bound in column_bounds)
    lp.row_lower_, lp.row_upper_ = (np.asarray(bound, float) for bound in row_bounds)
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_, lp.a_matrix_.index_, lp.a_matrix_.value_ = matrix.indptr, matrix.indices, matrix.data
    model.hessian_.dim_, model.hessian_.format_ = n, highspy.HessianFormat.kTriangular
    model.hessian_.start_, model.hessian_.index_, model.hessian_.value_ = _lower_triangle(hessian)
    highs = quiet_highs()
    highs.disableCallbacks()
    limit = highspy.kHighsIInf if iteration_limit is None else int(iteration_limit)
    options = (
        ("output_flag", False),
        ("threads", _threads),
        ("qp_nullspace_limit", max(n, 4000)),  # the active set's null space can reach every variable
        ("qp_iteration_limit", limit),
    )
    for name, value in options:
        HighsDualLP._check(highs.setOptionValue(name, value), f"option {name}")
    HighsDualLP._check(highs.passModel(model), "passModel")
    _run(highs, _threads)
    status = highs.getModelStatus()
    if status != _Status.kOptimal:
        message = highs.modelStatusToString(status)
        raise SolverError(f"HiGHS's QP solver stopped short of the optimum (status: {message})")
    return np.array(highs.getSolution().col_value)
