"""The Studio's Workbench: each retrain path (answer added, undo, a change that is neither) gives
the fit a cold solve of the same problem gives, and the figures it reports are those of cold fits."""

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import mean_absolute_error

from ordercore import OrderPreferenceRegressor, PreferenceSet
from ordercore.rules import Near, Ordering, Rule, Within, generate
from ordercore.studio import SAMPLE_FEATURES, SAMPLE_PATH, study_data
from ordercore.workbench import STUDIO_MODELS, Workbench, monotone_boosting_mae

PARAMETERS = {"gamma": 0.1, "lambda1": 1e-3, "lambda2": 1.0}


@pytest.fixture(scope="module")
def data():
    frame = pd.read_csv(SAMPLE_PATH).iloc[:400].reset_index(drop=True)
    return study_data(frame, "price", SAMPLE_FEATURES, {"n_labeled": 30, "test_fraction": 0.2, "seed": 3})


@pytest.fixture(scope="module")
def rule_preferences(data):
    labeled = np.zeros(len(data.frame), dtype=bool)
    labeled[data.labeled] = True
    rule = Rule("more bedrooms", [Near("latitude", "longitude", 1.0), Within("age", 10)], Ordering("bedrooms"))
    return generate(rule, data.frame, labeled, max_pairs=300, random_state=0).preferences


def cold(data, preferences):
    return OrderPreferenceRegressor(**PARAMETERS).fit(data.dataset.X, data.y_train(), preferences)


def assert_matches_cold_fit(bench, data, preferences, report):
    reference = cold(data, preferences)
    X_test, truth = data.dataset.X[data.test], data.y_true[data.test]
    scale = np.std(data.y_true[data.labeled])
    assert np.allclose(bench.ssl_test, reference.predict(X_test), atol=1e-6 * scale)
    assert bench.ssl.objective_ == pytest.approx(reference.objective_, rel=1e-7)
    assert report.ssl_mae == pytest.approx(mean_absolute_error(truth, reference.predict(X_test)), rel=1e-6)
    svr = cold(data, None)
    assert report.svr_mae == pytest.approx(mean_absolute_error(truth, svr.predict(X_test)), rel=1e-9)
    f_svr = svr.predict(data.dataset.X)
    assert np.array_equal(bench.svr_violated, preferences.violation(f_svr) > 1e-6 * scale)
    assert report.ssl_violated == reference.n_violated_


def test_each_retrain_path_gives_the_cold_fit(data, rule_preferences):
    bench = Workbench(data, "lp", PARAMETERS)
    pool = data.pool
    clicks = PreferenceSet.order(pool[:5], pool[5:10])
    steps = [
        (rule_preferences, "cold"),  # the first fit
        (rule_preferences + clicks, "warm"),  # five answers
        (rule_preferences + clicks[:3], "warm"),  # two undone
        (clicks[:3], "cold"),  # the rule removed: neither an extension nor a prefix
        (PreferenceSet.empty(), "warm"),  # everything undone: SSL is SVR
    ]
    for preferences, path in steps:
        report = bench.update(preferences)
        assert (report.start == "cold") == (path == "cold"), (len(preferences), report.start)
        assert bench.ssl.preferences_ == preferences
        assert_matches_cold_fit(bench, data, preferences, report)
    assert np.allclose(bench.ssl_test, bench.svr_test, atol=1e-6 * np.std(data.y_true[data.labeled]))


def test_settings_and_unknown_models(data):
    choice = STUDIO_MODELS["lp"]
    defaults = OrderPreferenceRegressor().get_params()
    assert choice.defaults() == {name: defaults[name] for name in ("gamma", "lambda1", "lambda2")}
    assert choice.settings({"lambda2": 3.0, "unrelated": 1})["lambda2"] == 3.0
    with pytest.raises(ValueError, match="no setting"):
        choice.make({"C": 1.0})
    with pytest.raises(ValueError, match="unknown model"):
        Workbench(data, "forest")
    with pytest.raises(ValueError, match="strategy"):
        Workbench(data).next_pair("closest", np.random.default_rng(0))


def test_monotone_boosting_is_measured_on_the_test_rows(data):
    from sklearn.ensemble import HistGradientBoostingRegressor

    numeric = [c for c in SAMPLE_FEATURES if c in data.numeric_features()]
    model = HistGradientBoostingRegressor(monotonic_cst=[int(c == "bedrooms") for c in numeric], random_state=0)
    model.fit(data.frame.loc[data.labeled, numeric], data.y_true[data.labeled])
    expected = mean_absolute_error(data.y_true[data.test], model.predict(data.frame.loc[data.test, numeric]))
    assert monotone_boosting_mae(data, "bedrooms") == pytest.approx(expected)
    with pytest.raises(ValueError, match="not a numeric feature"):
        monotone_boosting_mae(data, "price")
