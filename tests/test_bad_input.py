"""Bad input to the estimator raises a ValueError (or TypeError) that names the problem."""

import numpy as np
import pytest

from ordercore import OrderPreferenceRegressor, PreferenceSet


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(10, 2))
    y = np.full(10, np.nan)
    y[:4] = [1.0, 2.0, 0.5, 3.0]
    return X, y


def test_nan_or_inf_in_X(data):
    X, y = data
    for bad in (np.nan, np.inf):
        X_bad = X.copy()
        X_bad[3, 1] = bad
        with pytest.raises(ValueError, match="(NaN|infinity)"):
            OrderPreferenceRegressor().fit(X_bad, y)


def test_inf_in_y(data):
    X, y = data
    y[1] = np.inf
    with pytest.raises(ValueError, match="inf"):
        OrderPreferenceRegressor().fit(X, y)


def test_no_labeled_row(data):
    X, _ = data
    with pytest.raises(ValueError, match="no labeled row"):
        OrderPreferenceRegressor().fit(X, np.full(10, np.nan))


def test_preference_index_out_of_range(data):
    X, y = data
    with pytest.raises(ValueError, match="out of range"):
        OrderPreferenceRegressor().fit(X, y, PreferenceSet([0], [10]))
    model = OrderPreferenceRegressor().fit(X, y, PreferenceSet([0], [5]))
    with pytest.raises(ValueError, match="out of range"):
        model.add_preferences(PreferenceSet([11], [5]))
    assert len(model.preferences_) == 1  # nothing changed
    with pytest.raises(ValueError, match="no preference at positions"):
        model.remove_preferences([3])
    assert len(model.preferences_) == 1


def test_negative_weight():
    with pytest.raises(ValueError, match="weight"):
        PreferenceSet([0], [1], 0.0, -0.5)


def test_shape_mismatch(data):
    X, y = data
    with pytest.raises(ValueError, match="rows"):
        OrderPreferenceRegressor().fit(X, y[:7])
    model = OrderPreferenceRegressor().fit(X, y)
    with pytest.raises(ValueError, match="features"):
        model.predict(np.zeros((3, 5)))


def test_unknown_kernel_and_bad_parameters(data):
    X, y = data
    with pytest.raises(ValueError, match="kernel"):
        OrderPreferenceRegressor(kernel="sigmoid").fit(X, y)
    with pytest.raises(ValueError, match="lambda1"):
        OrderPreferenceRegressor(lambda1=-1.0).fit(X, y)
    with pytest.raises(ValueError, match="centers"):
        OrderPreferenceRegressor(centers="some").fit(X, y)


def test_preferences_of_the_wrong_type(data):
    X, y = data
    with pytest.raises(TypeError, match="PreferenceSet"):
        OrderPreferenceRegressor().fit(X, y, [(0, 1)])


def test_a_failed_solve_leaves_the_last_fit_in_place(data, monkeypatch):
    from ordercore import SolverError
    from ordercore.lp import highs

    X, y = data
    model = OrderPreferenceRegressor(gamma=0.5).fit(X, y, PreferenceSet([4], [5]))
    before = model.objective_, model.predict(X), model.preferences_

    def failing(self, iteration_limit=None, time_limit=None):
        raise SolverError("HiGHS did not reach the optimum (status: Unknown)")

    monkeypatch.setattr(highs.HighsDualLP, "solve", failing)
    with pytest.raises(SolverError):
        model.fit(X, y, PreferenceSet([6], [7]))
    with pytest.raises(SolverError):
        model.add_preferences(PreferenceSet([8], [9]))
    monkeypatch.undo()
    assert model.objective_ == before[0] and model.preferences_ == before[2]
    np.testing.assert_array_equal(model.predict(X), before[1])
    model.add_preferences(PreferenceSet([8], [9]))  # and the model still works
    assert model.preferences_ == PreferenceSet([4, 8], [5, 9])
