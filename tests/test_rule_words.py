"""A rule in words (issue 33, nu13 F10: the session's rules were listed by name alone, and a default name such as
'more neck_relief' says nothing of its conditions): ``Rule.words`` gives its conditions, its ordering and the
target in one line, as the rule form reads; an edit's message says a condition dropped or added the same way.
Each expectation is a sentence written here by hand."""

from ordercore.knowledge.rules import Near, Ordering, RelativeWithin, Rule, SameCategory, Within
from ordercore.studio.rule_edits import rule_changes


def test_a_rule_of_same_category_and_within_ordering_lower_reads_as_written_by_hand():
    rule = Rule(
        "more neck_relief",
        [SameCategory("brand"), Within("year_made", 5.0), Within("fret_wear_pct", 6.9)],
        Ordering("string_action_mm", "lower"),
    )
    assert rule.words("price") == (
        "same brand, year_made within ± 5, fret_wear_pct within ± 6.9; "
        "then the one with lower string_action_mm has the higher price"
    )


def test_near_a_relative_tolerance_a_gap_and_a_margin_are_said_too():
    rule = Rule(
        "more bedrooms",
        [Near("latitude", "longitude", 2.0), RelativeWithin("income", 0.1), Within("mileage_km", 10_000.0)],
        Ordering("bedrooms", "higher", 1.0),
        margin=0.5,
    )
    assert rule.words() == (
        "within 2 miles, income within ± 10 % of the larger, mileage_km within ± 10,000; "
        "then the one with higher bedrooms (by at least 1) has the higher target (margin d 0.5)"
    )
    assert Near("latitude", "longitude", 1.0).words() == "within 1 mile"


def test_an_edit_says_a_condition_dropped_or_added_in_the_same_words():
    before = Rule("r", [SameCategory("brand"), Within("year_made", 5.0)], Ordering("string_action_mm", "lower"))
    after = Rule("r", [Within("year_made", 5.0), Within("fret_wear_pct", 6.9)], Ordering("string_action_mm", "lower"))
    assert rule_changes(before, after) == ["no longer same brand", "now also fret_wear_pct within ± 6.9"]
