"""scikit-learn's estimator checks on OrderPreferenceRegressor (none is expected to fail)."""

from sklearn.utils.estimator_checks import parametrize_with_checks

from ordercore import OrderPreferenceRegressor


@parametrize_with_checks([OrderPreferenceRegressor(), OrderPreferenceRegressor(kernel="poly", centers="all")])
def test_sklearn_compatible(estimator, check):
    check(estimator)
