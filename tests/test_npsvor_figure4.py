"""Seed 004's Figure 4: the traced solve against the dual objectives (6) and (20) written out by hand at
the duals it returns, against minus the primal optimum from a general QP solver (strong duality), and
against the untraced solve."""

import numpy as np
import pytest
import scipy.sparse as sp

from ordercore.npsvor.solver import solve_npsvor, trace_rank
from tests.test_npsvor import primal_by_qp

C1, C2, EPSILON, K = 0.8, 1.2, 0.2, 1


def sparse_ordinal(n=40, d=6, seed=0):
    """X (n, d) CSR with about half its entries zero, ranks 0 … 2 cut from a noisy linear score."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * (rng.random((n, d)) < 0.5)
    score = X @ rng.normal(size=d) + 0.3 * rng.normal(size=n)
    return sp.csr_matrix(X), np.searchsorted(np.quantile(score, [1 / 3, 2 / 3]), score)


def traced(X, ranks, solver, epsilon_s, seed=4):
    return trace_rank(
        X, ranks, K, C1=C1, C2=C2, epsilon=EPSILON, solver=solver, epsilon_s=epsilon_s, max_iter=100_000,
        bias=1.0, seed=seed,
    )  # fmt: skip


def dual_by_hand(X, ranks, solver, variables):
    """Eq. (20) (DCD-2: one α per row) or eq. (6) (DCD-1: α⁺ on the rank's rows in row order, then their
    α⁻ after the n row variables), with w from eq. (19) or (7), X augmented by the constant 1."""
    augmented = np.hstack([X.toarray(), np.ones((X.shape[0], 1))])
    inside, outside = ranks == K, ranks != K
    signs = np.where(ranks > K, 1.0, -1.0)
    n = len(ranks)
    if solver == "dcd2":
        alpha = variables
        w = augmented.T @ (signs * alpha)
        return 0.5 * w @ w + EPSILON * np.abs(alpha[inside]).sum() - alpha[outside].sum()
    plus, minus, beta = variables[:n][inside], variables[n:], variables[:n][outside]
    w = -augmented[inside].T @ (plus - minus) + augmented[outside].T @ (signs[outside] * beta)
    return 0.5 * w @ w + EPSILON * (plus + minus).sum() - beta.sum()


@pytest.mark.parametrize("solver", ["dcd2", "dcd1"])
@pytest.mark.parametrize("epsilon_s", [0.3, 1e-10])
def test_the_last_traced_value_is_the_dual_objective_of_the_returned_duals(solver, epsilon_s):
    X, ranks = sparse_ordinal()
    trace = traced(X, ranks, solver, epsilon_s)
    assert trace.objective.shape == trace.seconds.shape
    assert trace.objective[-1] == pytest.approx(dual_by_hand(X, ranks, solver, trace.variables), rel=1e-12)


@pytest.mark.parametrize("solver", ["dcd2", "dcd1"])
def test_the_traced_dual_never_increases_and_ends_at_minus_the_primal_optimum(solver):
    X, ranks = sparse_ordinal(seed=1)
    trace = traced(X, ranks, solver, 1e-10)
    assert len(trace.objective) > 5
    # coordinate descent minimises the dual exactly along each coordinate: never up, but by rounding
    assert np.all(np.diff(trace.objective) <= 1e-12 * abs(trace.objective[-1]))
    assert trace.objective[0] < 0.0  # below its value 0 at α = 0 after the first sweep
    assert np.all(np.diff(trace.seconds) >= 0.0) and trace.seconds[0] >= 0.0
    augmented = np.hstack([X.toarray(), np.ones((X.shape[0], 1))])
    optimum = primal_by_qp(augmented, ranks, K, C1, C2, EPSILON)
    assert trace.objective[-1] == pytest.approx(-optimum, rel=1e-7)


@pytest.mark.parametrize("solver", ["dcd2", "dcd1"])
def test_tracing_changes_no_value(solver):
    X, ranks = sparse_ordinal(seed=2)
    trace = traced(X, ranks, solver, 1e-3, seed=7)
    solution = solve_npsvor(  # rank k is solved with seed + k
        X, ranks, 3, C1=C1, C2=C2, epsilon=EPSILON, solver=solver, epsilon_s=1e-3, max_iter=100_000, bias=1.0,
        seed=7 - K,
    )  # fmt: skip
    np.testing.assert_array_equal(trace.dual, solution.dual[K])
    np.testing.assert_array_equal(trace.weights, solution.weights[K])
    assert len(trace.objective) == solution.n_iter[K]
