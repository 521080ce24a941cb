"""The SVMs seed 002 §4.2–4.3 compares its label-preference GP with (Chu & Ghahramani, ICML 2005):

- **CC-SVM**, constraint classification (Har-Peled, Roth & Zimak, NIPS 2002) by Kesler's construction:
  one weight vector w_a per label; the preference "a ≻ b for x" is the binary example φ(x) ⊗ (e_a − e_b)
  with label +1, so w · (φ(x) ⊗ (e_a − e_b)) = f_a(x) − f_b(x).  With a kernel k the joint kernel is

      K((x, a, b), (x', c, d)) = k(x, x') (δ_ac − δ_ad − δ_bc + δ_bd),

  and SVC(kernel="precomputed") solves the dual.  As in the seed each preference gives 2 examples, +1
  and its mirror −1, which keep the SVM's bias at 0 (with one example per preference in alternating
  signs the bias came out far from 0 and misranked separable training rankings).  Labels are ranked by
  f_c(x) = Σ_t k(x, x_t) β_tc, β_tc = Σ over sample t's examples i of α_i y_i (e_a − e_b)_c.
- **PW-SVM**, one-vs-one SVMs joined by pairwise coupling (Wu, Lin & Weng, JMLR 2004): scikit-learn's
  SVC(probability=True), whose probabilities are Wu et al.'s second coupling method.

Both choose C and the kernel width by 5-fold cross-validation on a coarse-then-fine grid
(``coarse_to_fine``), as seed 002 §4 says: a 7 × 7 grid spaced by 1.0, then a 9 × 9 one spaced by 0.2
around its best point, in (log₁₀ C, log₁₀ κ) with k(x, x') = exp(−κ/2 |x − x'|²) (eq. (2)).  The coarse
grid's region is lost from the transcript: here it is centred at C = 1, κ = 1/d.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.metrics.pairwise import linear_kernel, rbf_kernel
from sklearn.model_selection import KFold, StratifiedKFold
from sklearn.svm import SVC
from sklearn.utils.validation import check_is_fitted

from ordercore.gp.labels import label_preference_graph, ranking_preference_graph
from ordercore.inputs.fit_inputs import LabelsScored

COARSE_POINTS, COARSE_STEP = 7, 1.0
FINE_POINTS, FINE_STEP = 9, 0.2
"""Seed 002 §4: a 7-point coarse grid per parameter spaced by 1.0, then a 9-point fine one spaced by 0.2
(in log₁₀), around the coarse grid's best point."""
QUICK_POINTS = 3
"""Points of each grid in a smoke run (``--quick``), unless the run names its own."""
FOLDS = 5
SVC_TOLERANCE = 1e-3
"""libsvm's stopping tolerance (scikit-learn's default)."""


def joint_kernel(k: np.ndarray, differences_rows: np.ndarray, differences_columns: np.ndarray) -> np.ndarray:
    """Kesler's joint kernel of examples φ(x_i) ⊗ d_i and φ(x'_j) ⊗ d'_j: k_ij (d_i · d'_j), shape (m, m').

    k : k(x_i, x'_j) of every pair of examples, (m, m').  differences : the label parts d = ±(e_a − e_b),
    (m, L) and (m', L); for d = e_a − e_b, d' = e_c − e_d, d · d' = δ_ac − δ_ad − δ_bc + δ_bd."""
    return k * (differences_rows @ differences_columns.T)


def kesler_examples(winner: np.ndarray, loser: np.ndarray, owner: np.ndarray, n_labels: int) -> tuple:
    """Kesler's binary examples of preferences i (winner_i ≻ loser_i at sample owner_i), each twice as
    the seed does: d_i = e_winner − e_loser with sign +1 and −d_i with sign −1.  Returns the label parts
    (2m, L), the signs (2m,) and the samples (2m,).  The mirror pairs make the SVM's optimum symmetric,
    so its bias is 0 and f_a − f_b alone decides each preference."""
    m = winner.size
    differences = np.zeros((m, n_labels))
    differences[np.arange(m), winner] = 1.0
    differences[np.arange(m), loser] = -1.0
    return np.vstack([differences, -differences]), np.repeat([1.0, -1.0], m), np.concatenate([owner, owner])


