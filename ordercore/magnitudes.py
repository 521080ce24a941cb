"""Values too large for float64's squares (beyond about 1e154): a standard deviation that does not
overflow, for the estimators' own scalings (the kernel regressors' targets, the GP's features), and
the check that a kernel's inputs keep their squared distances and inner products finite.

Without them a label near 1e300 gave an infinite scale and all-NaN predictions, and features near
1e200 a kernel matrix of NaN that the solvers refused with no word about why."""

from __future__ import annotations

import numpy as np

LARGEST = np.finfo(np.float64).max


SAFE_MAGNITUDES = (1e-100, 1e100)
"""Where np.std's squares neither overflow nor lose digits to underflow: values whose largest |x| lies
between these bounds take np.std as it is."""


def standard_deviation(values: np.ndarray, axis=None) -> np.ndarray | float:
    """np.std(values, axis), and where the largest |value| lies outside ``SAFE_MAGNITUDES`` (where
    np.std's squares overflow, beyond ~1e154, or underflow) the same computed on values / max|values|
    and scaled back."""
    values = np.asarray(values, dtype=np.float64)
    magnitude = np.max(np.abs(values), axis=axis, keepdims=True)
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        spread = np.std(values, axis=axis, keepdims=True)
    safe = (magnitude > SAFE_MAGNITUDES[0]) & (magnitude < SAFE_MAGNITUDES[1])
    if not safe.all():
        magnitude = np.where(magnitude > 0, magnitude, 1.0)
        spread = np.where(safe, spread, np.std(values / magnitude, axis=axis, keepdims=True) * magnitude)
    return float(spread.item()) if axis is None else np.squeeze(spread, axis=axis)


def check_kernel_input(X: np.ndarray, kernel: str = "rbf", gamma=None, degree=3, coef0=1.0, what: str = "X") -> None:
    """Raise ``ValueError`` when the kernel cannot be computed in float64 over X (n, n_features) and
    any rows of the same magnitude: the largest squared distance n_features (2 max|x|)^2 (which also
    bounds the inner products) must be finite, and for 'poly' (gamma n_features max|x|^2 + |coef0|)^degree
    too (gamma None: 1 / n_features, as in ``ordercore.kernels``), and for 'rbf' gamma times that distance."""
    if X.size == 0:
        return
    n_features, largest = X.shape[1], np.max(np.abs(X))  # a numpy float: overflows to inf, never raises
    with np.errstate(over="ignore"):
        bounds = [n_features * (2 * largest) ** 2]
        if kernel == "poly":
            scale = 1.0 / n_features if gamma is None else np.float64(gamma)
            bounds.append((scale * n_features * largest**2 + abs(coef0)) ** degree)
    with np.errstate(over="ignore"):
        exponent = np.float64(gamma) * bounds[0] if kernel == "rbf" and gamma is not None else 0.0
    if all(bound < LARGEST for bound in bounds) and not exponent < LARGEST:
        raise ValueError(
            f"gamma = {gamma:g} is too large for the 'rbf' kernel over {what}: gamma times a squared distance "
            f"between rows (up to {bounds[0]:.3g}) overflows float64"
        )
    if not all(bound < LARGEST for bound in bounds):
        raise ValueError(
            f"{what} is too large to compute the {kernel!r} kernel in float64: its largest absolute value, "
            f"{largest:.3g}, makes squared distances or inner products between rows overflow. Rescale the "
            "features (e.g. with sklearn.preprocessing.StandardScaler)."
        )
