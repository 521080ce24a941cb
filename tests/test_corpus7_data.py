"""The seventh bad-input corpus's cases in tables, the store and the estimators (issue 32): each
expectation written from the tester's report, by hand."""

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
