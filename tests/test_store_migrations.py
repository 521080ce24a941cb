"""Stores made by earlier releases open with the current code: every row reads back, the tables gain
what later releases added, and each migration is applied once."""

import io
import json
import sqlite3
import threading
import time
from contextlib import closing
from datetime import UTC, datetime

import numpy as np
import pytest
import sqlalchemy as sa

from ordercore.knowledge.rules import Ordering, Rule, Within, generate
from ordercore.preferences import PreferenceSet
from ordercore.studio.store import MIGRATIONS, Store
from ordercore.studio.store.migrations import Migration
from tests.store_checks import FRAME, pairs_of, triples
from tests.store_releases import SINCE_RELEASE_0_2, release_0_2


def test_a_store_from_before_the_revision_column_opens_with_its_answers(tmp_path):
    import sqlite3

    path = tmp_path / "old.sqlite"
    first = Store(f"sqlite:///{path}")
    session = first.create_session("old", settings={"n_rows": 10})
    first.add_answer(session.id, 1, 2, "a", "ann")
    first.engine.dispose()
    with sqlite3.connect(path) as connection:  # the sessions table as the previous release made it
        connection.execute("ALTER TABLE sessions DROP COLUMN revision")
        for table in SINCE_RELEASE_0_2:  # nor did it have these
            connection.execute(f"DROP TABLE {table}")
    store = Store(f"sqlite:///{path}")
    assert store.session("old").settings == {"n_rows": 10}
    assert triples(store.preferences(session.id)[0]) == [(1, 2, 0.0, 1.0)]
    assert store.revision(session.id) == 0
    store.add_answer(session.id, 3, 4, "b", "ann")
    assert store.revision(session.id) == 1


def test_a_store_from_before_answer_numbers_numbers_each_sessions_answers_in_the_order_given(tmp_path):
    """Migration 4 on a store of version 3: two sessions' answers interleaved (ids across sessions), one
    removed; each session's read 1, 2, 3 … by id, and a new answer is numbered after the highest."""
    path = tmp_path / "old.sqlite"
    first = Store(f"sqlite:///{path}")
    one, two = (first.create_session(name, settings={"n_rows": 10}).id for name in ("one", "two"))
    given = [first.add_answer(session, k, k + 1, "a", "ann") for k, session in enumerate([one, two, one, two, one])]
    first.remove_answer(given[2], "ann")
    first.engine.dispose()
    with sqlite3.connect(path) as connection:  # the answers as version 3 made them
        connection.execute("ALTER TABLE answers DROP COLUMN number")
        connection.execute("ALTER TABLE rules DROP COLUMN number")
        connection.execute("ALTER TABLE sessions DROP COLUMN last_rule_number")
        connection.execute("DELETE FROM schema_versions WHERE id >= 4")
    store = Store(f"sqlite:///{path}")
    assert store.answers(one)[["id", "number"]].values.tolist() == [[given[0], 1], [given[4], 2]]
    assert store.answers(two)[["id", "number"]].values.tolist() == [[given[1], 1], [given[3], 2]]
    store.add_answer(one, 7, 8, "b", "ann")
    assert store.answers(one)["number"].tolist() == [1, 2, 3]


def test_a_store_from_before_rule_numbers_numbers_each_sessions_rules_in_the_order_added(tmp_path):
    """Migration 5 on a store of version 4 (issue 33, a first-time expert's Minor 4: a fresh session's rules
    read #3, #4, then #6): two sessions' rules interleaved (ids across sessions), one removed; each session's
    read 1, 2 … by id, kept when another is removed, and a new rule is numbered after the highest."""
    path = tmp_path / "old.sqlite"
    first = Store(f"sqlite:///{path}")
    one, two = (first.create_session(name, settings={"n_rows": 10}).id for name in ("one", "two"))
    added = [
        first.add_rule(session, Rule(f"r{k}", [Within("x", k)], Ordering("y")), PreferenceSet.order(k, k + 1), "ann")
        for k, session in enumerate([one, two, one, two, one])
    ]
    first.remove_rule(added[2])
    first.engine.dispose()
    with sqlite3.connect(path) as connection:  # the rules as version 4 made them
        connection.execute("ALTER TABLE rules DROP COLUMN number")
        connection.execute("ALTER TABLE sessions DROP COLUMN last_rule_number")
        connection.execute("DELETE FROM schema_versions WHERE id >= 5")
    store = Store(f"sqlite:///{path}")
    assert store.rule_numbers(one) == {added[0]: 1, added[4]: 2}
    assert store.rule_numbers(two) == {added[1]: 1, added[3]: 2}
    store.remove_rule(added[0])
    new = store.add_rule(one, Rule("r9", [Within("x", 9)], Ordering("y")), PreferenceSet.order(0, 9), "ann")
    assert store.rule_numbers(one) == {added[4]: 2, new: 3}


