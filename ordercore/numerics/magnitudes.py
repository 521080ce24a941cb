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
    too (gamma None: 1 / n_features, as in ``ordercore.numerics.kernels``), and for 'rbf' gamma times that distance."""
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


def check_gamma_resolves(X: np.ndarray, kernel: str, gamma, what: str = "X") -> None:
    """``ValueError`` when the 'rbf' kernel exp(-gamma |x - x'|^2) is 1 to float64 precision between every
    two rows of X (n, n_features) that differ: gamma times the largest squared distance (at most the
    squared diagonal of X's bounding box) is below half a unit in the last place of 1, so the fit sees one
    constant kernel and predicts a constant.  (``check_kernel_input`` refuses the overflow side.)"""
    if kernel != "rbf" or gamma is None or X.shape[0] < 2:
        return
    with np.errstate(over="ignore"):
        diagonal = float(np.sum((X.max(axis=0) - X.min(axis=0)) ** 2))
    if diagonal > 0 and np.exp(-np.float64(gamma) * diagonal) == 1.0:
        raise ValueError(
            f"gamma = {gamma:g} is too small for the 'rbf' kernel over {what}: gamma times the largest squared "
            f"distance between rows (at most {diagonal:.3g}) is below float64's precision, so the kernel is 1 "
            "between every two rows and the model a constant; raise gamma (or leave it unset)"
        )


RESOLVABLE_SPREAD = 1e-7
"""Smallest ratio of the labels' typical spread (their median absolute deviation) to their standard
deviation that the kernel regressors fit: below it the labels but a few extreme ones differ, in the
solvers' units (the standard deviation), by less than HiGHS's feasibility tolerance (1e-7), and the
model comes out constant."""


def check_label_spread(y: np.ndarray) -> None:
    """``ValueError`` naming the extreme label when a few labels of y (the labeled targets, (l,)) swamp the
    rest: their standard deviation is over 1 / ``RESOLVABLE_SPREAD`` times the others' median absolute
    deviation (e.g. one label 1.2e29 among house prices near 3e5)."""
    y = np.asarray(y, dtype=np.float64)
    if y.size < 3:
        return
    center = np.median(y)
    typical = float(np.median(np.abs(y - center)))
    spread = standard_deviation(y)
    if typical > 0 and typical < RESOLVABLE_SPREAD * spread:
        extreme = y[np.argmax(np.abs(y - center))]
        raise ValueError(
            f"the label {extreme:.6g} swamps the others: the labels' standard deviation ({spread:.3g}) is over "
            f"{1 / RESOLVABLE_SPREAD:.0e} times their typical spread ({typical:.3g}), which the solver then cannot "
            "resolve (the model would be constant); correct or leave out the extreme label(s), or transform the "
            "target (e.g. its logarithm)"
        )
