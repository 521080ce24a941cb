"""Checks of the knowledge helpers' arguments (issue 32): each message names the argument and its
first bad value, where numpy would wrap a negative position around or fail with a broadcast error."""

from __future__ import annotations

import numbers

import numpy as np

from ordercore.inputs.printable import quoted


def non_negative(value, name: str) -> float:
    """``value`` as a float, refused unless it is a finite number >= 0."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not (np.isfinite(value) and value >= 0):
        raise ValueError(f"{name} must be a finite number >= 0, got {quoted(value)}")
    return float(value)


def count(value, name: str) -> int:
    """``value`` as an int, refused unless it is a whole number >= 0 (3.0 too, as the protocols take it)."""
    whole = isinstance(value, numbers.Real) and bool(np.isfinite(value)) and float(value).is_integer()
    if isinstance(value, bool) or not whole or value < 0:
        raise ValueError(f"{name} must be a whole number >= 0, got {quoted(value)}")
    return int(value)


def positions(values, size: int, name: str, into: str) -> np.ndarray:
    """``values`` (m,) as int positions into ``into``, an array of ``size`` entries; refused, naming
    the first bad one, unless each is an integer from 0 to size - 1."""
    array = np.atleast_1d(np.asarray(values))
    if array.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {array.shape}")
    if array.size and (array.dtype.kind not in "iu"):
        raise ValueError(
            f"{name} must hold positions (integers), got {array.dtype}, e.g. {quoted(array.flat[0].item())}"
        )
    outside = np.flatnonzero((array < 0) | (array >= size))
    if outside.size:
        raise ValueError(
            f"{name} holds {array[outside[0]]} at position {outside[0]}, outside {into} (positions 0 to {size - 1})"
        )
    return array.astype(np.intp)


def same_length(first: np.ndarray, second: np.ndarray, names: str) -> None:
    """Refuses two arrays of different lengths, naming them (``names``: 'first and second')."""
    if first.shape != second.shape:
        raise ValueError(f"{names} must have the same length, got {first.size} and {second.size}")