def test_a_store_from_before_the_rule_counter_gives_numbers_past_the_highest_held(tmp_path):
    """Migration 6 on a store of version 5 (issue 33, a first-time expert's F4: a removed rule's number was
    given to the next rule): session one holds #1 and #3 (#2 removed), session two #1 (its #2 removed, which
    version 5 kept no trace of); after it, removing one's #3 and adding gives #4, two's next is #2."""
    path = tmp_path / "old.sqlite"
    first = Store(f"sqlite:///{path}")
    one, two = (first.create_session(name, settings={"n_rows": 10}).id for name in ("one", "two"))
    added = [
        first.add_rule(session, Rule(f"r{k}", [Within("x", k)], Ordering("y")), PreferenceSet.order(k, k + 1), "ann")
        for k, session in enumerate([one, one, two, one, two])
    ]
    first.remove_rule(added[1])
    first.remove_rule(added[4])
    first.engine.dispose()
    with sqlite3.connect(path) as connection:  # the sessions as version 5 made them
        connection.execute("ALTER TABLE sessions DROP COLUMN last_rule_number")
        connection.execute("DELETE FROM schema_versions WHERE id = 6")
    store = Store(f"sqlite:///{path}")
    assert store.rule_numbers(one) == {added[0]: 1, added[3]: 3} and store.rule_numbers(two) == {added[2]: 1}
    store.remove_rule(added[3])
    new = [
        store.add_rule(session, Rule("r9", [Within("x", 9)], Ordering("y")), PreferenceSet.order(0, 9), "ann")
        for session in (one, two)
    ]
    assert store.rule_numbers(one) == {added[0]: 1, new[0]: 4} and store.rule_numbers(two) == {added[2]: 1, new[1]: 2}


OLD_ANSWERS = """CREATE TABLE answers (
    id INTEGER NOT NULL,
    session_id INTEGER NOT NULL,
    row_a INTEGER NOT NULL,
    row_b INTEGER NOT NULL,
    choice VARCHAR(10) NOT NULL,
    weight FLOAT NOT NULL,
    margin FLOAT NOT NULL,
    annotator VARCHAR(200) NOT NULL,
    created_at DATETIME NOT NULL,
    PRIMARY KEY (id),
    FOREIGN KEY(session_id) REFERENCES sessions (id) ON DELETE CASCADE
)"""


def test_a_store_from_before_audit_answers_reads_every_answer_and_links_new_ones(tmp_path):
    """The answers table as the previous release made it (no rule_id): opening the store adds the
    column, every answer and preference reads as before (rule_id <NA>), and new answers link."""
    path = tmp_path / "old.sqlite"
    first = Store(f"sqlite:///{path}")
    session = first.create_session("old", settings={"n_rows": len(FRAME)})
    first.add_answer(session.id, 1, 2, "a", "ann", weight=2.0)
    first.add_answer(session.id, 3, 4, "equal", "bob", margin=0.5)
    rule = Rule("r", [Within("age", 1.5)], Ordering("rooms"))
    rule_id = first.add_rule(session.id, rule, generate(rule, FRAME).preferences, "ann")
    before = first.answers(session.id).drop(columns="rule_id").to_csv(index=False)
    made_before = triples(first.preferences(session.id)[0])
    first.engine.dispose()
    columns = "id, session_id, row_a, row_b, choice, weight, margin, annotator, created_at"
    with closing(sqlite3.connect(path)) as connection, connection:  # the answers table of the previous release
        connection.execute(OLD_ANSWERS.replace("answers", "answers_old", 1))
        connection.execute(f"INSERT INTO answers_old SELECT {columns} FROM answers")
        connection.execute("DROP TABLE answers")
        connection.execute("ALTER TABLE answers_old RENAME TO answers")
        for table in SINCE_RELEASE_0_2:  # nor did it have these
            connection.execute(f"DROP TABLE {table}")
    with closing(sqlite3.connect(path)) as connection:
        assert "rule_id" not in [row[1] for row in connection.execute("PRAGMA table_info(answers)")]
    store = Store(f"sqlite:///{path}")
    answers = store.answers(session.id)
    assert answers.drop(columns="rule_id").to_csv(index=False) == before
    assert answers["rule_id"].isna().all()
    assert triples(store.preferences(session.id)[0]) == made_before
    store.add_answer(session.id, 0, 1, "b", "ann", rule_id=rule_id)
    assert store.answers(session.id)["rule_id"].tolist()[-1] == rule_id
    store.undo_answer(session.id, "ann")
    assert len(store.answers(session.id)) == 2


