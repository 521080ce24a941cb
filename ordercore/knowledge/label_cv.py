"""Cross-validation on the labels, and the ``Blend`` of fits it chooses (issue 14, item 1).

- ``label_cv``: repeated k-fold cross-validation on the labels over (lambda1, lambda2) settings (the
  first SVR's), every fold's path warm-started, keeping each labeled row's held-out predictions.
  ``cross_validate_runs`` runs several on the same folds, each fold an independent task, in turn or on
  an executor's workers (issue 30, item 2): the same numbers either way.
- ``LabelCV.blend``: what SSL fits, a ``Blend``: the fits with preferences averaged over the grid
  (the path), mixed with SVR in the share alpha of least cross-validated error, so preferences
  count (alpha > 0) only where the labels find the mixture better than SVR on the same folds; a tie
  keeps SVR.  Averaging the path rather than choosing one of its settings is what made the gain
  reliable (docs/REPRODUCTION.md, "Automatic trust").
- ``LabelCV.comparison``: SVR's held-out error against a blend's, the gain's interval from Nadeau &
  Bengio's corrected standard error (``corrected_standard_error``).

How much each source of preferences weighs before any of this, and the choice that runs it, are
``trust.py``'s.  No test labels are involved anywhere: the held-out rows of each fold are labeled rows.
"""

from __future__ import annotations

import concurrent.futures
from dataclasses import dataclass

import numpy as np
import scipy.stats
from sklearn.model_selection import KFold

from ordercore.lp.estimator import OrderPreferenceRegressor
from ordercore.preferences import PreferenceSet

CV_PREFERENCES = 20_000
"""Most preferences each cross-validation fit takes: a uniform sample beyond it.  The LP's hinge term
is a mean over preferences ((lambda2 / p) sum_q, problem.py), so a sample estimates the same
objective and the lambda2 it favours; the final fit takes every preference."""

ALPHAS = tuple(np.linspace(0.0, 1.0, 11))
"""The shares of the averaged fit with preferences ``LabelCV.blend`` tries, the rest SVR's."""

FOLDS, REPEATS = 5, 4
"""5-fold cross-validation on the labels, repeated over 4 random splits (20 held-out folds): with
l = 60 one split's folds hold 12 labels each and a single split's choice is noisy."""


def corrected_standard_error(difference: np.ndarray) -> np.ndarray:
    """Standard error of the mean of paired held-out differences over the last axis (n_folds of
    ``REPEATS`` k-fold splits), by Nadeau & Bengio's corrected resampled variance (Machine Learning
    52, 2003): s^2 (1 / n_folds + n_test / n_train), n_test / n_train = 1 / (FOLDS - 1).  The folds
    share their training rows, so the plain s^2 / n_folds is far too small (with 60 labels it made
    preferences look helpful that were not)."""
    n_folds = difference.shape[-1]
    return difference.std(axis=-1, ddof=1) * np.sqrt(1 / n_folds + 1 / (FOLDS - 1))


