"""The rule quality table and the preference-graph checks on hand-worked tables."""

import collections

import numpy as np
import pandas as pd
import pytest

from ordercore.knowledge.quality import (
    accuracy_weight,
    audit_accuracy,
    audit_check,
    check_preference_graph,
    labeled_accuracy,
    rule_quality,
    rule_trust,
    weights_from_accuracy,
)
from ordercore.knowledge.rules import Ordering, Rule, Within, generate
from ordercore.preferences import PreferenceSet


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


def test_labeled_accuracy_counts_every_labeled_pair_meeting_the_conditions():
    """Against brute force over all pairs of labeled rows on a random table, whichever rows are
    labeled (and whatever scope the rule's training pairs were generated in)."""
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"age": rng.integers(0, 20, 60).astype(float), "rooms": rng.integers(0, 5, 60)})
    frame.loc[[4, 9], "rooms"] = np.nan  # rows with a missing value never pair
    y = rng.normal(size=60) + frame["rooms"].fillna(0).to_numpy()
    y[rng.random(60) < 0.5] = np.nan
    rule = Rule("rooms", [Within("age", 3)], Ordering("rooms", min_difference=1))
    correct = total = 0
    labeled = np.flatnonzero(~np.isnan(y))
    for a in labeled:
        for b in labeled:
            age, rooms = frame.loc[[a, b], "age"].to_numpy(), frame.loc[[a, b], "rooms"].to_numpy()
            if a < b and abs(age[0] - age[1]) <= 3 and abs(rooms[0] - rooms[1]) >= 1:
                winner, loser = (a, b) if rooms[0] > rooms[1] else (b, a)
                total += 1
                correct += y[winner] > y[loser]
    assert total > 20
    assert labeled_accuracy(rule, frame, y) == (correct, total)


def test_audit_answers_give_the_rule_its_accuracy_by_hand(table):
    """Rooms 1, 2, 3, 1, 2, 5, the rule 'more rooms is worth more'.  Answers: (1, 0) 'a' right
    (2 > 1 rooms), (0, 2) 'a' wrong, (2, 1) 'b' wrong, (4, 3) 'equal' counts as wrong, (5, 1) 'skip'
    does not count, (0, 3) is not ordered by the rule (1 = 1 room): 1 right of 4."""
    frame, y = table
    rule = Rule("rooms", [Within("age", 2)], Ordering("rooms"))
    answers = pd.DataFrame(
        {"row_a": [1, 0, 2, 4, 5, 0], "row_b": [0, 2, 1, 3, 1, 3], "choice": ["a", "a", "b", "equal", "skip", "a"]}
    )
    assert audit_accuracy(rule, frame, answers) == (1, 4)
    lower = Rule("fewer rooms", [Within("age", 2)], Ordering("rooms", direction="lower"))
    assert audit_accuracy(lower, frame, answers) == (2, 4)  # (0, 2) 'a' and (2, 1) 'b' right
    # The pairs as the rule orders them (more rooms first), for comparing with SVR's order
    check = audit_check(rule, frame, answers)
    assert (check.winner.tolist(), check.loser.tolist()) == ([1, 2, 2, 4], [0, 0, 1, 3])
    assert check.right.tolist() == [True, False, False, False]