def test_a_store_from_before_blocks_reads_its_rule_rows_first_and_removes_them(tmp_path):
    """A store whose rule preferences are rows (no blocks table, no revision on preferences): they
    read back as written, new writes come after them, and removing the old rule removes its rows."""
    path = tmp_path / "old.sqlite"
    Store(f"sqlite:///{path}").engine.dispose()
    with closing(sqlite3.connect(path)) as connection:  # the tables as the previous release made them
        connection.execute("DROP TABLE preference_blocks")
        connection.execute("ALTER TABLE preferences DROP COLUMN revision")
        for table in SINCE_RELEASE_0_2:  # nor did it have these
            connection.execute(f"DROP TABLE {table}")
        connection.execute(
            "INSERT INTO sessions (id, name, settings, revision, created_at, updated_at) "
            "VALUES (1, 'old', '{\"n_rows\": 20}', 2, '2025-01-01', '2025-01-01')"
        )
        connection.execute(
            "INSERT INTO rules (id, session_id, name, spec, annotator, created_at) "
            "VALUES (1, 1, 'r', ?, 'ann', '2025-01-01')",
            (Rule("r", [Within("age", 1.0)], Ordering("rooms")).to_json(),),
        )
        connection.execute(
            "INSERT INTO answers (id, session_id, row_a, row_b, choice, weight, margin, annotator, created_at) "
            "VALUES (1, 1, 8, 9, 'a', 1.0, 0.0, 'ann', '2025-01-01')"
        )
        for i, j, rule_id, answer_id in [(3, 2, 1, None), (8, 9, None, 1), (2, 1, 1, None)]:
            connection.execute(
                "INSERT INTO preferences (session_id, i, j, margin, weight, source, rule_id, answer_id, annotator, "
                "created_at) VALUES (1, ?, ?, 0.0, 1.0, ?, ?, ?, 'ann', '2025-01-01')",
                (i, j, "rule" if rule_id else "click", rule_id, answer_id),
            )
        connection.commit()
    store = Store(f"sqlite:///{path}")
    assert pairs_of(store.preferences(1)[0]) == [(3, 2), (8, 9), (2, 1)]
    store.add_rule(1, Rule("new", [Within("age", 2.0)], Ordering("rooms")), PreferenceSet.order([6, 7], [5, 6]), "ann")
    store.add_answer(1, 0, 4, "b", "ann")
    assert pairs_of(store.preferences(1)[0]) == [(3, 2), (8, 9), (2, 1), (6, 5), (7, 6), (4, 0)]
    store.remove_rule(1)
    made, provenance = store.preferences(1)
    assert pairs_of(made) == [(8, 9), (6, 5), (7, 6), (4, 0)]
    assert provenance["source"].tolist() == ["click", "rule", "rule", "click"]


# ---------------------------------------------------------------- stores written by the old tables, on both backends

WRITTEN = datetime(2025, 3, 4, 5, 6, 7, 890123, tzinfo=UTC)
RULE = Rule("r", [Within("age", 1.5)], Ordering("rooms"))
SETTINGS = {"n_rows": 6, "target": "rooms", "note": "prix\x00€", "ratings": {"scale": 4}}


def npz(i, j, margin, weight) -> bytes:
    """A block's content as release 0.2.0 wrote it: the arrays i, j, margin and weight in one .npz."""
    buffer = io.BytesIO()
    np.savez(buffer, i=np.array(i), j=np.array(j), margin=np.array(margin, float), weight=np.array(weight, float))
    return buffer.getvalue()