@dataclass(frozen=True)
class Blend:
    """What SSL fits under automatic trust: f = sum_k weights[k] f_k, f_k the LP at settings[k] =
    (lambda1, lambda2) (``lp.average.AveragedOrderPreferenceRegressor``).  ``mixing`` makes the one
    ``LabelCV.blend`` chooses: SVR (the grid's first setting) at 1 - alpha, the settings with
    preferences at alpha shared equally."""

    settings: tuple
    weights: np.ndarray

    @classmethod
    def mixing(cls, grid, alpha: float, members: int | None = None) -> Blend:
        """(1 - alpha) x SVR (grid[0]) + alpha x the mean of the next ``members`` settings of ``grid``
        (default: all the others; those beyond weigh 0)."""
        members = len(grid) - 1 if members is None else members
        shares = [alpha / members] * members + [0.0] * (len(grid) - 1 - members)
        return cls(tuple(grid), np.array([1 - alpha, *shares]))

    @classmethod
    def svr(cls, lambda1: float) -> Blend:
        """SVR alone at ``lambda1``."""
        return cls(((lambda1, 0.0),), np.ones(1))

    def active(self) -> Blend:
        """The settings of weight > 0 only (what a fit needs)."""
        kept = np.flatnonzero(self.weights > 0)
        return Blend(tuple(self.settings[k] for k in kept), self.weights[kept])

    @property
    def alpha(self) -> float:
        """The share of the settings with preferences (lambda2 > 0); 0: SVR."""
        return float(sum(w for w, (_, lambda2) in zip(self.weights, self.settings, strict=True) if lambda2 > 0))

    def parameters(self) -> dict:
        """``settings`` and ``weights`` for ``AveragedOrderPreferenceRegressor``."""
        return {"settings": tuple(map(tuple, self.settings)), "weights": tuple(map(float, self.weights))}

    def describe(self) -> str:
        """In words, e.g. 'SVR' or '60% the fit with preferences (λ1 = 0.0033, averaged over λ2 = 0.3 … 30)
        and 40 % SVR'; a path cut short says so: 'averaged over λ2 = 0.3 … 10, the weakest of 0.3 … 30'."""
        path = [setting for w, setting in zip(self.weights, self.settings, strict=True) if w > 0 and setting[1] > 0]
        if not path:
            return "SVR"
        lambda1s = sorted({f"{lambda1:.2g}" for lambda1, _ in path})
        lambda2s = sorted(lambda2 for _, lambda2 in path)
        every = sorted(lambda2 for _, lambda2 in self.settings if lambda2 > 0)
        over = f"λ2 = {lambda2s[0]:g}"
        if len(lambda2s) > 1:
            over = f"averaged over λ2 = {lambda2s[0]:g} … {lambda2s[-1]:g}"
        if len(lambda2s) < len(every):
            over += f", the weakest of {every[0]:g} … {every[-1]:g}"
        fit = f"the fit with preferences (λ1 = {', '.join(lambda1s)}, {over})"
        if self.alpha > 1 - 1e-9:
            return fit
        return f"{self.alpha:.0%} {fit} and {1 - self.alpha:.0%} SVR"


