"""An independent reference for the 2-norm variant (seed 001 eq. (7)): its dual written out in the
kernel expansion's own terms and solved by HiGHS's active-set QP solver.  It shares no code with
ordercore's route (an interior point on the feature-space primal, ordercore/lp/two_norm_qp.py): no
eigendecomposition, no scaling of targets or kernel, no hinge rows.

The primal, in the units of y, with f(x) = K(x, centers) alpha + alpha_0 and gram = K(centers, centers):

    min (1/l) sum_i |y_i - f(x_i)|_eps + lambda1 alpha^T gram alpha
        + (lambda2 / p) sum_q w_q max(d_q - (f_iq - f_jq), 0)

Its Lagrange dual (conjugates of |.|_eps / l and of the hinges; minimising over alpha, alpha_0):

    max  y^T pi - eps sum_i |pi_i| + d^T mu - v^T gram^{-1} v / (4 lambda1),   v = K_L^T pi + D^T mu
    s.t. sum_i pi_i + u^T mu = 0,  |pi_i| <= 1/l,  0 <= mu_q <= lambda2 w_q / p,

with D the rows K(x_i, .) - K(x_j, .) and u alpha_0's coefficient in f_i - f_j.  |pi_i| is the
auxiliary a_i >= +-pi_i, a_i <= 1/l.  HiGHS's active-set QP declares some positive semidefinite
problems "non-convex" (zero-curvature directions: a, and the null space of the rank-m Hessian), so
every variable gets the curvature ``RIDGE``; at HiGHS's point the dual objective is evaluated
without it.  Any point feasible for the dual gives a lower bound on the primal optimum (weak duality);
at HiGHS's optimum of the ridged problem it is within (ridge / 2) sum(upper bound^2) of it, the ridge
being RIDGE plus HiGHS's own ``qp_regularization_value`` (1e-7): below 2e-8 on the tests' problems.
"""

import highspy
import numpy as np
import scipy.linalg
import scipy.sparse as sp

RIDGE = 1e-8
"""Curvature added to every dual variable so that HiGHS sees a positive definite Hessian."""


def dual_optimum(gram, kernel_labeled, y, kernel_i, kernel_j, margin, weight, lambda1, lambda2, epsilon, unary):
    """The dual objective at HiGHS's optimum (a lower bound on the primal optimum, see above).

    gram (m, m); kernel_labeled K(x_L, centers) (l, m); kernel_i, kernel_j K(x_i, centers),
    K(x_j, centers) (p, m) (rows of zeros for the constant-zero point); y (l,); margin, weight,
    unary (p,).  Returns (objective, pi (l,), mu (p,))."""
    l, m = kernel_labeled.shape  # noqa: E741 (the papers name the labeled count l)
    p = len(margin)
    margin, weight, unary = (np.asarray(a, float) for a in (margin, weight, unary))
    rows = np.vstack([kernel_labeled, kernel_i - kernel_j])  # v = rows^T (pi, mu)
    # v^T gram^{-1} v = |L^{-1} v|^2 with gram = L L^T: the Hessian over (pi, mu) is W W^T / (2 lambda1)
    cholesky = scipy.linalg.cholesky(gram, lower=True)
    whitened = scipy.linalg.solve_triangular(cholesky, rows.T, lower=True).T  # (l + p, m)
    curvature = whitened @ whitened.T / (2.0 * lambda1)
    n = 2 * l + p  # pi, mu, a
    hessian = np.zeros((n, n))
    hessian[: l + p, : l + p] = curvature
    hessian[np.diag_indices(n)] += RIDGE
    cost = -np.concatenate([y, margin, np.full(l, -epsilon)])  # HiGHS minimises
    constraints = np.zeros((1 + 2 * l, n))
    constraints[0, :l], constraints[0, l : l + p] = 1.0, unary  # sum pi + u^T mu = 0
    constraints[1 : l + 1, :l], constraints[1 : l + 1, l + p :] = -np.eye(l), np.eye(l)  # a - pi >= 0
    constraints[l + 1 :, :l], constraints[l + 1 :, l + p :] = np.eye(l), np.eye(l)  # a + pi >= 0
    upper = np.concatenate([np.full(l, 1.0 / l), lambda2 / max(p, 1) * weight, np.full(l, 1.0 / l)])
    lower = np.concatenate([-np.full(l, 1.0 / l), np.zeros(p + l)])
    row_upper = np.concatenate([[0.0], np.full(2 * l, np.inf)])
    x = solve_qp(hessian, cost, constraints, lower, upper, np.zeros(1 + 2 * l), row_upper)
    pi, mu = x[:l], x[l : l + p]
    assert abs(pi.sum() + unary @ mu) < 1e-9 and np.all(x >= lower - 1e-9) and np.all(x <= upper + 1e-9)
    objective = y @ pi - epsilon * np.abs(pi).sum() + margin @ mu - 0.5 * x[: l + p] @ curvature @ x[: l + p]
    return objective, pi, mu


def solve_qp(hessian, cost, constraints, column_lower, column_upper, row_lower, row_upper) -> np.ndarray:
    """min (1/2) x^T hessian x + cost^T x, row_lower <= constraints x <= row_upper, column bounds; HiGHS QP."""
    model = highspy.HighsModel()
    lp = model.lp_
    matrix = sp.csc_matrix(constraints)
    lp.num_row_, lp.num_col_ = matrix.shape
    lp.col_cost_, lp.col_lower_, lp.col_upper_ = cost, column_lower, column_upper
    lp.row_lower_, lp.row_upper_ = row_lower, row_upper
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_, lp.a_matrix_.index_, lp.a_matrix_.value_ = matrix.indptr, matrix.indices, matrix.data
    triangle = sp.csc_matrix(np.tril(hessian))  # HiGHS's triangular format: the lower triangle by columns
    model.hessian_.dim_ = hessian.shape[0]
    model.hessian_.format_ = highspy.HessianFormat.kTriangular
    model.hessian_.start_, model.hessian_.index_, model.hessian_.value_ = (
        triangle.indptr,
        triangle.indices,
        triangle.data,
    )
    highs = highspy.Highs()
    highs.silent()
    # HiGHS runs one scheduler per process, sized by the first run: ordercore's LP asks for one
    # thread (lp/highs.py), and after a run with the default count HiGHS would refuse its runs.
    highs.setOptionValue("threads", 1)
    highs.passModel(model)
    highs.run()
    status = highs.getModelStatus()
    assert status == highspy.HighsModelStatus.kOptimal, highs.modelStatusToString(status)
    return np.array(highs.getSolution().col_value)
