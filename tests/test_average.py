"""AveragedOrderPreferenceRegressor (ordercore/lp/average.py) against its members fitted one by one,
cold, as plain OrderPreferenceRegressors, and against hand-counted violations."""

import numpy as np
import pytest

from ordercore import OrderPreferenceRegressor, PreferenceSet
from ordercore.lp import AveragedOrderPreferenceRegressor
from tests.test_lp import random_problem

SETTINGS = ((0.03, 0.0), (0.01, 0.5), (0.01, 3.0))


def cold(X, y, preferences, lambda1, lambda2):
    """One member on its own: SVR (lambda2 = 0) sees no preferences."""
    model = OrderPreferenceRegressor(lambda1=lambda1, lambda2=lambda2, gamma=0.4)
    return model.fit(X, y, preferences if lambda2 > 0 else None)


def test_the_average_is_the_weighted_sum_of_its_members_fitted_alone():
    X, y, _, preferences = random_problem(3, n=40, n_labeled=10, n_preferences=40)
    weights = (0.2, 0.5, 0.3)
    model = AveragedOrderPreferenceRegressor(settings=SETTINGS, weights=weights, gamma=0.4).fit(X, y, preferences)
    expected = sum(w * cold(X, y, preferences, *s).predict(X) for w, s in zip(weights, SETTINGS, strict=True))
    np.testing.assert_allclose(model.predict(X), expected, atol=1e-8)
    # SVR's member took no preferences: it is the plain SVR
    np.testing.assert_allclose(model.members_[0].predict(X), cold(X, y, None, 0.03, 0.0).predict(X), atol=1e-8)


def test_a_member_of_weight_0_is_not_fitted():
    X, y, _, preferences = random_problem(4, n=30, n_labeled=8, n_preferences=20)
    model = AveragedOrderPreferenceRegressor(settings=SETTINGS, weights=(1.0, 0.0, 0.0), gamma=0.4)
    model.fit(X, y, preferences)
    assert [(m.lambda1, m.lambda2) for m in model.members_] == [SETTINGS[0]]
    np.testing.assert_allclose(model.predict(X), cold(X, y, None, 0.03, 0.0).predict(X), atol=1e-8)


def test_added_preferences_re_solve_to_the_cold_fit_of_them_all():
    X, y, _, preferences = random_problem(5, n=40, n_labeled=10, n_preferences=40)
    weights = (0.4, 0.3, 0.3)
    model = AveragedOrderPreferenceRegressor(settings=SETTINGS, weights=weights, gamma=0.4)
    model.fit(X, y, preferences[:30]).update_preferences(preferences)
    assert model.preferences_ == preferences and model.solve_start_ != "cold"
    fresh = AveragedOrderPreferenceRegressor(settings=SETTINGS, weights=weights, gamma=0.4).fit(X, y, preferences)
    np.testing.assert_allclose(model.predict(X), fresh.predict(X), atol=1e-6)


def test_violations_by_hand_from_the_averaged_predictions():
    X, y, _, preferences = random_problem(6, n=40, n_labeled=10, n_preferences=40)
    model = AveragedOrderPreferenceRegressor(settings=SETTINGS, weights=(0.5, 0.25, 0.25), gamma=0.4)
    model.fit(X, y, preferences)
    f = model.predict(X)
    shortfall = preferences.margin - (f[preferences.i] - f[preferences.j])
    tolerance = 1e-6 * np.nanstd(y[~np.isnan(y)])  # far below every shortfall that is not ~0
    clear = np.abs(shortfall) > 1e-4
    assert np.array_equal(model.violated_[clear], (shortfall > tolerance)[clear]) and clear.sum() > 30
    assert model.n_violated_ == int(model.violated_.sum())
    other = PreferenceSet([0, 1], [1, 0])
    assert model.violated(other).tolist() == [f[0] - f[1] < -1e-9, f[1] - f[0] < -1e-9]


@pytest.mark.parametrize(
    ("settings", "weights", "message"),
    [
        (SETTINGS, (0.5, 0.5), "one weight per"),
        (SETTINGS, (0.5, 0.5, 0.5), "sum to 1"),
        (SETTINGS, (1.5, -0.5, 0.0), ">= 0 and sum to 1"),
        (((0.01, -1.0),), (1.0,), "finite and >= 0"),
        ((), (), "one weight per"),
    ],
)
def test_bad_mixtures_are_refused_before_any_fit(settings, weights, message):
    X, y, _, preferences = random_problem(7, n=20, n_labeled=5, n_preferences=10)
    model = AveragedOrderPreferenceRegressor(settings=settings, weights=weights)
    with pytest.raises(ValueError, match=message):
        model.fit(X, y, preferences)
    assert not hasattr(model, "members_")


def test_an_average_is_not_written_to_a_model_file(tmp_path):
    X, y, _, preferences = random_problem(8, n=20, n_labeled=5, n_preferences=10)
    model = AveragedOrderPreferenceRegressor(settings=SETTINGS, weights=(0.5, 0.25, 0.25)).fit(X, y, preferences)
    with pytest.raises(NotImplementedError, match="save one member"):
        model.save(tmp_path / "m.npz")
    assert not (tmp_path / "m.npz").exists()


def test_the_time_limit_is_shared_by_the_members():
    X, y, _, preferences = random_problem(9, n=20, n_labeled=5, n_preferences=10)
    weights = (0.5, 0.5, 0.0)
    model = AveragedOrderPreferenceRegressor(settings=SETTINGS, weights=weights, time_limit=30.0)
    model.fit(X, y, preferences)
    assert [member.time_limit for member in model.members_] == [15.0, 15.0]