class ConstraintClassificationSVM(LabelsScored, ClassifierMixin, BaseEstimator):
    """CC-SVM for label preferences (see the module docstring).

    graph : 'multiclass' (y: a label per row; the true label over every other, seed 002 Fig. 1(a)) or
    'ranking' (y: (n, L) each row the labels 0..L−1 from most to least preferred; a chain of L − 1
    preferences).  kernel : 'rbf' (k = exp(−gamma |x − x'|²), gamma = κ/2) or 'linear'.
    """

    def __init__(self, *, C=1.0, kernel="rbf", gamma=1.0, graph="multiclass"):
        self.C = C
        self.kernel = kernel
        self.gamma = gamma
        self.graph = graph

    def _k(self, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
        return linear_kernel(X, Y) if self.kernel == "linear" else rbf_kernel(X, Y, gamma=self.gamma)

    def fit(self, X, y, k=None):
        """Fit on X (n, d) and y as ``graph`` says; k : optional k(X, X) (n, n), to reuse across C."""
        X = np.asarray(X, dtype=float)
        if self.graph == "multiclass":
            self.classes_, label_index = np.unique(y, return_inverse=True)
            winner, loser, owner = label_preference_graph(label_index, self.classes_.size, "multiclass")
        else:
            self.classes_ = np.arange(np.shape(y)[1])
            winner, loser, owner = ranking_preference_graph(np.asarray(y))
        differences, sign, owner = kesler_examples(winner, loser, owner, self.classes_.size)
        k = self._k(X, X) if k is None else k
        svc = SVC(C=self.C, kernel="precomputed", tol=SVC_TOLERANCE)
        svc.fit(joint_kernel(k[np.ix_(owner, owner)], differences, differences), sign)
        # β_tc = Σ over sample t's support vectors i of α_i y_i d_ic (dual_coef_ holds α_i y_i).
        support = svc.support_
        self.beta_ = np.zeros((X.shape[0], self.classes_.size))
        np.add.at(self.beta_, owner[support], svc.dual_coef_[0][:, None] * differences[support])
        self.intercept_, self.X_fit_ = float(svc.intercept_[0]), X
        return self

    def decision_function(self, X, k=None) -> np.ndarray:
        """f_c(x) = Σ_t k(x, x_t) β_tc for every label c, shape (n, L); k : optional k(X, X_fit) (n, n_fit)."""
        check_is_fitted(self)
        return (self._k(np.asarray(X, dtype=float), self.X_fit_) if k is None else k) @ self.beta_

    def predict(self, X, k=None) -> np.ndarray:
        return self.classes_[np.argmax(self.decision_function(X, k), axis=1)]


def pairwise_coupling_svm(C: float, gamma: float) -> SVC:
    """One-vs-one RBF SVMs (k = exp(−gamma |x − x'|²)), predicting by votes."""
    return SVC(C=C, kernel="rbf", gamma=gamma, tol=SVC_TOLERANCE)


def pairwise_coupling_probabilities(X, y, X_test, C: float, gamma: float, seed: int) -> np.ndarray:
    """Class probabilities (n_test, L) of one-vs-one RBF SVMs joined by pairwise coupling (Wu, Lin & Weng's
    second method, libsvm's).  scikit-learn 1.9 deprecates SVC's ``probability`` (removal in 1.11) for
    CalibratedClassifierCV, which calibrates one class against the rest and is not pairwise coupling:
    the deprecation warning is silenced here."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        svm = SVC(C=C, kernel="rbf", gamma=gamma, tol=SVC_TOLERANCE, probability=True, random_state=seed)
        return svm.fit(X, y).predict_proba(X_test)


# --------------------------------------------------------------------------------------------- errors
def label_error(y: np.ndarray, predicted: np.ndarray) -> float:
    """Share of rows whose predicted label is wrong."""
    return float(np.mean(np.asarray(y) != np.asarray(predicted)))


def preference_error(scores: np.ndarray, label_index: np.ndarray) -> float:
    """Share of the test preferences 'true label ≻ b' (every b ≠ true label, Fig. 1(a)) that the label
    scores (n, L) get wrong or tie; label_index : (n,) position of each row's true label."""
    true = scores[np.arange(len(scores)), label_index][:, None]
    wrong = (scores >= true).sum(axis=1) - 1  # every other label scoring at least the true one
    return float(wrong.sum() / (len(scores) * (scores.shape[1] - 1)))


def ranking_errors(scores: np.ndarray, utilities: np.ndarray) -> tuple[float, float]:
    """Against true utilities (n, L): the share of label pairs the scores (n, L) order otherwise (ties
    count as wrong), and the mean Spearman correlation 1 − 6 Σ (r − r̂)² / (L (L² − 1)) of the ranks."""
    first, second = np.triu_indices(scores.shape[1], k=1)
    true = np.sign(utilities[:, first] - utilities[:, second])
    wrong = np.sign(scores[:, first] - scores[:, second]) != true
    rank = np.argsort(np.argsort(-utilities, axis=1), axis=1)
    predicted_rank = np.argsort(np.argsort(-scores, axis=1, kind="stable"), axis=1)
    L = scores.shape[1]
    spearman = 1.0 - 6.0 * ((rank - predicted_rank) ** 2).sum(axis=1) / (L * (L * L - 1))
    return float(wrong.mean()), float(spearman.mean())


# ---------------------------------------------------------------------------------------- grid search
def coarse_to_fine(error, centre, coarse: int = COARSE_POINTS, fine: int = FINE_POINTS) -> tuple[tuple, dict]:
    """The point (log₁₀ parameters) of least ``error(point)`` on a coarse grid around ``centre`` (coarse
    points per axis, ``COARSE_STEP`` apart), then on a fine grid (``FINE_STEP``) around the coarse best;
    the first of equal errors wins.  Returns (best point, {point: error} of every point tried)."""
    tried: dict = {}

    def search(middle, points, step):
        offsets = (np.arange(points) - (points - 1) / 2) * step
        for point in itertools.product(*[np.round(m + offsets, 6) for m in middle]):
            if point not in tried:
                tried[point] = error(point)
        grid = [p for p in tried if all(abs(p[i] - middle[i]) <= step * (points - 1) / 2 + 1e-9 for i in range(len(p)))]
        return min(grid, key=lambda p: tried[p])

    best = search(tuple(centre), coarse, COARSE_STEP)
    best = search(best, fine, FINE_STEP)
    return best, tried


def folds(n: int, seed: int, labels=None) -> list:
    """``FOLDS`` (train, validation) index pairs over n rows, stratified by ``labels`` (n,) if given."""
    if labels is None:
        return list(KFold(FOLDS, shuffle=True, random_state=seed).split(np.zeros(n)))
    return list(StratifiedKFold(FOLDS, shuffle=True, random_state=seed).split(np.zeros(n), labels))
