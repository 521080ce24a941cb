"""PreferenceSet: validation, encodings as tuples, and round trips."""

import numpy as np
import pandas as pd
import pytest

from ordercore import ZERO, PreferenceSet
from ordercore.preferences import is_in, sorted_unique


def test_scalars_broadcast_and_arrays_are_read_only():
    preferences = PreferenceSet([0, 1, 2], [3, 4, 5], d=0.5)
    np.testing.assert_array_equal(preferences.margin, [0.5, 0.5, 0.5])
    np.testing.assert_array_equal(preferences.weight, [1.0, 1.0, 1.0])
    with pytest.raises(ValueError):
        preferences.i[0] = 7
    with pytest.raises(AttributeError):
        preferences.i = np.array([1])


@pytest.mark.parametrize(
    "arguments, message",
    [
        (([0, 1], [0, 2]), "two different points"),
        (([0], [1], np.nan), "finite"),
        (([0], [1], np.inf), "finite"),
        (([0], [1], 0.0, -1.0), "weight"),
        (([0], [1], 0.0, np.nan), "weight"),
        (([-2], [1]), ">= 0"),
        (([0.5], [1]), "integers"),
        (([0, 1], [1, 2, 3]), "same length"),
        (([[0, 1]], [[1, 2]]), "one-dimensional"),
        ((["a"], [1]), "row indices"),
        (([0, 1], [1, 2], 0.0, [1.0, 1e9]), r"at most 1e\+06 .*1e\+09 at position\(s\) \[1\]"),
    ],
)
def test_bad_preferences_raise_a_value_error_naming_the_problem(arguments, message):
    with pytest.raises(ValueError, match=message):
        PreferenceSet(*arguments)


def test_the_largest_weight_allowed_is_fitted_and_holds_its_preferences():
    """At MAX_WEIGHT the LP's optimum is certified (it fails at 1e8) and the preferences, which outweigh
    everything, hold: each f(x_i) - f(x_j) >= 0 up to the violation tolerance."""
    from ordercore import OrderPreferenceRegressor
    from ordercore.preferences import MAX_WEIGHT

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = X[:, 0].copy()
    y[20:] = np.nan
    preferences = PreferenceSet(np.arange(20, 40), np.arange(40, 60), 0.0, MAX_WEIGHT)
    model = OrderPreferenceRegressor().fit(X, y, preferences)
    assert not model.violated(preferences).any()


def test_encodings_produce_the_seeds_tuples():
    assert PreferenceSet.order(1, 2, 0.5, 2.0) == PreferenceSet([1], [2], [0.5], [2.0])
    assert PreferenceSet.equal(1, 2) == PreferenceSet([1, 2], [2, 1], [0.0, 0.0])
    assert PreferenceSet.close(1, 2, 0.3) == PreferenceSet([1, 2], [2, 1], [-0.3, -0.3])
    assert PreferenceSet.between(1, 2, -1.0, 4.0) == PreferenceSet([1, 2], [2, 1], [-1.0, -4.0])
    assert PreferenceSet.at_least(3, 7.0) == PreferenceSet([3], [ZERO], [7.0])
    assert PreferenceSet.at_most(3, 7.0) == PreferenceSet([ZERO], [3], [-7.0])
    assert PreferenceSet.exactly(3, 7.0) == PreferenceSet([3, ZERO], [ZERO, 3], [7.0, -7.0])
    with pytest.raises(ValueError, match="lower <= upper"):
        PreferenceSet.between(1, 2, 1.0, 0.0)
    with pytest.raises(ValueError, match="epsilon"):
        PreferenceSet.close(1, 2, -0.1)


def test_violation_is_the_shifted_hinge():
    preferences = PreferenceSet([0, 1, 2], [1, ZERO, 0], [1.0, 5.0, -1.0])
    f = np.array([2.0, 1.5, 0.5])
    # f0 - f1 = 0.5 < 1 -> 0.5 short; f1 - 0 = 1.5 < 5 -> 3.5 short; f2 - f0 = -1.5 < -1 -> 0.5 short
    np.testing.assert_allclose(preferences.violation(f), [0.5, 3.5, 0.5])


def test_concatenation_subsetting_and_index_check():
    a, b = PreferenceSet([0], [1], 0.1), PreferenceSet([2, 3], [4, 5], 0.2, 3.0)
    both = a + b
    assert len(both) == 3 and both[1:] == b and both[0] == a
    assert PreferenceSet.concatenate([]) == PreferenceSet.empty()
    both.check_indices(6)
    with pytest.raises(ValueError, match="out of range"):
        both.check_indices(5)


def test_round_trips_through_frame_csv_and_json(tmp_path):
    preferences = PreferenceSet([0, 4, ZERO], [1, ZERO, 2], [0.1 + 1e-12, -3.0, 2.5], [1.0, 0.25, 7.0])
    assert PreferenceSet.from_frame(preferences.to_frame()) == preferences
    assert PreferenceSet.from_csv(preferences.to_csv()) == preferences
    preferences.to_csv(tmp_path / "p.csv")
    assert PreferenceSet.from_csv(tmp_path / "p.csv") == preferences
    assert PreferenceSet.from_json(preferences.to_json()) == preferences
    preferences.to_json(tmp_path / "p.json")
    assert PreferenceSet.from_json(tmp_path / "p.json") == preferences


def test_frames_without_optional_columns_take_defaults_and_bad_files_are_rejected():
    parsed = PreferenceSet.from_frame(pd.DataFrame({"i": [0], "j": [1]}))
    assert parsed == PreferenceSet([0], [1], 0.0, 1.0)
    with pytest.raises(ValueError, match="lacks column"):
        PreferenceSet.from_frame(pd.DataFrame({"a": [0]}))
    with pytest.raises(ValueError, match="format"):
        PreferenceSet.from_json('{"i": [0], "j": [1]}')
    with pytest.raises(ValueError, match="not valid"):
        PreferenceSet.from_json("{broken")


def test_is_in_is_membership_in_a_sorted_array():
    rng = np.random.default_rng(0)
    ordered = np.sort(rng.integers(0, 50, 30))  # with repeats
    values = rng.integers(-5, 60, 200)
    assert is_in(values, ordered).tolist() == [int(v) in set(ordered.tolist()) for v in values]
    assert is_in(values, np.zeros(0, np.int64)).tolist() == [False] * 200


def test_sorted_unique_gives_the_distinct_values_and_where_each_value_is():
    values = np.random.default_rng(1).integers(-3, 40, 300)
    distinct, inverse = sorted_unique(values)
    assert distinct.tolist() == sorted(set(values.tolist()))
    assert np.array_equal(distinct[inverse], values)


def test_a_list_of_one_is_not_broadcast_like_a_scalar():
    """A second corpus' SW11: order(i=[1, 2], j=[3]) made two preferences over row 3; a scalar 3 still does."""
    with pytest.raises(ValueError, match="same length or be scalars; got lengths 2, 1, 1, 1"):
        PreferenceSet.order([1, 2], [3])
    with pytest.raises(ValueError, match="got lengths 2, 2, 1, 1"):
        PreferenceSet([1, 2], [3, 4], 0.0, [1.0])
    assert PreferenceSet.order([1, 2], 3).j.tolist() == [3, 3] and len(PreferenceSet([1, 2], [3, 4], 0.5, 2.0)) == 2
