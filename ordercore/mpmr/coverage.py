"""Coverage of the tube ŷ ± ε measured from held-out residuals — not the paper's: seed 003's Ω is a
worst-case bound from the training data's moments, and docs/REPRODUCTION.md shows how far it can sit
from the coverage it bounds.  These estimates use residuals of points a fit did not see.

- ``cross_validated_coverage``: the share of k-fold out-of-fold residuals within ε, an estimate
  (no guarantee) of a full fit's coverage P(|ŷ(x) − y| ≤ ε) that spends no data.
- ``conformal_level``: split conformal prediction (Vovk et al. 2005; Lei et al. 2018).  For a fit on
  one part of the data and the absolute residuals of n calibration points, the tube ŷ ± ε of that fit
  covers a new exchangeable point with probability at least k / (n + 1), k the calibration residuals
  ≤ ε (the k-th smallest residual is ≤ ε, and a new residual falls at or below it with probability
  ≥ k / (n + 1)).  That holds on average over calibration sets, so about half of single splits
  fall below it.
- ``conformal_lower_bound``: the per-split statement: given the fit, k is binomial in n with the
  fit's coverage p, so the Clopper–Pearson lower bound on p from k holds with the stated confidence
  for each split (a training-conditional guarantee, Vovk 2012).
"""

from __future__ import annotations

import numpy as np
import scipy.stats
from sklearn.base import clone
from sklearn.model_selection import KFold

CV_FOLDS = 10
"""Folds of ``cross_validated_coverage``: each fit sees 90 % of the data, close to the full fit."""


def out_of_fold_residuals(estimator, X: np.ndarray, y: np.ndarray, folds: int = CV_FOLDS, seed: int = 0) -> np.ndarray:
    """|y_i − ŷ_{−i}(x_i)| (n,), each ŷ_{−i} a clone of ``estimator`` fitted without x_i's fold."""
    residuals = np.empty(len(y))
    for train, held_out in KFold(min(folds, len(y)), shuffle=True, random_state=seed).split(X):
        fit = clone(estimator).fit(X[train], y[train])
        residuals[held_out] = np.abs(y[held_out] - fit.predict(X[held_out]))
    return residuals


def cross_validated_coverage(estimator, X, y, epsilons, folds: int = CV_FOLDS, seed: int = 0) -> np.ndarray:
    """Share of out-of-fold residuals within each ε of ``epsilons`` (m,): shape (m,)."""
    residuals = out_of_fold_residuals(estimator, X, y, folds, seed)
    return np.mean(residuals[None, :] <= np.asarray(epsilons, dtype=float)[:, None], axis=1)


def conformal_level(calibration_residuals: np.ndarray, epsilons) -> np.ndarray:
    """k / (n + 1) for each ε (m,), k the absolute calibration residuals (n,) at most ε: the coverage
    split conformal prediction guarantees to the tube ŷ ± ε of the fit they were measured on."""
    residuals = np.abs(np.asarray(calibration_residuals, dtype=float))
    within = np.sum(residuals[None, :] <= np.asarray(epsilons, dtype=float)[:, None], axis=1)
    return within / (residuals.size + 1)


def conformal_lower_bound(calibration_residuals: np.ndarray, epsilons, confidence: float = 0.9) -> np.ndarray:
    """For each ε (m,), the one-sided Clopper–Pearson lower bound at ``confidence`` on the coverage of
    the tube ŷ ± ε, from the k of n absolute calibration residuals at most ε (0 when k = 0)."""
    residuals = np.abs(np.asarray(calibration_residuals, dtype=float))
    within = np.sum(residuals[None, :] <= np.asarray(epsilons, dtype=float)[:, None], axis=1)
    bound = scipy.stats.beta.ppf(1 - confidence, np.maximum(within, 1), residuals.size - within + 1)
    return np.where(within > 0, bound, 0.0)
