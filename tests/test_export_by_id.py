"""Exports name rows by the table's id (issue 33, item 1) and import back by it: answers, grades and
preferences exported from one session land on the same homes in a session whose table holds them in
another order, checked against the tables' own ids.  An id the table does not hold is refused whole."""

import io

import numpy as np
import pandas as pd
import pytest

from ordercore.preferences import ZERO, PreferenceSet
from ordercore.studio.data import SAMPLE_PATH
from ordercore.studio.row_names import RowNames
from ordercore.studio.session_files import export_session_file, import_session_file, read_session_file
from ordercore.studio.store import Store


@pytest.fixture
def tables():
    """The sample homes, and the same homes in a shuffled order (positions differ, ids do not)."""
    frame = pd.read_csv(SAMPLE_PATH)
    shuffled = frame.sample(frac=1.0, random_state=1).reset_index(drop=True)
    assert not np.array_equal(frame["home_id"], shuffled["home_id"])
    return frame, shuffled


@pytest.fixture
def store(tmp_path):
    return Store(f"sqlite:///{tmp_path / 'ids.sqlite'}")


def names(frame):
    return RowNames.of(frame, "price", "home_id")


def import_into(store, frame, name, text) -> tuple[int, str]:
    """A fresh session on ``frame`` with the file ``name`` (its ``text``) imported into it."""
    session = store.create_session(f"to {name}", settings={"n_rows": len(frame), "ratings": {"scale": 5}})
    file = read_session_file(name, text.encode(), names(frame))
    message = import_session_file(store, session.id, file, frame, np.zeros(len(frame), dtype=bool), "x")
    return session.id, message


def test_answers_grades_and_preferences_travel_by_id_to_a_table_in_another_order(store, tables):
    frame, shuffled = tables
    source = store.create_session("source", settings={"n_rows": len(frame), "ratings": {"scale": 5}})
    store.add_answer(source.id, 1, 2, "a", "ann", weight=2.0)
    store.add_answer(source.id, 30, 7, "equal", "bo")
    store.add_grade(source.id, 12, 4, "ann")
    store.import_preferences(source.id, PreferenceSet([5, 8], [9, ZERO], 0.5, 1.0), "cy")
    home = frame["home_id"].astype(str).to_numpy()

    answers = pd.read_csv(io.StringIO(export_session_file(store, source.id, "answers", names(frame))), dtype=str)
    assert "row_a" not in answers and answers[["home_id_a", "home_id_b"]].values.tolist() == [
        [home[1], home[2]],
        [home[30], home[7]],
    ]
    grades = pd.read_csv(io.StringIO(export_session_file(store, source.id, "grades", names(frame))), dtype=str)
    assert "row" not in grades and grades["home_id"].tolist() == [home[12]]
    text = export_session_file(store, source.id, "preferences", names(frame))
    preferences = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)
    preferences = preferences[preferences["source"] == "import"]  # (the answers' clicks are there too)
    assert preferences[["home_id_i", "home_id_j"]].values.tolist() == [[home[5], home[9]], [home[8], ""]]

    where = {h: k for k, h in enumerate(shuffled["home_id"].astype(str))}  # the ids' places in the other table
    target, _ = import_into(
        store, shuffled, "answers.csv", export_session_file(store, source.id, "answers", names(frame))
    )
    assert store.answers(target)[["row_a", "row_b"]].values.tolist() == [
        [where[home[1]], where[home[2]]],
        [where[home[30]], where[home[7]]],
    ]
    target, _ = import_into(
        store, shuffled, "grades.csv", export_session_file(store, source.id, "grades", names(frame))
    )
    assert store.grades(target)[["row", "grade"]].values.tolist() == [[where[home[12]], 4]]
    for format in ("csv", "json"):
        exported = export_session_file(store, source.id, "preferences", names(frame), format)
        target, _ = import_into(store, shuffled, f"preferences.{format}", exported)
        made, provenance = store.preferences(target)
        made = made[(provenance["annotator"] == "cy").to_numpy()]
        assert made.i.tolist() == [where[home[5]], where[home[8]]] and made.j.tolist() == [where[home[9]], ZERO]


def test_an_id_the_table_does_not_hold_is_refused_and_nothing_is_written(store, tables):
    frame, _ = tables
    source = store.create_session("source", settings={"n_rows": len(frame)})
    store.add_answer(source.id, 1, 2, "a", "ann")
    store.add_answer(source.id, 3, 4, "b", "ann")
    text = export_session_file(store, source.id, "answers", names(frame))
    fewer = frame[frame["home_id"] != frame["home_id"][4]].reset_index(drop=True)  # home of row 4 gone
    session = store.create_session("fewer", settings={"n_rows": len(fewer)})
    with pytest.raises(ValueError, match=f"home_id {frame['home_id'][4]} is not in this session's table"):
        read_session_file("answers.csv", text.encode(), names(fewer))
    assert store.answers(session.id).empty


def test_without_an_identifier_rows_stay_positions(store, tables):
    frame, _ = tables
    source = store.create_session("source", settings={"n_rows": len(frame)})
    store.add_answer(source.id, 1, 2, "a", "ann")
    plain = RowNames.of(frame, "price", None)
    text = export_session_file(store, source.id, "answers", plain)
    assert pd.read_csv(io.StringIO(text))[["row_a", "row_b"]].values.tolist() == [[1, 2]]
    assert read_session_file("answers.csv", text.encode(), plain).table[["row_a", "row_b"]].values.tolist() == [[1, 2]]


def test_a_session_without_answers_or_grades_exports_their_headers_by_id(store, tables):
    """A new user's 'Grades (CSV)' in a session with no grades raised an IndexError (the empty export's
    row column held objects): each export is its header alone, the rows' column named by id."""
    frame, _ = tables
    session = store.create_session("empty", settings={"n_rows": len(frame), "ratings": {"scale": 5}})
    grades = export_session_file(store, session.id, "grades", names(frame))
    answers = export_session_file(store, session.id, "answers", names(frame))
    assert grades.splitlines() == ["home_id,grade,annotator,created_at,fingerprint"]
    header = "home_id_a,home_id_b,choice,weight,margin,annotator,created_at,rule_number,rule,number,rule_winner,"
    header += "a_fingerprint,b_fingerprint"
    assert answers.splitlines() == [header]
