"""How the Studio names rows and writes values (``ordercore/studio/row_names.py``, issue 33 item 1),
against hand-written cases and a brute-force check over every column of the sample homes."""

import numpy as np
import pandas as pd
import pytest

from ordercore.studio.data import SAMPLE_PATH
from ordercore.studio.row_names import RowNames, decimals_to_tell_apart


def test_a_column_gets_the_fewest_decimals_that_keep_its_values_apart():
    assert decimals_to_tell_apart(pd.Series([97700, 97800, 101000])) == 0
    assert decimals_to_tell_apart(pd.Series([-105.15942, -105.15, -105.1])) == 5
    assert decimals_to_tell_apart(pd.Series([0.1, 0.12, 0.1])) == 2
    assert decimals_to_tell_apart(pd.Series([0.1 + 0.2, 1.0])) == 1  # 0.30000000000000004 is 0.3
    assert decimals_to_tell_apart(pd.Series([1.5, np.nan, 2.0])) == 1
    assert decimals_to_tell_apart(pd.Series([1e-9, 2e-9])) is None  # beyond the cap: every digit


def test_numbers_beyond_the_fixed_decimals_are_written_in_full_without_exponents():
    frame = pd.DataFrame({"tiny": [1e-9, -2.5e-9, 12345.0000001], "y": [1.0, 2.0, 3.0]})
    names = RowNames.of(frame, "y", None)
    assert [names.value("tiny", v) for v in frame["tiny"]] == ["0.000000001", "−0.0000000025", "12,345.0000001"]


def test_in_every_sample_column_two_different_values_never_read_the_same():
    frame = pd.read_csv(SAMPLE_PATH)
    names = RowNames.of(frame, "price", "home_id")
    assert names.columns == tuple(c for c in frame.columns if c not in ("price", "home_id"))
    for column in names.columns:
        distinct = frame[column].drop_duplicates()
        assert {names.value(column, v) for v in distinct}.__len__() == len(distinct), column


def test_rows_are_named_by_the_identifier_or_by_position_and_differences_carry_no_signed_zero():
    frame = pd.DataFrame({"code": ["x7", "y8"], "size": [1234.5, 1234.5], "note": ["a", "b"], "y": [1.0, 2.0]})
    names = RowNames.of(frame, "y", "code")
    assert (names.name(0), names.name(1)) == ("code x7", "code y8")
    assert RowNames.of(frame, "y", None).name(1) == "row 1"
    assert (names.value("size", 1234.5), names.difference("size", 1234.5, 1234.5)) == ("1,234.5", "0.0")
    assert names.difference("size", 1.0, 0.98) == "0.0"  # rounds to zero: no sign
    assert names.difference("size", 1000.0, 2234.5) == "+1,234.5" and names.difference("note", "a", "b") == ""
    shades = [names.shade("size", 1.0, 0.98), names.shade("size", 1.0, 2.0), names.shade("size", 2.0, 1.0)]
    assert shades == [0, 1, -1] and names.shade("note", "a", "b") == 0 and names.shade("size", np.nan, 1.0) == 0


def test_negative_numbers_and_differences_are_written_with_the_minus_sign():
    """As every other number the Studio shows ('−0.5' on an axis; a new user read "-62" on Pairwise):
    a value, a difference B − A, in fixed decimals and in full, never the ASCII hyphen; text as typed."""
    frame = pd.DataFrame({"longitude": [-105.25, -104.5], "tiny": [-1e-9, 2e-9], "note": ["a-b", "c"], "y": [1, 2]})
    names = RowNames.of(frame, "y", None)
    assert (names.value("longitude", -105.25), names.difference("longitude", -104.5, -105.25)) == ("−105.25", "−0.75")
    assert names.value("tiny", -1e-9) == "−0.000000001"  # in full (beyond the fixed decimals)
    assert names.difference("longitude", -105.25, -104.5) == "+0.75" and names.value("note", "a-b") == "a-b"


def test_a_difference_is_coloured_by_its_size_against_its_columns_spread():
    """A hand-made table like the new user's cars: mileage's spread (interquartile range / 1.349) is
    (150,000 − 50,000) / 1.349 = 74,129.0 km and horsepower's (200 − 100) / 1.349 = 74.13 hp, so 62 km
    is faint (62 / 74,129 = 0.00084) and 87 hp full (87 / 74.13 > 1, capped at 1); 37 hp half of it."""
    frame = pd.DataFrame(
        {
            "mileage_km": [0.0, 50_000.0, 100_000.0, 150_000.0, 200_000.0],
            "horsepower": [50.0, 100.0, 150.0, 200.0, 250.0],
            "y": [1.0, 2.0, 3.0, 4.0, 5.0],
        }
    )
    names = RowNames.of(frame, "y", None)
    assert names.shade("mileage_km", 206_006, 205_944) == pytest.approx(-62 / (100_000 / 1.349))
    assert names.shade("horsepower", 216, 129) == -1.0 and names.shade("horsepower", 129, 216) == 1.0
    assert names.shade("horsepower", 100, 137) == pytest.approx(37 / (100 / 1.349))
    constant = RowNames.of(frame.assign(owners=3), "y", None)
    assert constant.shade("owners", 3, 4) == 1.0  # a column without spread: any difference in full


