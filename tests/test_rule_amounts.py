"""The Rules form's amounts on a table of used cars (new-user report 9, Major 2 and Minor 7): a "within"
tolerance shows its formula's value (a quarter of the column's spread) to two significant figures, in whole
numbers for a column of whole numbers, the tooltip saying both; "by at least" belongs to the ordering column
(it starts at 0, typed in that column's steps); a rule that makes no pairs only because of its minimum
difference says so, with the gaps its pairs would have had; the preview's counts agree with the metric's.
Every expectation is worked out here by hand or with numpy, never from the library's own helpers."""

import numpy as np
import pandas as pd
import pytest

from ordercore.knowledge.quality import labeled_check
from ordercore.knowledge.rules import Ordering, Rule, SameCategory, condition_form, generate
from ordercore.knowledge.rules.forms import ordering_form
from ordercore.studio.rule_view import checked_line, preview_rows, zero_pairs_reason


def cars(n: int = 200, seed: int = 9) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "make": rng.choice(["BMW", "Toyota"], n),
            "age_years": rng.integers(0, 16, n),
            "mileage_km": rng.integers(1_000, 250_000, n),
            "owners": rng.choice([1, 1, 1, 2, 2, 3], n),
            "engine_l": rng.normal(2.0, 0.3, n),
        }
    )


def quarter_spread(values) -> float:
    """A quarter of the interquartile range / 1.349, by numpy."""
    low, high = np.percentile(np.asarray(values, dtype=float), [25, 75])
    return 0.25 * (high - low) / 1.349


def two_figures(x: float) -> float:
    return float(f"{x:.2g}")


@pytest.mark.parametrize("column", ["age_years", "mileage_km", "owners", "engine_l"])
def test_a_within_tolerance_shows_its_formula_to_two_figures_in_the_columns_steps(column):
    frame = cars()
    parameter = condition_form("within", frame, chosen={"column": column})[1]
    formula = two_figures(quarter_spread(frame[column]))
    whole = column != "engine_l"
    if column == "owners":  # 1, 2 or 3 owners: a stepped column starts at its "same" (test_rule_stepped.py)
        assert parameter.default == 0.0 and "same owners" in parameter.help
        return
    assert parameter.default == (round(formula) if whole else formula)
    assert f"{formula:,g}" in parameter.help  # the tooltip's value is the field's, before whole-number rounding
    if whole:  # whole numbers: no decimals, a step of at least 1; 18282 km showed as '18282', now 18,000
        assert parameter.decimals == 0 and parameter.step == max(1.0, 10.0 ** (np.floor(np.log10(formula)) - 1))
    else:  # two significant figures, stepping by one unit of the second
        magnitude = np.floor(np.log10(formula))  # 0.075: 3 decimals, steps of 0.001
        assert (parameter.decimals, parameter.step) == (1 - magnitude, pytest.approx(10.0 ** (magnitude - 1)))


def test_by_at_least_starts_at_0_in_the_ordering_columns_steps():
    frame = cars()
    km, owners = ordering_form(frame, "mileage_km"), ordering_form(frame, "owners")
    assert (km.default, km.minimum, km.decimals) == (0.0, 0.0, 0)
    assert km.step == 10.0 ** (np.floor(np.log10(quarter_spread(frame["mileage_km"]))) - 1)  # 1,000 km, not 0.01
    assert (owners.default, owners.decimals, owners.step) == (0.0, 0, 1.0)


def test_a_rule_that_makes_no_pairs_because_of_its_minimum_difference_says_so():
    frame = pd.DataFrame({"make": ["BMW"] * 5, "age_years": [1, 2, 3, 4, 6]})
    rule = Rule("younger", [SameCategory("make")], Ordering("age_years", "lower", 10_000))
    assert not len(generate(rule, frame).preferences)
    # by hand: the 10 pairs' gaps 1,2,3,5,1,2,4,1,3,2: median 2, largest 5
    said = zero_pairs_reason(rule, frame, np.zeros(5, dtype=bool))
    assert "10,000" in said and "age_years" in said and "typically 2" in said and "at most 5" in said, said
    assert "10 pairs" in said, said
    assert zero_pairs_reason(Rule("x", rule.conditions, Ordering("age_years", "lower", 5)), frame, None) is None
    other = pd.DataFrame({"make": ["BMW", "Audi"], "age_years": [1, 2]})  # no pair meets the condition at all
    assert zero_pairs_reason(rule, other, None) is None


def test_the_previews_line_counts_the_rules_pairs_as_the_metric_does():
    """'Pairs this rule makes 31' beside 'Of the 32 pairs previewed': the extra one was a pair of labeled rows."""
    frame = pd.DataFrame({"make": ["BMW"] * 6, "age_years": [1, 2, 3, 4, 5, 6]})
    labels = np.array([9.0, 8.0, np.nan, np.nan, np.nan, np.nan])  # rows 0 and 1 labeled
    rule = Rule("younger", [SameCategory("make")], Ordering("age_years", "lower"))
    labeled = np.isfinite(labels)
    made = generate(rule, frame, labeled).preferences
    assert len(made) == 14  # 15 pairs of 6 rows, less the one pair of labeled rows
    pairs, k = preview_rows(made, labeled_check(rule, frame, labels), 0.0, 1.0)
    said = checked_line(pairs, labels, labeled_check(rule, frame, labels), len(made))
    assert (len(pairs), k) == (15, 1)
    assert said.startswith("The table lists all 14 of the rule's pairs, and 1 pair of labeled rows"), said
