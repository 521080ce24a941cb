"""Bad input to the estimators and the readers of files raises a ValueError (or TypeError) that names the
problem, and leaves what was fitted or stored as it was."""

import numpy as np
import pytest

from ordercore import GPPreferenceModel, OrderPreferenceRegressor, PreferenceSet, TwoNormOrderPreferenceRegressor


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


# ------------------------------------------------------------------ magnitudes: labels and features


@pytest.mark.parametrize("estimator", [OrderPreferenceRegressor, TwoNormOrderPreferenceRegressor])
@pytest.mark.parametrize("factor", [1e300, 1e-300])
def test_labels_near_1e300_fit_as_the_same_labels_in_ordinary_units(data, estimator, factor):
    """The regressors scale y internally (median, standard deviation) and solve in those units, so
    labels times 1e300 give exactly the predictions times 1e300 (they gave all NaN: np.std squared
    the labels and overflowed)."""
    X, y = data
    preferences = PreferenceSet([4, 5], [6, 7])
    ordinary = estimator().fit(X, y, preferences).predict(X)
    scaled = estimator().fit(X, y * factor, preferences).predict(X)
    assert np.all(np.isfinite(scaled))
    np.testing.assert_allclose(scaled / factor, ordinary, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("estimator", [OrderPreferenceRegressor, TwoNormOrderPreferenceRegressor])
def test_constant_labels_predict_that_constant(data, estimator):
    X, y = data
    y[~np.isnan(y)] = 1e300
    np.testing.assert_allclose(estimator().fit(X, y).predict(X), 1e300, rtol=1e-12)


def test_labels_wider_than_float64_are_refused_and_the_last_fit_stays(data):
    X, y = data
    model = OrderPreferenceRegressor().fit(X, y)
    before = model.predict(X)
    wide = y.copy()
    wide[:2] = [-1e303, 1e303]  # predictions beyond them would overflow: LARGEST_LABEL is 1.8e302
    for estimator in (model, TwoNormOrderPreferenceRegressor()):
        with pytest.raises(ValueError, match="labels reach 1e\\+303, too close to float64's limit"):
            estimator.fit(X, wide)
    np.testing.assert_array_equal(model.predict(X), before)


@pytest.mark.parametrize("estimator", [OrderPreferenceRegressor, TwoNormOrderPreferenceRegressor])
def test_features_whose_squared_distances_overflow_are_refused(data, estimator):
    """n_features (2 max|x|)^2 must be finite: with 2 features, max|x| below sqrt(1.797e308 / 8) = 4.74e153."""
    X, y = data
    X = X / np.abs(X).max()
    with pytest.raises(ValueError, match="too large to compute the 'rbf' kernel"):
        estimator().fit(X * 4.75e153, y)
    model = estimator().fit(X * 4.73e153, y)  # just within: fits, and predicts finite values
    assert np.all(np.isfinite(model.predict(X * 4.73e153)))
    with pytest.raises(ValueError, match="too large"):
        model.predict(X * 1e200)


def test_the_poly_kernel_bound_includes_its_degree():
    from ordercore.numerics.magnitudes import check_kernel_input

    # (gamma n max|x|^2 + coef0)^degree with gamma = 1/n: (1e100 + 1)^3 = 1e300 fits, (1e110)^3 not.
    check_kernel_input(np.array([[1e50, 0.0]]), "poly")
    with pytest.raises(ValueError, match="'poly'"):
        check_kernel_input(np.array([[1e55, 0.0]]), "poly")
    check_kernel_input(np.array([[1e55, 0.0]]), "rbf")  # 2 (2e55)^2 is finite


def test_the_gp_standardises_features_near_1e300_as_any_others(data):
    X, _ = data
    preferences = PreferenceSet([0, 2, 4], [1, 3, 5])
    ordinary = GPPreferenceModel(random_state=0).fit(X, preferences).predict(X)
    np.testing.assert_allclose(
        GPPreferenceModel(random_state=0).fit(X * 1e300, preferences).predict(X * 1e300), ordinary
    )
    with pytest.raises(ValueError, match="too large"):
        GPPreferenceModel(normalize=False).fit(X * 1e200, preferences)


def test_the_standard_deviation_matches_exact_arithmetic_near_1e300():
    import statistics

    from ordercore.numerics.magnitudes import standard_deviation

    values = np.array([3.0, -1.5, 7.25, 0.5]) * 1e300
    with np.errstate(over="ignore"):
        assert np.std(values) == np.inf  # numpy's squares overflow
    # statistics.pstdev sums exact fractions: no overflow, an independent value.
    assert standard_deviation(values) == pytest.approx(statistics.pstdev(values.tolist()), rel=1e-14)
    columns = np.array([[1.0, 1e300], [3.0, 3e300], [8.0, -2e300]])
    expected = [statistics.pstdev(columns[:, k].tolist()) for k in range(2)]
    np.testing.assert_allclose(standard_deviation(columns, axis=0), expected, rtol=1e-14)


# ------------------------------------------------------------------ files: nesting, shapes, names

DEEP = "[" * 100_000  # json.loads raises RecursionError (not a ValueError) on this


def test_deeply_nested_json_is_refused_by_every_reader(tmp_path):
    from ordercore.cli.tabular import read_rules
    from ordercore.experiments.results import read_result
    from ordercore.knowledge.rules import Rule
    from ordercore.studio.session_files import read_session_file

    path = tmp_path / "deep.json"
    path.write_text(DEEP)
    for read in (
        lambda: PreferenceSet.from_json(path),
        lambda: Rule.from_json(DEEP),
        lambda: read_rules(path),
        lambda: read_session_file("deep.json", DEEP.encode()),
        lambda: read_result(DEEP.encode()),
    ):
        with pytest.raises(ValueError):
            read()


RESULT = {
    "experiment": "table1",
    "protocol": {},
    "summary": {"svr_mae_mean": 2.0, "ssl_mae_mean": 1.5, "improvement": 0.25},
}


@pytest.mark.parametrize(
    "document, message",
    [
        ([1, 2], "'experiment' field names none"),
        ({"experiment": "table9"}, "'experiment' field names none"),
        ({**RESULT, "protocol": None}, "'protocol' must be an object"),
        ({**RESULT, "summary": [1]}, "'summary' must be an object, got list"),
        ({**RESULT, "summary": {}}, "summary.svr_mae_mean must be a number, got None"),
        ({**RESULT, "trials": "x"}, "'trials' must be a list of objects, got str"),
        ({**RESULT, "trials": [{"svr_mae": 1.0, "ssl_mae": "1"}]}, "trials\\[0\\].ssl_mae must be a number"),
        ({**RESULT, "trials": [[1.0]]}, "trials\\[0\\] must be an object"),
        ({**RESULT, "trials": [], "summary": {**RESULT["summary"], "p_value": "x"}}, "p_value must be a number"),
        ({**RESULT, "trials": [{"svr_mae": True, "ssl_mae": 1.0}]}, "svr_mae must be a number, got True"),
        ({"experiment": "figure2", "protocol": {}, "dataset": "boston", "vary": "q"}, "names its data set"),
        (
            {"experiment": "figure2", "protocol": {}, "dataset": "boston", "vary": "p", "points": [{}]},
            "points\\[0\\].value",
        ),
    ],
)
def test_a_result_file_of_the_wrong_shape_is_refused_saying_where(document, message):
    import json

    from ordercore.experiments.results import read_result

    with pytest.raises(ValueError, match=message):
        read_result(json.dumps(document).encode())


def test_a_result_file_of_the_right_shape_is_read():
    import json

    from ordercore.experiments.results import read_result

    document = {
        **RESULT,
        "trials": [{"svr_mae": 2.0, "ssl_mae": 1.5}],
        "summary": {**RESULT["summary"], "p_value": None},
    }
    assert read_result(json.dumps(document).encode()) == document
    with pytest.raises(ValueError, match="not a JSON file"):
        read_result(b"\xff\xfe not json")


def test_rule_names_are_checked_where_the_rule_is_made():
    from ordercore.knowledge.rules import Ordering, Rule, Within

    for name, message in [
        ("x" * 201, "at most 200 characters; this one has 201"),
        ("tab\there", "control character: U\\+0009 TAB at position 3"),
        ("right\u202eleft", "invisible formatting character .* U\\+202E RIGHT-TO-LEFT OVERRIDE at position 5"),
    ]:
        with pytest.raises(ValueError, match=message):
            Rule(name, [Within("age", 1.0)], Ordering("rooms"))
    assert Rule("x" * 200, [Within("age", 1.0)], Ordering("rooms")).name == "x" * 200


def test_a_rules_file_is_imported_whole_or_not_at_all(tmp_path):
    """The second rule names an annotator of 61 characters: the first, valid, is not stored either."""
    import json

    import pandas as pd

    from ordercore.knowledge.rules import Ordering, Rule, Within
    from ordercore.studio.data import SAMPLE_PATH
    from ordercore.studio.session_files import import_session_file, read_session_file
    from ordercore.studio.store import Store

    frame = pd.read_csv(SAMPLE_PATH)
    labeled = np.zeros(len(frame), dtype=bool)
    labeled[::50] = True
    store = Store(f"sqlite:///{tmp_path / 'rules.sqlite'}")
    session = store.create_session("s", settings={"n_rows": len(frame)})
    rules = [Rule(name, [Within("income", 1.0)], Ordering("rooms")).to_dict() for name in ("first", "second")]
    rules[0]["annotator"], rules[1]["annotator"] = "ann", "y" * 61
    read = read_session_file("rules.json", json.dumps(rules).encode())
    with pytest.raises(ValueError, match="at most 60"):
        import_session_file(store, session.id, read, frame, labeled, "ann")
    assert store.rules(session.id) == [] and store.revision(session.id) == 0
    one = read_session_file("rule.json", json.dumps(rules[0]).encode())  # a single rule, as Rule.to_json writes it
    assert one.kind == "rules" and import_session_file(store, session.id, one, frame, labeled, "ann").startswith(
        "Imported"
    )


@pytest.mark.parametrize(
    "target, feature, message",
    [
        ([1.0, np.nan, np.nan, np.nan], [1.0, 2.0, 3.0, 4.0], "has a value in 1 row"),
        ([1.0, -1e303, 1e303, 4.0], [1.0, 2.0, 3.0, 4.0], "labels reach 1e\\+303"),
        ([1.0, 2.0, 3.0, 4.0], [1e308, 1e308, -1e308, 1e308], "span too wide a range for float64 to standardise"),
    ],
)
def test_the_studio_refuses_data_its_models_cannot_fit(target, feature, message):
    import pandas as pd

    from ordercore.studio.data import data_settings

    frame = pd.DataFrame({"x": feature, "z": [0.0, 1.0, 0.0, 1.0], "y": target})
    with pytest.raises(ValueError, match=message):
        data_settings(frame, "upload", "y", ["x", "z"], {"n_labeled": 2, "test_fraction": 0.0})


def test_no_candidate_pairs_suggest_no_pair_and_a_missing_directory_is_named(data, tmp_path):
    X, y = data
    preferences = PreferenceSet([4], [5])
    for model in (OrderPreferenceRegressor().fit(X, y, preferences), GPPreferenceModel().fit(X, preferences)):
        pairs, scores = model.suggest_pairs(np.zeros((0, 2), dtype=int), k=3, return_scores=True)
        assert pairs.shape == (0, 2) and scores.shape == (0,)
        with pytest.raises(ValueError, match="k must be a positive integer"):
            model.suggest_pairs(np.zeros((0, 2), dtype=int), k=0)
        with pytest.raises(FileNotFoundError, match="no directory .*absent$"):
            model.save(tmp_path / "absent" / "model.npz")


def test_a_margin_beyond_1e9_label_spreads_is_refused_and_the_last_fit_stays():
    """Labels 0 and 2 (median 1, standard deviation 1): margin 1e9 is d~ = 1e9, the largest taken; 1.1e9
    is refused at fit and at add_preferences, with the fit as it was (the LP failed with 'no certified
    optimum after 3 attempts' from about 1e20)."""
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array([0.0, 2.0, np.nan, np.nan])
    model = OrderPreferenceRegressor().fit(X, y, PreferenceSet([2], [3], 1e9))
    before = model.predict(X), model.preferences_
    for estimator in (model, TwoNormOrderPreferenceRegressor()):
        with pytest.raises(
            ValueError, match="margin of 1.1e\\+09 is more than 1e\\+09 times the labels' spread \\(1\\)"
        ):
            estimator.fit(X, y, PreferenceSet([2], [3], 1.1e9))
    with pytest.raises(ValueError, match="too large to solve with"):
        model.add_preferences(PreferenceSet([3], [2], -1e300))
    np.testing.assert_array_equal(model.predict(X), before[0])
    assert model.preferences_ == before[1]


def test_gradient_boosting_without_a_numeric_feature_says_so():
    import pandas as pd

    from ordercore.studio.comparisons import monotone_boosting_mae
    from ordercore.studio.data import study_data

    frame = pd.DataFrame({"kind": list("abcabcabca"), "y": np.arange(10.0)})
    data = study_data(frame, "y", ["kind"], {"n_labeled": 5, "test_fraction": 0.5})
    with pytest.raises(ValueError, match="no numeric feature"):
        monotone_boosting_mae(data, None)  # the page's select box offers nothing: None
