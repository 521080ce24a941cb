"""The fourteenth corpus's estimator cases (issue 32, "nothing silently wrong"): y of dates, durations or
complex numbers, which numpy cast to nanoseconds or to their real part, fitted and scored without a word
(R1: DT10, DT26, DT27, DT28, DT29); suggest_pairs asking one question twice in a batch, for a candidate
given twice or both ways round (R17: SH27, SH28, SH29); a switch read by truthiness, return_std='yes'
(R15: GP20); a row count that is no count (R3: SH24); parameters that reach numpy or joblib unchecked
(R4: PA20, NPSVOR's n_jobs=0; the GP's length_scale_prior, the averaged LP's settings and weights: text, True)."""

from __future__ import annotations

import datetime

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.utils._param_validation import InvalidParameterError

from ordercore import (
    NPSVOR,
    GPLabelPreferenceModel,
    GPPreferenceModel,
    MPMRegressor,
    OrderPreferenceRegressor,
    TwoNormOrderPreferenceRegressor,
    solve_order_preference_lp,
)
from ordercore.experiments.cc_svm import ConstraintClassificationSVM
from ordercore.lp.average import AveragedOrderPreferenceRegressor
from ordercore.pair_scores import RecentRows, rank_unsettled
from ordercore.preferences import PreferenceSet

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


@pytest.mark.parametrize("kind", ["datetime64", "timedelta64", "complex", "dates with a time zone"])
def test_the_cold_lp_solve_refuses_y_and_x_that_are_no_real_numbers(kind):
    """solve_order_preference_lp, the LP from arrays, read dates as nanoseconds too."""
    y, words, _ = NOT_REAL[kind]
    arguments = {"labeled": np.arange(12), "preferences": PreferenceSet.empty(), "kernel": rbf_kernel}
    with pytest.raises(ValueError, match=rf"^y must hold real numbers, got {words}"):
        solve_order_preference_lp(X, y=y, **arguments, lambda1=0.1, lambda2=1.0)
    with pytest.raises(ValueError, match=rf"^X must hold real numbers, got {words}"):
        solve_order_preference_lp(np.column_stack([y, y]), y=NUMBERS, **arguments, lambda1=0.1, lambda2=1.0)


@pytest.mark.parametrize("kind", ["datetime64", "timedelta64", "dates with a time zone", "datetime.date list"])
@pytest.mark.parametrize("name", ESTIMATORS)
def test_fit_and_predict_refuse_an_array_x_of_dates_or_durations(name, kind):
    """A numpy X of dates (not a DataFrame, whose columns were named already) was fitted as nanoseconds."""
    column, words, _ = NOT_REAL[kind]
    dates = np.column_stack([np.asarray(column), np.asarray(column)])
    make, y = ESTIMATORS[name]
    with pytest.raises(ValueError, match=rf"^X must hold real numbers, got {words}"):
        make().fit(dates, y)
    with pytest.raises(ValueError, match=rf"^X must hold real numbers, got {words}"):
        _fitted(name).predict(dates)


@pytest.mark.parametrize("name", ESTIMATORS)
def test_every_estimator_names_rows_of_different_lengths(name):
    """GP labels and CC-SVM said numpy's 'inhomogeneous shape' of a list X whose rows differ in length."""
    make, y = ESTIMATORS[name]
    with pytest.raises(ValueError, match=r"^X's rows have different lengths: row 0 has 2 values, row 3 has 1 value$"):
        make().fit([[0.0, 1.0], [1.0, 0.0], [0.5, 0.5], [2.0]] + X[4:].tolist(), y)


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


# ------------------------------------------------------------------------ R17: one question asked twice
CANDIDATES = [(20, 21), (20, 21), (21, 20), (22, 23), (23, 22), (24, 25)]
QUESTIONS = {frozenset(pair) for pair in CANDIDATES}  # by hand: {20, 21}, {22, 23}, {24, 25}
X30 = RNG.uniform(0, 1, (30, 2))
PAIRS10 = PreferenceSet(list(range(0, 20, 2)), list(range(1, 20, 2)))


