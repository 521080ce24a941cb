"""Values a model gives the rows (f, shape (n_samples,)) and the scale they are judged on, checked in words.

``PreferenceSet.violated`` took a scale of -1 or NaN, and f holding NaN, without a word: a negative scale
called a satisfied preference violated, a NaN one (or a NaN f_i) called violated ones satisfied (NaN
compares False).  A (n, 1) column is refused rather than raveled: f is one value per row, and a column
is more often a multi-output model's predictions than a vector to flatten."""

from __future__ import annotations

import numbers

import numpy as np

from ordercore.inputs.printable import quoted


def row_values(f, rows: np.ndarray, name: str = "f") -> np.ndarray:
    """``f`` as a float array (n_samples,) finite at ``rows`` (the rows compared, ints >= 0); ``ValueError``
    naming ``name`` for another shape, too few values, text, or NaN/inf at a row compared (rows not compared
    may hold anything, e.g. NaN for 'not predicted')."""
    values = np.asarray(f)
    if values.ndim != 1:
        raise ValueError(
            f"{name} must be one-dimensional, a value per row (n_samples,), got shape {values.shape}"
            + (" (use .ravel() for a column)" if values.ndim == 2 and values.shape[1] == 1 else "")
        )
    if values.dtype.kind not in "iuf" or values.dtype == bool:
        raise ValueError(f"{name} must hold numbers, got {values.dtype}")
    top = int(rows.max(initial=-1))
    if values.size <= top:
        raise ValueError(f"{name} has {values.size} values but the preferences name rows up to {top}")
    values = values.astype(np.float64, copy=False)
    bad = rows[~np.isfinite(values[rows])]
    if bad.size:
        raise ValueError(
            f"{name} holds {values[bad[0]]} at row {int(bad[0])} ({np.unique(bad).size} of the rows the preferences "
            "compare are not finite); a preference on a missing value is neither violated nor satisfied"
        )
    return values


def positive_scale(scale, name: str = "scale") -> float:
    """``scale`` as a float: a finite number > 0 (the target's spread); ``ValueError`` naming ``name``."""
    if isinstance(scale, bool) or not isinstance(scale, numbers.Real) or not np.isfinite(scale) or scale <= 0:
        raise ValueError(f"{name} must be a finite number > 0 (the target's spread), got {quoted(scale)}")
    return float(scale)
