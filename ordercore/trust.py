"""How much to trust each source of preferences, and the preferences as a whole, from what a session
knows: its labels and each source's measured accuracy (issue 14, item 1).

- ``source_weights``: each source (a rule, an annotator's clicks, an imported file, a proxy expert)
  weighs by the log-odds of its estimated accuracy (``quality.accuracy_weight``: Snorkel's idea,
  for pairs), 0 for one no better than a coin; a source whose accuracy cannot be measured keeps
  ``UNMEASURED_WEIGHT`` and is left to the cross-validation below.
- ``label_cv``: repeated k-fold cross-validation on the labels over a lambda2 grid, every fold's
  path warm-started; ``LabelCV.chosen`` applies the one-standard-error rule in favour of the
  simpler model: lambda2 > 0 only when its mean improvement over SVR (lambda2 = 0) on the same folds
  exceeds one standard error of that paired difference, so weak evidence keeps SVR.
- ``source_effects``: the change in that cross-validated error when one source is left out.

No test labels are involved anywhere: the held-out rows of each fold are labeled rows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.model_selection import KFold

from ordercore.lp.estimator import OrderPreferenceRegressor
from ordercore.preferences import PreferenceSet
from ordercore.quality import accuracy_weight

LAMBDA2_GRID = (0.0, 0.1, 0.3, 1.0, 3.0, 10.0)
"""lambda2 candidates; 0 is SVR, the model the selection falls back to."""

FOLDS, REPEATS = 5, 4
"""5-fold cross-validation on the labels, repeated over 4 random splits (20 held-out folds): with
l = 60 one split's folds hold 12 labels each and a single split's choice is noisy."""

UNMEASURED_WEIGHT = 1.0
"""The weight of a source with no measured accuracy (no labeled pair meets it, no audit answer)."""


def source_weights(accuracies: list[tuple[int, int] | None]) -> np.ndarray:
    """One weight per source (n_sources,): ``accuracy_weight(correct, total)`` where (correct,
    total) is measured, ``UNMEASURED_WEIGHT`` where it is None or total is 0."""
    return np.array(
        [
            UNMEASURED_WEIGHT if not measured or measured[1] == 0 else accuracy_weight(*measured)
            for measured in accuracies
        ]
    )


def weighted(preferences: PreferenceSet, source: np.ndarray, weights: np.ndarray) -> PreferenceSet:
    """``preferences`` with each weight w_q multiplied by its source's weight; source (p,) indexes
    ``weights`` (n_sources,)."""
    return PreferenceSet(preferences.i, preferences.j, preferences.margin, preferences.weight * weights[source])


@dataclass(frozen=True)
class LabelCV:
    """Held-out MAE of each lambda2 on each fold: ``errors`` (len(grid), n_folds), the folds of every
    repeat side by side, the same folds for every lambda2 (so differences are paired)."""

    grid: tuple
    errors: np.ndarray

    def mean(self) -> np.ndarray:
        return self.errors.mean(axis=1)

    def gain_over_svr(self) -> tuple[np.ndarray, np.ndarray]:
        """(mean, standard error) over folds of SVR's error minus each lambda2's, shape (len(grid),)
        each; positive: preferences help.  The folds of repeated splits are not independent, so
        the standard error is an approximation that errs on the small side."""
        difference = self.errors[0] - self.errors
        n_folds = self.errors.shape[1]
        return difference.mean(axis=1), difference.std(axis=1, ddof=1) / np.sqrt(n_folds)

    def chosen(self) -> float:
        """The lambda2 of least mean error if it beats SVR by more than one standard error of the
        paired difference, else 0 (SVR)."""
        best = int(np.argmin(self.mean()))
        gain, error = self.gain_over_svr()
        return float(self.grid[best]) if gain[best] > error[best] else 0.0


def label_cv(X, y, preferences: PreferenceSet, rng: np.random.Generator, grid=LAMBDA2_GRID, **model_options) -> LabelCV:
    """Repeated k-fold cross-validation of the SSL fit on the labeled rows of y (NaN: unlabeled)
    over ``grid`` (which must start with 0).  In each fold the held-out labels are hidden (their
    rows stay, unlabeled, in the preferences); the lambda2 path is warm-started.  ``model_options``
    go to ``OrderPreferenceRegressor`` (gamma, lambda1, centers, ...)."""
    if grid[0] != 0:
        raise ValueError("the lambda2 grid must start with 0 (SVR), the model weak evidence falls back to")
    return LabelCV(tuple(grid), _cv_errors(X, y, preferences, rng, grid, model_options))


def _cv_errors(X, y, preferences, rng, grid, model_options) -> np.ndarray:
    """Held-out MAE (len(grid), FOLDS x REPEATS) over ``REPEATS`` random k-fold splits of the labels."""
    labeled = np.flatnonzero(~np.isnan(y))
    columns = []
    for _ in range(REPEATS):
        splits = KFold(min(FOLDS, labeled.size), shuffle=True, random_state=int(rng.integers(2**31))).split(labeled)
        for _, held_out in splits:
            columns.append(_fold_errors(X, y, preferences, labeled[held_out], grid, model_options))
    return np.column_stack(columns)


def _fold_errors(X, y, preferences, hidden: np.ndarray, grid, model_options) -> np.ndarray:
    """Held-out MAE on the ``hidden`` labeled rows for each lambda2 of ``grid``, shape (len(grid),)."""
    y_fold = y.copy()
    y_fold[hidden] = np.nan
    model = OrderPreferenceRegressor(warm_start=True, **model_options)
    errors = []
    for lambda2 in grid:
        model.set_params(lambda2=lambda2).fit(X, y_fold, preferences)
        errors.append(np.mean(np.abs(y[hidden] - model.predict(X[hidden]))))
    return np.array(errors)


def source_effects(X, y, preferences, source: np.ndarray, lambda2: float, seed: int, **model_options) -> np.ndarray:
    """For each source s (0 .. source.max()): cross-validated MAE with s left out minus with every
    source in force, at ``lambda2``, on the same folds (``seed``); positive: s helps.  Shape
    (n_sources,)."""

    def error(kept: PreferenceSet) -> float:
        return float(_cv_errors(X, y, kept, np.random.default_rng(seed), (lambda2,), model_options).mean())

    everything = error(preferences)
    return np.array([error(preferences[source != s]) - everything for s in range(int(source.max()) + 1)])
