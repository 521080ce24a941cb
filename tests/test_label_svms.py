"""The label-preference SVMs of seed 002 §4.2–4.3 (ordercore/experiments/label_svms.py) against
independent checks: Kesler's construction written out as explicit features, a separable ranking, the
error measures on hand-worked cases, the grid search on a known minimum."""

import numpy as np
import pytest
from sklearn.svm import SVC

from ordercore.experiments.label_svms import (
    FINE_STEP,
    ConstraintClassificationSVM,
    coarse_to_fine,
    preference_error,
    ranking_errors,
)
from ordercore.gp.labels import ranking_preference_graph


def rankings_of(utilities: np.ndarray) -> np.ndarray:
    return np.argsort(-utilities, axis=1, kind="stable")


def test_kernel_expansion_equals_an_svm_on_keslers_explicit_features():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3))
    y = rng.integers(3, size=30)
    model = ConstraintClassificationSVM(C=0.7, kernel="linear").fit(X, y)
    # Explicit features φ(x) ⊗ (e_y − e_b) of every preference, and each one's mirror with sign −1.
    features = []
    for b in range(3):
        for t in np.flatnonzero(y != b):
            part = np.zeros(3)
            part[y[t]], part[b] = 1.0, -1.0
            features.append(np.kron(part, X[t]))
    features = np.vstack([features, -np.array(features)])
    signs = np.repeat([1.0, -1.0], len(features) // 2)
    svc = SVC(C=0.7, kernel="linear", tol=1e-3).fit(features, signs)
    weights = svc.coef_[0].reshape(3, 3)  # w_c for each label c
    X_test = rng.normal(size=(10, 3))
    assert np.allclose(model.decision_function(X_test), X_test @ weights.T, atol=1e-8)
    assert model.intercept_ == pytest.approx(svc.intercept_[0], abs=1e-8) and abs(model.intercept_) < 1e-3


def test_separable_label_rankings_are_learnt():
    rng = np.random.default_rng(1)
    utility = rng.uniform(size=(4, 3))  # labels' utilities are linear in x (seed 002 §4.3)
    X, X_test = rng.dirichlet(np.ones(3), size=60), rng.dirichlet(np.ones(3), size=200)
    model = ConstraintClassificationSVM(C=1e6, kernel="linear", graph="ranking")
    model.fit(X, rankings_of(X @ utility.T))
    # Separable (utilities linear, no offset) and a hard margin: every training ranking reproduced.
    assert ranking_errors(model.decision_function(X), X @ utility.T) == (0.0, 1.0)
    error, spearman = ranking_errors(model.decision_function(X_test), X_test @ utility.T)
    assert error < 0.05 and spearman > 0.95


def test_error_measures_on_hand_worked_cases():
    scores = np.array([[3.0, 1.0, 2.0], [0.0, 5.0, 5.0]])
    # Row 0, true label 0: both preferences right; row 1, true label 2: 2 ≻ 0 right, 2 ≻ 1 tied (wrong).
    assert preference_error(scores, np.array([0, 2])) == pytest.approx(1 / 4)
    utilities = np.array([[3.0, 2.0, 1.0]])
    # Scores rank 0, 2, 1: the pair (1, 2) is reversed; ranks differ by 1 twice: 1 − 6·2/(3·8) = 0.5.
    error, spearman = ranking_errors(np.array([[3.0, 1.0, 2.0]]), utilities)
    assert error == pytest.approx(1 / 3) and spearman == pytest.approx(0.5)


def test_ranking_graph_is_a_chain_along_each_ranking():
    winner, loser, owner = ranking_preference_graph(np.array([[2, 0, 1], [1, 2, 0]]))
    edges = sorted(zip(owner.tolist(), winner.tolist(), loser.tolist(), strict=True))
    assert edges == [(0, 0, 1), (0, 2, 0), (1, 1, 2), (1, 2, 0)]
    with pytest.raises(ValueError, match="once each"):
        ranking_preference_graph(np.array([[0, 0, 1]]))


def test_coarse_then_fine_search_finds_a_known_minimum():
    tried = []

    def error(point):
        tried.append(point)
        return (point[0] - 1.3) ** 2 + (point[1] + 0.55) ** 2

    best, table = coarse_to_fine(error, (0.0, 0.0))
    assert best == pytest.approx((1.4, -0.6)) or best == pytest.approx((1.2, -0.6))
    assert abs(best[0] - 1.3) <= FINE_STEP / 2 + 1e-9 and len(tried) == len(table) == len(set(tried))
    assert len(table) == 49 + 81 - 1  # the fine grid's centre is a coarse point
