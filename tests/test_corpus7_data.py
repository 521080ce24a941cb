"""The seventh bad-input corpus's cases in tables, the store and the estimators (issue 32): each
expectation written from the tester's report, by hand."""

import json

import numpy as np
import pandas as pd
import pytest

from ordercore.cli.main import main


def test_a_feature_with_a_different_text_in_every_row_is_refused_naming_it(tmp_path):
    """X043: a column of dates became 40 one-hot indicators, one per row, without a word."""
    rng = np.random.default_rng(0)
    dates = pd.date_range("2020-01-01", periods=40).strftime("%Y-%m-%d")
    y = np.where(np.arange(40) < 20, rng.uniform(0, 10, 40), np.nan)
    table = pd.DataFrame({"hid": range(40), "a": rng.uniform(0, 1, 40), "c": dates, "y": y})
    table.to_csv(tmp_path / "dates.csv", index=False)
    with pytest.raises(
        SystemExit, match=r"column 'c' has a different value in each of its 40 rows \(dates\? codes\?\)"
    ):
        main(["fit", str(tmp_path / "dates.csv"), "--target", "y", "--id", "hid", "--out", str(tmp_path / "m.npz")])
    assert not (tmp_path / "m.npz").exists()
    # a column of few categories is kept (the refusal is of a column that tells the rows nothing)
    table.assign(c=np.where(np.arange(40) % 2, "red", "blue")).to_csv(tmp_path / "kinds.csv", index=False)
    assert (
        main(["fit", str(tmp_path / "kinds.csv"), "--target", "y", "--id", "hid", "--out", str(tmp_path / "m.npz")])
        == 0
    )


def test_score_with_unlabeled_rows_in_y_says_to_pass_the_labeled_ones():
    """Y003: fit reads NaN as an unlabeled row; score gave sklearn's bare 'Input contains NaN.'."""
    from ordercore import OrderPreferenceRegressor, PreferenceSet

    rng = np.random.default_rng(0)
    X, y = rng.uniform(0, 1, (30, 2)), rng.uniform(0, 1, 30)
    labels = np.where(np.arange(30) < 15, y, np.nan)
    model = OrderPreferenceRegressor().fit(X, labels, PreferenceSet([20], [21]))
    with pytest.raises(ValueError, match=r"y holds NaN at 15 row\(s\) \(the first: row 15\): score needs a label"):
        model.score(X, labels)
    from sklearn.metrics import r2_score

    assert model.score(X[:15], y[:15]) == pytest.approx(r2_score(y[:15], model.predict(X[:15])))


def fitted_estimators():
    """Each family's estimator that learns from labels, fitted on 30 rows (ranks 1 … 4 for the ordinal ones)."""
    from ordercore import OrderPreferenceRegressor
    from ordercore.gp.labels import GPLabelPreferenceModel
    from ordercore.mpmr.estimator import MPMRegressor
    from ordercore.npsvor.estimator import NPSVOR

    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2))
    y = 2 * X[:, 0] + 1
    ranks = (np.digitize(y, [-1, 1, 3]) + 1).astype(float)
    return X, [
        (OrderPreferenceRegressor, y),
        (MPMRegressor, y),
        (NPSVOR, ranks),
        (lambda: GPLabelPreferenceModel(graph="ordinal"), ranks),
    ]


@pytest.mark.parametrize("family", range(4), ids=["lp", "mpmr", "npsvor", "gp-labels"])
@pytest.mark.parametrize(
    "bad, said",
    [
        (np.nan, r"y holds NaN at 2 row\(s\) \(the first: row 3\): score needs a label for every row"),
        (np.inf, r"y holds an infinite value at 2 row\(s\) \(the first: row 3, inf\): labels must be finite"),
        (-np.inf, r"y holds an infinite value at 2 row\(s\) \(the first: row 3, -inf\): labels must be finite"),
    ],
)
def test_score_and_fit_with_nan_or_inf_labels_name_the_rows_in_every_family(family, bad, said):
    """The LP's score said where y held NaN; MPMR's, NPSVOR's and the GP label model's gave scikit-learn's
    'Input contains NaN.' (or 'infinity or a value too large'), naming neither y nor the row."""
    X, made = fitted_estimators()
    make, y = made[family]
    model = make().fit(X, y)
    broken = y.copy()
    broken[[3, 7]] = bad
    with pytest.raises(ValueError, match=said):
        model.score(X, broken)
    assert model.score(X, y) == model.score(X, list(y))  # finite labels score as before
    if family != 0 and not np.isnan(bad):  # the LP reads NaN as unlabeled and inf in its own words
        with pytest.raises(ValueError, match=said.replace("score", "fit")):
            make().fit(X, broken)
    if family == 1:
        with pytest.raises(ValueError, match=r"y holds NaN at 2 row\(s\) \(the first: row 3\): fit needs a label"):
            make().fit(X, np.where(np.isnan(broken) | np.isinf(broken), np.nan, broken))


def test_a_text_feature_with_an_empty_text_is_refused_at_the_data_step():
    """Z035: the Data step took a text feature with '' in it; stored as CSV the empty text read back as
    missing and the session could not load its data."""
    from ordercore.studio.data import data_settings

    texts = pd.DataFrame({"text": ["good", "", "bad", "fine", "ok"] * 4, "score": [1.0, 2, 3, 4, 5] * 4})
    with pytest.raises(ValueError, match=r"feature column\(s\) \['text'\] have missing values or empty texts"):
        data_settings(texts, "upload", "score", ["text"], {"n_labeled": 5})
    spaces = texts.assign(text=texts["text"].replace("", "   "))
    with pytest.raises(ValueError, match="empty texts"):
        data_settings(spaces, "upload", "score", ["text"], {"n_labeled": 5})
    filled = texts.assign(text=texts["text"].replace("", "so-so"))
    assert data_settings(filled, "upload", "score", ["text"], {"n_labeled": 5})[0]["features"] == ["text"]