@dataclass(frozen=True)
class LabelCV:
    """Repeated k-fold cross-validation of each (lambda1, lambda2) setting of ``grid`` (``grid[0]``
    SVR): ``predictions`` (len(grid), n_repeats, l), each labeled row's prediction in the repeat's fold
    that held it out; ``folds`` (n_repeats, l), that fold's number; ``truth`` (l,), the labels.  Every
    setting saw the same folds, so differences are paired."""

    grid: tuple
    predictions: np.ndarray
    folds: np.ndarray
    truth: np.ndarray

    def fold_errors(self, predictions: np.ndarray) -> np.ndarray:
        """Held-out MAE of ``predictions`` (..., n_repeats, l) in each fold, shape (..., n_folds), the
        folds of every repeat side by side."""
        absolute = np.abs(predictions - self.truth)
        n_repeats, n_folds = self.folds.shape[0], int(self.folds.max()) + 1
        return np.stack(
            [absolute[..., r, self.folds[r] == k].mean(axis=-1) for r in range(n_repeats) for k in range(n_folds)],
            axis=-1,
        )

    @property
    def errors(self) -> np.ndarray:
        """Held-out MAE of each setting in each fold, (len(grid), n_folds)."""
        return self.fold_errors(self.predictions)

    def mean(self) -> np.ndarray:
        return self.errors.mean(axis=1)

    def blend_errors(self, blend: Blend) -> np.ndarray:
        """Held-out MAE in each fold (n_folds,) of ``blend``, whose settings are among the grid's."""
        index = [self.grid.index(tuple(setting)) for setting in blend.settings]
        return self.fold_errors(np.tensordot(blend.weights, self.predictions[index], axes=1))

    def path(self) -> Blend:
        """The settings with preferences averaged, without SVR (alpha = 1)."""
        return Blend.mixing(self.grid, 1.0)

    def blend(self) -> Blend:
        """SVR mixed with the path cut after its k-th setting (the mean of the k weakest settings with
        preferences, lambda2 ascending), in the share alpha of ``ALPHAS``, the (k, alpha) of least mean
        held-out error; a tie keeps the smaller k and alpha (SVR's, where the preferences do not help).

        An average, not the setting of least error: with 60 labels which setting wins is noise (4 of
        8 repeats moved a bedroom rule's gain from 5.2 % to 3.9 %), while the path's average beats
        most of its members on test (docs/REPRODUCTION.md, "Automatic trust").  Cut where it stops
        helping: an expert's few hundred noisy answers (``experiments session``) gain at lambda2 <= 1
        and lose at 10 and 30 (order answers that contradict each other are met by a flat f), so the
        whole path's average made them look useless (California, 300 answers of an 80 % expert: +1.3 %
        against +7.1 % cut; docs/REPRODUCTION.md, "What an expert's hour buys").  Not the
        one-standard-error rule either: that standard error is as large as the gain a good rule
        brings.  Sources the labels find no better than a coin weigh 0 before any of this
        (``source_weights``)."""
        candidates = [Blend.mixing(self.grid, alpha, k) for k in range(1, len(self.grid)) for alpha in ALPHAS]
        return candidates[int(np.argmin([self.blend_errors(blend).mean() for blend in candidates]))]

    def comparison(self, blend: Blend, confidence: float = 0.95) -> dict:
        """SVR's and ``blend``'s mean held-out MAE, the gain (SVR minus it; positive: the preferences
        help) and its normal interval at ``confidence`` from the paired ``corrected_standard_error``."""
        svr, mixed = self.errors[0], self.blend_errors(blend)
        gain, error = (svr - mixed).mean(), corrected_standard_error(svr - mixed)
        z = float(scipy.stats.norm.ppf((1 + confidence) / 2))
        return {
            "svr": float(svr.mean()),
            "ssl": float(mixed.mean()),
            "gain": float(gain),
            "low": float(gain - z * error),
            "high": float(gain + z * error),
        }


def label_cv(
    X, y, preferences: PreferenceSet, rng: np.random.Generator, grid, progress=None, executor=None, **model_options
) -> LabelCV:
    """Repeated k-fold cross-validation of the SSL fit on the labeled rows of y (NaN: unlabeled)
    over ``grid``, (lambda1, lambda2) settings of which the first is SVR's (lambda2 = 0; see
    ``trust.trust_grid``).  In each fold the held-out rows lose their labels and every preference that touches
    them (``_fold_predictions``), and the settings are walked warm (only LP bounds change).  Beyond
    ``CV_PREFERENCES`` the fits take a uniform sample of the preferences, the same in every fold.
    ``progress(done, total)`` is called after each fold; ``executor`` as ``cross_validate_runs``.
    ``model_options`` go to ``OrderPreferenceRegressor`` (gamma, centers, ...)."""
    if grid[0][1] != 0:
        raise ValueError("the grid must start with SVR (lambda2 = 0), the model weak evidence falls back to")
    preferences = preferences[cv_sample(len(preferences), rng)]
    return cross_validate(X, y, preferences, rng, tuple(grid), model_options, progress, executor)


def cv_sample(n_preferences: int, rng) -> np.ndarray:
    """Positions of the preferences cross-validation fits take: all, or ``CV_PREFERENCES`` drawn
    uniformly (sorted)."""
    if n_preferences <= CV_PREFERENCES:
        return np.arange(n_preferences)
    return np.sort(rng.choice(n_preferences, CV_PREFERENCES, replace=False))


def draw_folds(y, rng) -> np.ndarray:
    """The fold of each labeled row of y (NaN: unlabeled) in each of ``REPEATS`` random k-fold splits,
    shape (REPEATS, l): ``FOLDS`` folds (fewer with fewer labels), one seed drawn from rng per split."""
    labeled = np.flatnonzero(~np.isnan(y))
    folds = np.zeros((REPEATS, labeled.size), dtype=np.int64)
    for repeat in range(REPEATS):
        splits = KFold(min(FOLDS, labeled.size), shuffle=True, random_state=int(rng.integers(2**31)))
        for fold, (_, held_out) in enumerate(splits.split(labeled)):
            folds[repeat, held_out] = fold
    return folds


