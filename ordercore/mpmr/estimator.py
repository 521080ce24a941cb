"""``MPMRegressor``: minimax probability machine regression (Strohmann & Grudic, NIPS 2002 — seed
003) as a scikit-learn estimator, with its bound Ω on P(|ŷ(x) − y| ≤ ε)."""

from __future__ import annotations

import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin, _fit_context
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted
from threadpoolctl import threadpool_limits

from ordercore.exceptions import OmegaWarning
from ordercore.inputs.fit_inputs import (
    LabelsScored,
    NumbersNotBooleans,
    check_rows,
    finite_labels,
    numeric_targets,
    validate_data,
)
from ordercore.models.files import save_model
from ordercore.mpmr.problem import check_epsilon, check_targets, kappa, omega
from ordercore.mpmr.selection import choose_rho, coverage, omega_warning, residuals_at
from ordercore.mpmr.solver import MPMRSolution, solve_mpmr
from ordercore.numerics.kernels import KERNELS, kernel_matrix
from ordercore.numerics.magnitudes import check_gamma_resolves, check_kernel_input

PAPER_RHO = 1e-6
"""The ρ that reproduces the paper.  The seed names no regularisation, but with none (ρ = 0) an RBF fit
interpolates its training data in exact arithmetic (Ω = 1 whatever the noise, against Table 1's 0.16
at noise 0.5) and rests on rounding in floating point; ρ = 1e-6 reproduces Table 1's Ω to three
digits and Table 2's (docs/REPRODUCTION.md, "MPMR").  It is not the default: on other data it can
leave Ω far above the coverage (``ordercore.mpmr.selection``)."""

FIT_BLAS_THREADS = 1
"""BLAS threads of a fit (the kernel's products and the Cholesky factorisation).  On the project's
2-core machine, shared with other work, two OpenBLAS threads spent most of their time waiting on each
other: a 481-row Cholesky took 15 ms (median) against 1.6 ms on one thread, a 5,000-row one 9.3 s
against 1.9 s."""


