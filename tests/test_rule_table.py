"""The Rules page's table of the session's rules (new-user report 12, F6 and F7), without Streamlit: each rule
by its number ('#3'), and a hint where its accuracy rests on few checked pairs or it orders by a column the
labeled rows show no direction for; the share of its preferences SVR violates.  Expectations are worked out
here by hand, with scipy's Spearman ρ and a Wilson interval written out, never from the module's helpers."""

import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import spearmanr

from ordercore.knowledge.quality import rule_trust
from ordercore.knowledge.rules import Ordering, Rule, SameCategory, Within, generate
from ordercore.studio.rule_table import hint_warning, numbered_wrong_way_warnings, rule_hints, rules_table
from ordercore.studio.rule_view import removal_warning


def wilson(right: int, total: int, z: float = 1.959964) -> tuple[float, float]:
    centre, half = right + z * z / 2, z * math.sqrt(right * (total - right) / total + z * z / 4)
    return (centre - half) / (total + z * z), (centre + half) / (total + z * z)


def laptops(n: int = 120, labeled: int = 40, seed: int = 3):
    """A table whose price follows ram and not seller_rating; labels on the first ``labeled`` rows."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "brand": rng.choice(["Acer", "Dell"], n),
            "ram_gb": rng.choice([4, 8, 16, 32], n),
            "battery": rng.uniform(40, 100, n),
            "seller_rating": rng.uniform(1, 5, n),
        }
    )
    price = 100 + 20 * frame["ram_gb"].to_numpy() + rng.normal(0, 5, n)
    y = np.where(np.arange(n) < labeled, price, np.nan)
    return frame, y


def table_of(rules, frame, y, numbers, violations=None):
    labeled = np.isfinite(y)
    made = [generate(rule, frame, labeled).preferences for _, rule in rules]
    preferences = made[0].concatenate(made) if len(made) > 1 else made[0]
    owners = np.concatenate([[rule_id] * len(m) for (rule_id, _), m in zip(rules, made, strict=True)])
    provenance = pd.DataFrame({"source": "rule", "rule_id": owners, "annotator": None})
    trust = rule_trust(rules, frame, y, preferences, provenance)
    hints = rule_hints(trust, rules, frame, y, "price")
    return trust, rules_table(trust, rules, "price", numbers, hints, violations), hints


def test_the_wrong_way_warning_and_the_remove_question_name_the_rule_by_its_number():
    """Issue 33, a first-time expert's F3: the first warning on Rules and the Remove question named the rule
    without its number.  Rule id 7 is #2, right on 1 of 6 (interval below ½ or not): "Rule #2 'x' is right …";
    id 9 right on 60 % says nothing."""
    trust = pd.DataFrame(
        {"rule_id": [7, 9], "rule": ["x", "y"], "accuracy": [1 / 6, 0.6], "accuracy_low": [0.03, 0.4]}
        | {"accuracy_high": [0.56, 0.8]}
    )
    (said,) = numbered_wrong_way_warnings(trust, {7: 2, 9: 4})
    assert said.startswith("Rule #2 'x' is right on only 17% of the pairs checked")
    asked = removal_warning(4, "to remove", 38, 0)
    assert asked == "Remove rule #4 'to remove' and its 38 preferences? The models retrain without them."


def test_each_rule_shows_its_number_in_the_session_and_a_real_rule_no_hint():
    frame, y = laptops()
    rules = [
        (41, Rule("more ram", [SameCategory("brand")], Ordering("ram_gb"))),
        (57, Rule("more ram, same battery", [Within("battery", 5.0)], Ordering("ram_gb"))),
    ]
    trust, table, hints = table_of(rules, frame, y, {41: 1, 57: 3})
    assert list(table["#"]) == ["#1", "#3"] and list(table.columns[:2]) == ["#", "rule"]
    # each rule's name, then the rule in words (issue 33, nu13 F10: a name alone says nothing of its conditions)
    assert list(table["rule"]) == [
        "more ram — same brand; then the one with higher ram_gb has the higher price",
        "more ram, same battery — battery within ± 5; then the one with higher ram_gb has the higher price",
    ]
    # the real rule: many labeled pairs of one brand, ordered by ram: a narrow interval, a direction
    assert trust["labeled_pairs"][0] > 100 and table["hint"][0] == "—" and hints[0] == ("", "")


def test_a_rule_checked_on_one_pair_and_by_a_column_without_direction_says_so():
    frame, y = laptops()
    y = np.where(np.arange(len(y)) < 40, y, np.nan)
    # pair only rows 0 and 1 among the labeled ones: same brand, seller_rating within a hair of each other
    frame.loc[:39, "brand"] = [f"b{k}" for k in range(40)]
    frame.loc[1, "brand"] = frame.loc[0, "brand"]
    high, low = (0, 1) if y[0] > y[1] else (1, 0)
    frame.loc[high, "seller_rating"], frame.loc[low, "seller_rating"] = 4.9, 1.1  # the rule orders them rightly
    rule = Rule("better-rated seller", [SameCategory("brand")], Ordering("seller_rating"))
    trust, table, hints = table_of([(9, rule)], frame, y, {9: 3})
    assert (trust["labeled_pairs"][0], trust["correct"][0]) == (1, 1)
    low_share, high_share = wilson(1, 1)
    assert (round(100 * low_share), round(100 * high_share)) == (21, 100)  # the report's '100 % (21 %–100 %)'
    assert table["hint"][0] == "few checks; no direction"
    hint = hints[0][1]
    assert f"rests on 1 checked pair (interval {low_share:.0%}–{high_share:.0%})" in hint, hint
    # the labeled rows' Spearman ρ between seller_rating and price, its 95 % interval by Fisher's z
    known = np.isfinite(y)
    rho = spearmanr(frame["seller_rating"][known], y[known]).statistic
    half = 1.959964 * math.sqrt(1.06 / (known.sum() - 3))
    low_rho, high_rho = math.tanh(math.atanh(rho) - half), math.tanh(math.atanh(rho) + half)
    assert low_rho < 0 < high_rho
    assert "no direction between seller_rating and the price" in hint
    assert f"{abs(rho):.2f}" in hint and f"{abs(low_rho):.2f}" in hint and f"{high_rho:.2f}" in hint
    said = hint_warning(3, rule.name, hint)
    assert said.startswith("Rule #3 'better-rated seller': its accuracy rests on 1 checked pair") and "audit it" in said


def test_a_rule_against_the_labeled_rows_direction_says_they_rank_it_the_other_way():
    frame, y = laptops()
    rules = [(5, Rule("less ram", [SameCategory("brand")], Ordering("ram_gb", "lower")))]
    _, table, hints = table_of(rules, frame, y, {5: 2})
    assert table["hint"][0] == "other way" and "the labeled rows rank ram_gb the other way" in hints[0][1]


def test_the_share_svr_violates_is_read_by_the_rules_source_name_and_not_yet_before_a_retrain():
    frame, y = laptops()
    rules = [(41, Rule("more ram", [SameCategory("brand")], Ordering("ram_gb")))]
    violations = pd.DataFrame(
        {"source": ["clicks: ann", "rule #1: more ram"], "preferences": [5, 67], "violated by SVR": [1, 43]}
    )
    _, table, _ = table_of(rules, frame, y, {41: 1}, violations)
    assert table["hint"][0] == "SVR violates 64%"  # 43 of 67
    _, before, _ = table_of(rules, frame, y, {41: 1})
    assert before["hint"][0] == "—"


@pytest.mark.parametrize("column", ["#", "hint"])
def test_the_table_carries_its_new_columns(column):
    frame, y = laptops()
    _, table, _ = table_of([(1, Rule("r", [SameCategory("brand")], Ordering("ram_gb")))], frame, y, {1: 1})
    assert column in table.columns