def old_store(url: str, before_sides: bool) -> sa.MetaData:
    """A database made and filled by the tables of release 0.2.0 (``before_sides``: of ca7bda2), its
    rows written by hand as that code wrote them (ids 1, 2, ... in the order written): session 1 holds
    a rule (a block of two preferences), three answers (one 'about equal' auditing the rule, one skip),
    an import (a block) and a model run, and from 0.2.0 on a queued pair and two grades; session 2 one
    answer.  Returns the old tables."""
    sides = {} if before_sides else {"swapped": True}
    answer = {"weight": 1.0, "margin": 0.0, "session_id": 1}
    click = {"source": "click", "rule_id": None, "weight": 1.0, "session_id": 1}
    block = {"session_id": 1, "rule_id": None}
    run = {"session_id": 1, "model": "ssl", "parameters": '{"lambda2": 1.0}', "metrics": '{"test_mae": 2.5}'}
    rows = [
        ("datasets", dict(content_hash="c" * 64, name="homes.csv", n_rows=6, columns='["a"]', content=b"a\n1\x00")),
        ("datasets", dict(content_hash="d" * 64, name="built in", n_rows=6, columns="[]", content=None)),
        ("sessions", dict(name="old", dataset_id=1, settings=json.dumps(SETTINGS), revision=5, updated_at=WRITTEN)),
        ("sessions", dict(name="other", dataset_id=None, settings='{"n_rows": 6}', revision=1, updated_at=WRITTEN)),
        ("rules", dict(session_id=1, name="r", spec=RULE.to_json(), annotator="ann")),
        ("answers", answer | dict(row_a=0, row_b=1, choice="a", weight=2.0, margin=0.5, annotator="ann", **sides)),
        ("answers", answer | dict(row_a=2, row_b=3, choice="equal", margin=1.0, annotator="bob", rule_id=1)),
        ("answers", answer | dict(row_a=4, row_b=5, choice="skip", annotator="bob")),
        ("answers", answer | dict(session_id=2, row_a=0, row_b=1, choice="b", annotator="cy")),
        ("preferences", click | dict(i=0, j=1, margin=0.5, weight=2.0, answer_id=1, annotator="ann", revision=1)),
        ("preferences", click | dict(i=2, j=3, margin=-1.0, answer_id=2, annotator="bob", revision=3)),
        ("preferences", click | dict(i=3, j=2, margin=-1.0, answer_id=2, annotator="bob", revision=3)),
        ("preferences", click | dict(session_id=2, i=1, j=0, margin=0.0, answer_id=4, annotator="cy", revision=1)),
        ("preference_blocks", block | dict(revision=2, source="rule", rule_id=1, annotator="ann", n_preferences=2)),
        ("preference_blocks", block | dict(revision=4, source="import", annotator="cy", n_preferences=1)),
        ("model_runs", run | dict(n_preferences=9)),
    ]
    blocks = iter([npz([1, 2], [0, 1], [0.0, 0.0], [1.0, 1.0]), npz([5], [4], [0.25], [3.0])])  # in that order
    if not before_sides:
        rows += [
            ("queued_pairs", dict(session_id=1, row_a=1, row_b=4, copies=2, annotator="ann")),
            ("grades", dict(session_id=1, row=3, grade=4, annotator="ann")),
            ("grades", dict(session_id=1, row=3, grade=2, annotator="bob")),
        ]
    tables = release_0_2(before_sides)
    engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
    with engine.begin() as connection:
        tables.create_all(connection)
        for name, value in rows:
            if name == "preference_blocks":
                value |= {"content": next(blocks)}
            connection.execute(tables.tables[name].insert().values(created_at=WRITTEN, **value))
    engine.dispose()
    return tables


def old_rows(url: str, tables: sa.MetaData) -> dict:
    """Every row of the old tables, their old columns only, read on a connection of the test's own."""
    engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
    with engine.connect() as connection:
        rows = {
            name: connection.execute(sa.select(table).order_by(table.c.id)).all()
            for name, table in tables.tables.items()
        }
    engine.dispose()
    return rows


