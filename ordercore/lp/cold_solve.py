"""``solve_order_preference_lp``: one cold solve of LP (13) from arrays, its arguments checked first and
refused in words (numpy's, scikit-learn's and HiGHS's named neither the argument nor what it should be)."""

from __future__ import annotations

import difflib
import math
import numbers
from dataclasses import dataclass

import numpy as np

from ordercore.inputs.fit_inputs import real_numbers
from ordercore.lp.engine import IncrementalOrderPreferenceLP, Kernel
from ordercore.lp.solution import LPSolution
from ordercore.preferences import PreferenceSet

KERNEL_EXAMPLE = "functools.partial(ordercore.numerics.kernels.kernel_matrix, kernel='rbf', gamma=0.5)"
"""A kernel as ``solve_order_preference_lp`` takes it, for its refusal of another."""

OPTIONS = ("lambda1", "lambda2", "epsilon", "centers", "method", "time_limit")
"""The keyword options ``solve_order_preference_lp`` passes to ``IncrementalOrderPreferenceLP``."""

LAMBDAS = "lambda1 (the weight of ‖α‖₁ against the labels' errors) and lambda2 (of the preferences' violations)"
"""What the two options without a default are, for the refusal of a call that lacks them."""


def solve_order_preference_lp(X, labeled, y, preferences: PreferenceSet, kernel: Kernel, **options) -> LPSolution:
    """One cold solve of LP (13).  X (n, n_features) numbers; labeled: the labeled rows of X, as row
    positions (l,) or a boolean mask (n,); y: their targets (l,), in labeled's order, or a target for
    every row of X (n,), read at the labeled rows; kernel(A, B) -> K(A, B), a callable; preferences: a
    PreferenceSet over the rows of X; the keyword ``options`` (``OPTIONS``: lambda1 and lambda2, required,
    epsilon, centers, method, time_limit) as for ``IncrementalOrderPreferenceLP``."""
    if not callable(kernel):
        raise TypeError(f"kernel must be a callable K(A, B) -> kernel matrix, such as {KERNEL_EXAMPLE}; got {kernel!r}")
    X = _features(X)
    labeled = _labeled_rows(labeled, X.shape[0])
    y = _targets(y, labeled, X.shape[0])
    if not isinstance(preferences, PreferenceSet):
        raise TypeError(f"preferences must be an ordercore.PreferenceSet, got {type(preferences).__name__}")
    preferences.check_indices(X.shape[0])
    _check_options(options)
    return IncrementalOrderPreferenceLP(X, labeled, y, CheckedKernel(kernel), **options).solve_cold(preferences)


@dataclass(frozen=True)
class CheckedKernel:
    """The caller's ``kernel``, every block it returns checked before the LP reads it: K(A, B) must be
    numbers of shape (len(A), len(B)), all finite (numpy's concatenation and HiGHS's 'refused passModel'
    named neither the kernel nor what it returned)."""

    kernel: Kernel

    def __call__(self, A: np.ndarray, B: np.ndarray) -> np.ndarray:
        block = np.asarray(self.kernel(A, B))
        expected = (len(A), len(B))
        if block.shape != expected:
            raise ValueError(
                f"kernel(A, B) returned shape {block.shape} for A of {len(A)} rows and B of {len(B)}: it must "
                f"return K(A, B), shape (len(A), len(B)) = {expected}, such as {KERNEL_EXAMPLE}"
            )
        if block.dtype.kind not in "iuf":
            raise TypeError(f"kernel(A, B) returned {block.dtype} values: it must return numbers, K(A, B)")
        bad = int(np.count_nonzero(~np.isfinite(block)))
        if bad:
            raise ValueError(
                f"kernel(A, B) returned NaN or ±inf in {bad} of the {block.size} entries of a {expected} block: "
                "a kernel's values must be finite"
            )
        return block


def _check_options(options: dict) -> None:
    """``TypeError`` for an option ``solve_order_preference_lp`` does not take (naming the nearest one it
    does) or for lambda1, lambda2 not given; ``ValueError`` for a value out of range."""
    for name in options:
        if name not in OPTIONS:
            meant = _nearest(name)
            meant = f" (did you mean {' or '.join(meant)}?)" if meant else ""
            raise TypeError(
                f"solve_order_preference_lp has no option {name!r}{meant}; the options are {', '.join(OPTIONS)}"
            )
    missing = [name for name in ("lambda1", "lambda2") if name not in options]
    if missing:
        raise TypeError(f"solve_order_preference_lp needs {LAMBDAS}; {' and '.join(missing)} not given")
    for name in ("lambda1", "lambda2", "epsilon"):
        _non_negative(name, options.get(name, 0.0))
    time_limit = options.get("time_limit")
    number = isinstance(time_limit, numbers.Real) and not isinstance(time_limit, bool | np.bool_)
    if time_limit is not None and not (number and time_limit > 0):
        raise ValueError(f"time_limit must be a number of seconds > 0, or None (no limit); got {time_limit!r}")


