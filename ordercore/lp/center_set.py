"""Which centers the dual LP holds as rows when ``centers='all'``: a working set of centers grown by
pricing every candidate.

With f expanded over every point a preference compares (the full representer theorem, seed 001
§3), each candidate center c is one row of the dual LP (problem.py):

    -lambda1 <= g_c = sum_k nu_k K(x_k, c) <= lambda1,

where nu_k is the net dual weight at point k (pi_k at a labeled point, plus mu_q for each
preference with i_q = k, minus mu_q for each with j_q = k).  The row's dual is alpha_c, and by
complementary slackness alpha_c = 0 unless the row is tight.  The 1-norm of alpha makes most of
them 0, so most rows need no place in the LP: the engine starts from the labeled centers, solves,
computes g over every candidate in chunks of ``CHUNK_ENTRIES`` kernel values (never the dense
kernel over all candidate points), and adds the rows that g violates, until none does.  Leaving a
row out is setting its alpha_c = 0 in the primal, so the restricted optimum is a feasible point of
the whole primal; once no row is violated, (pi, mu) is feasible for the whole dual as well, and
the duality-gap certificate on the two objectives proves the answer optimal for the whole LP.
Memory is the kernel over the referenced points and the *active* centers, not over all of them:
with u = 5,000 candidate points and p = 20,000 preferences the whole LP held a dense
(5,061 x 20,000) preference block (10 GB at peak); see docs/LP.md for what the working set holds.
"""

from __future__ import annotations

import numpy as np

CENTER_BATCH = 200
"""Rows let in per round at most, the most violated first: each new row is a dense row over the
working columns, and many candidates with a small violation are no longer violated once the first
ones are in (u = 5,000, p = 20,000: 314 active centers at the end with 200 a round, 534 with 500;
both ~2.5-4 s)."""

CHUNK_ENTRIES = 1_000_000
"""Kernel values computed at once while pricing the candidate centers (8 MB of float64; ~0.03 s, so
that the time limit is checked often)."""

ROW_TOLERANCE = 1e-9
"""A row value within this of +-lambda1 (scaled units) prices as feasible: HiGHS's own primal
feasibility tolerance on the rows it holds, so a left-out row is held to the same standard."""


class KernelSum:
    """K(x, C)^T nu over candidate centers C (sorted rows of X), for a weight nu (n,) over the rows
    of X that changes little between calls: the last values are kept and brought up to date by the
    kernel of the rows whose weight changed, or computed afresh when that is cheaper.
    kernel(rows, centers) -> K block, the LP's scaled kernel."""

    def __init__(self, kernel, n_rows: int):
        self.kernel = kernel
        self.nu = np.zeros(n_rows)  # the weight ``values`` was computed from
        self.candidates = np.zeros(0, np.int64)
        self.values = np.zeros(0)

    def __call__(self, candidates: np.ndarray, nu: np.ndarray, deadline=None) -> np.ndarray:
        """sum_k nu_k K(x_k, x_c) for each c in ``candidates`` (C,), shape (C,)."""
        changed, support = np.flatnonzero(nu != self.nu), np.flatnonzero(nu)
        if changed.size >= support.size:
            values = self._kernel_sum(support, nu[support], candidates, deadline)
        else:
            values = self._follow(candidates, deadline)
            values += self._kernel_sum(changed, (nu - self.nu)[changed], candidates, deadline)
        self.nu, self.candidates, self.values = nu.copy(), candidates, values
        return values.copy()

    def _follow(self, candidates: np.ndarray, deadline) -> np.ndarray:
        """The kept values over ``candidates``: copied where known, computed where new."""
        position = np.searchsorted(self.candidates, candidates)
        known = position < self.candidates.size
        known[known] = self.candidates[position[known]] == candidates[known]
        values = np.zeros(candidates.size)
        values[known] = self.values[position[known]]
        support = np.flatnonzero(self.nu)
        values[~known] = self._kernel_sum(support, self.nu[support], candidates[~known], deadline)
        return values

    def _kernel_sum(self, points, weights, centers, deadline) -> np.ndarray:
        """sum_k weights_k K(x_points_k, x_c) for each c in ``centers``, in chunks of at most
        ``CHUNK_ENTRIES`` kernel values; ``deadline.check()`` between chunks."""
        values = np.zeros(centers.size)
        if not points.size:
            return values
        step = max(1, CHUNK_ENTRIES // points.size)
        for start in range(0, centers.size, step):
            if deadline is not None:
                deadline.check()
            chunk = centers[start : start + step]
            values[start : start + chunk.size] = weights @ self.kernel(points, chunk)
        return values


def violated_centers(values: np.ndarray, lambda1: float, candidates: np.ndarray, active: np.ndarray) -> np.ndarray:
    """The candidates (rows of X) outside ``active`` whose |g_c| exceeds lambda1 by more than
    ``ROW_TOLERANCE``, most violated first, at most ``CENTER_BATCH``.  values, candidates: (C,)."""
    excess = np.abs(values) - lambda1
    wrong = np.flatnonzero((excess > ROW_TOLERANCE) & ~np.isin(candidates, active))
    order = np.argsort(-excess[wrong], kind="stable")
    return candidates[wrong[order[:CENTER_BATCH]]]