SUGGESTING = [  # fitted models with suggest_pairs
    lambda: GPPreferenceModel(random_state=0, n_restarts=0).fit(X30, PAIRS10),
    lambda: OrderPreferenceRegressor().fit(X30, np.r_[X30[:10, 0], [np.nan] * 20], PAIRS10),
    lambda: TwoNormOrderPreferenceRegressor().fit(X30, np.r_[X30[:10, 0], [np.nan] * 20], PAIRS10),
]


@pytest.mark.parametrize("make", SUGGESTING, ids=["GP (SH27, SH28)", "LP (SH29)", "QP"])
@pytest.mark.parametrize("k", [2, 3, 6])
def test_suggest_pairs_asks_each_question_once_in_a_batch(make, k):
    """SH27-SH29: [[20, 21], [20, 21]] and [[20, 21], [21, 20]] were suggested; the batch holds min(k, 3)
    different questions, each once, and the best score of each."""
    chosen, scores = make().suggest_pairs(CANDIDATES, k=k, return_scores=True)
    asked = [frozenset(pair) for pair in chosen.tolist()]
    assert len(asked) == len(set(asked)) == min(k, len(QUESTIONS))
    assert set(asked) <= QUESTIONS
    assert list(scores) == sorted(scores, reverse=True)


def test_rank_unsettled_keeps_the_better_way_round_of_a_repeated_pair():
    """Hand-made scores: (1, 0) scores 5 and (0, 1) 3, so (1, 0) is asked, then (2, 3), never (0, 1)."""
    pairs = np.array([[0, 1], [1, 0], [2, 3], [0, 1]])
    chosen, scores = rank_unsettled(np.array([3.0, 5.0, 1.0, 4.0]), pairs, 4, PreferenceSet.empty())
    assert chosen.tolist() == [[1, 0], [2, 3]] and scores.tolist() == [5.0, 1.0]


@pytest.mark.parametrize("recent", [None, RecentRows(np.array([[7, 8]]), window=1)])
def test_the_studio_choice_by_kinds_and_recent_rows_asks_each_question_once(recent):
    """The Studio's choice (kinds and slots, recent rows): slot 0 takes (1, 0), slot 1 (kind 1) would take
    its repeat (0, 1) but it is asked: it takes the next of kind 1, (4, 5); slot 0 then (2, 3); the last slot
    finds only the repeat left: three questions, not four."""
    pairs = np.array([[0, 1], [1, 0], [2, 3], [4, 5]])
    kinds = np.array([1, 0, 0, 1])
    chosen, _ = rank_unsettled(
        np.array([9.0, 5.0, 1.0, 0.5]), pairs, 4, PreferenceSet.empty(), recent=recent, kinds=kinds, slots=[0, 1, 0, 1]
    )
    assert chosen.tolist() == [[1, 0], [4, 5], [2, 3]]


# ------------------------------------------------------------------------ R15: switches read by truthiness
@pytest.mark.parametrize("flag", ["yes", "no", 1, 0, None, np.array([True])])
def test_predict_return_std_must_be_true_or_false(flag):
    """GP20: return_std='yes' returned (mean, std), and so would 'no'."""
    with pytest.raises(TypeError, match=r"^return_std must be True or False, got "):
        GPPreferenceModel(random_state=0, n_restarts=0).fit(X30, PAIRS10).predict(X30[:2], return_std=flag)


@pytest.mark.parametrize("make", SUGGESTING[:2], ids=["GP", "LP"])
def test_suggest_pairs_switches_and_k_are_checked(make):
    model = make()
    with pytest.raises(TypeError, match=r"^return_scores must be True or False, got str 'no'"):
        model.suggest_pairs(CANDIDATES, k=2, return_scores="no")
    with pytest.raises(ValueError, match=r"^k must be a positive integer, got True"):
        model.suggest_pairs(CANDIDATES, k=True)


