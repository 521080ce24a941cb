"""The LP's cache of kernel rows K(x_r, centers): a warm re-solve computes kernel values only for
points and centers it has not met."""

from __future__ import annotations

import numpy as np
import pandas as pd

EAGER_ENTRIES = 2_000_000
"""When len(X) * n_centers is at most this (16 MB of float64), all rows are computed at once: a
warm re-solve then never waits on a kernel call for a point it has not met."""


FEW_ROWS = 4
"""``dot`` multiplies only the rows asked for when they are under 1 / FEW_ROWS of the cached ones (gathering
a quarter of the block costs about what multiplying all of it does)."""


class KernelRowCache:
    """K(x_r, c) / scale for the rows r of X met so far and the current centers c (rows of X), so that
    a warm re-solve computes kernel values only for points and centers it has not seen."""

    def __init__(self, X: np.ndarray, kernel, scale: float = 1.0):
        self.X, self.scale = X, scale
        self._kernel = kernel
        self.centers = np.zeros(0, np.int64)
        self._rows = np.zeros(0, np.int64)  # sorted
        self._values = np.zeros((0, 0))  # (len(_rows), len(centers))

    def kernel(self, A: np.ndarray, B: np.ndarray) -> np.ndarray:
        return self._kernel(A, B) / self.scale

    def kernel_of_rows(self, rows: np.ndarray, centers: np.ndarray) -> np.ndarray:
        """K(x_rows, x_centers) / scale for any rows and centers of X, not cached."""
        return self.kernel(self.X[rows], self.X[centers])

    def set_centers(self, centers: np.ndarray) -> None:
        """Make the columns follow ``centers``; kept columns are reused, new ones computed."""
        centers = np.asarray(centers, dtype=np.int64)
        position = pd.Index(self.centers).get_indexer(centers)  # -1 where a center is new
        known = position >= 0
        values = np.empty((self._rows.size, centers.size))
        values[:, known] = self._values[:, position[known]]
        if self._rows.size and not known.all():
            values[:, ~known] = self.kernel(self.X[self._rows], self.X[centers[~known]])
        self.centers, self._values = centers, values
        if self._rows.size < len(self.X) and len(self.X) * centers.size <= EAGER_ENTRIES:
            self._positions(np.arange(len(self.X)))

    def rows(self, rows: np.ndarray, centers: slice = slice(None)) -> np.ndarray:
        """K(x_rows, c) for the centers c in ``centers`` (a slice of them; all by default), shape
        (len(rows), n_centers)."""
        position = self._positions(rows)  # first: it may grow the cache
        return self._values[:, centers][position]

    def dot(self, rows: np.ndarray, vector: np.ndarray) -> np.ndarray:
        """K(x_rows, centers) @ vector, shape (len(rows),), without copying the rows' block unless they
        are few (a click's new preferences: then only their rows are multiplied)."""
        position = self._positions(rows)
        if FEW_ROWS * position.size < self._rows.size:
            return self._values[position] @ vector
        return (self._values @ vector)[position]

    def transposed_dot(self, rows: np.ndarray, weights: np.ndarray, centers: slice = slice(None)) -> np.ndarray:
        """K(x_rows, c)^T @ weights for the centers c in ``centers``, shape (n_centers,), without
        copying the rows' block; ``rows`` distinct."""
        position = self._positions(rows)
        spread = np.zeros(self._rows.size)
        spread[position] = weights
        return self._values[:, centers].T @ spread

    def _positions(self, rows: np.ndarray) -> np.ndarray:
        """Where ``rows`` sit in the cache, computing the kernel of those not in it yet."""
        rows = np.asarray(rows, dtype=np.int64)
        position = np.searchsorted(self._rows, rows)
        cached = np.zeros(rows.size, bool)
        if self._rows.size:
            cached = self._rows[np.minimum(position, self._rows.size - 1)] == rows
        if not cached.all():
            missing = np.unique(rows[~cached])
            merged = np.concatenate([self._rows, missing])
            values = np.vstack([self._values, self.kernel(self.X[missing], self.X[self.centers])])
            order = np.argsort(merged)
            self._rows, self._values = merged[order], values[order]
            position = np.searchsorted(self._rows, rows)
        return position