def test_rule_trust_reads_pairs_from_the_stored_preferences_and_pools_the_evidence(table):
    """The rooms rule of test_quality_table_by_hand (3 training pairs over rows 0-4 of 6, one labeled
    pair, right); a second rule without labeled pairs, audited once (right), and a third with
    neither.  The first with 2 audit answers (1 right) pools to 2 of 3."""
    frame, y = table
    rooms = Rule("rooms", [Within("age", 2)], Ordering("rooms"))
    wide = Rule("wide", [Within("age", 20)], Ordering("size"), weight=0.5)
    none = Rule("none", [Within("age", 0)], Ordering("size"))
    made_rooms = generate(rooms, frame, ~np.isnan(y)).preferences
    made_wide = generate(wide, frame, np.zeros(6, bool)).preferences[:2]
    preferences = made_rooms + made_wide
    provenance = pd.DataFrame({"rule_id": pd.array([7] * 3 + [9] * 2, dtype="Int64")})
    y_wide = np.full(6, np.nan)
    answers = pd.DataFrame(
        {
            "row_a": [1, 0, 3, 3],
            "row_b": [0, 2, 1, 0],
            "choice": ["a", "a", "a", "b"],
            "rule_id": pd.array([7, 7, 9, pd.NA], dtype="Int64"),
        }
    )
    trust = rule_trust([(7, rooms), (9, wide), (11, none)], frame, y_wide, preferences, provenance, answers)
    assert trust["pairs"].tolist() == [3, 2, 0]
    assert trust["coverage"].tolist() == pytest.approx([5 / 6, len(set(made_wide.i) | set(made_wide.j)) / 6, 0])
    # Without labels only the audits count: rooms 1 of 2; wide (size 2 > 1: row 3 over row 1, 'a') 1 of 1.
    assert trust["accuracy"].tolist()[:2] == [0.5, 1.0] and np.isnan(trust["accuracy"][2])
    assert trust["accuracy_source"].tolist() == [
        "audit answers",
        "audit answers",
        "unknown — audit 20 pairs to find out",
    ]
    # Before automatic trust has assessed the session (no reference) the stored weights are in force
    assert trust["weight"].tolist() == [1.0, 0.5, 1.0] and trust["contradicting_svr"].isna().all()
    unit = np.log(7 / 3)
    # Against SVR's reference predictions only the pairs it orders the other way count: rooms' audits
    # (1 over 0) right and (2 over 0) wrong, SVR puts 1 above 0 (agrees) and 2 level with 0 (disagrees):
    # 0 of 1 -> 7 / 11; wide's (3 over 1) right, SVR puts 1 above 3: 1 of 1 -> 8 / 11.
    reference = np.array([0.0, 1.0, 0.0, 0.0, 0.0, 0.0])
    trust = rule_trust([(7, rooms), (9, wide)], frame, y_wide, preferences, provenance, answers, reference=reference)
    # Then the stored weight times the log-odds of (correct + 7) / (total + 10) of those, in units of
    # log(7 / 3), the Beta(7, 3) prior's.
    assert trust["contradicting_svr"].tolist() == [1, 1] and trust["right_contradicting_svr"].tolist() == [0, 1]
    assert trust["accuracy"].tolist() == [0.5, 1.0]  # the accuracy shown still counts every check
    assert trust["weight"].tolist() == pytest.approx([np.log(7 / 4) / unit, 0.5 * np.log(8 / 3) / unit])
    trust = rule_trust([(7, rooms)], frame, y, preferences, provenance, answers)
    assert trust["accuracy_source"][0] == "labeled pairs + audit answers"
    assert (trust["labeled_pairs"][0], trust["audit_answers"][0], trust["accuracy"][0]) == (1, 2, pytest.approx(2 / 3))
    # The pooled pairs (2 over 0 right, 1 over 0 right, 2 over 0 wrong): residuals about p~ = 3/5 are
    # 0.4, 0.4, -0.6, row sums 0.2 (row 0), 0.4 (row 1), -0.2 (row 2): 0.24 < 0.68, so the design effect is
    # 1 and the interval Wilson's for 2 of 3: (4/3 + z²/6 ± z √(2/27 + z²/36)) / (1 + z²/3) = (0.20766, 0.93850)
    assert (trust["accuracy_low"][0], trust["accuracy_high"][0]) == pytest.approx((0.20766, 0.93850), abs=1e-5)
    trust = rule_trust([(7, rooms)], frame, y, preferences, provenance)
    assert trust["accuracy_source"][0] == "labeled pairs" and trust["accuracy"][0] == 1.0


def test_the_quality_table_from_stored_preferences_matches_generating_them(table):
    frame, y = table
    rules = [Rule("rooms", [Within("age", 2)], Ordering("rooms")), Rule("size", [Within("age", 2)], Ordering("size"))]
    made = [generate(rule, frame, ~np.isnan(y)).preferences for rule in rules]
    clicks, predictions = PreferenceSet.order(3, 4), np.arange(6.0)
    generated = rule_quality(rules, frame, y, clicks=clicks, predictions=predictions)
    stored = rule_quality(rules, frame, y, clicks=clicks, predictions=predictions, made=made)
    assert stored["pairs_matched"].isna().all()
    pd.testing.assert_frame_equal(stored.drop(columns="pairs_matched"), generated.drop(columns="pairs_matched"))
    with pytest.raises(ValueError, match="one PreferenceSet per rule"):
        rule_quality(rules, frame, y, made=made[:1])


def test_duplicate_times_count_each_pair_as_often_as_it_is_stated():
    """C04's count, by brute force: over 200 random pairs of 6 rows, duplicate_times is how often each pair of
    ``duplicates`` is stated the same way (collections.Counter of the (i, j) tuples)."""
    rng = np.random.default_rng(3)
    i, j = rng.integers(0, 6, 200), rng.integers(0, 6, 200)
    keep = i != j
    report = check_preference_graph(PreferenceSet.order(i[keep], j[keep]))
    counted = collections.Counter(zip(i[keep].tolist(), j[keep].tolist(), strict=True))
    found = zip(report.duplicates.tolist(), report.duplicate_times.tolist(), strict=True)
    assert {tuple(pair): times for pair, times in found} == {
        pair: times for pair, times in counted.items() if times > 1
    }
