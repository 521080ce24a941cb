"""The store's sessions and data sets: kept once by content, resumed, their data fixed once they hold
work, their contents in words, a name taken by two people at once."""

import inspect

import numpy as np
import pandas as pd
import pytest
import sqlalchemy as sa

from ordercore.studio.store import Store, store_url


def test_data_sets_are_kept_once_by_content_and_sessions_resume(store):
    frame = pd.DataFrame({"x": np.arange(5.0), "y": np.arange(5.0) ** 2})
    content = frame.to_csv(index=False).encode()
    first = store.add_dataset("upload.csv", frame, content)
    assert store.add_dataset("same bytes, other name", frame, content) == first
    assert store.dataset(first)["content"] == content
    session = store.create_session("resume me", dataset_id=first, settings={"target": "y"})
    store.update_settings(session.id, {"target": "y", "labeled": [0, 2]})
    assert store.session("resume me").settings == {"target": "y", "labeled": [0, 2]}
    assert store.sessions()["name"].tolist() == ["resume me"]
    run = store.add_model_run(session.id, "ssl", {"lambda2": 1.0}, {"test_mae": np.float64(3.5)}, 12)
    assert store.model_runs(session.id).loc[0, "metrics"] == {"test_mae": 3.5} and run == 1


def test_store_location_comes_from_the_environment(monkeypatch, tmp_path):
    monkeypatch.delenv("ORDERCORE_STORE_URL", raising=False)
    monkeypatch.setenv("ORDERCORE_STORE", str(tmp_path / "x.sqlite"))
    assert store_url() == f"sqlite:///{tmp_path / 'x.sqlite'}"
    monkeypatch.setenv("ORDERCORE_STORE_URL", "sqlite:///elsewhere.sqlite")
    assert store_url() == "sqlite:///elsewhere.sqlite"


def test_a_session_holding_content_keeps_its_data(store):
    session = store.create_session("s", dataset_id=None, settings={"source": "sample", "n_rows": 10})
    store.update_settings(session.id, {"source": "california", "n_rows": 20})  # empty: may change
    store.add_answer(session.id, 0, 1, "a", "ann")
    before = store.session("s")
    for settings, dataset_id in [
        ({"source": "sample", "n_rows": 20}, None),
        ({"source": "california", "n_rows": 30}, None),
        ({"source": "california", "n_rows": 20}, store.add_dataset("other", pd.DataFrame({"x": [1.0]}))),
    ]:
        with pytest.raises(ValueError, match="holds 1 answer on its table"):
            store.update_settings(session.id, settings, dataset_id)
    store.update_settings(session.id, {"source": "california", "n_rows": 20, "target": "y"})  # same table
    assert store.session("s").settings["target"] == "y" and store.session("s").dataset_id == before.dataset_id
    with pytest.raises(KeyError, match="no data set 999"):
        store.update_settings(session.id, {"source": "california", "n_rows": 20}, 999)


def test_two_people_creating_one_session_name_at_once(store):
    """Another process creates the name after this one checked it is free: a ValueError naming the
    session (not the database's unique violation), and only the other's session is there."""
    other = Store(store.url)
    created = []

    def after_cursor_execute(connection, cursor, statement, parameters, context, executemany):
        if not created and statement.lstrip().upper().startswith("SELECT") and "FROM sessions" in statement:
            created.append(other.create_session("shared", settings={"n_rows": 7}))

    sa.event.listen(store.engine, "after_cursor_execute", after_cursor_execute)
    with pytest.raises(ValueError, match="a session named 'shared' already exists"):
        store.create_session("shared", settings={"n_rows": 5})
    sa.event.remove(store.engine, "after_cursor_execute", after_cursor_execute)
    assert created
    assert store.sessions()["name"].tolist() == ["shared"] and store.session("shared").settings == {"n_rows": 7}


def test_a_sessions_contents_in_words_name_only_what_it_holds():
    from ordercore.studio.store import describe_contents

    nothing = {"rules": 0, "answers": 0, "imported": 0, "queued": 0, "grades": 0}
    assert describe_contents(nothing) == "nothing"
    assert describe_contents(nothing | {"grades": 19}) == "19 grades"
    assert describe_contents(nothing | {"rules": 2, "answers": 1, "grades": 1}) == "2 rules, 1 answer and 1 grade"
    assert (
        describe_contents(nothing | {"imported": 1200, "queued": 3}) == "1,200 imported preferences and 3 queued pairs"
    )


def test_a_store_that_cannot_be_opened_says_which_and_why(tmp_path):
    """A file that is not a database, a directory that does not exist: the path and the reason, not
    SQLAlchemy's error and its web link."""
    from ordercore.studio.store import Store

    not_a_database = tmp_path / "notes.sqlite"
    not_a_database.write_text("not a database")
    with pytest.raises(ValueError, match=f"cannot open the store '{not_a_database}': file is not a database"):
        Store(f"sqlite:///{not_a_database}")
    missing = tmp_path / "missing" / "store.sqlite"
    with pytest.raises(ValueError, match="unable to open database file \\(does its directory exist"):
        Store(f"sqlite:///{missing}")
    assert not_a_database.read_text() == "not a database"  # nothing written


def session_readers() -> list[str]:
    """Every public ``Store`` method that reads one session by its id alone (found, not listed by hand)."""
    found = []
    for name, method in inspect.getmembers(Store, inspect.isfunction):
        parameters = list(inspect.signature(method).parameters.values())[1:]
        required = [p for p in parameters[1:] if p.default is inspect.Parameter.empty]
        if not name.startswith("_") and parameters and parameters[0].name == "session_id" and not required:
            found.append(name)
    return found


def test_the_readers_are_found():
    assert {"rules", "rule_numbers", "answers", "preferences", "grades", "contents"} <= set(session_readers())


@pytest.mark.parametrize("reader", [*session_readers(), "assessment"])
def test_every_reader_refuses_an_id_naming_no_session_and_reads_one_that_does(store, reader):
    held = store.create_session("held").id
    read = getattr(store, reader)
    arguments = ("key",) if reader == "assessment" else ()
    for unknown in (held + 1, 999, 0, -1):  # ids the store never gave (ids start at 1)
        with pytest.raises(KeyError, match=f"^'no session {unknown}'$"):
            read(unknown, *arguments)
    read(held, *arguments)  # an empty session is read, as empty
