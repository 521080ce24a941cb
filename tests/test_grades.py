"""The store's grades (the Ratings page): stored at once, per annotator, undone and edited only by their
own annotator, exported and imported, refused when bad with nothing changed."""

import io

import pandas as pd
import pytest

from ordercore.studio.store import Store
from tests.store_releases import SINCE_RELEASE_0_2


@pytest.fixture
def store(database_url):
    """A store on an empty database, on SQLite and on PostgreSQL."""
    return Store(database_url)


def held(store, session_id) -> list[tuple]:
    return [tuple(row) for row in store.grades(session_id)[["row", "grade", "annotator"]].itertuples(index=False)]


def test_grades_are_kept_per_annotator_and_undo_takes_only_ones_own_last(store):
    session = store.create_session("s", settings={"n_rows": 10})
    store.add_grade(session.id, 3, 5, "ann")
    store.add_grade(session.id, 4, 1, "bob")
    store.add_grade(session.id, 3, 2, "bob")  # another annotator may grade the same row
    store.add_grade(session.id, 7, 4, "ann")
    assert held(store, session.id) == [(3, 5, "ann"), (4, 1, "bob"), (3, 2, "bob"), (7, 4, "ann")]
    assert store.undo_grade(session.id, "bob") is not None  # bob's last: row 3, not ann's row 7
    assert held(store, session.id) == [(3, 5, "ann"), (4, 1, "bob"), (7, 4, "ann")]
    store.undo_grade(session.id, "ann")
    store.undo_grade(session.id, "ann")
    assert store.undo_grade(session.id, "ann") is None
    assert held(store, session.id) == [(4, 1, "bob")]
    assert store.contents(session.id)["grades"] == 1


def test_an_annotator_edits_and_removes_only_their_own_grades(store):
    session = store.create_session("s", settings={"n_rows": 10, "ratings": {"scale": 3}})
    first = store.add_grade(session.id, 1, 1, "ann")
    second = store.add_grade(session.id, 2, 2, "ann")
    store.edit_grade(first, "ann", 3)
    with pytest.raises(ValueError, match=rf"^grade {first} is by 'ann': annotators change only their own$"):
        store.edit_grade(first, "bob", 1)
    with pytest.raises(ValueError, match=rf"^grade {second} is by 'ann': annotators change only their own$"):
        store.remove_grade(second, "bob")
    store.remove_grade(second, "ann")
    assert held(store, session.id) == [(1, 3, "ann")]
    with pytest.raises(KeyError):
        store.remove_grade(second, "ann")


def table(rows, grades, annotator) -> pd.DataFrame:
    return pd.DataFrame({"row": rows, "grade": grades, "annotator": annotator})


@pytest.mark.parametrize(
    "write, message",
    [
        (lambda store, s: store.add_grade(s, 1, 6, "ann"), "from 1 to 5"),
        (lambda store, s: store.add_grade(s, 1, 0, "ann"), "from 1 to 5"),
        (lambda store, s: store.add_grade(s, 1, 2.5, "ann"), "from 1 to 5"),
        (lambda store, s: store.add_grade(s, 1, True, "ann"), "from 1 to 5"),
        (lambda store, s: store.add_grade(s, 10, 2, "ann"), "outside the session's table of 10 rows"),
        (lambda store, s: store.add_grade(s, -1, 2, "ann"), "outside"),
        (lambda store, s: store.add_grade(s, 0, 2, "ann"), "graded row 0 already"),
        (lambda store, s: store.add_grade(s, 1, 2, " "), "needs a name"),
        (lambda store, s: store.edit_grade(store.grades(s)["id"].iloc[0], "ann", 9), "from 1 to 5"),
        (lambda store, s: store.import_grades(s, table([1, 11], [2, 2], "x")), "line 3"),
        (lambda store, s: store.import_grades(s, table([1, 2], [2, 7], "x")), "line 3"),
        (lambda store, s: store.import_grades(s, table([0], [1], "ann")), "already"),
        (lambda store, s: store.import_grades(s, pd.DataFrame({"row": [1]})), "missing"),
        (lambda store, s: store.update_settings(s, {"n_rows": 10, "ratings": {"scale": 4}}), "scale is fixed"),
        (lambda store, s: store.update_settings(s, {"n_rows": 10, "ratings": {"scale": 10}}), "2 to 9"),
    ],
)
def test_a_bad_grade_is_refused_with_nothing_changed(store, write, message):
    session = store.create_session("s", settings={"n_rows": 10})
    store.add_grade(session.id, 0, 3, "ann")
    before = (held(store, session.id), store.session_by_id(session.id).settings)
    with pytest.raises(ValueError, match=message):
        write(store, session.id)
    assert (held(store, session.id), store.session_by_id(session.id).settings) == before


def test_grades_need_a_session_with_data(store):
    empty = store.create_session("empty")
    with pytest.raises(ValueError, match="no data yet"):
        store.add_grade(empty.id, 0, 1, "ann")
    with pytest.raises(KeyError):
        store.add_grade(empty.id + 100, 0, 1, "ann")
    with pytest.raises(ValueError, match="2 to 9"):
        store.create_session("big scale", settings={"ratings": {"scale": 12}})


def test_exported_grades_import_into_another_session_as_they_were(store):
    source = store.create_session("a", settings={"n_rows": 10})
    for row, grade, annotator in [(3, 5, "ann"), (4, 1, "bob"), (3, 2, "bob")]:
        store.add_grade(source.id, row, grade, annotator)
    exported = store.export_grades(source.id)
    target = store.create_session("b", settings={"n_rows": 10})
    store.add_grade(target.id, 4, 1, "bob")  # held already: left out
    assert store.import_grades(target.id, pd.read_csv(io.StringIO(exported))) == 2
    assert sorted(held(store, target.id)) == sorted(held(store, source.id))
    assert store.import_grades(target.id, pd.read_csv(io.StringIO(exported))) == 0


def test_a_new_store_on_the_same_database_sees_every_grade(database_url):
    first = Store(database_url)
    session = first.create_session("s", settings={"n_rows": 10})
    first.add_grade(session.id, 2, 4, "ann")
    first.add_grade(session.id, 5, 1, "ann")
    first.undo_grade(session.id, "ann")
    first.engine.dispose()
    assert held(Store(database_url), session.id) == [(2, 4, "ann")]


def test_a_store_from_before_grades_opens_and_takes_grades(database_url):
    first = Store(database_url)
    session = first.create_session("old", settings={"n_rows": 10})
    with first.engine.begin() as connection:  # the tables as the previous release made them
        connection.exec_driver_sql("DROP TABLE grades")
        for table in SINCE_RELEASE_0_2:  # nor did it have these
            connection.exec_driver_sql(f"DROP TABLE {table}")
    first.engine.dispose()
    store = Store(database_url)
    store.add_grade(session.id, 1, 2, "ann")
    assert held(store, session.id) == [(1, 2, "ann")]
