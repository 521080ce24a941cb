"""The ninth corpus's library cases (issue 32): the knowledge helpers refuse what they read wrongly
before (a negative position, a NaN threshold, a negative beta, rows past y, unknown choices), naming
the argument and its first bad value."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

from ordercore.knowledge import agreement
from ordercore.knowledge.committee_choice import audit_slots
from ordercore.knowledge.experts import ProbitExpert, noise_for_accuracy
from ordercore.knowledge.oracle import oracle_preferences
from ordercore.knowledge.proxy import order_pairs, proxy_preferences


class _Identity:
    def predict(self, X):
        return np.asarray(X, dtype=float)


@pytest.mark.parametrize(
    "first, second, said",
    [
        ([-1], [0], "first holds -1 at position 0, outside the 3 scores (positions 0 to 2)"),  # L08
        ([0, 1], [2, 3], "second holds 3 at position 1, outside the 3 scores (positions 0 to 2)"),
        ([0.5], [1], "first must hold positions (integers), got float64, e.g. 0.5"),
        ([0, 1], [2], "first and second must have the same length, got 2 and 1"),  # L07
    ],
)
def test_order_pairs_refuses_bad_positions(first, second, said):
    with pytest.raises(ValueError) as raised:
        order_pairs(np.array([5.0, 1.0, 9.0]), np.array(first), np.array(second))
    assert str(raised.value) == said


def test_order_pairs_and_proxy_refuse_a_nan_min_difference():  # L05, L51
    said = "min_difference must be a finite number >= 0, got nan"
    with pytest.raises(ValueError, match=f"^{said}$"):
        order_pairs(np.arange(20.0), np.arange(10), np.arange(10, 20), min_difference=float("nan"))
    with pytest.raises(ValueError, match=f"^{said}$"):
        proxy_preferences(_Identity(), np.arange(5.0), 3, 0, min_difference=float("nan"))


def test_order_pairs_keeps_its_result_on_good_input():
    made = order_pairs(np.array([5.0, 1.0, 9.0]), np.array([0, 1]), np.array([1, 2]))
    assert (made.i.tolist(), made.j.tolist()) == ([0, 2], [1, 1])


@pytest.mark.parametrize(
    "rows, y, n, beta, said",
    [
        ([0, 1, 2], [1.0, 2.0, 3.0], 5, -1.0, "beta must be a finite number >= 0, got -1.0"),  # L01
        ([0, 1, 2], [1.0, 2.0, 3.0], 5, float("nan"), "beta must be a finite number >= 0, got nan"),
        ([0, 1, 2], [1.0, 2.0, 3.0], -1, 0.5, "n_preferences must be a whole number >= 0, got -1"),  # L03
        ([0, 1, 99], [1.0, 2.0, 3.0], 3, 0.5, "rows holds 99 at position 2, outside y_true (positions 0 to 2)"),  # L04
        (
            [0, 1, 2, 3],
            [np.nan, 2.0, 3.0, np.nan],
            20,
            0.5,
            "y_true is NaN at row(s) [0, 3] of rows: oracle preferences need labeled rows; pass only those",
        ),  # L02
    ],
)
def test_oracle_preferences_refuses_bad_arguments(rows, y, n, beta, said):
    with pytest.raises(ValueError) as raised:
        oracle_preferences(np.array(rows), np.array(y), n, beta, rng=0)
    assert str(raised.value) == said


@pytest.mark.parametrize(
    "y, distinct",
    [(np.full(20, 3.0), "1 distinct value"), (np.full(20, np.nan), "0 distinct values")],  # L10, L11
)
def test_noise_for_accuracy_needs_two_values(y, distinct):
    with pytest.raises(ValueError) as raised:
        noise_for_accuracy(y, 0.9)
    assert str(raised.value) == (
        f"y needs at least two different values (NaN left out) to define an expert's accuracy; it has {distinct}"
    )


def test_probit_answer_refuses_unequal_lengths():  # L14
    with pytest.raises(ValueError, match=r"^y_a and y_b must have the same length, got 3 and 2$"):
        ProbitExpert(1.0).answer([1.0, 2.0, 3.0], [1.0, 2.0], np.random.default_rng(0))


def _answers(rows):
    return pd.DataFrame(rows, columns=["annotator", "row_a", "row_b", "choice"])


@pytest.mark.parametrize(
    "rows, said",
    [
        (
            [("u", 0, 1, "a"), ("u", 1, 2, "B")],
            "answers' choice must be one of ['a', 'b', 'equal', 'skip']; row 1 holds 'B'",
        ),  # L20
        (
            [("u", 0, 1, "equal ")],
            "answers' choice must be one of ['a', 'b', 'equal', 'skip']; row 0 holds 'equal '",
        ),  # L56
        (
            [("u", 0, 1, "a"), ("v", 2, 2, "a")],
            "a pair needs two different rows: row 1 of answers compares row 2 with itself",
        ),
    ],
)
def test_outcomes_refuse_unknown_choices_and_self_pairs(rows, said):
    with pytest.raises(ValueError) as raised:
        agreement.kappa_table(_answers(rows))
    assert str(raised.value) == said


def test_kappa_of_two_agreeing_annotators_is_one():
    table = agreement.kappa_table(_answers([("u", 0, 1, "a"), ("v", 0, 1, "a"), ("u", 1, 2, "b"), ("v", 1, 2, "b")]))
    # both pairs agree: p_o = 1; outcomes 'lower row higher' and 'higher row higher' half each: p_e = 1/2
    assert table[["agreement", "kappa"]].values.tolist() == [[1.0, 1.0]]


def test_audit_slots_refuse_a_negative_count():  # L61
    with pytest.raises(ValueError, match=r"^n must be a whole number >= 0, got -5$"):
        audit_slots(-5, 0, np.random.default_rng(0))


NA_TABLE = "hid,a,region,heating,y\n1,0.5,EU,Electric,1.5\n2,2.0,NA,None,NA\n3,8.0,NA,Gas,13.0\n4,1.0,EU,None,2.0\n"


def test_na_and_none_are_text_levels_in_a_text_column():  # L62, S61 (an upload), C33
    from ordercore.data.tables import load_csv

    data = load_csv(io.BytesIO(NA_TABLE.encode()), "y", ["a", "region", "heating"])
    assert data.frame["region"].tolist() == ["EU", "NA", "NA", "EU"]
    assert data.frame["heating"].tolist() == ["Electric", "None", "Gas", "None"]
    assert np.isnan(data.y).tolist() == [False, True, False, False]  # 'NA' in the numeric target: unlabeled


def test_na_in_a_numeric_column_is_still_a_missing_value():
    from ordercore.data.tables import load_csv, read_csv

    table = NA_TABLE.replace("2,2.0,NA", "2,NA,NA")
    assert np.isnan(read_csv(table.encode())["a"].to_numpy()).tolist() == [False, True, False, False]
    with pytest.raises(ValueError, match=r"^feature column\(s\) \['a'\] have missing values"):
        load_csv(io.BytesIO(table.encode()), "y", ["a", "region"])


def test_counts_written_as_whole_floats_are_taken():
    made = oracle_preferences(np.arange(4), np.array([1.0, 2.0, 3.0, 4.0]), 3.0, 0.5, rng=0)
    assert len(made) == 3 and np.all(made.margin == 0.5 * (made.i - made.j))  # y = row + 1
    with pytest.raises(ValueError, match=r"^n_preferences must be a whole number >= 0, got 2.5$"):
        oracle_preferences(np.arange(4), np.ones(4), 2.5, rng=0)
