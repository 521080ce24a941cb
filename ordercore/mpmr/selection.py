"""ρ chosen from the data, and the coverage of the tube ŷ ± ε measured on rows a fit did not see (issue
32): the checks that make MPMR's Ω honest, or say when it is not.

Seed 003 names no regulariser; the tiny ρ that reproduces its tables (``PAPER_RHO``) lets an RBF fit
come close to interpolating its training rows, so the training residuals σ² that set Ω (eq. (13)) are
far below the error on new rows: fitted on 200 of the sample homes, Ω read 0.98 while 45 % of the other
homes fell within ε.  ``choose_rho`` takes the ρ of least leave-one-out squared error instead (the
usual rule for a ridge penalty, which ρ is: ``solver.py``); there Ω bounds the coverage from below, as
a bound should (the same homes: Ω 0.55, 68 % within ε).

Leave-one-out residuals in closed form.  The fit minimises ‖y − Kβ − β₀1‖² + λ βᵀKβ, λ = Nρ (the
solver's objective times N), a penalised least squares with the intercept free, so its fitted values
are Hy for the hat matrix H = 11ᵀ/N + K̃(K̃ + λI)⁻¹, K̃ = CKC the doubly centred kernel (C = I − 11ᵀ/N),
and the residual of row i refitted without it is (y_i − ŷ_i) / (1 − H_ii) (the leave-one-out lemma
for penalised least squares; Hastie, Tibshirani & Friedman, eq. (7.52)).  One eigendecomposition K̃ =
V diag(d) Vᵀ serves every λ: ŷ = ȳ + V diag(d / (d + λ)) Vᵀ(y − ȳ), H_ii = 1/N + Σ_k V_ik² d_k / (d_k + λ).
Each left-out fit keeps the full fit's λ = Nρ (a refit of ``MPMRegressor`` on N − 1 rows would weigh
its penalty as (N − 1)ρ): the tests compare it with refits at that λ.  The eigendecomposition costs
about ten Cholesky factorisations (30 s at N = 5,000 against 2 s for the fit), so above
``LOO_MAX_ROWS`` rows both are measured on a fixed random sample of that many rows: ρ is then the best
for a fit of that size, and the coverage that of such a fit (a little below the full fit's).
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
import scipy.stats

RHO_GRID = tuple(10.0 ** np.arange(-6.0, 1.01, 0.5))
"""The ρ ``choose_rho`` compares: from the paper's 1e-6 to 10, half a decade apart (an RBF kernel's
entries are at most 1, so ρ = 10 all but flattens the fit)."""

MIN_SAMPLES = 10
"""Fewer training rows than this estimate neither the moments Ω rests on nor its coverage: the fit
warns (``omega_warning``).  Fitted on 1-5 rows, Ω read 0.9996 and above while the tube held 20 % of new
rows."""

CONFIDENCE = 0.95
"""Ω is called above the measured coverage when it exceeds the coverage's one-sided upper Clopper-Pearson
bound at this confidence (the measurement's noise: k of N residuals within ε)."""

LOO_MAX_ROWS = 2_000
"""The most rows whose leave-one-out residuals are computed (module docstring): 1.5 s at 2,000."""

SINGULAR = 1e-10
"""1 − H_ii below this: the fit interpolates row i (ρ = 0 with a nonsingular kernel), and the row left
out is not predicted at all; its residual counts as infinite (outside every tube)."""


def leave_one_out_residuals(K: np.ndarray, y: np.ndarray, rhos) -> np.ndarray:
    """y_i − ŷ_{−i}(x_i) (m, N) for each ρ of ``rhos`` (m,), each ŷ_{−i} the fit without row i at the full
    fit's penalty λ = Nρ (module docstring); K (N, N) the kernel's Gram matrix, y (N,)."""
    n = len(y)
    centred = K - K.mean(axis=0)
    centred -= centred.mean(axis=1, keepdims=True)
    d, V = scipy.linalg.eigh(centred, check_finite=False)
    d = np.clip(d, 0.0, None)
    projected, squared = V.T @ (y - y.mean()), V**2
    residuals = np.empty((len(rhos), n))
    for k, rho in enumerate(rhos):
        shrink = d / (d + n * rho) if rho > 0 else (d > d.max(initial=0.0) * n * np.finfo(float).eps).astype(float)
        fitted = y.mean() + V @ (shrink * projected)
        leverage = 1.0 / n + squared @ shrink
        room = 1.0 - leverage
        with np.errstate(divide="ignore", invalid="ignore"):
            residuals[k] = np.where(room > SINGULAR, (y - fitted) / room, np.inf)
    return residuals


def measured_rows(n: int) -> np.ndarray:
    """The rows whose leave-one-out residuals are measured (≤ ``LOO_MAX_ROWS``,): all of n, or a sample
    drawn with a fixed seed (a fit stays deterministic)."""
    if n <= LOO_MAX_ROWS:
        return np.arange(n)
    return np.sort(np.random.default_rng(0).choice(n, LOO_MAX_ROWS, replace=False))


def choose_rho(K: np.ndarray, y: np.ndarray) -> tuple[float, np.ndarray]:
    """(ρ, its leave-one-out residuals (m,) on ``measured_rows``): the ρ of ``RHO_GRID`` of least mean
    squared leave-one-out residual (the smallest on a tie).  With fewer than 3 rows nothing can be left
    out: the paper's 1e-6 and residuals of NaN."""
    if len(y) < 3:
        return RHO_GRID[0], residuals_at(K, y, RHO_GRID[0])
    rows = measured_rows(len(y))
    residuals = leave_one_out_residuals(K[np.ix_(rows, rows)], y[rows], RHO_GRID)
    best = int(np.argmin(np.mean(residuals**2, axis=1)))
    return RHO_GRID[best], residuals[best]


def residuals_at(K: np.ndarray, y: np.ndarray, rho: float) -> np.ndarray:
    """The leave-one-out residuals (m,) on ``measured_rows`` at one ρ; NaN with fewer than 3 rows."""
    if len(y) < 3:
        return np.full(len(y), np.nan)
    rows = measured_rows(len(y))
    return leave_one_out_residuals(K[np.ix_(rows, rows)], y[rows], [rho])[0]


def coverage(residuals: np.ndarray, epsilon: float) -> float:
    """The share of |residuals| (N,) at most ε; NaN when they are not measured (NaN)."""
    residuals = np.abs(np.asarray(residuals, dtype=float))
    return float("nan") if residuals.size == 0 or np.isnan(residuals).any() else float(np.mean(residuals <= epsilon))


def omega_warning(omega: float, residuals: np.ndarray, epsilon: float, chosen: bool) -> str | None:
    """Why the bound ``omega`` should not be believed, in words, or None: fewer than ``MIN_SAMPLES``
    rows, or Ω above the ``CONFIDENCE`` upper bound of the leave-one-out coverage of ε.  ``chosen``:
    whether ρ was chosen from the data (else the text says that choosing it may help)."""
    n = len(residuals)
    if n < MIN_SAMPLES:
        return (
            f"Ω = {omega:.3f} rests on the moments of {n} row{'s' * (n != 1)}: at least {MIN_SAMPLES} are needed "
            "to estimate them, and with fewer Ω says nothing about new rows"
        )
    within = int(np.sum(np.abs(residuals) <= epsilon))
    upper = 1.0 if within == n else float(scipy.stats.beta.ppf(CONFIDENCE, within + 1, n - within))
    if omega <= upper:
        return None
    return (
        f"Ω = {omega:.3f} claims more than the fit delivers: left out one at a time, {within} of {n} rows "
        f"({within / n:.3f}) fall within ε (at most {upper:.3f} at {CONFIDENCE:.0%} confidence). Ω is a bound "
        "from the training rows' moments, not a measured coverage"
        + ("" if chosen else "; rho='auto' chooses ρ from the data, which usually makes it honest")
    )
