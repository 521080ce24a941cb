"""The sixth outside probing's findings in the library (/tmp/corpus6, W cases): a PreferenceSet's values
or mask of the wrong length, JSON nested too deeply, an empty string for a file, a model file read
from None or written over a directory, pd.NA among the labels."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ordercore import GPLabelPreferenceModel, OrderPreferenceRegressor, load
from ordercore.knowledge.rules import Rule
from ordercore.preferences import PreferenceSet

DEEP_LIST = "[" * 100_000 + "]" * 100_000
DEEP_OBJECT = '{"i":' * 50_000 + "1" + "}" * 50_000
NESTED_TOO_DEEPLY = "its lists and objects are nested too deeply to read"


def data():
    """The tester's 30 rows: y = 2 x_0 plus noise, rows 15 … 29 unlabeled, three preferences among them."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3))
    y = X[:, 0] * 2 + rng.normal(size=30) * 0.1
    y[15:] = np.nan
    return X, y, PreferenceSet.order(i=[15, 16, 17], j=[18, 19, 20])


# ---------------------------------------------------------------------------------------- W068
def test_violation_of_values_too_few_for_the_rows_named_says_so():
    _, _, preferences = data()
    with pytest.raises(ValueError, match=r"^f has 3 values but the preferences name rows up to 20$"):
        preferences.violation(np.zeros(3))
    assert preferences.violation(np.zeros(21)).tolist() == [0.0, 0.0, 0.0]  # margin 0: f = 0 meets each


# ---------------------------------------------------------------------------------------- W067
def test_a_mask_of_another_length_says_how_many_preferences_it_selects_among():
    _, _, preferences = data()
    with pytest.raises(IndexError, match=r"^a mask selects among the 3 preferences, got one of length 1$"):
        preferences[np.array([True])]
    assert preferences[np.array([True, False, True])].i.tolist() == [15, 17]


# ---------------------------------------------------------------------------------------- W063/W065
def test_preference_json_nested_too_deeply_says_so_in_words():
    with pytest.raises(ValueError, match=f"^not valid preference JSON: {NESTED_TOO_DEEPLY}") as raised:
        PreferenceSet.from_json(DEEP_LIST)
    assert "recursion" not in str(raised.value)


def test_rule_json_nested_too_deeply_says_so_in_words():
    with pytest.raises(ValueError, match=f"^rule JSON does not parse: {NESTED_TOO_DEEPLY}"):
        Rule.from_json(DEEP_OBJECT)


@pytest.mark.parametrize("source", ["", "   "])
def test_from_json_of_an_empty_string_is_no_path_to_the_directory(source):
    with pytest.raises(ValueError, match="^from_json takes JSON text or a path to a JSON file, got an empty string$"):
        PreferenceSet.from_json(source)


# ---------------------------------------------------------------------------------------- W078/W080
def test_load_of_none_asks_for_a_path():
    with pytest.raises(TypeError, match=r"^a model file is read from a path \(text or pathlib.Path\), got NoneType$"):
        load(None)


def test_save_over_a_directory_names_it_not_a_temporary_file(tmp_path):
    X, y, preferences = data()
    model = OrderPreferenceRegressor().fit(X, y, preferences)
    with pytest.raises(IsADirectoryError, match=f"^cannot write {tmp_path}: it is a directory$"):
        model.save(tmp_path)
    assert list(tmp_path.iterdir()) == []  # no temporary file left behind


# ---------------------------------------------------------------------------------------- W012/W048
def test_pd_na_in_a_list_of_labels_marks_an_unlabeled_row_as_nan_does():
    X, y, preferences = data()
    with_na = [float(v) for v in y[:15]] + [None] * 14 + [pd.NA]
    with_nan = np.r_[y[:15], np.full(15, np.nan)]
    by_na = OrderPreferenceRegressor().fit(X, with_na, preferences).predict(X[:5])
    by_nan = OrderPreferenceRegressor().fit(X, with_nan, preferences).predict(X[:5])
    np.testing.assert_allclose(by_na, by_nan)


def test_a_missing_text_label_is_named_with_its_row():
    X, _, _ = data()
    labels = pd.Series(["a", "b", "c"] * 10, dtype="string").mask(pd.Series(range(30)) > 27)
    with pytest.raises(ValueError, match=r"^y holds a missing label \(<NA>\) at row 28"):
        GPLabelPreferenceModel().fit(X, labels)