def test_answers_read_in_words_with_rows_by_name():
    frame = pd.DataFrame({"code": ["x7", "y8", "z9"], "y": [1.0, 2.0, 3.0]})
    answers = pd.DataFrame(
        {
            "id": [4, 5],
            "row_a": [0, 2],
            "row_b": [1, 0],
            "choice": ["a", "equal"],
            "weight": [1.0, 2.5],
            "margin": [0.0, 1000.0],
            "annotator": ["ann", "bo"],
            "created_at": ["2026-11-26 10:00:00.123", "2026-11-26 10:01:00"],
            "rule_id": pd.array([None, 3], dtype="Int64"),
            "swapped": pd.array([False, None], dtype="boolean"),
        }
    )
    numbers = pd.Series([7, 8], index=[4, 5])  # the answers' numbers in their session
    imported = RowNames.of(frame, "y", "code").answers_table(
        answers.assign(imported=[True, False]), {3: "bigger"}, numbers=numbers
    )
    assert imported["from"].tolist() == ["import (a file)", "audit of 'bigger'"]
    table = RowNames.of(frame, "y", "code").answers_table(answers, {3: "bigger"}, numbers=numbers)
    assert table.to_dict("list") == {
        "answer": ["#7", "#8"],
        "annotator": ["ann", "bo"],
        "A": ["code x7", "code z9"],
        "B": ["code y8", "code x7"],
        "answer given": ["A higher", "about equal"],
        "confidence": ["1", "2.5"],
        "margin": ["0", "1,000"],
        "from": ["pair choice", "audit of 'bigger'"],
        "when (UTC)": ["2026-11-26 10:00:00", "2026-11-26 10:01:00"],
    }
    # issue 33, a first-time expert's F3: an audit names its rule by number ("from: audit of 'x'" had none)
    audit = RowNames.of(frame, "y", "code").answers_table(answers, {3: "bigger"}, numbers=numbers, rule_numbers={3: 2})
    assert audit["from"].tolist() == ["pair choice", "audit of rule #2 'bigger'"]
    # a pair of the shared queue (queued the other way round) is from there; an audit stays an audit, even
    # of a queued pair (a new user's queued answers read "pair choice")
    queued = pd.DataFrame({"row_a": [1, 0], "row_b": [0, 2]})
    assert RowNames.of(frame, "y", "code").answers_table(answers, {3: "bigger"}, queued, numbers=numbers)[
        "from"
    ].tolist() == [
        "shared queue",
        "audit of 'bigger'",
    ]


def test_preferences_read_higher_lower_and_margin_with_rows_by_name():
    from ordercore.preferences import ZERO, PreferenceSet

    frame = pd.DataFrame({"code": ["x7", "y8", "z9"], "area": [41.5, 1250.0, 63.25], "y": [1.0, 2.0, 3.0]})
    preferences = PreferenceSet([2, 0], [1, ZERO], [1500.0, 0.0], [1.0, 0.5])
    table = RowNames.of(frame, "y", "code").preferences_table(preferences)
    # the id alone in each cell, its column in the header (a new user's rule preview cut 'laptop_code LT-…',
    # repeated per cell, to 'laptop_')
    assert table.to_dict("list") == {
        "higher (code)": ["z9", "x7"],
        "lower (code)": ["y8", "0"],
        "target higher by at least": ["1,500", "0"],
        "weight": ["1", "0.5"],
    }
    assert RowNames.of(frame, "y", None).preferences_table(preferences)["higher"].tolist() == ["row 2", "row 0"]
    # A rule's columns on both sides (area written with its two decimals), none for the constant 0
    table = RowNames.of(frame, "y", "code").preferences_table(preferences, frame, ["area"])
    assert list(table.columns) == [
        "higher (code)",
        "lower (code)",
        "area (higher)",
        "area (lower)",
        "target higher by at least",
        "weight",
    ]
    assert table["area (higher)"].tolist() == ["63.25", "41.50"] and table["area (lower)"].tolist() == ["1,250.00", ""]


def test_calendar_years_are_written_without_thousands_separators():
    """A column named with 'year' of whole numbers 1000 … 2999 reads 2013, not 2,013; a price beside it
    keeps its separators, and so does a 'year' column of other numbers (a yearly income)."""
    frame = pd.DataFrame(
        {
            "year_built": [1975, 2013, 1950],
            "price": [125000, 98000, 1500],
            "income_per_year": [48000, 2500, 1200],
            "floor_area": [1200, 2500, 1800],  # whole numbers 1000 … 2999, but not named as years
            "y": [1, 2, 3],
        }
    )
    names = RowNames.of(frame, "y", None)
    assert [names.value("year_built", v) for v in frame["year_built"]] == ["1975", "2013", "1950"]
    assert names.difference("year_built", 1975, 2013) == "+38"
    assert [names.value("price", v) for v in frame["price"]] == ["125,000", "98,000", "1,500"]
    assert names.value("income_per_year", 48000) == "48,000" and names.value("floor_area", 1200) == "1,200"


def test_ids_a_table_lacks_are_counted_among_those_given():
    frame = pd.DataFrame({"code": ["a", "b", "c"], "y": [1, 2, 3]})
    with pytest.raises(ValueError, match=r"code x is not in this session's table \(2 of the 4 ids given are not\)"):
        RowNames.of(frame, "y", "code").positions(["a", "x", "b", "z"])
