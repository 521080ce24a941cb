"""The preferences as columns of the dual LP (seed 001 LP (13); ``problem.py``), indexed over the rows
of X they compare.

Preference q = (i, j, d, w) is the column [u_q; K(x_i, c) - K(x_j, c)] over the centers c, u_q being
alpha_0's coefficient in f(x_i) - f(x_j) (0 against ZERO), and at a primal (alpha_0, alpha) it prices
by its shortfall d~_q - (f~(x_i) - f~(x_j)) (``working_set.py``).  Neither needs the kernel of every
preference: each keeps where its two rows sit among the rows any preference compares, and the kernel
rows of those few rows come from the ``KernelRowCache``.  Preferences folded in at their bound (FIXED)
need only their weighted column sum, taken row by row.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ordercore.lp.kernel_rows import KernelRowCache
from ordercore.lp.problem import TargetScaling, floor_small_entries, referenced_rows, shortfalls
from ordercore.preferences import ZERO, PreferenceSet


class Priced(NamedTuple):
    """A certified answer's pricing: every preference's shortfall (p,) under the primal ``row_dual``
    (m + 1,) over the centers ``center_rows`` (m,)."""

    center_rows: np.ndarray
    row_dual: np.ndarray
    shortfall: np.ndarray


class PreferenceColumns:
    """The preferences in force, located among the rows of X they compare:

    rows: (r,) sorted rows of X that preferences compare (it may keep rows none compares any more);
    position_i, position_j: (p,) where each preference's two rows sit in ``rows``, r standing for ZERO;
    margins: (p,) the scaled margins d~;
    priced: the last certified answer's ``Priced`` (the engine sets it), covering the first preferences
    of those indexed since; None after a fresh ``index``.

    ``kernel`` gives K(x_rows, c) / kernel_scale over the LP's centers c (the engine sets them)."""

    def __init__(self, kernel: KernelRowCache):
        self.kernel = kernel
        self.rows = np.zeros(0, np.int64)
        self.position_i = self.position_j = np.zeros(0, np.int64)
        self.margins = np.zeros(0)

    priced: Priced | None = None  # a class default: columns pickled before it existed read without it

    def index(self, preferences: PreferenceSet, scaling: TargetScaling, first: int = 0) -> None:
        """Index ``preferences`` (all in force) from ``first`` on: those before keep their places,
        renumbered if new rows come in."""
        new = preferences[first:] if first else preferences
        self.priced = self.priced if first else None
        rows = referenced_rows(new)
        if first:
            added = np.setdiff1d(rows, self.rows, assume_unique=True)
            rows = np.union1d(self.rows, added) if added.size else self.rows
            if added.size:  # old position -> new one; the last (ZERO) -> the new last
                renumber = np.append(np.searchsorted(rows, self.rows), rows.size)
                self.position_i, self.position_j = renumber[self.position_i], renumber[self.position_j]
        position_i, position_j = (
            np.where(side == ZERO, rows.size, np.searchsorted(rows, side)) for side in (new.i, new.j)
        )
        margins = scaling.margins(new)
        if first:
            position_i = np.concatenate([self.position_i, position_i])
            position_j = np.concatenate([self.position_j, position_j])
            margins = np.concatenate([self.margins, margins])
        self.rows, self.position_i, self.position_j, self.margins = rows, position_i, position_j, margins

    def keep(self, keep: np.ndarray) -> None:
        """Only the preferences where ``keep`` (p,) is True."""
        self.position_i, self.position_j = self.position_i[keep], self.position_j[keep]
        self.margins = self.margins[keep]
        if self.priced is not None:
            self.priced = self.priced._replace(shortfall=self.priced.shortfall[keep])

    def compared_rows(self) -> np.ndarray:
        """The rows of X (sorted) that some preference in force compares."""
        n_rows = self.rows.size
        used = np.bincount(self.position_i, minlength=n_rows + 1) + np.bincount(self.position_j, minlength=n_rows + 1)
        return self.rows[used[:n_rows] > 0]

    def unary_signs(self, indices: np.ndarray) -> np.ndarray:
        """u_q (k,) of the preferences at ``indices``: alpha_0's coefficient in f(x_i) - f(x_j)."""
        n_rows = self.rows.size  # the position of ZERO
        return (self.position_i[indices] < n_rows).astype(np.float64) - (self.position_j[indices] < n_rows)

    def kernel_differences(self, indices: np.ndarray, centers: slice = slice(None)) -> np.ndarray:
        """K(x_i, c) - K(x_j, c) for the preferences at ``indices`` (k,) and the centers c in
        ``centers`` (a slice of the LP's centers), shape (n_centers, k), K(ZERO, c) = 0, entries
        below ``KERNEL_ENTRY_FLOOR`` set to 0."""
        k = len(indices)
        needed, inverse = np.unique(
            np.concatenate([self.position_i[indices], self.position_j[indices]]), return_inverse=True
        )
        real = needed[needed < self.rows.size]  # ZERO's position, rows.size, sorts last
        kernel = self.kernel.rows(self.rows[real], centers)  # only the rows these preferences compare
        padded = np.vstack([kernel, np.zeros((needed.size - real.size, kernel.shape[1]))])
        return floor_small_entries((padded[inverse[:k]] - padded[inverse[k:]]).T)

    def block(self, indices: np.ndarray) -> np.ndarray:
        """The dual LP's columns (m + 1, k) of the preferences at ``indices``: [u_q; K(x_i, c) - K(x_j, c)]."""
        return np.vstack([self.unary_signs(indices), self.kernel_differences(indices)])

    def weighted_sum(self, indices: np.ndarray, weight: np.ndarray, centers: slice | None = None) -> np.ndarray:
        """Sum over the preferences at ``indices`` (k,) of weight_q [u_q; K(x_i, c) - K(x_j, c)], shape
        (m + 1,), row by row: each referenced row's net weight times its kernel row, never the (m + 1) x k
        block (10^6 preferences folded in at once would take ~0.5 GB).  With ``centers`` (a slice of
        the LP's centers): only those rows' sums, without u."""
        n_rows = self.rows.size
        position_i, position_j = self.position_i[indices], self.position_j[indices]
        net = np.bincount(position_i, weight, n_rows + 1) - np.bincount(position_j, weight, n_rows + 1)
        if centers is not None:
            return self.kernel.transposed_dot(self.rows, net[:n_rows], centers)
        return np.concatenate(
            [[weight @ self.unary_signs(indices)], self.kernel.transposed_dot(self.rows, net[:n_rows])]
        )

    def net_at_points(self, indices: np.ndarray, mu: np.ndarray) -> np.ndarray:
        """sum over the preferences at ``indices`` (k,) of mu_q (e_iq - e_jq), over the rows of X (n,)."""
        n_rows = self.rows.size
        net = np.bincount(self.position_i[indices], mu, n_rows + 1) - np.bincount(
            self.position_j[indices], mu, n_rows + 1
        )
        dense = np.zeros(len(self.kernel.X))
        dense[self.rows] = net[:n_rows]
        return dense

    def shortfall(self, row_dual: np.ndarray, first: int = 0) -> np.ndarray:
        """d~_q - (f~(x_i) - f~(x_j)) of the preferences from ``first`` on (p - first,) under the primal
        ``row_dual`` (m + 1,): (alpha_0, alpha) in scaled units.  f~ is evaluated only at the rows they
        compare."""
        position_i, position_j = self.position_i[first:], self.position_j[first:]
        if not first:
            f_rows = self.kernel.dot(self.rows, row_dual[1:]) + row_dual[0]
            return shortfalls(self.margins, position_i, position_j, f_rows)
        used = np.unique(np.concatenate([position_i, position_j]))
        used = used[used < self.rows.size]  # ZERO's position, rows.size, has f = 0
        f_rows = np.zeros(self.rows.size)
        f_rows[used] = self.kernel.dot(self.rows[used], row_dual[1:]) + row_dual[0]
        return shortfalls(self.margins[first:], position_i, position_j, f_rows)

    def priced_shortfall(self, row_dual: np.ndarray, center_rows: np.ndarray) -> tuple[np.ndarray, int]:
        """Every preference's shortfall (p,) under the primal ``row_dual`` (m + 1,) over ``center_rows``,
        and the first preference that needs pricing.  When both are ``priced``'s (a kept basis: f has
        not moved), its shortfalls still hold and its preferences were priced right, so only those
        added since are evaluated and priced: O(new) instead of O(p)."""
        priced = self.priced
        if (
            priced is not None
            and np.array_equal(priced.center_rows, center_rows)
            and np.array_equal(priced.row_dual, row_dual)
        ):
            first = priced.shortfall.size
            return np.concatenate([priced.shortfall, self.shortfall(row_dual, first)]), first
        return self.shortfall(row_dual), 0
