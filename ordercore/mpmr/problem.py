"""MPMR as minimax probability classification (Strohmann & Grudic, NIPS 2002 — seed 003), and the
bound Ω it returns with the model.

The seed's transcript lost most symbols of eqs. (1), (6)-(10) and of Theorem 2's proof; where it
did, this follows the MPM classification derivation the seed builds on (Lanckriet, El Ghaoui,
Bhattacharyya & Jordan, "Minimax probability machine", NIPS 2002, and its long form "A robust
minimax approach to classification", JMLR 2002, for the regularised covariances).

Classes (eq. (11)): u_i = (y_i + ε, x_i) and v_i = (y_i − ε, x_i), i = 1 … N, seen through the kernel
(14), K_c((y, x), (y', x')) = y y' + K(x, x'): the feature map φ_c(y, x) = (y, φ(x)).
MPM (Lanckriet et al. Theorem 2; the seed's (7)-(10) kernelise it): with the classes' means ū, v̄ and
covariance estimates Σ_u, Σ_v (the 1/N sample estimates, Lanckriet's),

    1/κ = min_a √(aᵀ Σ_u a) + √(aᵀ Σ_v a)   s.t.  aᵀ(ū − v̄) = 1,          (7), (9)
    b = aᵀū − κ √(aᵀ Σ_u a),                                                    (8)
    α = κ² / (1 + κ²),                                                          (10)

and the worst-case probability, over all distributions with these moments, that a point of either
class falls on its own side of {z : aᵀφ_c(z) = b} is α.  Robust MPM (Lanckriet et al. JMLR §3)
replaces each Σ by Σ + ρI, the worst case over covariances within Frobenius distance ρ of the
estimate; ``rho`` below is that ρ.

Theorem 2, read through that derivation.  u_i − v_i = (2ε, 0), so Σ_u = Σ_v = Σ, the covariance of
(y, φ(x)) over the data (Part 2, K̃_u = K̃_v), and ū − v̄ = (2ε, 0) (Lemma 1).  Writing
a = a_y (1, −w), the constraint fixes a_y = 1 / (2ε) and

    aᵀ(Σ + ρI)a = a_y² σ²(w),   σ²(w) = Var_N(y − wᵀφ(x)) + ρ (1 + ‖w‖²),

so the MPM direction is w* = argmin σ²(w): ridge regression of y on φ(x) with a free intercept
(plain least squares at ρ = 0, Part 3), the same for every ε.  Then κ = ε / σ with σ² = σ²(w*),
b = a_y (ȳ − w*ᵀφ̄), and the boundary solved for y (eq. (12), Part 1) is the regression surface
ŷ(x) = ȳ + w*ᵀ(φ(x) − φ̄), in kernel form Σ_i β_i K(x_i, x) + β_0 (eq. (5)).  Theorem 1 reads the
classes' α as the bound on the regression: Ω = inf P(|ŷ(x) − y| ≤ ε) = κ² / (1 + κ²) (eq. (13)).
"""

from __future__ import annotations

import math

import numpy as np


def check_epsilon(epsilon) -> float:
    """ε as a float, or ``ValueError`` unless it is a finite number > 0 (the tube's half-width)."""
    if isinstance(epsilon, bool) or not isinstance(epsilon, int | float | np.integer | np.floating):
        raise TypeError(f"epsilon must be a number, got {type(epsilon).__name__}")
    if not (np.isfinite(epsilon) and epsilon > 0):
        raise ValueError(f"epsilon must be a finite number > 0, got {epsilon!r}")
    return float(epsilon)


def check_targets(y: np.ndarray) -> None:
    """``ValueError`` for targets y (n,) whose residuals' variance σ² (units of y squared) could overflow
    float64: n (2 max|y|)² must be finite, |y| up to about 1e150 (beyond, σ² and Ω were NaN, and from
    about 1e300 the fit too, with numpy's overflow warnings as the only word)."""
    largest = np.max(np.abs(y))
    with np.errstate(over="ignore"):
        bound = y.size * (2 * largest) ** 2
    if not bound < np.finfo(np.float64).max:
        raise ValueError(
            f"y is too large for MPMR in float64: its largest absolute value, {largest:.3g}, makes the variance of "
            "the residuals (units of y squared) overflow; rescale the target (e.g. divide it by a power of ten)"
        )


def kappa(epsilon: float, residual_variance: float) -> float:
    """κ = ε / σ (eq. (9) at the MPM direction; see the module docstring); inf when σ² = 0."""
    return np.inf if residual_variance == 0 else epsilon / np.sqrt(residual_variance)


def omega(epsilon: float, residual_variance: float) -> float:
    """Ω = κ² / (1 + κ²) = ε² / (ε² + σ²) (eqs. (10), (13)), written without κ so that σ² = 0 gives 1."""
    return (epsilon / math.hypot(epsilon, math.sqrt(residual_variance))) ** 2  # hypot: ε = 1e300 squares to inf
