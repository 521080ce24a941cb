"""scikit-learn's estimator checks on every ordercore estimator, expected failures listed with why.

GPPreferenceModel.fit(X, preferences) also takes scores y (every pair of rows with different
scores), which is how the checks' fit(X, y) calls reach it."""

from sklearn.utils.estimator_checks import parametrize_with_checks

from ordercore import GPLabelPreferenceModel, GPPreferenceModel, OrderPreferenceRegressor

# predict_proba(Xa, Xb) is P(a ≻ b) for pairs of rows (issue 4's API), where scikit-learn calls
# predict_proba(X); these checks fail on that call alone.  tests/test_gp.py covers what they
# would (pickling, idempotent fits, unfitted errors, feature-count checks) for GPPreferenceModel.
PAIRWISE_PREDICT_PROBA = "predict_proba takes a pair of inputs (Xa, Xb): P(a over b)"
EXPECTED_FAILURES = {
    "GPPreferenceModel": {
        "check_fit_score_takes_y": "fit's second argument is named `preferences` (the issue's API); it also accepts y",
        **{
            name: PAIRWISE_PREDICT_PROBA
            for name in (
                "check_estimators_unfitted",
                "check_n_features_in_after_fitting",
                "check_estimators_dtypes",
                "check_estimators_pickle",
                "check_methods_sample_order_invariance",
                "check_methods_subset_invariance",
                "check_dict_unchanged",
                "check_fit_idempotent",
                "check_fit2d_predict1d",
            )
        },
    }
}


@parametrize_with_checks(
    [
        OrderPreferenceRegressor(),
        OrderPreferenceRegressor(kernel="poly", centers="all"),
        GPPreferenceModel(n_restarts=0, random_state=0),
        GPLabelPreferenceModel(random_state=0),
    ],
    expected_failed_checks=lambda estimator: EXPECTED_FAILURES.get(type(estimator).__name__, {}),
)
def test_sklearn_compatible(estimator, check):
    check(estimator)
