"""The closed form of MPMR (seed 003 Theorem 2): the MPM direction is a least-squares fit of y on the
kernel's features with a free intercept, ridge-regularised by the covariance regulariser ρ
(``ordercore.mpmr.problem`` derives it).

With w = Σ_i β_i φ(x_i) the fit minimises over β (N,) and β_0

    σ²(β) = (1/N) ‖y − Kβ − β_0 1‖² + ρ (1 + βᵀKβ),

whose stationary point solves the bordered system (K + NρI) β + β_0 1 = y, 1ᵀβ = 0.  The seed's
Theorem 2 states the same minimum as a least squares in 2N − 1 unknowns over the 2N shifted points;
this is its reduced form (one coefficient per training row, N unknowns plus β_0), and
tests/test_mpmr.py checks it against a direct optimisation of the 2N-point MPM objective.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg

from ordercore.exceptions import NotPositiveDefiniteError


@dataclass(frozen=True)
class MPMRSolution:
    """β (N,), β_0, and σ² = min σ²(β), the regularised variance of y − f(x) that sets κ = ε / σ."""

    dual_coef: np.ndarray
    intercept: float
    residual_variance: float


def solve_mpmr(K: np.ndarray, y: np.ndarray, rho: float) -> MPMRSolution:
    """The MPM regression surface for the Gram matrix K (N, N) of a Mercer kernel and targets y (N,).

    ρ > 0: one Cholesky factorisation of K + NρI.  ρ = 0 (the sample covariances alone): the
    minimum-norm least-squares solution by SVD.  With a nonsingular K (an RBF over distinct points) that
    fit interpolates the data in exact arithmetic (σ² = 0, Ω = 1 whatever the noise); in floating point
    an RBF's K is numerically singular, and the answer depends on where the SVD's cutoff truncates it.
    Raises ``NotPositiveDefiniteError`` when K + NρI is not positive definite
    (a kernel that is not a Mercer kernel)."""
    if rho > 0:
        return _ridge(K, y, rho)
    return _least_squares(K, y)


def _ridge(K: np.ndarray, y: np.ndarray, rho: float) -> MPMRSolution:
    n = len(y)
    regularised = K.copy()
    regularised.flat[:: n + 1] += n * rho  # K + NρI
    try:
        factor = scipy.linalg.cho_factor(regularised, lower=True, overwrite_a=True, check_finite=False)
    except np.linalg.LinAlgError:
        raise NotPositiveDefiniteError(
            f"K + N rho I is not positive definite (rho = {rho:g}): the kernel is not a Mercer kernel"
        ) from None
    # [A⁻¹y, A⁻¹1] with A = K + NρI; β = A⁻¹(y − β_0 1) and 1ᵀβ = 0 give β_0 = 1ᵀA⁻¹y / 1ᵀA⁻¹1
    solved = scipy.linalg.cho_solve(factor, np.column_stack([y, np.ones(n)]), check_finite=False)
    intercept = solved[:, 0].sum() / solved[:, 1].sum()
    beta = solved[:, 0] - intercept * solved[:, 1]
    fitted = K @ beta
    # σ² = Var_N(y − f) + ρ(1 + ‖w‖²), ‖w‖² = βᵀKβ
    return MPMRSolution(beta, float(intercept), float(np.var(y - fitted) + rho * (1 + beta @ fitted)))


def _least_squares(K: np.ndarray, y: np.ndarray) -> MPMRSolution:
    # min_β ‖H(y − Kβ)‖², H = I − 11ᵀ/N centring (β_0 free); minimum-norm β by SVD, singular values
    # below N·eps·s_max taken as 0 (the pseudo-inverse's usual cutoff: rounding leaves values of that size
    # where the exact ones are 0, and inverting them would make β huge and the predictions unstable)
    cutoff = len(y) * np.finfo(np.float64).eps
    beta = scipy.linalg.lstsq(K - K.mean(axis=0), y - y.mean(), cond=cutoff, check_finite=False)[0]
    fitted = K @ beta
    intercept = float(np.mean(y - fitted))
    return MPMRSolution(beta, intercept, float(np.var(y - fitted)))
