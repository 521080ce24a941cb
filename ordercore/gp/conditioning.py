"""Hyperparameters the Laplace fit cannot take in float64, refused in words: a noise σ or length scale ℓ
whose square or its reciprocal leaves float64 (eq. (5) divides by 2σ², eq. (2) by ℓ²), and a
signal_variance so large against σ² that B = I + Lᵀ Λ L (eq. (12)) loses its identity to rounding.
(noise=1e-300 gave a NaN evidence without a word, signal_variance=1e300 numpy's "leading minor".)"""

from __future__ import annotations

import numpy as np

from ordercore.gp.evidence import LOG_NOISE_BOUNDS
from ordercore.inputs.printable import quoted

SQUARABLE = (1e-150, 1e150)
"""Values whose squares and reciprocal squares are finite and above float64's smallest normal (2.2e-308)."""

SINGULAR_RATIO = 1e15
"""About where signal_variance / (2 σ²) makes B singular in float64 (1 / ε is 4.5e15): on 30 rows the
fits failed from 1e14 to 1e17, as the preferences' curvatures and the rows' number vary."""


def check_hyperparameter_magnitudes(noise, length_scale) -> None:
    """``ValueError`` naming noise or length_scale (a number, or None / 'isotropic') outside ``SQUARABLE``.
    (signal_variance only multiplies K: too large, ``singular_posterior_words`` says why; too small, f is 0.)"""
    for name, value, unit in (("noise", noise, "f"), ("length_scale", length_scale, "the standardised features")):
        if isinstance(value, str) or value is None:
            continue
        if not SQUARABLE[0] <= float(value) <= SQUARABLE[1]:
            raise ValueError(
                f"{name} {value:g} is outside what the GP fit computes with in float64: its square or the reciprocal "
                f"of it overflows or underflows. Give {name} between {SQUARABLE[0]:g} and {SQUARABLE[1]:g} (in units "
                f"of {unit})"
            )


def singular_posterior_words(signal_variance: float, noise: float, optimizer) -> str:
    """Why B = I + Lᵀ Λ L's Cholesky failed (Λ of order signal_variance / (2 σ²)): the message of the
    ``ValueError`` the estimators raise in its place."""
    searched = f"the noise searched (σ from {np.exp(LOG_NOISE_BOUNDS[0]):g})"
    over = f"noise {noise:g}" if optimizer is None else searched
    return (
        f"signal_variance {signal_variance:g} makes the Laplace fit's matrix I + K Λ singular in float64: over "
        f"{over}, K Λ is of order signal_variance / (2 σ²), beyond about {SINGULAR_RATIO:g}, and the identity is "
        "lost to rounding. Lower signal_variance (the default 1 is the unit of f; only its ratio to σ² matters)"
        + (" or raise noise" if optimizer is None else "")
    )


def check_kernel_resolves(inputs: np.ndarray, kernel: str, length_scale) -> None:
    """``ValueError`` naming length_scale (a number or one per feature, ℓ) when the 'rbf' ``kernel``
    exp(-Σ_j (x_j - x'_j)² / 2ℓ_j²) (eq. (2)) is 1 to float64 precision between every two of the
    standardised ``inputs`` (n, d): Σ_j range_j² / 2ℓ_j², the largest it can be, is below half a unit in
    the last place of 1, so K is constant and the model predicts 0 everywhere (the LP refuses its gamma
    likewise)."""
    if kernel == "linear" or isinstance(length_scale, str) or length_scale is None or inputs.shape[0] < 2:
        return
    with np.errstate(under="ignore", over="ignore"):
        largest = float(np.sum(((inputs.max(axis=0) - inputs.min(axis=0)) / np.asarray(length_scale, float)) ** 2))
    if 0 < np.max(np.ptp(inputs, axis=0)) and np.exp(-largest / 2) == 1.0:
        raise ValueError(
            f"length_scale {quoted(length_scale)} is too large for the rows' spread: over it the largest squared "
            "distance between rows is below float64's precision, so the kernel is the same between every two "
            "rows and the model a constant (0 everywhere). Give a smaller length_scale (in units of the "
            "standardised features, about 1), or leave it unset and let the evidence choose it"
        )
