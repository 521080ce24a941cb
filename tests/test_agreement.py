"""Annotator agreement against hand computations and a brute-force enumeration of triples."""

import itertools

import numpy as np
import pandas as pd
import pytest

from ordercore.knowledge.agreement import annotator_weights, intransitive_triples, kappa_table, outcomes, weigh_clicks
from ordercore.preferences import PreferenceSet


def answers(rows):
    """A Store.answers-like frame from (annotator, row_a, row_b, choice) tuples, oldest first."""
    return pd.DataFrame(rows, columns=["annotator", "row_a", "row_b", "choice"])


def test_outcomes_ignore_screen_order_and_skips_and_keep_the_latest_answer():
    table = outcomes(
        answers(
            [("ann", 1, 2, "a"), ("bob", 2, 1, "b"), ("ann", 3, 4, "skip"), ("bob", 3, 4, "a"), ("bob", 3, 4, "equal")]
        )
    )
    assert table.values.tolist() == [
        ["ann", 1, 2, "lower row higher"],
        ["bob", 1, 2, "lower row higher"],
        ["bob", 3, 4, "about equal"],
    ]


def test_kappa_matches_a_hand_computation():
    """Ten shared pairs: ann says low-higher on 1-6, high-higher on 7-10; bob agrees on 1-5 and 8-10
    and says the opposite on 6 and 7.  p_o = 0.8; shares: ann (0.6, 0.4), bob (0.6, 0.4), so
    p_e = 0.36 + 0.16 = 0.52 and κ = (0.8 - 0.52) / 0.48 = 0.58333."""
    ann = [("ann", k, k + 100, "a" if k <= 6 else "b") for k in range(1, 11)]
    # bob is shown (k + 100, k): 'b' says row k (the lower) is higher, 'a' says row k + 100 is.
    bob = [("bob", k + 100, k, "b" if k <= 5 or k == 7 else "a") for k in range(1, 11)]
    table = kappa_table(answers(ann + bob + [("carol", 500, 501, "a")]))
    assert table[["annotator", "other annotator", "shared pairs"]].values.tolist() == [["ann", "bob", 10]]
    assert table.loc[0, "agreement"] == pytest.approx(0.8) and table.loc[0, "kappa"] == pytest.approx(0.28 / 0.48)


def test_kappa_is_undefined_when_both_gave_one_outcome_only():
    table = kappa_table(answers([("ann", 1, 2, "a"), ("bob", 1, 2, "a")]))
    assert table.loc[0, "agreement"] == 1.0 and np.isnan(table.loc[0, "kappa"])


def brute_force_cycles(rows, annotator):
    """Every triple of rows, checked by trying all orders."""
    beats = {}
    for who, a, b, choice in rows:  # the latest answer to a pair replaces any earlier one
        if who == annotator:
            beats.pop((a, b), None)
            beats.pop((b, a), None)
            if choice in ("a", "b"):
                beats[(a, b) if choice == "a" else (b, a)] = True
    items = sorted({r for pair in beats for r in pair})
    triples = cycles = 0
    for x, y, z in itertools.combinations(items, 3):
        edges = [p for p in itertools.permutations((x, y, z), 2) if p in beats]
        if len(edges) == 3:
            triples += 1
            cycles += any(
                all((p, q) in beats for p, q in ((o[0], o[1]), (o[1], o[2]), (o[2], o[0])))
                for o in itertools.permutations((x, y, z))
            )
    return triples, cycles


def test_intransitive_triples_match_a_brute_force_enumeration():
    rng = np.random.default_rng(0)
    rows = []
    for annotator in ("ann", "bob"):
        for _ in range(120):
            a, b = rng.choice(10, size=2, replace=False)
            rows.append(
                (annotator, int(a), int(b), rng.choice(["a", "b", "equal", "skip"], p=[0.45, 0.45, 0.05, 0.05]))
            )
    table = intransitive_triples(answers(rows)).set_index("annotator")
    for annotator in ("ann", "bob"):
        triples, cycles = brute_force_cycles(rows, annotator)
        assert triples > 20 and (table.loc[annotator, "triples"], table.loc[annotator, "cycles"]) == (triples, cycles)


def test_a_consistent_annotator_has_no_cycles():
    rows = [("ann", a, b, "a") for a, b in itertools.combinations(range(6), 2)]  # the lower row always higher
    table = intransitive_triples(answers(rows))
    assert table.values.tolist() == [["ann", 20, 0, 0.0]]


def test_annotator_weights_are_each_ones_pair_weighted_kappa_clipped_and_one_when_unmeasured():
    """ann–bob: κ = 0.58333 on 10 pairs (as above).  carol answers pairs 1-4, where ann and bob both say
    the lower row is higher, all the other way: with each, p_o = 0, p_e = 1·0 + 0·1 = 0, κ = 0.  dave
    shares nothing.  Hand-computed weights: ann and bob (10·0.58333 + 4·0) / 14, carol 0, dave 1."""
    ann = [("ann", k, k + 100, "a" if k <= 6 else "b") for k in range(1, 11)]
    bob = [("bob", k + 100, k, "b" if k <= 5 or k == 7 else "a") for k in range(1, 11)]
    carol = [("carol", k, k + 100, "b") for k in range(1, 5)]
    weights = annotator_weights(answers(ann + bob + carol + [("dave", 700, 701, "a")]))
    kappa = 0.28 / 0.48
    assert weights.index.tolist() == ["ann", "bob", "carol", "dave"]
    assert weights.to_numpy() == pytest.approx([10 * kappa / 14, 10 * kappa / 14, 0.0, 1.0])


def test_a_kappa_below_chance_weighs_nothing():
    """Two annotators who disagree on every pair, each giving both outcomes: p_o = 0, p_e = 0.5, κ = -1."""
    rows = [("ann", 1, 2, "a"), ("ann", 3, 4, "b"), ("bob", 1, 2, "b"), ("bob", 3, 4, "a")]
    assert annotator_weights(answers(rows)).to_dict() == {"ann": 0.0, "bob": 0.0}


def test_clicks_weigh_by_their_annotator_and_rules_and_imports_do_not():
    made = PreferenceSet(np.arange(5), np.arange(1, 6), 0.0, np.array([1.0, 2.0, 1.0, 1.0, 3.0]))
    provenance = pd.DataFrame(
        {
            "source": pd.Categorical(["click", "click", "rule", "import", "click"]),
            "annotator": pd.Categorical(["ann", "bob", "ann", "bob", "eve"]),
        }
    )
    weighed = weigh_clicks(made, provenance, pd.Series({"ann": 0.5, "bob": 0.25}))
    assert weighed.weight.tolist() == [0.5, 0.5, 1.0, 1.0, 3.0]
    assert weighed.i.tolist() == made.i.tolist() and weighed.margin.tolist() == made.margin.tolist()
