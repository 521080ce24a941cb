"""Whole numbers people hand the library, checked in words: a seed, a count, a budget, row numbers.

``int(value)`` took 1.7 for row 1 without a word, and numpy said "expected non-negative integer" of a
seed -1 without naming the seed: these say which number, what it was and what is allowed."""

from __future__ import annotations

import numbers

import numpy as np

from ordercore.inputs.printable import quoted


def whole_number(value, name: str, least: int = 0, most: int | None = None) -> int:
    """``value`` as an int: a whole number (an int, a numpy integer, a float or text such as '3' or 3.0
    holding one) at least ``least`` (and at most ``most``, if given); ``ValueError`` naming ``name``, the
    value and what is allowed."""
    number = value
    if isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            number = None
    # an int is whole however large (np.isfinite and float() refused 2**64 and 10**400 in numpy's words)
    whole = isinstance(number, numbers.Integral)
    whole = whole or (isinstance(number, numbers.Real) and np.isfinite(number) and float(number).is_integer())
    if isinstance(number, bool) or not whole or number < least:
        raise ValueError(f"{name} must be a whole number >= {least}, got {quoted(value)}")
    if most is not None and number > most:
        raise ValueError(f"{name} must be a whole number from {least} to {most:,}, got {quoted(value)}")
    return int(number)


def row_numbers(rows, n_rows: int | None, what: str) -> np.ndarray:
    """``rows`` (row numbers, counted from 0) as an int array; ``ValueError`` naming ``what`` (e.g.
    'labeled row') and the first that is no whole number or (unless ``n_rows`` is None: the caller says
    it) not one of the table's 0 … n_rows - 1."""
    values = list(np.ravel(np.asarray(rows, dtype=object)))
    for row in values:
        whole = not isinstance(row, bool) and isinstance(row, numbers.Real) and np.isfinite(row)
        if not whole or not float(row).is_integer():
            raise ValueError(f"{what} {quoted(row)} is not a row number (a whole number from 0)")
        if n_rows is not None and not 0 <= row < n_rows:
            raise ValueError(f"{what} {int(row)} is not one of the table's rows 0 … {n_rows - 1}")
    return np.asarray([int(row) for row in values], dtype=int)


def random_generator(random_state, name: str = "random_state") -> np.random.Generator:
    """``np.random.default_rng(random_state)`` for a seed numpy takes (None, a whole number >= 0, a numpy
    Generator, BitGenerator or SeedSequence); ``ValueError`` naming ``name`` otherwise ('x' met numpy's
    'SeedSequence expects int or sequence of ints for entropy', naming no argument)."""
    if random_state is None or isinstance(
        random_state, np.random.Generator | np.random.BitGenerator | np.random.SeedSequence
    ):
        return np.random.default_rng(random_state)
    whole = isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool)
    if not whole or random_state < 0:
        raise ValueError(
            f"{name} must be a whole number >= 0, a numpy Generator (np.random.default_rng()) or None, "
            f"got {quoted(random_state)}"
        )
    return np.random.default_rng(int(random_state))
