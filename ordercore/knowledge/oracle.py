"""Simulated experts for the seeds' "oracle experiments": preferences made from true targets.

Seed 001 §4.2, eq. (14): sample pairs (x_i, x_j) with replacement from the unlabeled points,
order them so that y_i >= y_j, and prefer f(x_i) - f(x_j) >= beta (y_i - y_j), beta = 0.5.
"""

from __future__ import annotations

import numpy as np

from ordercore.knowledge.arguments import count, non_negative, positions
from ordercore.preferences import PreferenceSet


def oracle_preferences(
    rows: np.ndarray, y_true: np.ndarray, n_preferences: int, beta: float = 0.5, rng: np.random.Generator | None = None
) -> PreferenceSet:
    """``n_preferences`` pairs drawn with replacement from ``rows`` (indices into ``y_true``), each
    f(x_i) - f(x_j) >= beta (y_i - y_j) with y_i >= y_j.  A pair drawn as the same point twice
    carries no order and is drawn again; every row must be labeled (y_true not NaN)."""
    rng = np.random.default_rng(rng)
    y_true = np.asarray(y_true, dtype=float)
    beta, n_preferences = non_negative(beta, "beta"), count(n_preferences, "n_preferences")
    rows = positions(rows, y_true.size, "rows", "y_true")
    if rows.size < 2:
        raise ValueError("need at least two rows to draw pairs from")
    unlabeled = np.unique(rows[np.isnan(y_true[rows])])
    if unlabeled.size:
        raise ValueError(
            f"y_true is NaN at row(s) {unlabeled[:5].tolist()} of rows: oracle preferences need labeled rows; "
            "pass only those"
        )
    first = rng.choice(rows, n_preferences)
    second = rng.choice(rows, n_preferences)
    same = first == second
    while same.any():
        second[same] = rng.choice(rows, int(same.sum()))
        same = first == second
    swap = y_true[first] < y_true[second]
    i, j = np.where(swap, second, first), np.where(swap, first, second)
    return PreferenceSet(i, j, beta * (y_true[i] - y_true[j]), 1.0)
