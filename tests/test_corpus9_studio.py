"""The ninth corpus's Studio cases (issue 32): a file's ids written 115.0 or '123 ' name the rows 115 and
123 (S43, S49), a boolean margin is refused (S50), and the display helpers say '—' or write an exponent
where they wrote 'nan' or 400 digits (L25, L27, L28, L57, L59)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ordercore.knowledge.expert_accuracy import accuracy_words
from ordercore.preferences import PreferenceSet
from ordercore.studio.numbers import memory_size, significant, work_done
from ordercore.studio.row_names import RowNames
from ordercore.studio.session_files import read_session_file
from ordercore.studio.verdicts import trials_verdict


@pytest.fixture
def names():
    frame = pd.DataFrame({"home_id": np.arange(100, 130), "rooms": np.arange(30) % 5, "price": np.arange(30.0)})
    return RowNames.of(frame, "price", "home_id")


@pytest.mark.parametrize(
    "name, content",
    [
        ("p.csv", b"home_id_i,home_id_j\n115.0,116.0\n"),  # S43: a spreadsheet's re-save
        ("p.csv", b"home_id_i,home_id_j\n115, 116 \n"),
        ("p.json", b'[{"home_id_i": 115.0, "home_id_j": "116 "}]'),  # S49
    ],
)
def test_ids_written_as_floats_or_with_spaces_name_their_rows(names, name, content):
    table = read_session_file(name, content, names).table
    assert table[["i", "j"]].values.tolist() == [[15, 16]]  # home 115 is row 15


def test_an_id_with_a_fraction_is_still_not_a_row(names):
    with pytest.raises(ValueError, match=r"^home_id 115.5 is not in this session's table of 30 rows"):
        read_session_file("p.csv", b"home_id_i,home_id_j\n115.5,116\n", names)


@pytest.mark.parametrize("column", ["margin", "weight"])
def test_a_boolean_margin_or_weight_is_refused(names, column):  # S50
    name = {"margin": "d (margin)", "weight": "w (weight)"}[column]
    with pytest.raises(ValueError) as raised:
        PreferenceSet.from_frame(read_session_file("p.json", f'[{{"i": 1, "j": 2, "{column}": true}}]'.encode()).table)
    assert str(raised.value) == f"{name} must be numeric, got a boolean (true or false)"
    with pytest.raises(ValueError, match=r"must be numeric, got a boolean"):
        PreferenceSet([1], [2], True)


@pytest.mark.parametrize(
    "value, text",
    [
        (1e300, "1 × 10³⁰⁰"),  # L25: no 400 digits of float artefacts
        (-1.23456e21, "-1.235 × 10²¹"),
        (1e15, "1 × 10¹⁵"),
        (999_999_999_999_999.0, "999,999,999,999,999"),
        (62_460.25, "62,460"),
    ],
)
def test_huge_numbers_read_in_scientific_notation(value, text):
    assert significant(value) == text


def test_display_helpers_say_a_dash_for_what_is_not_a_number():
    assert accuracy_words(float("nan"), float("nan"), 0) == "— on 0 answers, at least —"  # L57
    assert accuracy_words(0.76, 0.13, 23) == "0.76 on 23 answers, at least 0.50"  # 0.76 - 2 × 0.13
    assert memory_size(-1) == "—" and memory_size(float("nan")) == "—"  # L27
    assert work_done(5, 0, 10.0, "pairs") == "5 pairs, 10 s so far"  # L28
    assert work_done(7, 5, 1.0, "pairs") == "7 pairs, 1 s so far"


def test_no_verdict_on_an_improvement_that_is_not_a_number():  # L59
    kind, words = trials_verdict(float("nan"), 0.01, 5)
    assert kind == "info" and words.startswith("No verdict: the mean change of the test MAE over 5 trial(s)")
    assert "nan" not in words


def test_an_sqlite_url_with_options_is_refused_and_nothing_written(tmp_path):  # S73
    from ordercore.studio.store import Store

    path = tmp_path / "ro.sqlite"
    with pytest.raises(ValueError) as raised:
        Store(f"sqlite:///{path}?mode=ro")
    assert str(raised.value) == (
        f"cannot open the store {str(path)!r}: an SQLite store's URL takes no options, got 'mode=ro' "
        "(a read-only store is not offered); remove the part from '?'"
    )
    assert not path.exists()


def test_rating_items_of_a_column_the_table_lacks_is_a_value_error(tmp_path):  # S64
    from ordercore.studio.data import data_settings
    from ordercore.studio.session import SessionEngine
    from ordercore.studio.store import Store

    frame = pd.DataFrame({"x": np.arange(12.0), "note": ["a b"] * 12, "price": np.arange(12.0) * 2})
    store = Store(f"sqlite:///{tmp_path / 's.sqlite'}")
    session = store.create_session("s")
    settings, _ = data_settings(frame, "upload", "price", ["x"], {"n_labeled": 6})
    store.update_settings(session.id, settings, store.add_dataset("t", frame, frame.to_csv(index=False).encode()))
    with pytest.raises(ValueError) as raised:
        SessionEngine(store, session.id, "t", lambda *a, **k: None).rating_items("nosuch")
    assert str(raised.value) == (
        "the session's table has no column 'nosuch' whose texts could be graded; its columns are ['x', 'note', 'price']"
    )