# ---------------------------------------------------------------------------------------- X005
FITTED = pd.DataFrame(
    {
        "area": [50.0, 80.0, 120.0],
        "flag": [True, False, True],
        "binary": [0, 1, 1],
        "town": ["north", "south", "north"],
        "code": [1, 2, 3],
    }
)


@pytest.fixture
def fitted():
    """A preprocessing fitted on ``FITTED`` (code named categorical), as a model file reads it back."""
    from ordercore.data.tables import Preprocessing

    preprocessing = Preprocessing.fit(FITTED, list(FITTED.columns), categorical=["code"])
    return Preprocessing.from_dict(json.loads(json.dumps(preprocessing.to_dict())))


@pytest.mark.parametrize(
    "column, values, said",
    [
        (
            "area",
            [True, False, True],
            "'area' held numbers (50 … 120) when the model was fitted; this table holds True/False",
        ),
        ("area", ["a", "1", "2"], "'area' is not numeric (e.g. 'a'): it held numbers (50 … 120) when the model was"),
        (
            "flag",
            [0, 2, 1],
            "'flag' held True/False when the model was fitted; this table holds numbers (e.g. 2 at row 1",
        ),
        ("flag", ["yes", "no", "yes"], "'flag' is not numeric (e.g. 'yes'): it held True/False when the model"),
        (
            "town",
            [1, 2, 3],
            "'town' held text ('north', 'south') when the model was fitted; this table holds numbers (e.g. 1 at row 0",
        ),
        (
            "town",
            [True, False, True],
            "'town' held text ('north', 'south') when the model was fitted; this table holds True/False",
        ),
        (
            "code",
            ["a", "2", "3"],
            "'code' held numbers (1, 2, 3) when the model was fitted; this table holds text (e.g. 'a' at row 0",
        ),
    ],
)
def test_a_column_holding_another_kind_of_values_than_at_fit_time_is_refused_naming_both(fitted, column, values, said):
    """X005 in general: numbers given True/False, True/False given numbers, categories given numbers or flags."""
    with pytest.raises(ValueError) as raised:
        fitted.transform(FITTED.assign(**{column: values}))
    assert f"feature column {said}" in str(raised.value)


@pytest.mark.parametrize(
    "column, values",
    [
        ("area", [50, 80, 120]),  # whole numbers for numbers
        ("flag", [1, 0, 1]),  # 1 and 0 for True and False
        ("binary", [False, True, True]),  # True/False for numbers fitted in 0 … 1
        ("town", ["north", "east", "north"]),  # a level never seen: all-zero indicators, as documented
        ("code", [1.0, 2.0, 3.0]),  # a number category as the same number
    ],
)
def test_values_of_the_kind_fitted_or_that_read_the_same_are_taken(fitted, column, values):
    X = fitted.transform(FITTED.assign(**{column: values}))
    expected = fitted.transform(FITTED)
    changed = [k for k, name in enumerate(fitted.feature_names) if name == column or name.startswith(f"{column}=")]
    same = [k for k in range(X.shape[1]) if k not in changed]
    np.testing.assert_array_equal(X[:, same], expected[:, same])
    if column != "town":
        np.testing.assert_allclose(X, expected)


def test_a_category_of_numbers_matches_its_levels_as_numbers(fitted):
    """The level '1' of a column of whole numbers is the number 1.0 too (as text, '1.0' matched no level)."""
    X = fitted.transform(FITTED.assign(code=[3.0, 1.0, 2.0]))
    codes = [k for k, name in enumerate(fitted.feature_names) if name.startswith("code=")]
    assert X[:, codes].tolist() == [[0, 0, 1], [1, 0, 0], [0, 1, 0]]


def test_kinds_and_ranges_are_saved_and_a_file_without_them_still_reads(fitted):
    from ordercore.data.tables import Preprocessing

    written = fitted.to_dict()
    assert written["kinds"] == {
        "area": "number",
        "flag": "boolean",
        "binary": "number",
        "town": "text",
        "code": "number",
    }
    assert written["ranges"] == {"area": [50.0, 120.0], "flag": [0.0, 1.0], "binary": [0.0, 1.0]}
    old = Preprocessing.from_dict({key: value for key, value in written.items() if key not in ("kinds", "ranges")})
    assert old.kinds == () and old.ranges == ()
    np.testing.assert_array_equal(old.transform(FITTED), fitted.transform(FITTED))
    with pytest.raises(ValueError, match="'town' held text"):  # levels that are no numbers say text
        old.transform(FITTED.assign(town=[1, 2, 3]))
    for broken in ({"area": "number"}, {**written["kinds"], "area": "date"}):
        with pytest.raises(ValueError, match="preprocessing kinds must name each of the columns"):
            Preprocessing.from_dict({**written, "kinds": broken})
    with pytest.raises(ValueError, match="low <= high"):
        Preprocessing.from_dict({**written, "ranges": {**written["ranges"], "area": [2.0, 1.0]}})