@pytest.mark.parametrize("before_sides", [False, True], ids=["release 0.2.0", "before sides, queue, grades"])
def test_a_store_written_by_an_old_release_opens_with_every_row_as_written(database_url, before_sides):
    """The tables and rows of release 0.2.0 (bc1d19e: the last store without versions), and of ca7bda2
    (before answers.swapped, the shared queue and grades): opened by the current Store, every old row
    is unchanged, and every answer, grade, rule, preference, setting and model run reads back as the
    test wrote it; the store gains the tables of both migrations, and writes of every kind work."""
    tables = old_store(database_url, before_sides)
    before = old_rows(database_url, tables)
    store = Store(database_url)
    assert old_rows(database_url, tables) == before
    with store.engine.connect() as connection:
        versions_held = connection.execute(sa.text("SELECT id FROM schema_versions ORDER BY id")).scalars().all()
        assert versions_held == [1, 2, 3, 4, 5, 6]

    assert store.session("old").settings == SETTINGS and store.session_by_id(2).settings == {"n_rows": 6}
    assert bytes(store.dataset(1)["content"]) == b"a\n1\x00" and store.dataset(2)["content"] is None
    assert store.revision(1) == 5 and store.revision(2) == 1
    assert store.rules(1) == [(1, RULE)] and store.rules(2) == []
    answers = store.answers(1)
    columns = ["id", "row_a", "row_b", "choice", "weight", "margin", "annotator", "rule_id", "swapped"]
    assert answers[columns].astype(object).where(answers[columns].notna(), None).values.tolist() == [
        [1, 0, 1, "a", 2.0, 0.5, "ann", None, None if before_sides else True],
        [2, 2, 3, "equal", 1.0, 1.0, "bob", 1, None],
        [3, 4, 5, "skip", 1.0, 0.0, "bob", None, None],
    ]
    assert answers["imported"].tolist() == [False, False, False]  # given in that store, not read from a file
    assert answers["number"].tolist() == [1, 2, 3]  # numbered in the order given (migration 4)
    made, provenance = store.preferences(1)
    assert triples(made) == [(0, 1, 0.5, 2.0), (1, 0, 0.0, 1.0), (2, 1, 0.0, 1.0)] + [
        (2, 3, -1.0, 1.0),
        (3, 2, -1.0, 1.0),
        (5, 4, 0.25, 3.0),
    ]
    assert provenance.astype(object).where(provenance.notna(), None).values.tolist() == [
        ["click", None, 1, "ann"],
        ["rule", 1, None, "ann"],
        ["rule", 1, None, "ann"],
        ["click", None, 2, "bob"],
        ["click", None, 2, "bob"],
        ["import", None, None, "cy"],
    ]
    assert triples(store.preferences(2)[0]) == [(1, 0, 0.0, 1.0)]
    grades = [] if before_sides else [(3, 4, "ann"), (3, 2, "bob")]
    assert [tuple(row) for row in store.grades(1)[["row", "grade", "annotator"]].itertuples(index=False)] == grades
    queued = [] if before_sides else [(1, 4, 2, "ann")]
    assert [tuple(row) for row in store.queued_pairs(1)[["row_a", "row_b", "copies", "annotator"]].values] == queued
    runs = store.model_runs(1)
    assert runs[["model", "parameters", "metrics", "n_preferences"]].values.tolist() == [
        ["ssl", {"lambda2": 1.0}, {"test_mae": 2.5}, 9]
    ]
    assert store.contents(1) == {"rules": 1, "answers": 3, "imported": 1} | {
        "queued": len(queued),
        "grades": len(grades),
    }

    store.edit_answer(1, "ann", "b")
    store.add_answer(1, 1, 2, "a", "dee", swapped=False, rule_id=1)  # a pair of the rule's block
    store.add_grade(1, 0, 1, "dee")
    store.queue_pairs(1, [(0, 2)], 1, "dee")
    store.remove_rule(1)  # its block goes; its audit answers stay, unlinked
    assert store.undo_answer(1, "bob") == 3
    answers = store.answers(1)
    assert answers[["id", "choice", "rule_id", "swapped"]].astype(object).where(
        answers.notna(), None
    ).values.tolist() == [
        [1, "b", None, None if before_sides else True],
        [2, "equal", None, None],
        [5, "a", None, False],
    ]
    assert triples(store.preferences(1)[0]) == [(2, 3, -1.0, 1.0), (3, 2, -1.0, 1.0), (5, 4, 0.25, 3.0)] + [
        (1, 0, 0.5, 2.0),
        (1, 2, 0.0, 1.0),
    ]
    assert store.claim_assessment(1, "k", "worker", 60.0)
    store.finish_assessment(1, "k", "worker", b"npz")
    assert store.latest_assessment(1).content == b"npz"


# ---------------------------------------------------------------- the migrations themselves


