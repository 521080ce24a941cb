"""The tenth corpus's store and session-engine cases (issue 32): a write under another connection's lock
gives up in words after the store's lock wait, on PostgreSQL as on SQLite (F12, F04); a PostgreSQL
schema that is not there is named (F10); a table with renamed columns is a data set of its own (SQ12,
PG12); the store refuses settings no session could open with (S092-S095); the ratings' text is never
a column of numbers (S074); ``next_pairs`` names what is wrong with its arguments (S042-S045, S047)."""

from __future__ import annotations

import contextlib
import re
import sqlite3
import uuid
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
import sqlalchemy as sa

from ordercore.studio.session import ACTIVE, SessionEngine
from ordercore.studio.store import Store, StoreBusyError
from tests.conftest import POSTGRES_URL
from tests.test_session_engine import add_rule, more_rooms
from tests.test_store_refusals import NoJob, new_session, table

LOCK_WAIT = 0.2
"""The tests' store lock wait, in seconds (the Studio's is 10)."""

STUCK = 60
"""Seconds after which a write still waiting for the held lock counts as waiting without limit."""


@contextlib.contextmanager
def holding_the_session(url: str, session_id: int):
    """Another connection holding what a write to the session needs, until the block ends: on SQLite the
    file's write lock (BEGIN EXCLUSIVE), on PostgreSQL the session's row (SELECT ... FOR UPDATE)."""
    if url.startswith("sqlite"):
        locker = sqlite3.connect(sa.make_url(url).database, isolation_level=None)
        locker.execute("BEGIN EXCLUSIVE")
        try:
            yield
        finally:
            locker.rollback()
            locker.close()
        return
    engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
    with engine.connect() as connection:
        connection.execute(sa.text("SELECT id FROM sessions WHERE id = :id FOR UPDATE"), {"id": session_id})
        try:
            yield
        finally:
            connection.rollback()
    engine.dispose()


def test_a_write_under_another_connections_lock_gives_up_in_words_and_stores_nothing(database_url):
    """F12 (PostgreSQL waited as long as the lock was held: 25 s for 25 s) and F04 (SQLite gave up with
    its raw "database is locked" and the SQL)."""
    store = Store(database_url, lock_wait=LOCK_WAIT)
    session_id = new_session(store, "homes", table())
    before = store.session_by_id(session_id).settings
    changed = {**before, "labelling": {"goal": 5}}
    with ThreadPoolExecutor(1) as pool, holding_the_session(database_url, session_id):  # released, then joined
        write = pool.submit(store.update_settings, session_id, changed)
        try:
            error = write.exception(timeout=STUCK)
        except TimeoutError:
            pytest.fail(f"the write was still waiting for the lock after {STUCK} s")
    assert isinstance(error, StoreBusyError) and isinstance(error, ValueError), repr(error)
    named = sa.make_url(database_url).database  # the SQLite file, or the PostgreSQL database
    assert str(error).startswith("the store ") and named in str(error)
    assert f"is busy: this write waited {LOCK_WAIT:g} s for a lock another" in str(error)
    assert "nothing was stored" in str(error) and "SQL" not in str(error)
    assert store.session_by_id(session_id).settings == before
    store.update_settings(session_id, changed)  # the lock released, the same write goes through
    assert store.session_by_id(session_id).settings == changed


@pytest.mark.parametrize("wait", [0, -1, float("nan"), "10", True])
def test_a_lock_wait_that_is_no_positive_number_is_refused(tmp_path, wait):
    """F04/F12's lock wait, a new parameter of ``Store``."""
    with pytest.raises(ValueError, match="a store's lock wait must be a positive number of seconds"):
        Store(f"sqlite:///{tmp_path / 's.sqlite'}", lock_wait=wait)


def test_a_postgresql_schema_that_does_not_exist_is_named():
    """F10: PostgreSQL said "no schema has been selected to create in"."""
    if POSTGRES_URL is None:
        pytest.skip("PostgreSQL: set ORDERCORE_TEST_POSTGRES_URL")
    schema = f"no_such_schema_{uuid.uuid4().hex[:8]}"
    url = sa.make_url(POSTGRES_URL).update_query_dict({"options": f"-csearch_path={schema}"})
    with pytest.raises(ValueError, match=f"its search_path '{schema}' names no schema of the database"):
        Store(url.render_as_string(hide_password=False))
    admin = sa.create_engine(POSTGRES_URL, poolclass=sa.pool.NullPool)
    with admin.connect() as connection:
        query = sa.text("SELECT count(*) FROM information_schema.schemata WHERE schema_name = :name")
        assert connection.execute(query, {"name": schema}).scalar() == 0
    admin.dispose()


def test_a_table_with_renamed_columns_is_a_data_set_of_its_own(store):
    """SQ12, PG12: the same values under other column names got the first table's id, name and columns."""
    frame = table(10)
    first = store.add_dataset("p1", frame)
    renamed = store.add_dataset("p2", frame.rename(columns={"x": "dist"}))
    assert renamed != first
    assert (store.dataset(renamed)["name"], store.dataset(renamed)["columns"]) == (
        "p2",
        '["dist", "rooms", "age", "price", "home_id"]',
    )
    assert store.add_dataset("p3", frame.copy()) == first  # the same table is still found again