class MPMRegressor(NumbersNotBooleans, LabelsScored, RegressorMixin, BaseEstimator):
    """Regression posed as minimax probability classification of the data shifted by ±ε in y.

    Fits ŷ(x) = Σ_i β_i K(x_i, x) + β_0 (eq. (5)) and the bound (eq. (13))

        Ω = inf P(|ŷ(x) − y| ≤ ε) = ε² / (ε² + σ²),

    the infimum over all distributions with the data's means and covariances (estimated from the
    training data, plus ρI), σ² the regularised variance of y − ŷ(x) that Theorem 2's least squares
    minimises (``ordercore.mpmr.problem`` derives it).  The surface does not depend on ε; Ω does.
    Ω is the paper's bound: a statement about the estimated moments, not a guaranteed coverage
    (docs/REPRODUCTION.md measures how it compares).  So each fit also measures the coverage of its
    tube on rows left out one at a time (closed form, ``ordercore.mpmr.selection``), and warns
    (``OmegaWarning``, the text kept in ``omega_warning_``) when Ω claims more than that coverage's
    noise allows, or rests on fewer than 10 rows.

    Parameters
    ----------
    kernel : {'rbf', 'linear', 'poly'}; gamma, degree, coef0 as in ``sklearn.metrics.pairwise``
        (gamma=None means 1 / n_features; coef0 >= 0 keeps 'poly' a Mercer kernel, as Theorem 2 needs).
    epsilon : float > 0, half-width of the tube ŷ ± ε, in units of y.
    rho : 'auto' or float >= 0, the covariance regulariser of robust MPM (Lanckriet et al. 2002): each
        class covariance estimate Σ becomes Σ + ρI in the kernel's feature space, i.e. a ridge penalty
        ρ‖w‖² on the fit.  'auto' (the default): the ρ of least leave-one-out squared error over
        ``selection.RHO_GRID``.  ``PAPER_RHO`` = 1e-6 reproduces the paper's tables; 0 leaves the plain
        sample covariances (``ordercore.mpmr.solver.solve_mpmr`` says what an RBF fit then does).

    Attributes
    ----------
    centers_ : ndarray (n_samples, n_features), the training X.  dual_coef_ : ndarray (n_samples,),
        β.  intercept_ : float, β_0.
    residual_variance_ : float, σ² (units of y squared).
    kappa_ : float, κ = ε / σ (eq. (9)).  omega_ : float, Ω for ``epsilon`` (eq. (13)).
    rho_ : float, the ρ fitted.  loo_residuals_ : ndarray (m,), y − ŷ of each measured row by the fit
        without it (all rows, or 2,000 of them: ``selection.measured_rows``; NaN with fewer than 3 rows;
        None once read from a model file, which keeps only their coverage).
    loo_coverage_ : float, their share within ε (NaN: not measured).  omega_warning_ : str or None,
        why Ω should not be believed.
    """

    _parameter_constraints: dict = {
        "kernel": [StrOptions(set(KERNELS))],
        "gamma": [Interval(Real, 0, None, closed="neither"), None],
        "degree": [Interval(Integral, 1, None, closed="left")],
        "coef0": [Interval(Real, 0, None, closed="left")],
        "epsilon": [Interval(Real, 0, None, closed="neither")],
        "rho": [Interval(Real, 0, None, closed="left"), StrOptions({"auto"})],
    }

    def __init__(self, *, kernel="rbf", gamma=None, degree=3, coef0=1.0, epsilon=0.1, rho="auto"):
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.epsilon = epsilon
        self.rho = rho

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Fit on X (n, n_features) and finite targets y (n,); ``OmegaWarning`` when Ω is not to be believed."""
        check_rows(X)
        numeric_targets(y)
        finite_labels(y, "fit")
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=True)
        check_kernel_input(X, self.kernel, self.gamma, self.degree, self.coef0)
        check_gamma_resolves(X, self.kernel, self.gamma)
        check_targets(y)
        with threadpool_limits(limits=FIT_BLAS_THREADS, user_api="blas"):
            K = self._kernel(X, X)
            if self.rho == "auto":
                rho, residuals = choose_rho(K, y)
            else:
                rho, residuals = float(self.rho), residuals_at(K, y, float(self.rho))
            solution = solve_mpmr(K, y, rho)
        self.rho_, self.loo_residuals_ = rho, residuals
        self._set_solution(X, solution, coverage(residuals, float(self.epsilon)))
        self.omega_warning_ = omega_warning(self.omega_, residuals, float(self.epsilon), self.rho == "auto")
        if self.omega_warning_ is not None:
            warnings.warn(self.omega_warning_, OmegaWarning, stacklevel=3)  # the caller of fit's sklearn wrapper
        return self

    def _kernel(self, A: np.ndarray, B: np.ndarray) -> np.ndarray:
        return kernel_matrix(A, B, self.kernel, self.gamma, self.degree, self.coef0)

    def _set_solution(self, X: np.ndarray, solution: MPMRSolution, loo_coverage: float) -> None:
        self.centers_ = X
        self.loo_coverage_ = loo_coverage
        self.dual_coef_ = solution.dual_coef
        self.intercept_ = solution.intercept
        self.residual_variance_ = solution.residual_variance
        self.kappa_ = kappa(float(self.epsilon), solution.residual_variance)
        self.omega_ = omega(float(self.epsilon), solution.residual_variance)

    def predict(self, X):
        """ŷ(x) = K(x, centers_) dual_coef_ + intercept_, shape (n,) (eq. (5))."""
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        check_kernel_input(X, self.kernel, self.gamma, self.degree, self.coef0)
        return self._kernel(X, self.centers_) @ self.dual_coef_ + self.intercept_

    def predict_interval(self, X) -> tuple[np.ndarray, np.ndarray]:
        """(lower, upper) = ŷ(x) ∓ ε, each shape (n,): the tube that holds y with probability at
        least ``omega_`` under every distribution with the estimated moments (Theorem 1)."""
        prediction = self.predict(X)
        return prediction - self.epsilon, prediction + self.epsilon

    def omega_for(self, epsilon) -> float:
        """Ω of this fit for another half-width ε > 0: the surface is the same for every ε, so this is
        what a refit with ``epsilon`` would report."""
        check_is_fitted(self)
        return omega(check_epsilon(epsilon), self.residual_variance_)

    def save(self, path, preprocessing=None, metadata=None) -> None:
        """Write the fit to ``path`` (.npz, no pickle; see ``ordercore.models.files.save_model``)."""
        save_model(path, self, preprocessing, metadata)

    # What a model file keeps (ordercore/models/files.py): entry -> (dtype, shape in named dimensions).
    _saved_arrays = {
        "centers": ("float64", ("n_centers", "n_features")),
        "dual_coef": ("float64", ("n_centers",)),
    }
    _saved_scalars = {
        "intercept": float,
        "residual_variance": float,
        "fitted_rho": (float, type(None)),
        "loo_coverage": (float, type(None)),
        "omega_warning": (str, type(None)),
    }
    _later_scalars = {"fitted_rho": None, "loo_coverage": None, "omega_warning": None}
    """Files written before issue 32 keep no ρ fitted, coverage or warning: None (NaN once read)."""

    def _saved_state(self) -> tuple[dict, dict]:
        arrays = {"centers": self.centers_, "dual_coef": self.dual_coef_}
        coverage_kept = None if np.isnan(self.loo_coverage_) else float(self.loo_coverage_)
        scalars = {"intercept": float(self.intercept_), "residual_variance": float(self.residual_variance_)}
        return arrays, {
            **scalars,
            "fitted_rho": float(self.rho_),
            "loo_coverage": coverage_kept,
            "omega_warning": self.omega_warning_,
        }

    def _restore_state(self, arrays: dict, scalars: dict) -> None:
        """The fit ``_saved_state`` described, checked: finite arrays, σ² a finite number >= 0."""
        if not (np.isfinite(arrays["centers"]).all() and np.isfinite(arrays["dual_coef"]).all()):
            raise ValueError("the saved centers and coefficients must be finite")
        if not (np.isfinite(scalars["residual_variance"]) and scalars["residual_variance"] >= 0):
            raise ValueError(
                f"the residual variance must be a finite number >= 0, got {scalars['residual_variance']!r}"
            )
        solution = MPMRSolution(arrays["dual_coef"], scalars["intercept"], scalars["residual_variance"])
        kept = scalars["loo_coverage"]
        self._set_solution(arrays["centers"], solution, float("nan") if kept is None else kept)
        self.rho_ = float("nan") if scalars["fitted_rho"] is None else scalars["fitted_rho"]
        self.loo_residuals_, self.omega_warning_ = None, scalars["omega_warning"]
