"""Kernel matrices K(X, Y) for the kernel regressors (the order-preference LP, and any later one),
through ``sklearn.metrics.pairwise``: gamma, degree and coef0 mean what they mean there (rbf
exp(-gamma |x - y|^2); poly (gamma <x, y> + coef0)^degree).  The GP's covariance function, with its
own hyperparameters and gradients, is ``ordercore.gp.covariance``."""

from __future__ import annotations

import numpy as np
import sklearn
from sklearn.metrics.pairwise import linear_kernel, polynomial_kernel, rbf_kernel

KERNELS = ("rbf", "linear", "poly")


def kernel_matrix(X: np.ndarray, Y: np.ndarray, kernel: str, gamma=None, degree=3, coef0=1.0) -> np.ndarray:
    """K(X, Y) of shape (len(X), len(Y)); ``gamma=None`` means 1 / n_features, as in sklearn.

    X and Y must be finite float arrays (callers validate them once, so the finiteness scan that
    scikit-learn repeats on every call is skipped)."""
    with sklearn.config_context(assume_finite=True):
        if kernel == "linear":
            return linear_kernel(X, Y)
        if kernel == "rbf":
            return rbf_kernel(X, Y, gamma=gamma)
        if kernel == "poly":
            return polynomial_kernel(X, Y, degree=degree, gamma=gamma, coef0=coef0)
    raise ValueError(f"unknown kernel {kernel!r}; choose one of {KERNELS}")