@pytest.mark.parametrize(
    "change, said",
    [
        ({"labeled": [1, 1, 1, 2]}, "labeled row 1 is named 3 times; name each row once"),  # S092
        ({"features": ["x", "x", "rooms"]}, r"feature column\(s\) \['x'\] are named more than once"),  # S093
        ({"test_fraction": 1.5}, "the test share must be between 0 and 1, got 1.5"),  # S094
        ({"labeled": [0, 1, 2], "test": [2, 3]}, "labeled and test rows overlap: row 2 is both labeled and held out"),
    ],
    ids=["S092", "S093", "S094", "S095"],
)
def test_update_settings_refuses_a_split_no_session_could_open_with(store, change, said):
    """S092-S095: stored, and every later ``data()`` raised."""
    session_id = new_session(store, "homes", table())
    before = store.session_by_id(session_id).settings
    with pytest.raises(ValueError, match=said):
        store.update_settings(session_id, {**before, **change})
    assert store.session_by_id(session_id).settings == before
    with pytest.raises(ValueError, match=said):
        store.create_session("another", settings={**before, **change})
    assert store.sessions()["name"].tolist() == ["homes"]
    assert SessionEngine(store, session_id, "t", NoJob()).data() is not None  # the session still opens


@pytest.fixture
def engine(tmp_path):
    """A session on 60 homes, 20 labeled, in a SQLite store (these are the engine's checks, not the store's)."""
    store = Store(f"sqlite:///{tmp_path / 'studio.sqlite'}")
    engine = SessionEngine(store, new_session(store, "homes", table()), "test", NoJob())
    engine.set_model(automatic_trust=False)
    yield engine
    engine.wait(60)
    engine.close()


@pytest.mark.parametrize("column, why", [("price", " (it is the session's target)"), ("rooms", "")])
def test_a_column_of_numbers_is_refused_as_the_ratings_text(engine, column, why):
    """S074: text='price' was stored, and the items' "texts" were the target's values."""
    said = f"column '{column}' holds numbers, not texts{why}: grade the table's rows"
    with pytest.raises(ValueError, match=f"^{re.escape(said)}"):
        engine.set_options("ratings", text=column)
    assert engine.options("ratings")["text"] is None
    with pytest.raises(ValueError, match="holds numbers, not texts"):
        engine.rating_items(column)


def test_pairs_of_a_rule_the_session_does_not_hold_are_refused_naming_it(engine):
    """S042: rule 999 gave no pairs, without a word."""
    with pytest.raises(KeyError, match="rule #999 is not one of this session's"):
        engine.next_pairs(999, "ann", np.random.default_rng(0))
    with pytest.raises(ValueError, match="source must be 'active' or 'queue' or a rule's id, got 'actve'"):
        engine.next_pairs("actve", "ann", np.random.default_rng(0))
    rule_id = add_rule(engine, more_rooms())
    preferences, provenance = engine.preferences()
    made = {frozenset(pair) for pair in zip(preferences.i.tolist(), preferences.j.tolist(), strict=True)}
    drawn = engine.next_pairs(rule_id, "ann", np.random.default_rng(0), count=3)
    assert len(drawn) == 3 and all(frozenset(pair) in made for pair, _ in drawn)


@pytest.mark.parametrize(
    "options, said",
    [
        ({"count": -3}, r"count \(the number of pairs\) must be a whole number >= 0, got -3"),  # S044
        ({"count": 2.5}, r"count \(the number of pairs\) must be a whole number >= 0, got 2.5"),
        ({"exclude": [(1, 2, 3)]}, r"exclude holds pairs of two rows \(a, b\), got \(1, 2, 3\)"),  # S045
        ({"exclude": [(1, "b")]}, "exclude's row 'b' is not a row number"),
        ({"rng": 7}, "rng must be a numpy Generator"),
    ],
    ids=["S044", "count 2.5", "S045", "exclude text", "rng 7"],
)
def test_next_pairs_names_the_argument_it_cannot_take(engine, options, said):
    """S044, S045: refused as "n must be ...", or in numpy's words about reshaping."""
    arguments = {"source": ACTIVE, "annotator": "ann", "rng": np.random.default_rng(0)} | options
    with pytest.raises((ValueError, TypeError), match=f"^{said}"):
        engine.next_pairs(**arguments)


def test_next_pairs_gives_none_for_count_0_and_draws_with_a_fresh_generator_for_rng_none(engine):
    """S043 ("k must be a positive integer, got 0") and S047 (AttributeError on None's 'choice')."""
    assert engine.next_pairs(ACTIVE, "ann", np.random.default_rng(0), count=0) == []
    drawn = engine.next_pairs(ACTIVE, "ann", None, count=2)
    pool = set(engine.data().pool.tolist())
    assert len(drawn) == 2
    assert all(a != b and {a, b} <= pool and isinstance(swapped, bool) for (a, b), swapped in drawn)
