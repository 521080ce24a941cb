"""The order-preference LP as arrays: the dual of seed 001's LP (13), in scaled target units.

Seed 001 eq. (9) (seed 000 eq. (6)), with f(x) = K(x, centers) alpha + alpha_0 (eq. (8)):

    min  (1/l) sum_i |y_i - f(x_i)|_eps + lambda1 ||alpha||_1
         + (lambda2 / p) sum_q w_q max(d_q - (f(x_iq) - f(x_jq)), 0)

The papers write it as the primal LP (13) with l + p rows (seed 001 §3).  We pass HiGHS its
LP dual instead, derived by conjugating each piecewise-linear term
(|r|_eps / l = max_{|pi| <= 1/l} pi r - eps |pi|;  c max(t, 0) = max_{0 <= mu <= c} mu t;
lambda1 |a| = max_{|v| <= lambda1} v a) and minimising over alpha, alpha_0:

    max  sum_i (y_i pi_i - eps |pi_i|) + sum_q d_q mu_q
    s.t. sum_i pi_i + sum_q u_q mu_q = 0                                 (row 0: alpha_0)
         -lambda1 <= K(x_L, c)^T pi + (K(x_i, c) - K(x_j, c))^T mu <= lambda1   (one row per center c)
         -1/l <= pi_i <= 1/l,   0 <= mu_q <= lambda2 w_q / p

with pi = pi_plus - pi_minus split so that -eps|pi| is linear, and u_q = 1 for a unary
preference f(x_i) >= d (j = ZERO), -1 for f(x_j) <= -d (i = ZERO), 0 otherwise (for binary
preferences alpha_0 cancels).  The row duals of this LP are (alpha_0, alpha): the primal.
It has m + 1 rows instead of l + p, so each simplex iteration is cheap, and a preference is
one box-bounded column, so adding or removing one keeps the basis dual feasible (a hot start).
Measured against the auxiliary form (free f at preference points, 3 nonzeros per preference
row) and the primal in docs/LP.md.

Targets are scaled, y~ = (y - center) / scale, margins d~ = (d - center u) / scale, eps~ = eps /
scale: the objective is positively homogeneous, so the scaled minimiser is the original one
scaled and objective (9) = scale * scaled objective (``TargetScaling``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ordercore.numerics.magnitudes import standard_deviation
from ordercore.preferences import ZERO, PreferenceSet

KERNEL_ENTRY_FLOOR = 1e-12
"""Matrix entries with |value| below this are set to exactly 0 before HiGHS sees them, and HiGHS's
``small_matrix_value`` (default 1e-9, which would silently drop larger ones, e.g. the kernel
differences of two nearby points) is lowered to it; 1e-12 is the smallest HiGHS accepts.  The LP's
f then differs from the exact kernel expansion by at most 1e-12 * ||alpha~||_1 (scaled units)."""


LARGEST_LABEL = np.finfo(np.float64).max / 1e6
"""Largest |label| the kernel regressors fit: f = center + scale f~ keeps a factor 1e6 of float64's range
for f~ beyond the scaled labels (an expansion over the centers can reach past them)."""


LARGEST_SCALED_MARGIN = 1e9
"""Largest |d~| (a margin in units of the labels' standard deviation) the LP takes: at 1e15 its
solution already loses the labels' digits, and from about 1e20 (HiGHS's infinity) it fails."""


@dataclass(frozen=True)
class TargetScaling:
    """y~ = (y - center) / scale, so that targets near 1e5 solve like targets near 1."""

    center: float
    scale: float

    @classmethod
    def from_labels(cls, y: np.ndarray) -> TargetScaling:
        """Median and standard deviation of the labeled targets y, shape (l,) (one that does not
        overflow for labels near 1e300).  ``ValueError`` for a label that is not finite (NaN was called
        'too close to float64's limit') or beyond ``LARGEST_LABEL``."""
        bad = np.flatnonzero(~np.isfinite(y))
        if bad.size:
            raise ValueError(
                f"the labeled targets y hold {y[bad[0]]} at {bad.size} of their {y.size} entries (the first: "
                f"entry {bad[0]}): every labeled row needs a finite target"
            )
        largest = float(np.max(np.abs(y)))
        if not largest <= LARGEST_LABEL:
            raise ValueError(
                f"the labels reach {largest:.3g}, too close to float64's limit: the fitted function, which may go "
                f"beyond the labels, would overflow (labels up to {LARGEST_LABEL:.2g} are fitted); rescale the target"
            )
        center = float(np.median(y))
        scale = standard_deviation(y)
        if not scale > 0:
            scale = max(abs(center), 1.0)
        return cls(center, scale)

    def margins(self, preferences: PreferenceSet) -> np.ndarray:
        """Scaled margins d~ = (d - center u) / scale, shape (p,); ``ValueError`` beyond
        ``LARGEST_SCALED_MARGIN``."""
        scaled = (preferences.margin - self.center * unary_sign(preferences)) / self.scale
        if np.any(np.abs(scaled) > LARGEST_SCALED_MARGIN):
            largest = preferences.margin[np.argmax(np.abs(scaled))]
            raise ValueError(
                f"a preference margin of {largest:.3g} is more than {LARGEST_SCALED_MARGIN:.0g} times the labels' "
                f"spread ({self.scale:.3g}), too large to solve with; margins are in the target's units"
            )
        return scaled


def unary_sign(preferences: PreferenceSet) -> np.ndarray:
    """u_q = [i_q is a point] - [j_q is a point]: alpha_0's coefficient in f(x_i) - f(x_j)."""
    return (preferences.i != ZERO).astype(np.float64) - (preferences.j != ZERO)


def referenced_rows(preferences: PreferenceSet) -> np.ndarray:
    """Sorted distinct rows of X that the preferences compare (ZERO excluded), shape (r,): marked in a
    mask over 0 .. max index, O(p + n) (``np.union1d`` sorts 2p indices: 0.1 s at p = 500,000)."""
    size = max(int(preferences.i.max(initial=ZERO)), int(preferences.j.max(initial=ZERO))) + 1
    used = np.zeros(size + 1, bool)  # the last entry is ZERO's (-1)
    used[preferences.i] = used[preferences.j] = True
    return np.flatnonzero(used[:size])


def kernel_difference(preferences: PreferenceSet, rows: np.ndarray, kernel_rows: np.ndarray) -> np.ndarray:
    """K(x_i, c) - K(x_j, c) per preference, shape (p, m), with K(ZERO, c) = 0.

    rows: sorted distinct row indices (r,) covering the preferences; kernel_rows: K(x_rows, c), (r, m)."""
    padded = np.vstack([kernel_rows, np.zeros((1, kernel_rows.shape[1]))])  # last row: the ZERO point

    def position(index: np.ndarray) -> np.ndarray:
        return np.where(index == ZERO, rows.size, np.searchsorted(rows, index))

    return padded[position(preferences.i)] - padded[position(preferences.j)]


def floor_small_entries(block: np.ndarray) -> np.ndarray:
    """``block`` with entries below ``KERNEL_ENTRY_FLOOR`` in magnitude set to exactly 0."""
    return np.where(np.abs(block) < KERNEL_ENTRY_FLOOR, 0.0, block)


@dataclass
class DualLP:
    """Arrays of the dual LP (maximise ``cost @ x``) in two dense blocks of columns: ``labeled``
    [pi_plus (l), pi_minus (l)] and ``preference`` [phi, mu (k)]; rows [alpha_0, alpha_1 .. alpha_m].
    mu are the k working preferences (``working_set.py``).  phi is the FIXED block: the preferences
    folded in at their upper bound as one column, sum_F w_q [u_q; K(x_i, c) - K(x_j, c)] with cost
    sum_F w_q d~_q and box 0 <= phi <= lambda2 / p (mu_q = phi w_q for q in F), a zero column while F
    is empty.  At phi = lambda2 / p it is the fold; below, the LP can shrink the fold, so that it stays
    feasible whatever is fixed.  Entries below ``KERNEL_ENTRY_FLOOR`` are already 0."""

    labeled: np.ndarray  # (m + 1, 2 l)
    labeled_cost: np.ndarray  # (2 l,)
    preference: np.ndarray  # (m + 1, 1 + k): phi, then the working preferences
    preference_cost: np.ndarray  # (1 + k,): sum_F w d~, then the scaled margins d~
    preference_upper: np.ndarray  # (1 + k,): lambda2 / p, then lambda2 w / p
    lambda1: float

    @property
    def n_labeled(self) -> int:
        return self.labeled.shape[1] // 2

    def matrix(self) -> sp.csc_matrix:
        return sp.csc_matrix(np.hstack([self.labeled, self.preference]))

    def cost(self) -> np.ndarray:
        return np.concatenate([self.labeled_cost, self.preference_cost])

    def column_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        lower = np.zeros(self.labeled.shape[1] + self.preference.shape[1])
        upper = np.concatenate([np.full(self.labeled.shape[1], 1.0 / self.n_labeled), self.preference_upper])
        return lower, upper

    def row_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        n_centers = self.labeled.shape[0] - 1
        return np.concatenate([[0.0], np.full(n_centers, -self.lambda1)]), np.concatenate(
            [[0.0], np.full(n_centers, self.lambda1)]
        )


def labeled_block(kernel_labeled: np.ndarray, y_scaled: np.ndarray, epsilon_scaled: float):
    """Columns pi_plus, pi_minus: dense block (m + 1, 2 l) and cost (2 l,).

    kernel_labeled: K(x_L, centers), shape (l, m); y_scaled: shape (l,)."""
    plus = np.vstack([np.ones(y_scaled.size), floor_small_entries(kernel_labeled).T])
    return np.hstack([plus, -plus]), np.concatenate([y_scaled - epsilon_scaled, -y_scaled - epsilon_scaled])


def preference_upper(weight: np.ndarray, lambda2: float, n_preferences: int) -> np.ndarray:
    """Box 0 <= mu_q <= lambda2 w_q / p, shape (p,)."""
    return lambda2 * weight / max(n_preferences, 1)


def shortfalls(margins: np.ndarray, position_i, position_j, f_rows: np.ndarray) -> np.ndarray:
    """Each preference's d~_q - (f~(x_i) - f~(x_j)), shape (p,), from f~ at the referenced rows
    (r,); position_i, position_j (p,) index those rows, with r standing for ZERO (f = 0)."""
    f = np.append(f_rows, 0.0)
    return margins - (f[position_i] - f[position_j])


def primal_objective(problem: DualLP, row_dual, y_scaled, epsilon_scaled, shortfall, upper) -> float:
    """Objective (9), in scaled units, of the primal (alpha_0, alpha) = ``row_dual`` (m + 1,), given
    every preference's shortfall (p,) and hinge weight lambda2 w_q / p (p,).

    Column k of the labeled block holds the coefficients of (alpha_0, alpha) in f at labeled point
    k, so its transpose times row_dual gives f there."""
    f_labeled = problem.labeled[:, : problem.n_labeled].T @ row_dual
    loss = np.mean(np.maximum(np.abs(y_scaled - f_labeled) - epsilon_scaled, 0.0))
    return float(loss + problem.lambda1 * np.abs(row_dual[1:]).sum() + upper @ np.maximum(shortfall, 0.0))