def _non_negative(name: str, value) -> None:
    """``ValueError`` unless ``value`` is a finite number >= 0 (not a bool)."""
    number = isinstance(value, numbers.Real) and not isinstance(value, bool | np.bool_)
    if not (number and math.isfinite(value) and value >= 0):
        raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")


def _features(X) -> np.ndarray:
    """X as a float array (n, n_features); ``ValueError`` naming what is wrong (dates or complex numbers too,
    which numpy would read as nanoseconds or their real part)."""
    real_numbers(X, "X")
    try:
        X = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise ValueError(f"X must be an array (n, n_features) of numbers: {error}") from None
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D (n, n_features), got shape {X.shape}")
    bad = np.flatnonzero(~np.isfinite(X).all(axis=1))
    if bad.size:
        raise ValueError(f"X holds NaN or ±inf in {bad.size} row(s) (the first: row {bad[0]}): features must be finite")
    return X


def _labeled_rows(labeled, n: int) -> np.ndarray:
    """The labeled rows as positions (l,) from positions or a boolean mask over X's ``n`` rows."""
    labeled = np.asarray(labeled)
    if labeled.ndim != 1:
        raise ValueError(f"labeled must be 1-D (row positions, or a mask of X's {n} rows), got shape {labeled.shape}")
    if labeled.dtype == bool:
        if labeled.size != n:
            raise ValueError(
                f"labeled is a boolean mask of {labeled.size} entries but X has {n} rows: give one entry per row"
            )
        labeled = np.flatnonzero(labeled)
    elif labeled.size and labeled.dtype.kind not in "iu":
        raise TypeError(f"labeled must be row positions (integers) or a boolean mask of X's rows, got {labeled.dtype}")
    if labeled.size == 0:
        raise ValueError("labeled names no row: at least one labeled row is needed")
    outside = labeled[(labeled < 0) | (labeled >= n)]
    if outside.size:
        raise ValueError(f"labeled names row {outside[0]}, which X's {n} rows (0 ... {n - 1}) do not have")
    unique, counts = np.unique(labeled, return_counts=True)
    if (counts > 1).any():
        raise ValueError(f"labeled names row {unique[counts > 1][0]} more than once: name each labeled row once")
    return labeled.astype(np.intp)


def _targets(y, labeled: np.ndarray, n: int) -> np.ndarray:
    """The labeled rows' targets (l,) from y (l,) or (n,), finite; ``ValueError`` naming what is wrong (dates
    or complex numbers too: ``real_numbers``)."""
    real_numbers(y)
    try:
        y = np.asarray(y, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise ValueError(f"y must hold numbers, the labeled rows' targets: {error}") from None
    if y.ndim != 1 or y.size not in (labeled.size, n):
        raise ValueError(
            f"y has shape {y.shape}, but labeled names {labeled.size} rows of X's {n}: give y a target per labeled "
            f"row ({labeled.size}, in labeled's order) or per row of X ({n})"
        )
    rows = labeled if y.size != labeled.size else None  # per row of X: read at the labeled rows
    y = y if rows is None else y[rows]
    bad = np.flatnonzero(~np.isfinite(y))
    if bad.size:
        where = f"row {labeled[bad[0]]} of X" + ("" if rows is not None else f" (entry {bad[0]} of y)")
        raise ValueError(
            f"y holds {y[bad[0]]} at {bad.size} labeled row(s) (the first: {where}): every labeled row needs a "
            "finite target"
        )
    return y


def _nearest(name: str) -> list[str]:
    """The options nearest to a misspelt ``name`` (difflib's ratio, at least its 0.6 cut-off), every one as
    near as the nearest ('lamda' is as near lambda1 as lambda2), in ``OPTIONS``' order."""
    ratio = {option: difflib.SequenceMatcher(None, name, option).ratio() for option in OPTIONS}
    best = max(ratio.values())
    return [option for option in OPTIONS if ratio[option] == best >= 0.6]
