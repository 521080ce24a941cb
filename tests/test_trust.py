"""Automatic trust (ordercore/trust.py) against hand computations and brute-force cross-validation:
cold fits on the same folds, written out independently of the warm-started path."""

import numpy as np
import pytest
from sklearn.model_selection import KFold

from ordercore import OrderPreferenceRegressor, PreferenceSet
from ordercore.trust import FOLDS, REPEATS, LabelCV, label_cv, source_effects, source_weights, weighted
from tests.test_lp import random_problem


def test_source_weights_by_hand():
    # (7 + 1) / (10 + 2) = 2/3 -> ln 2; (3 + 1) / 12 = 1/3 -> below a coin -> 0; unmeasured -> 1
    np.testing.assert_allclose(source_weights([(7, 10), (3, 10), None, (0, 0)]), [np.log(2.0), 0.0, 1.0, 1.0])


def test_weighted_multiplies_each_preference_by_its_source_weight():
    preferences = PreferenceSet([0, 1, 2], [1, 2, 3], w=[1.0, 2.0, 3.0])
    result = weighted(preferences, np.array([1, 0, 1]), np.array([0.5, 2.0]))
    assert result.weight.tolist() == [2.0, 1.0, 6.0]
    assert result.i.tolist() == [0, 1, 2] and result.j.tolist() == [1, 2, 3]


def test_the_one_standard_error_rule_by_hand():
    # lambda2 = 1 beats SVR on every fold by 1 +- 0.1 and has the least mean error: chosen
    errors = np.array([[5.0, 5.0, 5.0, 5.0], [4.0, 3.9, 4.1, 4.0], [6.0, 7.0, 3.0, 5.0]])
    cv = LabelCV((0.0, 1.0, 3.0), errors)
    gain, se = cv.gain_over_svr()
    assert gain[1] == pytest.approx(1.0) and se[1] == pytest.approx(np.std([1.0, 1.1, 0.9, 1.0], ddof=1) / 2)
    assert cv.chosen() == 1.0
    # lower mean error (3.0 against 5.0) but noisy: the differences 5, -4, 4, 3 have mean 2 and
    # standard deviation sqrt(50 / 3), so a standard error of 2.04 > 2 -> SVR
    noisy = LabelCV((0.0, 3.0), np.array([[5.0, 5.0, 5.0, 5.0], [0.0, 9.0, 1.0, 2.0]]))
    gain, se = noisy.gain_over_svr()
    assert gain[1] == pytest.approx(2.0) and se[1] > 2.0
    assert noisy.chosen() == 0.0


def brute_force_errors(X, y, preferences, seed, grid, **options):
    """The same folds as label_cv (the same random draws), written out: per fold, the labels hidden
    and the lambda2 grid walked with a warm-started model, as label_cv does (an LP's optimum need
    not be unique, so a cold fit may land on another optimal vertex with other predictions; the
    solver's own optimality is tested in tests/test_lp.py)."""
    rng = np.random.default_rng(seed)
    labeled = np.flatnonzero(~np.isnan(y))
    columns = []
    for _ in range(REPEATS):
        folds = KFold(FOLDS, shuffle=True, random_state=int(rng.integers(2**31))).split(labeled)
        for _, held_out in folds:
            hidden = labeled[held_out]
            y_fold = y.copy()
            y_fold[hidden] = np.nan
            column, model = [], OrderPreferenceRegressor(warm_start=True, **options)
            for lambda2 in grid:
                model.set_params(lambda2=lambda2).fit(X, y_fold, preferences)
                column.append(np.mean(np.abs(y[hidden] - model.predict(X[hidden]))))
            columns.append(column)
    return np.array(columns).T


def test_label_cv_against_cold_fits_on_the_same_folds():
    X, y, _, preferences = random_problem(3, n=40, n_labeled=15, n_preferences=40)
    options = {"gamma": 0.4, "lambda1": 0.01}
    cv = label_cv(X, y, preferences, np.random.default_rng(9), grid=(0.0, 0.5, 3.0), **options)
    expected = brute_force_errors(X, y, preferences, 9, (0.0, 0.5, 3.0), **options)
    assert cv.errors.shape == (3, FOLDS * REPEATS)
    np.testing.assert_allclose(cv.errors, expected, rtol=1e-6, atol=1e-9)


def test_the_grid_must_start_at_svr():
    X, y, _, preferences = random_problem(3, n=40, n_labeled=15, n_preferences=10)
    with pytest.raises(ValueError, match="start with 0"):
        label_cv(X, y, preferences, np.random.default_rng(0), grid=(0.5, 1.0))


def test_source_effects_against_leaving_each_source_out_by_hand():
    X, y, _, preferences = random_problem(4, n=40, n_labeled=15, n_preferences=30)
    source = np.repeat([0, 1, 2], 10)
    options = {"gamma": 0.4, "lambda1": 0.01}
    effects = source_effects(X, y, preferences, source, 2.0, seed=5, **options)
    everything = brute_force_errors(X, y, preferences, 5, (2.0,), **options).mean()
    for s in range(3):
        without = brute_force_errors(X, y, preferences[source != s], 5, (2.0,), **options).mean()
        assert effects[s] == pytest.approx(without - everything, rel=1e-6, abs=1e-9)
