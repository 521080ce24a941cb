"""Proxy experts (seed 000 §sentiment analysis; seed 001 §4.3): a model trained on *other* data acts
as the expert.  It scores random pairs of unlabeled rows, and the row it scores higher is preferred,
f(x_i) - f(x_j) >= d with d = 0 ("we do not know the difference in rating") and w = 1.

The seed kept a pair only when the proxy's scores differed by more than a threshold (0.25 of its
SVM margin, "a very crude and noisy estimate"); here that is ``min_difference``, in the proxy's
units.  Pairs within it, and exact ties (``min_difference = 0``), carry no opinion and make no
preference.

Any object with ``predict(rows) -> (n,)`` is a proxy: a scikit-learn pipeline from raw text, a
regressor on the same features as the main model, or a fitted ``OrderPreferenceRegressor`` of
another session.
"""

from __future__ import annotations

import numpy as np

from ordercore.knowledge.arguments import non_negative, positions, same_length
from ordercore.preferences import PreferenceSet

MAX_DRAW_ROUNDS = 100
"""``proxy_preferences`` draws candidate pairs in rounds of ``n_pairs``; it gives up (``ValueError``)
after this many rounds without enough pairs that the proxy separates."""


def order_pairs(
    scores: np.ndarray, first: np.ndarray, second: np.ndarray, min_difference: float = 0.0, weight: float = 1.0
) -> PreferenceSet:
    """Preferences from a proxy's ``scores`` (n,) on the candidate pairs (first[q], second[q]),
    positions into ``scores``: for each pair whose scores differ by more than ``min_difference``,
    f(x_a) - f(x_b) >= 0 with weight ``weight``, a the position scored higher.  Pairs within
    ``min_difference`` (and exact ties) make no preference; the others keep their input order."""
    scores = np.asarray(scores, dtype=float)
    min_difference = non_negative(min_difference, "min_difference")
    first = positions(first, scores.size, "first", f"the {scores.size} scores")
    second = positions(second, scores.size, "second", f"the {scores.size} scores")
    same_length(first, second, "first and second")
    # s_first - s_second: its sign says which row the proxy prefers
    difference = scores[first] - scores[second]
    keep = np.abs(difference) > min_difference
    higher = np.where(difference > 0, first, second)[keep]
    lower = np.where(difference > 0, second, first)[keep]
    return PreferenceSet(higher, lower, 0.0, weight)


def proxy_preferences(
    model,
    X,
    n_pairs: int,
    rng: np.random.Generator | int | None = None,
    *,
    rows: np.ndarray | None = None,
    min_difference: float = 0.0,
    weight: float = 1.0,
) -> PreferenceSet:
    """``n_pairs`` order preferences (d = 0) from a proxy expert on random pairs of the rows ``X``.

    model : any object whose ``predict(X)`` gives one finite score per row (n,).
    X : the unlabeled rows the proxy sees, (n, ...) as ``model.predict`` takes them (a feature
        matrix, or raw texts for a text pipeline).
    rows : (n,) the index each row of X has in the caller's data, which the preferences name
        (default 0 ... n - 1).
    min_difference : pairs whose scores differ by at most this make no preference (see
        ``order_pairs``); candidates are drawn (with replacement, two distinct rows each) until
        ``n_pairs`` preferences are made.

    ``ValueError`` when the proxy separates no pair (all scores within ``min_difference``), or too
    few after ``MAX_DRAW_ROUNDS`` rounds of ``n_pairs`` candidates."""
    rng = np.random.default_rng(rng)
    min_difference = non_negative(min_difference, "min_difference")
    scores = np.asarray(model.predict(X), dtype=float)
    n = scores.shape[0]
    rows = np.arange(n) if rows is None else np.asarray(rows)
    if scores.shape != (n,) or rows.shape != (n,):
        raise ValueError(f"the proxy must give one score per row: {scores.shape} scores, {rows.shape} rows")
    if not np.isfinite(scores).all():
        raise ValueError("the proxy's scores must be finite")
    if n_pairs < 0:
        raise ValueError(f"n_pairs must be at least 0, got {n_pairs}")
    if n_pairs == 0:
        return PreferenceSet.empty()
    if n < 2 or np.ptp(scores) <= min_difference:
        raise ValueError(f"the proxy separates no pair of these {n} rows by more than {min_difference}")
    kept: list[PreferenceSet] = []
    made = 0
    for _ in range(MAX_DRAW_ROUNDS):
        first, second = _distinct_pairs(n, n_pairs, rng)
        found = order_pairs(scores, first, second, min_difference, weight)[: n_pairs - made]
        kept.append(found)
        made += len(found)
        if made == n_pairs:
            preferences = PreferenceSet.concatenate(kept)
            return PreferenceSet(rows[preferences.i], rows[preferences.j], 0.0, weight)
    raise ValueError(
        f"the proxy separated only {made} of {MAX_DRAW_ROUNDS * n_pairs} random pairs by more than "
        f"{min_difference}; lower min_difference or ask for fewer pairs"
    )


def _distinct_pairs(n: int, n_pairs: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``n_pairs`` pairs of positions 0 ... n - 1 drawn with replacement, the two of a pair distinct."""
    first = rng.integers(n, size=n_pairs)
    # a second position uniform over the other n - 1
    second = (first + rng.integers(1, n, size=n_pairs)) % n
    return first, second


def pair_accuracy(preferences: PreferenceSet, y: np.ndarray) -> float:
    """The share of order preferences (i over j) the true targets ``y`` order the same way, y_i > y_j,
    among those whose targets differ (a tie neither confirms nor refutes an order); NaN if none."""
    y = np.asarray(y, dtype=float)
    truth_i, truth_j = y[preferences.i], y[preferences.j]
    ordered = truth_i != truth_j
    return float(np.mean(truth_i[ordered] > truth_j[ordered])) if ordered.any() else float("nan")