def cross_validate(X, y, preferences, rng, grid, model_options, progress=None, executor=None) -> LabelCV:
    """``LabelCV`` of ``grid`` over ``REPEATS`` random k-fold splits of the labels of y (``draw_folds``)."""
    return cross_validate_runs(X, y, draw_folds(y, rng), [(preferences, grid)], model_options, progress, executor)[0]


def cross_validate_runs(X, y, folds: np.ndarray, runs, model_options, progress=None, executor=None) -> list:
    """One ``LabelCV`` per (preferences, grid) of ``runs``, every one on the same ``folds`` (REPEATS, l)
    of the labeled rows of y.  Each fold of each run is one independent task (``_fold_predictions``), run
    in turn here or, given a ``concurrent.futures.Executor``, on its workers (processes use every core:
    HiGHS and the pricing between its runs are most of a fold's time).  Either way a task computes the
    same numbers, so the result does not depend on where it ran.  ``progress(done, total)`` after each
    task, in the order they finish."""
    labeled = np.flatnonzero(~np.isnan(y))
    held_out = [(repeat, folds[repeat] == fold) for repeat in range(REPEATS) for fold in range(int(folds.max()) + 1)]
    tasks = [(preferences, labeled[rows], tuple(grid)) for preferences, grid in runs for _, rows in held_out]
    predictions = iter(_fold_tasks(X, y, tasks, model_options, progress, executor))
    cvs = []
    for _, grid in runs:
        table = np.zeros((len(grid), REPEATS, labeled.size))
        for repeat, rows in held_out:
            table[:, repeat, rows] = next(predictions)
        cvs.append(LabelCV(tuple(grid), table, folds, y[labeled]))
    return cvs


def _fold_tasks(X, y, tasks, model_options, progress, executor) -> list:
    """``_fold_predictions`` of each (preferences, hidden, grid) of ``tasks``, in their order."""
    if executor is None:
        results = []
        for preferences, hidden, grid in tasks:
            results.append(_fold_predictions(X, y, preferences, hidden, grid, model_options))
            if progress is not None:
                progress(len(results), len(tasks))
        return results
    futures = [executor.submit(_fold_predictions, X, y, *task, model_options) for task in tasks]
    try:
        for done, future in enumerate(concurrent.futures.as_completed(futures), 1):
            future.result()  # a task's error, at once
            if progress is not None:
                progress(done, len(tasks))
    finally:
        for future in futures:
            future.cancel()
    return [future.result() for future in futures]


def _fold_predictions(X, y, preferences, hidden: np.ndarray, grid, model_options) -> np.ndarray:
    """Predictions on the ``hidden`` labeled rows for each (lambda1, lambda2) of ``grid``, shape
    (len(grid), hidden.size).  The fold's fits take neither their labels nor any preference that touches
    them: held out like test rows, which no preference reaches (a preference on a held-out row would pin
    its prediction directly and flatter the preferences).  The grid is walked in one LP whose bounds change
    setting to setting (``warm_start``), not along ``lp.average.fit_lambda_path``: a fold keeps no member,
    and branching each into a HiGHS instance of its own cost 1.4x this walk at 40,000 preferences
    (``bench/trust_bench.py --fold-walks``)."""
    y_fold = y.copy()
    y_fold[hidden] = np.nan
    preferences = preferences[~(np.isin(preferences.i, hidden) | np.isin(preferences.j, hidden))]
    model = OrderPreferenceRegressor(warm_start=True, **model_options)
    predictions = []
    for lambda1, lambda2 in grid:
        model.set_params(lambda1=lambda1, lambda2=lambda2).fit(X, y_fold, preferences)
        predictions.append(model.predict(X[hidden]))
    return np.array(predictions)
