"""The rule quality table and the preference-graph checks on hand-worked tables."""

import numpy as np
import pandas as pd
import pytest

from ordercore.preferences import PreferenceSet
from ordercore.quality import accuracy_weight, check_preference_graph, rule_quality, weights_from_accuracy
from ordercore.rules import Ordering, Rule, Within


@pytest.fixture
def table():
    frame = pd.DataFrame({"age": [10, 11, 12, 30, 31, 50], "rooms": [1, 2, 3, 1, 2, 5], "size": [5, 1, 9, 2, 8, 3]})
    y = np.array([1.0, np.nan, 3.0, np.nan, 2.0, 4.0])
    return frame, y


def test_quality_table_by_hand(table):
    """Rows within 2 years of age: (0,1), (0,2), (1,2), (3,4); (0,2) joins two labeled rows, so it
    only measures accuracy.  By rooms: 1>0, 2>1, 4>3 (and 2>0, right: y 3 > 1).  By size: 0>1, 2>1,
    4>3 (and 2>0).  They share all three pairs and disagree on (0,1); a click says 3>4."""
    frame, y = table
    rules = [Rule("rooms", [Within("age", 2)], Ordering("rooms")), Rule("size", [Within("age", 2)], Ordering("size"))]
    quality = rule_quality(rules, frame, y, clicks=PreferenceSet.order(3, 4), predictions=np.arange(6.0))
    rooms, size = quality.iloc[0], quality.iloc[1]
    assert (rooms.pairs_matched, rooms.pairs_kept, rooms.points_covered) == (3, 3, 5)
    assert (rooms.overlaps_rules, rooms.conflicts_rules) == (3, 1)
    assert (size.overlaps_rules, size.conflicts_rules) == (3, 1)
    assert (rooms.overlaps_clicks, rooms.conflicts_clicks) == (1, 1)
    assert (rooms.labeled_pairs, rooms.labeled_accuracy) == (1, 1.0)
    # f = row index: rooms' pairs all go up, size's 0 > 1 goes down.
    assert rooms.violated_by_model == 0.0 and size.violated_by_model == pytest.approx(1 / 3)


def test_accuracy_weights(table):
    assert accuracy_weight(8, 8) == pytest.approx(np.log(9))  # a = 9/10
    assert accuracy_weight(2, 8) == 0.0  # worse than a coin: ignored
    assert accuracy_weight(0, 0) == 0.0  # nothing known: a = 1/2
    with pytest.raises(ValueError):
        accuracy_weight(3, 2)
    frame, y = table
    (weighted,) = weights_from_accuracy([Rule("rooms", [Within("age", 2)], Ordering("rooms"))], frame, y)
    assert weighted.weight == pytest.approx(np.log(2))  # one right labeled pair: a = 2/3


def test_graph_checks_find_cycles_conflicts_and_duplicates():
    preferences = (
        PreferenceSet.order([0, 1, 2], [1, 2, 0])  # a cycle 0 > 1 > 2 > 0
        + PreferenceSet.equal(3, 4)  # an equality: not a conflict
        + PreferenceSet.order([5, 6], [6, 5])  # a rule and a click disagree
        + PreferenceSet.order([7, 7, 8], [8, 8, 9])  # a duplicate, and no cycle
    )
    sources = ["click"] * 5 + ["rule", "click"] + ["rule"] * 3
    report = check_preference_graph(preferences, sources)
    assert [cycle.tolist() for cycle in report.cycles] == [[0, 1, 2]]
    assert report.conflicts.tolist() == [[5, 6]]
    assert report.duplicates.tolist() == [[7, 8]]
    assert not report.ok
    assert check_preference_graph(PreferenceSet.order([0, 1], [1, 2])).ok
    with pytest.raises(ValueError, match="one label per preference"):
        check_preference_graph(preferences, ["click"])


def test_a_pair_stated_three_times_is_one_duplicate():
    report = check_preference_graph(PreferenceSet.order([4, 4, 4, 1, 1], [2, 2, 2, 0, 0]))
    assert report.duplicates.tolist() == [[1, 0], [4, 2]]
