"""An independent reference: seed 001's primal LP (13), written out densely as printed, with the
variables (alpha, alpha_0, xi, eta, nu), solved by ``scipy.optimize.linprog``.  It shares no code
with ordercore's dual formulation; tests compare the two optima, and bench/lp_bench.py uses it as
the naive baseline."""

import numpy as np
from scipy.optimize import linprog


def solve_paper_lp(kernel_labeled, y, kernel_i, kernel_j, margin, weight, lambda1, lambda2, epsilon=0.0, unary=None):
    """LP (13).  kernel_labeled K(x_L, centers) (l, m); y (l,); kernel_i, kernel_j K(x_i, centers),
    K(x_j, centers) (p, m) (rows of zeros for the constant-zero point); margin d, weight w (p,);
    unary (p,) alpha_0's coefficient in f_i - f_j (0 for pairs).  Returns (objective, alpha, alpha_0)."""
    l, m = kernel_labeled.shape  # noqa: E741 (the papers name the labeled count l)
    p = len(margin)
    unary = np.zeros(p) if unary is None else np.asarray(unary, float)
    n = m + 1 + l + m + p  # alpha, alpha_0, xi, eta, nu
    cost = np.concatenate(
        [np.zeros(m + 1), np.full(l, 1.0 / l), np.full(m, lambda1), lambda2 / max(p, 1) * np.asarray(weight, float)]
    )
    blocks, rhs = [], []

    def row(alpha=None, alpha0=None, xi=None, eta=None, nu=None, k=1):
        parts = [
            np.zeros((k, m)) if alpha is None else alpha,
            np.zeros((k, 1)) if alpha0 is None else alpha0,
            np.zeros((k, l)) if xi is None else xi,
            np.zeros((k, m)) if eta is None else eta,
            np.zeros((k, p)) if nu is None else nu,
        ]
        return np.hstack(parts)

    ones = np.ones((l, 1))
    # y - K alpha - alpha_0 <= xi + eps   and   -(y - K alpha - alpha_0) <= xi + eps
    blocks += [row(-kernel_labeled, -ones, -np.eye(l), k=l), row(kernel_labeled, ones, -np.eye(l), k=l)]
    rhs += [epsilon - y, epsilon + y]
    # -eta <= alpha <= eta
    blocks += [row(np.eye(m), eta=-np.eye(m), k=m), row(-np.eye(m), eta=-np.eye(m), k=m)]
    rhs += [np.zeros(m), np.zeros(m)]
    # (K_i - K_j) alpha + u alpha_0 >= d - nu
    if p:
        blocks.append(row(-(kernel_i - kernel_j), -unary[:, None], nu=-np.eye(p), k=p))
        rhs.append(-np.asarray(margin, float))
    bounds = [(None, None)] * (m + 1) + [(0, None)] * l + [(None, None)] * m + [(0, None)] * p
    result = linprog(cost, A_ub=np.vstack(blocks), b_ub=np.concatenate(rhs), bounds=bounds, method="highs")
    assert result.status == 0, result.message
    assert n == result.x.size
    return result.fun, result.x[:m], result.x[m]
