"""The fourteenth corpus's estimator cases (issue 32, "nothing silently wrong"): y of dates, durations or
complex numbers, which numpy cast to nanoseconds or to their real part, fitted and scored without a word
(R1: DT10, DT26, DT27, DT28, DT29)."""

from __future__ import annotations

import datetime

import numpy as np
import pandas as pd
import pytest

from ordercore import (
    NPSVOR,
    GPLabelPreferenceModel,
    GPPreferenceModel,
    MPMRegressor,
    OrderPreferenceRegressor,
    TwoNormOrderPreferenceRegressor,
)
from ordercore.experiments.cc_svm import ConstraintClassificationSVM
from ordercore.lp.average import AveragedOrderPreferenceRegressor

RNG = np.random.default_rng(0)
X = RNG.uniform(0, 1, (12, 2))
NUMBERS = X[:, 0] * 3 + X[:, 1]
RANKS = np.array([1, 2, 3] * 4)

# every estimator that takes y (labels, or scores y for the preference models), and a y it fits
ESTIMATORS = {
    "LP": (lambda: OrderPreferenceRegressor(), NUMBERS),
    "QP": (lambda: TwoNormOrderPreferenceRegressor(), NUMBERS),
    "averaged LP": (lambda: AveragedOrderPreferenceRegressor(), NUMBERS),
    "MPMR": (lambda: MPMRegressor(rho=1.0, epsilon=2.0), NUMBERS),
    "NPSVOR": (lambda: NPSVOR(), RANKS),
    "GP labels": (lambda: GPLabelPreferenceModel(n_restarts=0), RANKS),
    "GP preferences": (lambda: GPPreferenceModel(n_restarts=0), NUMBERS),
    "CC-SVM": (lambda: ConstraintClassificationSVM(), NUMBERS),
}
DATES = pd.date_range("2020", periods=12)
NOT_REAL = {  # y, the words of its kind, what the message quotes of it
    "datetime64": (DATES.values, "dates or times", r"\(datetime64\["),
    "timedelta64": (pd.to_timedelta(np.arange(12), unit="D").values, "durations", r"\(timedelta64\["),
    "complex": (NUMBERS + 1j, "complex numbers", r"\(complex128\)"),
    "complex, imaginary part 0": (NUMBERS.astype(complex), "complex numbers", r"\(complex128\)"),
    "datetime Series": (pd.Series(DATES), "dates or times", r"\(datetime64\["),
    "dates with a time zone": (pd.Series(DATES.tz_localize("UTC")), "dates or times", r"row 0 holds Timestamp"),
    "periods": (pd.Series(pd.period_range("2020", periods=12, freq="D")), "dates or times", r"row 0 holds Period"),
    "datetime.date list": ([datetime.date(2020, 1, k) for k in range(1, 13)], "dates or times", r"row 0 holds"),
    "timedelta in an object array": (
        np.array([1.0] * 5 + [datetime.timedelta(days=1)] * 7, dtype=object),
        "durations",
        r"row 5 holds",
    ),
}


def _fitted(name):
    make, y = ESTIMATORS[name]
    return make().fit(X, y)


@pytest.mark.parametrize("kind", NOT_REAL)
@pytest.mark.parametrize("name", ESTIMATORS)
def test_fit_refuses_y_of_dates_durations_or_complex_numbers_naming_y_and_its_kind(name, kind):
    """DT10, DT27, DT29: the LP regressed on nanoseconds (1.6e15 predicted); DT26: the imaginary part dropped
    with numpy's ComplexWarning only; DT28: MPMR's UFuncTypeError.  A refused fit keeps the last one."""
    y, words, quoted = NOT_REAL[kind]
    model = _fitted(name)
    before = model.predict(X[:3])
    with pytest.raises(ValueError, match=rf"y must hold real numbers, got {words}.*{quoted}"):
        model.fit(X, y)
    np.testing.assert_array_equal(model.predict(X[:3]), before)


@pytest.mark.parametrize("kind", NOT_REAL)
@pytest.mark.parametrize("name", [name for name in ESTIMATORS if name != "CC-SVM"])  # CC-SVM has no score
def test_score_refuses_y_of_dates_durations_or_complex_numbers(name, kind):
    y, words, _ = NOT_REAL[kind]
    with pytest.raises(ValueError, match=rf"y must hold real numbers, got {words}"):
        _fitted(name).score(X, y)


def test_the_scores_of_preference_models_are_named_scores_y():
    with pytest.raises(ValueError, match=r"^scores y must hold real numbers, got dates or times"):
        GPPreferenceModel(n_restarts=0).fit(X, DATES.values)


def test_real_labels_in_an_object_array_still_fit():
    """The check looks at values: numbers in an object array (and NaN marking the LP's unlabeled rows) are
    fitted as the same numbers as float64."""
    y = NUMBERS.astype(object)
    y[3] = np.nan
    numbers = NUMBERS.copy()
    numbers[3] = np.nan
    expected = OrderPreferenceRegressor().fit(X, numbers).predict(X)
    np.testing.assert_allclose(OrderPreferenceRegressor().fit(X, y).predict(X), expected)