def described(url: str) -> dict:
    """The database's tables as it describes them (column names, types as the dialect writes them,
    nullability and server defaults; primary keys, unique constraints and foreign keys)."""
    engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
    with engine.connect() as connection:
        inspector = sa.inspect(connection)
        tables = {}
        for name in sorted(inspector.get_table_names()):
            columns = inspector.get_columns(name)
            tables[name] = {
                "columns": sorted(
                    (c["name"], c["type"].compile(dialect=engine.dialect), c["nullable"], c["default"]) for c in columns
                ),
                "primary key": inspector.get_pk_constraint(name)["constrained_columns"],
                "unique": sorted(tuple(u["column_names"]) for u in inspector.get_unique_constraints(name)),
                "foreign keys": sorted(
                    (tuple(k["constrained_columns"]), k["referred_table"], tuple(k["referred_columns"]))
                    + (k["options"].get("ondelete"),)
                    for k in inspector.get_foreign_keys(name)
                ),
            }
    engine.dispose()
    return tables


def test_the_migrations_make_the_tables_the_schema_describes(new_database):
    """A new store (made from ``schema``) and stores of release 0.2.0 and of ca7bda2 brought up by the
    migrations: the same tables, columns, keys and constraints."""
    new = new_database()
    Store(new).engine.dispose()
    for before_sides in (False, True):
        old = new_database()
        old_store(old, before_sides)
        Store(old).engine.dispose()
        assert described(old) == described(new), f"before_sides={before_sides}"


def test_the_migrations_are_numbered_one_after_another():
    assert [step.version for step in MIGRATIONS] == list(range(1, len(MIGRATIONS) + 1))


def counted(calls: list, fail: bool = False) -> Migration:
    """A migration after the last (a column 'note' on model runs) that records each time it is applied (and
    takes a while, so that another Store may try to slip in); with ``fail`` it raises afterwards."""

    def apply(connection):
        calls.append(1)
        connection.execute(sa.text("ALTER TABLE model_runs ADD COLUMN note VARCHAR(20)"))
        time.sleep(0.3)
        if fail:
            raise RuntimeError("a step failing after its change")

    return Migration(len(MIGRATIONS) + 1, "a note on model runs", apply)


def versions(url: str) -> list[int]:
    engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
    with engine.connect() as connection:
        held = connection.execute(sa.text("SELECT id FROM schema_versions ORDER BY id")).scalars().all()
    engine.dispose()
    return held


def test_each_migration_is_applied_once_even_by_stores_opening_together(new_database, monkeypatch):
    """Four Stores open a store of release 0.2.0 at once (threads) and open it again: the extra step is
    applied once, its version recorded once after 1 … 6; a new store records every version without
    applying a step."""
    calls = []
    monkeypatch.setattr("ordercore.studio.store.migrations.MIGRATIONS", (*MIGRATIONS, counted(calls)))
    url = new_database()
    old_store(url, before_sides=False)
    start, errors = threading.Barrier(4), []

    def open_store():
        start.wait()
        try:
            Store(url).engine.dispose()
        except Exception as error:  # counted: the test wants none
            errors.append(f"{type(error).__name__}: {error}")

    threads = [threading.Thread(target=open_store) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    Store(url).engine.dispose()
    assert errors == [] and calls == [1] and versions(url) == [1, 2, 3, 4, 5, 6, 7]
    new = new_database()
    Store(new).engine.dispose()
    assert calls == [1] and versions(new) == [1, 2, 3, 4, 5, 6, 7]


def test_a_migration_that_fails_leaves_the_store_as_it_was(new_database, monkeypatch):
    """An extra step fails after adding its column: opening raises, and the store of release 0.2.0 is
    as it was (no column, no assessments, no versions, every row); without the step it opens."""
    url = new_database()
    tables = old_store(url, before_sides=False)
    before = old_rows(url, tables), described(url)
    monkeypatch.setattr("ordercore.studio.store.migrations.MIGRATIONS", (*MIGRATIONS, counted([], fail=True)))
    with pytest.raises(RuntimeError, match="a step failing"):
        Store(url)
    assert (old_rows(url, tables), described(url)) == before
    monkeypatch.undo()
    assert Store(url).rules(1) == [(1, RULE)] and versions(url) == [1, 2, 3, 4, 5, 6]


def test_a_store_of_a_newer_version_is_refused_and_left_alone(database_url):
    store = Store(database_url)
    store.create_session("s", settings={"n_rows": 3})
    with store.engine.begin() as connection:
        connection.execute(
            sa.text("INSERT INTO schema_versions (id, description, created_at) VALUES (7, 'later', :at)"),
            {"at": WRITTEN},
        )
    store.engine.dispose()
    with pytest.raises(RuntimeError, match="schema version 7, newer than this ordercore knows \\(6\\)"):
        Store(database_url)
    assert versions(database_url) == [1, 2, 3, 4, 5, 6, 7]
