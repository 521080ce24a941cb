"""``solve_npsvor``: NPSVOR's K independent problems (seed 004, eqs. (4)/(20)), each solved by dual
coordinate descent (``ordercore.npsvor.coordinate_descent``), optionally from previous duals; and
``trace_rank``: one rank's solve with its dual objective and time after every sweep (Figure 4)."""

from concurrent.futures import ThreadPoolExecutor
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

from ordercore.npsvor.coordinate_descent import PREFETCH_FROM_BYTES, dual_coordinate_descent, squared_norms
from ordercore.npsvor.problem import dual_variables, rank_signs, row_duals, variable_duals

NO_TRACE = np.empty(0)
"""The loop's trace arrays when nothing is traced (length 0: never written)."""


class NPSVORSolution(NamedTuple):
    """weights (K, n_features + 1): w_k, the bias feature's weight last; dual (K, n): α of eq. (20)
    per rank; n_iter (K,): sweeps made; initial_violation (K,): ‖v⁰‖₁ of eq. (31) of a cold start,
    the scale a warm start's stopping rule keeps."""

    weights: np.ndarray
    dual: np.ndarray
    n_iter: np.ndarray
    initial_violation: np.ndarray


def weights_from_duals(X: sp.csr_matrix, bias: float, ranks: np.ndarray, k: int, alpha: np.ndarray) -> np.ndarray:
    """w = Σ_i ỹ_i α_i x_i (eq. (19)), (n_features + 1,), the bias feature's weight last."""
    signed = rank_signs(ranks, k) * alpha
    return np.append(X.T @ signed, bias * signed.sum())


def solve_npsvor(
    X: sp.csr_matrix,
    ranks: np.ndarray,
    n_ranks: int,
    *,
    C1: float,
    C2: float,
    epsilon: float,
    solver: str,
    epsilon_s: float,
    max_iter: int,
    bias: float,
    seed: int,
    warm_start: NPSVORSolution | None = None,
    n_threads: int = 1,
) -> NPSVORSolution:
    """Solve rank k's dual for k = 0 … n_ranks − 1 on X (n, d) CSR float64 and ranks (n,) coded 0 … K−1.

    warm_start: a previous solution on the first rows of X (its ``dual`` (K, n_old), n_old ≤ n); the new
    rows start at α = 0 and every α is clipped into the current bounds, so any previous fit (other C,
    relabelled rows) gives a feasible start.  Its ‖v⁰‖₁ stays the stopping rule's scale (eq. (31)),
    so the warm fit stops at the accuracy a cold one would.
    n_threads: ranks solved at once.  The problems share only X, which they read; each owns its row
    of ``weights`` and ``dual`` and its seed (seed + k, numba keeps one random state per thread), so
    the solution does not depend on n_threads."""
    n, d = X.shape
    norms = squared_norms(X.indptr, X.data, bias)
    prefetch = X.indices.nbytes + X.data.nbytes >= PREFETCH_FROM_BYTES
    weights = np.zeros((n_ranks, d + 1))
    dual = np.zeros((n_ranks, n))
    n_iter = np.zeros(n_ranks, dtype=np.int64)
    initial = np.full(n_ranks, -1.0)

    def solve_rank(k: int) -> None:
        """Rank k's problem, written into row k of weights, dual, n_iter and initial."""
        variables = dual_variables(ranks, k, C1, C2, epsilon, solver)
        if warm_start is not None:
            previous = np.zeros(n)
            previous[: warm_start.dual.shape[1]] = warm_start.dual[k]
            previous = np.clip(previous, np.where(ranks == k, -C1, 0.0), np.where(ranks == k, C1, C2))
            weights[k] = weights_from_duals(X, bias, ranks, k, previous)
            alpha = variable_duals(variables, previous)
            initial[k] = warm_start.initial_violation[k]
        else:
            alpha = np.zeros(variables.row.size)
        n_iter[k], initial[k] = dual_coordinate_descent(
            X.indptr, X.indices, X.data, bias, norms, *variables,
            epsilon, epsilon_s, max_iter, alpha, weights[k], initial[k], seed + k, prefetch, NO_TRACE, NO_TRACE,
        )  # fmt: skip
        dual[k] = row_duals(variables, alpha, n)

    with ThreadPoolExecutor(max_workers=max(1, min(n_threads, n_ranks))) as pool:
        list(pool.map(solve_rank, range(n_ranks)))  # list(): re-raises a rank's error here
    return NPSVORSolution(weights, dual, n_iter, initial)


class RankTrace(NamedTuple):
    """One rank's solve from α = 0, traced.  seconds, objective (T,): after each of its T sweeps, the
    solver's time so far and the dual objective it minimises (eq. (6) for DCD-1, eq. (20) for DCD-2:
    the same optimum); variables (m,): the solver's variables at the end (``dual_variables``' layout);
    dual (n,): α of eq. (20); weights (n_features + 1,): w, the bias feature's weight last."""

    seconds: np.ndarray
    objective: np.ndarray
    variables: np.ndarray
    dual: np.ndarray
    weights: np.ndarray


def trace_rank(
    X: sp.csr_matrix, ranks: np.ndarray, k: int, *, C1: float, C2: float, epsilon: float, solver: str,
    epsilon_s: float, max_iter: int, bias: float, seed: int,
) -> RankTrace:  # fmt: skip
    """Rank k's dual (ranks (n,) coded 0 … K−1, X (n, d) CSR float64) solved as ``solve_npsvor`` solves
    it, recording the time and the dual objective after every sweep (the time leaves out computing
    A_i = x_iᵀx_i, eq. (10), done once before the sweeps, and the objective's own evaluations)."""
    n, d = X.shape
    variables = dual_variables(ranks, k, C1, C2, epsilon, solver)
    norms = squared_norms(X.indptr, X.data, bias)
    alpha, w = np.zeros(variables.row.size), np.zeros(d + 1)
    seconds, objective = np.zeros(max_iter), np.zeros(max_iter)
    sweeps, _ = dual_coordinate_descent(
        X.indptr, X.indices, X.data, bias, norms, *variables, epsilon, epsilon_s, max_iter, alpha, w, -1.0, seed,
        X.indices.nbytes + X.data.nbytes >= PREFETCH_FROM_BYTES, seconds, objective,
    )  # fmt: skip
    return RankTrace(seconds[:sweeps], objective[:sweeps], alpha, row_duals(variables, alpha, n), w)