def test_numpy_booleans_are_switches_too():
    """np.True_ and np.False_ give what True and False give: (mean, std) and the mean alone, the same
    numbers."""
    model = GPPreferenceModel(random_state=0, n_restarts=0).fit(X30, PAIRS10)
    mean, std = model.predict(X30[:3], return_std=np.True_)
    np.testing.assert_array_equal(model.predict(X30[:3], return_std=np.False_), mean)
    np.testing.assert_array_equal(std, model.predict(X30[:3], return_std=True)[1])


# ------------------------------------------------------------------------ R3: row counts, R4: n_jobs
@pytest.mark.parametrize("n_samples", [-5, 3.5, True, "x", None, np.nan])
def test_fit_plan_refuses_an_n_samples_that_is_no_count(n_samples):
    """SH24: fit_plan(-5, ...) said 'X has -5 rows but preferences ... refer to rows up to 1'."""
    with pytest.raises(ValueError, match=r"^n_samples must be a whole number >= 0, got "):
        GPPreferenceModel().fit_plan(n_samples, PreferenceSet([0], [1]))


def test_fit_plan_of_a_whole_float_count_is_that_of_the_int():
    """20.0 rows plan as 20: the distinct rows the preferences name (by hand: 0 … 19, 20 latent values) and
    their 10 pairs."""
    plan = GPPreferenceModel().fit_plan(20.0, PAIRS10)
    assert (plan.n_latent, plan.n_pairs) == (20, 10)
    assert plan == GPPreferenceModel().fit_plan(20, PAIRS10)


@pytest.mark.parametrize("n_jobs", [0, True, 1.5])
def test_npsvor_refuses_n_jobs_0_before_fitting(n_jobs):
    """PA20: n_jobs=0 met joblib's 'n_jobs == 0 in Parallel has no meaning' during fit."""
    with pytest.raises(InvalidParameterError, match=r"'n_jobs' parameter of NPSVOR must be"):
        NPSVOR(n_jobs=n_jobs).fit(X, RANKS)


@pytest.mark.parametrize("n_jobs", [None, 1, 2, -1, -2])
def test_npsvor_counts_of_threads_fit_alike(n_jobs):
    """Every accepted n_jobs gives the one-thread fit (the K rank problems are independent)."""
    expected = NPSVOR(random_state=0).fit(X, RANKS).predict(X)
    np.testing.assert_array_equal(NPSVOR(random_state=0, n_jobs=n_jobs).fit(X, RANKS).predict(X), expected)


@pytest.mark.parametrize("prior", [("a", "b"), (True, 1.0), ([1.0], 2.0), (1.0,)])
@pytest.mark.parametrize("model", [GPPreferenceModel, GPLabelPreferenceModel])
def test_length_scale_prior_must_be_two_numbers(model, prior):
    """(True, 1.0) fitted with shape 1; ('a', 'b') said 'could not convert string to float'."""
    with pytest.raises(ValueError, match=r"^length_scale_prior must be \(shape, rate\), two numbers > 0, got "):
        model(length_scale_prior=prior, n_restarts=0).fit(X, RANKS)


@pytest.mark.parametrize(
    "settings, weights, said",
    [
        ([[True, 1.0]], [1.0], "settings must hold numbers, got True"),
        ([[0.1 + 1j, 1.0]], [1.0], r"settings must hold numbers, got \(0.1\+1j\)"),
        ([[1.0]], [1.0], r"settings must be \(lambda1, lambda2\) pairs, got 1 numbers"),
        ([[0.1, 1.0], [0.1, 2.0]], ["a", "b"], "weights must hold numbers, got 'a'"),
    ],
)
def test_averaged_lp_settings_and_weights_must_be_numbers(settings, weights, said):
    """settings [[True, 1.0]] fitted lambda1 = 1; a complex one met float()'s words, one number numpy's reshape."""
    with pytest.raises(ValueError, match=rf"^{said}"):
        AveragedOrderPreferenceRegressor(settings=settings, weights=weights).fit(X, NUMBERS)
