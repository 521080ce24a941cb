"""The session store: answers, rules and their preferences survive, undo works, a failed write
changes nothing, and a second process reads what the first committed."""

import json
import multiprocessing
import sqlite3
import subprocess
import sys
import threading
from contextlib import closing, contextmanager
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import sqlalchemy as sa

from ordercore.knowledge.rules import Ordering, Rule, Within, generate
from ordercore.preferences import PreferenceSet
from ordercore.studio.store import Store, metadata, preference_blocks, store_url


@pytest.fixture
def store(database_url):
    """A store on an empty database, on SQLite and on PostgreSQL."""
    return Store(database_url)


def triples(made: PreferenceSet):
    return list(zip(made.i.tolist(), made.j.tolist(), made.margin.tolist(), made.weight.tolist(), strict=True))


def test_answers_make_the_preferences_they_say_and_undo_removes_them(store):
    session = store.create_session("s1", settings={"n_rows": 10})
    store.add_answer(session.id, 1, 2, "a", "ann")
    store.add_answer(session.id, 3, 4, "b", "ann", weight=0.5, margin=2.0)
    store.add_answer(session.id, 5, 6, "equal", "bob", margin=1.0)
    store.add_answer(session.id, 7, 8, "skip", "bob")
    made, provenance = store.preferences(session.id)
    assert triples(made) == [(1, 2, 0.0, 1.0), (4, 3, 2.0, 0.5), (5, 6, -1.0, 1.0), (6, 5, -1.0, 1.0)]
    assert provenance["source"].tolist() == ["click"] * 4
    assert provenance["annotator"].tolist() == ["ann", "ann", "bob", "bob"]
    assert store.answers(session.id)["choice"].tolist() == ["a", "b", "equal", "skip"]
    store.undo_answer(session.id, "bob")  # the skip: no preference goes
    store.undo_answer(session.id, "bob")  # 'about equal': both directions go
    made, _ = store.preferences(session.id)
    assert triples(made) == [(1, 2, 0.0, 1.0), (4, 3, 2.0, 0.5)]
    store.undo_answer(session.id, "ann")
    store.undo_answer(session.id, "ann")
    assert store.undo_answer(session.id, "ann") is None and len(store.preferences(session.id)[0]) == 0


def test_a_store_from_before_the_revision_column_opens_with_its_answers(tmp_path):
    import sqlite3

    path = tmp_path / "old.sqlite"
    first = Store(f"sqlite:///{path}")
    session = first.create_session("old", settings={"n_rows": 10})
    first.add_answer(session.id, 1, 2, "a", "ann")
    first.engine.dispose()
    with sqlite3.connect(path) as connection:  # the sessions table as the previous release made it
        connection.execute("ALTER TABLE sessions DROP COLUMN revision")
    store = Store(f"sqlite:///{path}")
    assert store.session("old").settings == {"n_rows": 10}
    assert triples(store.preferences(session.id)[0]) == [(1, 2, 0.0, 1.0)]
    assert store.revision(session.id) == 0
    store.add_answer(session.id, 3, 4, "b", "ann")
    assert store.revision(session.id) == 1


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


def test_audit_answers_link_to_their_rule_count_as_clicks_and_outlive_it(store):
    session = store.create_session("s1", settings={"n_rows": len(FRAME)})
    other = store.create_session("s2", settings={"n_rows": len(FRAME)})
    rule = Rule("r", [Within("age", 1.5)], Ordering("rooms"))
    rule_id = store.add_rule(session.id, rule, generate(rule, FRAME).preferences, "ann")
    store.add_answer(session.id, 2, 1, "a", "ann", rule_id=rule_id)
    store.add_answer(session.id, 3, 4, "a", "ann")
    answers = store.answers(session.id)
    assert answers["rule_id"].tolist()[0] == rule_id and pd.isna(answers["rule_id"].tolist()[1])
    made, provenance = store.preferences(session.id)
    clicks = made[(provenance["source"] == "click").to_numpy()]
    assert pairs_of(clicks) == [(2, 1), (3, 4)]
    before = snapshot(store)
    for bad in (rule_id + 100, None):
        if bad is None:  # a rule of another session
            with pytest.raises(ValueError, match="no rule"):
                store.add_answer(other.id, 2, 1, "a", "ann", rule_id=rule_id)
        else:
            with pytest.raises(ValueError, match="no rule"):
                store.add_answer(session.id, 2, 1, "a", "ann", rule_id=bad)
    assert snapshot(store) == before
    store.remove_rule(rule_id)
    answers = store.answers(session.id)
    assert len(answers) == 2 and answers["rule_id"].isna().all()
    made, _ = store.preferences(session.id)
    assert pairs_of(made) == [(2, 1), (3, 4)]


def test_rules_store_their_preferences_and_take_them_away(store):
    frame = pd.DataFrame({"age": [1.0, 2.0, 3.0, 10.0], "rooms": [1, 2, 3, 4]})
    rule = Rule("r", [Within("age", 1.5)], Ordering("rooms"))
    made = generate(rule, frame).preferences
    session = store.create_session("s", settings={"n_rows": 20})
    rule_id = store.add_rule(session.id, rule, made, "ann")
    stored, provenance = store.preferences(session.id)
    assert stored == made and set(provenance["rule_id"]) == {rule_id}
    assert store.rules(session.id) == [(rule_id, rule)]
    assert json.loads(store.export_rules(session.id)) == [rule.to_dict() | {"annotator": "ann", "pairs": len(made)}]
    store.remove_rule(rule_id)
    assert len(store.preferences(session.id)[0]) == 0 and store.rules(session.id) == []


def test_a_failed_write_changes_nothing(store):
    session = store.create_session("s", settings={"n_rows": 20})
    store.add_answer(session.id, 0, 1, "a", "ann")
    before = store.preferences(session.id)[0]
    for bad in [
        dict(choice="maybe"),
        dict(choice="a", weight=-1.0),
        dict(choice="a", row_b=0),
        dict(choice="equal", margin=-1.0),
        dict(choice="a", annotator=""),
    ]:
        arguments = dict(row_a=0, row_b=2, annotator="ann") | bad
        with pytest.raises(ValueError):
            store.add_answer(session.id, **arguments)
    with pytest.raises(KeyError):
        store.add_answer(999, 0, 1, "a", "ann")
    assert store.preferences(session.id)[0] == before and len(store.answers(session.id)) == 1
    with pytest.raises(ValueError, match="already exists"):
        store.create_session("s")


def test_a_second_process_reads_what_the_first_committed(database_url):
    url = database_url
    writer = Store(url)
    session = writer.create_session("durable", settings={"n_rows": 20})
    for pair in [(0, 1), (2, 3), (4, 5)]:
        writer.add_answer(session.id, *pair, "a", "ann")
    code = (
        "import sys; from ordercore.studio.store import Store; "
        f"s = Store({url!r}); made, _ = s.preferences(s.session('durable').id); "
        "print(len(made), made.i.tolist())"
    )
    root = Path(__file__).resolve().parents[1]
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root, check=True)
    assert result.stdout.split(maxsplit=1) == ["3", "[0, 2, 4]\n"]


def test_export_and_import_round_trip(store):
    source = store.create_session("from", settings={"n_rows": 20})
    store.add_answer(source.id, 1, 2, "a", "ann", weight=2.0, margin=0.5)
    store.add_answer(source.id, 3, 4, "equal", "ann")
    made = store.preferences(source.id)[0]
    for format in ("csv", "json"):
        text = store.export_preferences(source.id, format)
        frame = (
            pd.read_csv(__import__("io").StringIO(text))
            if format == "csv"
            else pd.read_json(__import__("io").StringIO(text))
        )
        target = store.create_session(f"to-{format}", settings={"n_rows": 20})
        assert store.import_preferences(target.id, PreferenceSet.from_frame(frame), "bob") == len(made)
        imported, provenance = store.preferences(target.id)
        assert imported == made and set(provenance["source"]) == {"import"}
    with pytest.raises(ValueError, match="out of range"):
        store.import_preferences(target.id, PreferenceSet.order(0, 25), "bob")
    with pytest.raises(ValueError, match="format"):
        store.export_preferences(source.id, "xml")


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


# ---------------------------------------------------------------- a write that fails inside its transaction

FRAME = pd.DataFrame({"age": [1.0, 2.0, 3.0, 10.0, 11.0], "rooms": [1, 2, 3, 4, 5]})
TIMES = ("created_at", "updated_at")


class InjectedFailure(Exception):
    """Raised in place of one SQL statement (or the COMMIT) of a write."""


@contextmanager
def statements_sent(engine: sa.Engine, fail_at: int | str | None = None):
    """The SQL statements sent to ``engine`` inside the block, in order.  With ``fail_at`` = n
    (1-based) the n-th statement is not run but raises ``InjectedFailure``; with "COMMIT" the
    commit does."""
    sent = []

    def before_cursor_execute(connection, cursor, statement, parameters, context, executemany):
        sent.append(statement)
        if len(sent) == fail_at:
            raise InjectedFailure(f"statement {fail_at}: {statement}")

    def commit(connection):
        if fail_at == "COMMIT":
            raise InjectedFailure(f"COMMIT after {len(sent)} statements")

    sa.event.listen(engine, "before_cursor_execute", before_cursor_execute)
    sa.event.listen(engine, "commit", commit)
    try:
        yield sent
    finally:
        sa.event.remove(engine, "before_cursor_execute", before_cursor_execute)
        sa.event.remove(engine, "commit", commit)


@contextmanager
def own_connection(store: Store):
    """A connection to the store's database of the test's own (not from the store or its engine)."""
    engine = sa.create_engine(store.url, poolclass=sa.pool.NullPool)
    try:
        with engine.begin() as connection:
            yield connection
    finally:
        engine.dispose()


def table_rows(store: Store, times: bool = True) -> dict:
    """Every row of every table, read on a connection of the test's own."""
    with own_connection(store) as connection:
        rows = {}
        for name, table in sorted(metadata.tables.items()):
            columns = ", ".join(c.name for c in table.columns if times or c.name not in TIMES)
            rows[name] = connection.execute(sa.text(f"SELECT {columns} FROM {name} ORDER BY id")).all()
        return rows


def readers_show(store: Store, times: bool = True) -> dict:
    """What the store's readers show of every session: its row, settings, revision, rules, answers,
    preferences with their sources and owners, model runs, and the exports."""

    def text(frame: pd.DataFrame) -> str:
        return frame.drop(columns=[] if times else [c for c in TIMES if c in frame]).to_csv(index=False)

    shown = {"sessions": text(store.sessions())}
    for name in store.sessions()["name"]:
        info = store.session(name)
        made, provenance = store.preferences(info.id)
        shown[name] = {
            "session": (info.id, info.dataset_id, info.settings),
            "revision": store.revision(info.id),
            "rules": [(rule_id, rule.to_dict()) for rule_id, rule in store.rules(info.id)],
            "answers": text(store.answers(info.id)),
            "preferences": triples(made),
            "provenance": text(provenance),
            "model runs": text(store.model_runs(info.id)),
            "export csv": store.export_preferences(info.id, "csv"),
            "export json": store.export_preferences(info.id, "json"),
            "export rules": store.export_rules(info.id),
        }
    return shown


def snapshot(store: Store, times: bool = True) -> dict:
    return {"tables": table_rows(store, times), "readers": readers_show(store, times)}


@pytest.fixture
def busy_store(store):
    return busy(store)


def busy(store: Store) -> Store:
    """Two sessions, each with a rule, answers of every kind (one an audit of the rule), imported
    preferences and a model run; the latest answer of each is 'about equal' (two preferences)."""
    for name in ("main", "other"):
        session = store.create_session(name, settings={"n_rows": len(FRAME)})
        rule = Rule(f"{name} rule", [Within("age", 1.5)], Ordering("rooms"))
        store.add_answer(session.id, 0, 1, "a", "ann", weight=2.0, margin=0.5)
        rule_id = store.add_rule(session.id, rule, generate(rule, FRAME).preferences, "ann")
        store.add_answer(session.id, 2, 1, "b", "ann", rule_id=rule_id)  # an audit of the rule
        store.add_answer(session.id, 1, 2, "skip", "bob")
        store.import_preferences(session.id, PreferenceSet([3, 4, 0], [4, 0, 2], 1.0, 0.5), "bob")
        store.add_model_run(session.id, "ssl", {"lambda2": 1.0}, {"test_mae": 2.5}, 9)
        store.add_answer(session.id, 2, 3, "equal", "bob", margin=1.0)
    return store


def write(store: Store, operation: str):
    """The call making ``operation`` on the "main" session, its arguments looked up beforehand."""
    main = store.session("main").id
    rule_id = store.rules(main)[0][0]
    rule = Rule("new rule", [Within("age", 5.0)], Ordering("rooms", direction="lower"))
    made = generate(rule, FRAME).preferences
    imported = PreferenceSet([1, 2, 3, 4], [0, 1, 2, 3], 0.25, 3.0)
    bobs = store.answers(main)
    last_bob = int(bobs[bobs["annotator"] == "bob"]["id"].iloc[-1])
    return {
        "edit_answer": lambda: store.edit_answer(last_bob, "bob", "a"),
        "remove_answer": lambda: store.remove_answer(last_bob, "bob"),
        "add_rule": lambda: store.add_rule(main, rule, made, "carol"),
        "add_answer a": lambda: store.add_answer(main, 3, 4, "a", "carol"),
        "add_answer equal": lambda: store.add_answer(main, 0, 4, "equal", "carol", margin=0.5),
        "add_answer skip": lambda: store.add_answer(main, 1, 4, "skip", "carol"),
        "add_answer audit": lambda: store.add_answer(main, 0, 1, "a", "carol", rule_id=rule_id),
        "import_preferences": lambda: store.import_preferences(main, imported, "carol"),
        "remove_rule": lambda: store.remove_rule(rule_id),
        "undo_answer": lambda: store.undo_answer(main, "bob"),
        "add_model_run": lambda: store.add_model_run(main, "svr", {"C": 1.0}, {"test_mae": 1.5}, 12),
    }[operation]


def is_write(statement: str) -> bool:
    return statement.split(maxsplit=1)[0].upper() in {"INSERT", "UPDATE", "DELETE"}


@pytest.mark.parametrize(
    "operation",
    [
        "add_rule",
        "add_answer a",
        "add_answer equal",
        "add_answer skip",
        "add_answer audit",
        "import_preferences",
        "remove_rule",
        "undo_answer",
        "edit_answer",
        "remove_answer",
        "add_model_run",
    ],
)
def test_a_write_failing_inside_its_transaction_changes_nothing(busy_store, new_database, operation):
    """Count the SQL statements the write sends in a successful dry run on a twin of the store (made
    by the same calls in a new database: the same rows, but for their times), then
    make the write fail at each of them in turn and at its COMMIT: after every failure, all tables
    (read on a connection of the test's own) and all the readers show equal the snapshot taken before the first failing
    call.  Afterwards the write still succeeds, leaving what the dry run left on the copy."""
    store = busy_store
    dry_run = busy(Store(new_database()))
    call = write(dry_run, operation)
    with statements_sent(dry_run.engine) as statements:
        result = call()
    # At least two writes, so that failing at the later one leaves an earlier one to undo.
    assert sum(map(is_write, statements)) >= 2, statements

    before = snapshot(store)
    for fail_at in [*range(1, len(statements) + 1), "COMMIT"]:
        call = write(store, operation)
        with pytest.raises(InjectedFailure), statements_sent(store.engine, fail_at) as sent:
            call()
        if fail_at == "COMMIT":
            where, expected = "COMMIT", statements
        else:
            where, expected = statements[fail_at - 1], statements[:fail_at]
        assert snapshot(store) == before, f"{operation} failing at {where!r} changed the store"
        assert sent == expected, "the call took another path than in the dry run"

    set_ids_to_follow_rows(store)
    assert write(store, operation)() == result
    assert snapshot(store, times=False) == snapshot(dry_run, times=False)
    dry_run.engine.dispose()


def set_ids_to_follow_rows(store: Store) -> None:
    """On PostgreSQL, set each table's id sequence back to follow its rows: a sequence is never rolled
    back, so each failed insert used up an id (SQLite gives the next row max(id) + 1 anyway)."""
    if store.engine.dialect.name != "postgresql":
        return
    with own_connection(store) as connection:
        for name in metadata.tables:
            sequence = f"pg_get_serial_sequence('{name}', 'id')"
            connection.execute(sa.text(f"SELECT setval({sequence}, coalesce(max(id), 0) + 1, false) FROM {name}"))


# ---------------------------------------------------------------- preferences in blocks, in the order written


def pairs_of(made: PreferenceSet) -> list:
    return list(zip(made.i.tolist(), made.j.tolist(), strict=True))


def test_large_rules_and_imports_read_back_in_the_order_written(store):
    """Rules and imports (blocks), clicks and undos (rows) interleaved: the store gives back exactly
    the preferences the test wrote, in its order, from this Store (blocks cached) and a fresh one."""
    rng = np.random.default_rng(0)
    session = store.create_session("s", settings={"n_rows": 5000})
    written = []  # (owner, PreferenceSet) in the order written, kept by the test itself

    def big(n):
        i = rng.integers(0, 5000, n)
        return PreferenceSet(i, (i + rng.integers(1, 4999, n)) % 5000, rng.normal(size=n), rng.uniform(0, 2, n))

    first_rule = Rule("first", [Within("age", 1.0)], Ordering("rooms"))
    first = big(120_000)
    written.append(("first", first))
    first_id = store.add_rule(session.id, first_rule, first, "ann")
    store.add_answer(session.id, 1, 2, "a", "ann")
    written.append(("click 1", PreferenceSet.order(1, 2)))
    imported = big(3_000)
    store.import_preferences(session.id, imported, "bob")
    written.append(("import", imported))
    store.add_answer(session.id, 3, 4, "equal", "ann")
    written.append(("click 2", PreferenceSet.close(3, 4, 0.0)))
    assert store.preferences(session.id)[0] == PreferenceSet.concatenate([made for _, made in written])
    second = big(50_000)
    store.add_rule(session.id, Rule("second", [Within("age", 2.0)], Ordering("rooms")), second, "bob")
    written.append(("second", second))
    store.undo_answer(session.id, "ann")
    written = [entry for entry in written if entry[0] != "click 2"]
    store.remove_rule(first_id)
    written = [entry for entry in written if entry[0] != "first"]
    store.add_answer(session.id, 7, 6, "b", "ann")
    written.append(("click 3", PreferenceSet.order(6, 7)))
    expected = PreferenceSet.concatenate([made for _, made in written])
    made, provenance = store.preferences(session.id)
    assert made == expected
    sizes = [len(made) for _, made in written]
    assert provenance["source"].tolist() == np.repeat(["click", "import", "rule", "click"], sizes).tolist()
    assert provenance["annotator"].tolist() == np.repeat(["ann", "bob", "bob", "ann"], sizes).tolist()
    assert Store(store.url).preferences(session.id)[0] == expected


def test_a_rule_stored_where_a_removed_one_was_reads_as_itself(store):
    """SQLite may give a new block the id of a deleted one: the Store that read the old one (and keeps
    its content) must read the new content."""
    session = store.create_session("s", settings={"n_rows": 20})
    rule = Rule("r", [Within("age", 1.0)], Ordering("rooms"))
    old, new = PreferenceSet.order([0, 1], [1, 2]), PreferenceSet.order([5, 6, 7], [4, 5, 6])
    rule_id = store.add_rule(session.id, rule, old, "ann")
    assert store.preferences(session.id)[0] == old
    store.remove_rule(rule_id)
    store.add_rule(session.id, rule, new, "ann")
    assert store.preferences(session.id)[0] == new


def test_a_write_between_the_two_reads_is_not_half_seen(store):
    """A click and then a rule are committed (by another Store) after the click rows are read and
    before the blocks are: the answer is the store after both, not the rule without the click."""
    session = store.create_session("s", settings={"n_rows": 20})
    other = Store(store.url)
    rule = Rule("r", [Within("age", 1.0)], Ordering("rooms"))
    rule_made = PreferenceSet.order([5, 6], [4, 5])

    written = []

    def after_cursor_execute(connection, cursor, statement, parameters, context, executemany):
        if not written and statement.lstrip().upper().startswith("SELECT") and "FROM preferences " in statement:
            written.append(True)
            other.add_answer(session.id, 1, 2, "a", "ann")
            other.add_rule(session.id, rule, rule_made, "ann")

    sa.event.listen(store.engine, "after_cursor_execute", after_cursor_execute)
    made, _ = store.preferences(session.id)
    sa.event.remove(store.engine, "after_cursor_execute", after_cursor_execute)
    assert written and made == PreferenceSet.order(1, 2) + rule_made


def test_a_store_from_before_blocks_reads_its_rule_rows_first_and_removes_them(tmp_path):
    """A store whose rule preferences are rows (no blocks table, no revision on preferences): they
    read back as written, new writes come after them, and removing the old rule removes its rows."""
    path = tmp_path / "old.sqlite"
    Store(f"sqlite:///{path}").engine.dispose()
    with closing(sqlite3.connect(path)) as connection:  # the tables as the previous release made them
        connection.execute("DROP TABLE preference_blocks")
        connection.execute("ALTER TABLE preferences DROP COLUMN revision")
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
    store.add_rule(1, Rule("new", [Within("age", 1.0)], Ordering("rooms")), PreferenceSet.order([6, 7], [5, 6]), "ann")
    store.add_answer(1, 0, 4, "b", "ann")
    assert pairs_of(store.preferences(1)[0]) == [(3, 2), (8, 9), (2, 1), (6, 5), (7, 6), (4, 0)]
    store.remove_rule(1)
    made, provenance = store.preferences(1)
    assert pairs_of(made) == [(8, 9), (6, 5), (7, 6), (4, 0)]
    assert provenance["source"].tolist() == ["click", "rule", "rule", "click"]


def test_a_damaged_block_is_an_error_naming_it(store):
    session = store.create_session("s", settings={"n_rows": 20})
    store.add_rule(session.id, Rule("r", [Within("age", 1.0)], Ordering("rooms")), PreferenceSet.order(0, 1), "ann")
    with own_connection(store) as connection:
        cut = sa.func.substr(preference_blocks.c.content, 1, 40)
        connection.execute(preference_blocks.update().values(content=cut))
    with pytest.raises(ValueError, match="block of preferences is damaged"):
        Store(store.url).preferences(session.id)


def test_row_numbers_are_checked_against_the_sessions_table(store):
    session = store.create_session("s", settings={"n_rows": 3000})
    for row, message in [
        (10**6, "outside the session's table of 3,000 rows"),
        (-1, "outside"),
        (2.7, "integer"),
        (True, "integer"),
        ("2", "integer"),
        (2.0, "integer"),
    ]:
        with pytest.raises(ValueError, match=message):
            store.add_answer(session.id, row, 5, "a", "ann")
    store.add_answer(session.id, np.int64(2), 5, "a", "ann")
    assert store.answers(session.id)[["row_a", "row_b"]].values.tolist() == [[2, 5]]
    with pytest.raises(ValueError, match="out of range"):
        store.add_rule(
            session.id, Rule("r", [Within("age", 1.0)], Ordering("rooms")), PreferenceSet.order(0, 3000), "ann"
        )
    empty = store.create_session("no data")
    for write in (
        lambda: store.add_answer(empty.id, 0, 1, "a", "ann"),
        lambda: store.import_preferences(empty.id, PreferenceSet.order(0, 1), "ann"),
        lambda: store.add_rule(
            empty.id, Rule("r", [Within("age", 1.0)], Ordering("rooms")), PreferenceSet.order(0, 1), "ann"
        ),
    ):
        with pytest.raises(ValueError, match="no data yet"):
            write()
    assert store.contents(empty.id) == {"rules": 0, "answers": 0, "imported": 0, "queued": 0, "grades": 0}


def test_importing_what_the_session_holds_adds_nothing(store):
    session = store.create_session("s", settings={"n_rows": 50})
    first = PreferenceSet([1, 2, 3], [4, 5, 6], 0.5, [1.0, 2.0, 1.0])
    assert store.import_preferences(session.id, first, "ann") == 3
    revision = store.revision(session.id)
    assert store.import_preferences(session.id, first, "bob") == 0 and store.revision(session.id) == revision
    overlapping = PreferenceSet([1, 2, 7], [4, 5, 8], 0.5, [1.0, 3.0, 1.0])  # (2, 5) with another weight is new
    assert store.import_preferences(session.id, overlapping, "bob") == 2
    made, _ = store.preferences(session.id)
    assert triples(made) == [(1, 4, 0.5, 1.0), (2, 5, 0.5, 2.0), (3, 6, 0.5, 1.0), (2, 5, 0.5, 3.0), (7, 8, 0.5, 1.0)]
    assert store.contents(session.id) == {"rules": 0, "answers": 0, "imported": 5, "queued": 0, "grades": 0}


@pytest.mark.parametrize(
    "name, message",
    [
        ("x" * 61, "at most 60"),
        ("", "needs a name"),
        ("   ", "needs a name"),
        ("a\x00b", "control"),
        ("a\nb", "control"),
        (7, "needs a name"),
    ],
)
def test_annotator_names_are_checked_before_anything_is_written(store, name, message):
    session = store.create_session("s", settings={"n_rows": 10})
    with pytest.raises(ValueError, match=message):
        store.add_answer(session.id, 0, 1, "a", name)
    with pytest.raises(ValueError, match=message):
        store.undo_answer(session.id, name)
    assert store.revision(session.id) == 0


def test_rule_and_session_names_are_checked(store):
    session = store.create_session("s", settings={"n_rows": 10})
    for name, message in [("x" * 10_000, "at most 200"), ("bad\x00name", "control")]:
        with pytest.raises(ValueError, match=message):
            store.add_rule(
                session.id, Rule(name, [Within("age", 1.0)], Ordering("rooms")), PreferenceSet.order(0, 1), "ann"
            )
        with pytest.raises(ValueError, match=message):
            store.create_session(name)
    assert store.rules(session.id) == [] and store.sessions()["name"].tolist() == ["s"]


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


def test_annotators_edit_and_remove_only_their_own_answers(store):
    session = store.create_session("s", settings={"n_rows": 10})
    mine = store.add_answer(session.id, 1, 2, "a", "ann", weight=2.0, margin=0.5)
    theirs = store.add_answer(session.id, 3, 4, "b", "bob")
    store.edit_answer(mine, "ann", "equal")
    made, provenance = store.preferences(session.id)
    assert triples(made) == [(4, 3, 0.0, 1.0), (1, 2, -0.5, 2.0), (2, 1, -0.5, 2.0)]
    assert provenance["annotator"].tolist() == ["bob", "ann", "ann"]
    store.edit_answer(mine, "ann", "b")
    assert triples(store.preferences(session.id)[0]) == [(4, 3, 0.0, 1.0), (2, 1, 0.5, 2.0)]
    before = (store.answers(session.id), store.revision(session.id))
    for call in (lambda: store.edit_answer(theirs, "ann", "a"), lambda: store.remove_answer(theirs, "ann")):
        with pytest.raises(ValueError, match="'bob''s: annotators change only their own"):
            call()
    with pytest.raises(ValueError, match="choice"):
        store.edit_answer(mine, "ann", "maybe")
    with pytest.raises(KeyError, match="no answer 99"):
        store.remove_answer(99, "ann")
    assert store.answers(session.id).equals(before[0]) and store.revision(session.id) == before[1]
    store.remove_answer(mine, "ann")
    assert store.answers(session.id)["id"].tolist() == [theirs]
    assert triples(store.preferences(session.id)[0]) == [(4, 3, 0.0, 1.0)]


def test_the_side_order_shown_is_kept_with_the_answer(store):
    session = store.create_session("s", settings={"n_rows": 10})
    store.add_answer(session.id, 1, 2, "a", "ann", swapped=True)
    store.add_answer(session.id, 3, 4, "b", "ann", swapped=np.bool_(False))
    store.add_answer(session.id, 5, 6, "skip", "ann")
    assert store.answers(session.id)["swapped"].tolist() == [True, False, pd.NA]
    with pytest.raises(ValueError, match="swapped must be True, False or None"):
        store.add_answer(session.id, 1, 3, "a", "ann", swapped="yes")
    assert len(store.answers(session.id)) == 3


# ---------------------------------------------------------------- database limits and races, on both backends


def test_text_with_nul_and_long_text_in_settings_and_rules_reads_back_exactly(store):
    """Text the store keeps inside JSON (settings, a rule's or a data set's columns) may hold NUL and
    10,000 characters: PostgreSQL's text refuses NUL, so it must be stored escaped and read back as it
    was; an upload's bytes may hold NUL too."""
    settings = {"n_rows": 10, "target": "price\x00usd", "note": "x" * 10_000, "features": ["a\tb", "é" * 300]}
    session = store.create_session("s", settings=settings)
    assert store.session("s").settings == settings
    rule = Rule("r", [Within("age\x00" + "y" * 10_000, 1.0)], Ordering("rooms\x00"))
    rule_id = store.add_rule(session.id, rule, PreferenceSet.order(0, 1), "ann")
    assert Store(store.url).rules(session.id) == [(rule_id, rule)]
    columns = ["a\x00b", "c" * 10_000]
    dataset_id = store.add_dataset("upload.csv", pd.DataFrame([[1.0, 2.0]], columns=columns), b"a\x00,b\n")
    assert json.loads(store.dataset(dataset_id)["columns"]) == columns
    assert bytes(store.dataset(dataset_id)["content"]) == b"a\x00,b\n"


def test_values_past_the_database_limits_are_refused_before_writing(store, monkeypatch):
    session = store.create_session("s", settings={"n_rows": 10})
    store.add_answer(session.id, 0, 1, "a", "ann")
    before = snapshot(store)
    rule = Rule("r", [Within("age", 1.0)], Ordering("rooms"))
    refused = [
        (lambda: store.create_session("big", settings={"n_rows": 2**31}), ValueError, "n_rows.*2,147,483,647"),
        (lambda: store.update_settings(session.id, {"n_rows": 10**12}), ValueError, "2,147,483,647"),
        (lambda: store.create_session("list", settings=["n_rows", 10]), TypeError, "must be a dict"),
        (lambda: store.create_session("odd", settings={"n_rows": 5, "x": object()}), TypeError, "JSON values"),
        (lambda: store.create_session("no data set", dataset_id=999), KeyError, "no data set 999"),
        (lambda: store.add_model_run(session.id, "m" * 21, {}, {}, 3), ValueError, "at most 20 characters"),
        (lambda: store.add_model_run(session.id, "svr", {}, {}, 2**31), ValueError, "2,147,483,647"),
        (lambda: store.add_dataset("d" * 201, pd.DataFrame({"x": [1.0]})), ValueError, "at most 200"),
        (lambda: store.add_dataset("a\x00b", pd.DataFrame({"x": [1.0]})), ValueError, "control characters"),
        (lambda: store.add_answer(session.id, 0, 2, "a", "a" * 10_000), ValueError, "at most 60"),
        (lambda: store.add_model_run(session.id, "svr", {"C": object()}, {}, 3), TypeError, "dicts of numbers"),
        (lambda: store.add_answer(session.id, 0, 2, ["a"], "ann"), ValueError, "choice must be one of"),
        (lambda: store.add_answer(session.id, 0, 2, "a", "ann", weight="2"), ValueError, "finite number"),
        (lambda: store.add_answer(session.id, 0, 2, "a", "ann", margin=None), ValueError, "finite number"),
        (lambda: store.edit_answer(1, "ann", {"a"}), ValueError, "choice must be one of"),
        (lambda: store.remove_answer("1", "ann"), KeyError, "no answer '1'"),
        (lambda: store.add_answer(session.id, 0, 2, "a", "ann", rule_id="1"), ValueError, "no rule '1' to audit"),
        (lambda: store.undo_answer("1", "ann"), KeyError, "no session '1'"),
    ]
    monkeypatch.setattr("ordercore.studio.store.MAX_VALUE_BYTES", 2_000)  # a block of 50 preferences is larger
    many = PreferenceSet.order(np.arange(50) % 9, np.arange(50) % 9 + 1)
    refused += [
        (lambda: store.add_rule(session.id, rule, many, "ann"), ValueError, "limit of 2,000"),
        (lambda: store.import_preferences(session.id, many, "ann"), ValueError, "limit of 2,000"),
        (lambda: store.update_settings(session.id, {"n_rows": 10, "x": "y" * 2_000}), ValueError, "limit of 2,000"),
    ]
    for call, error, message in refused:
        with pytest.raises(error, match=message):
            call()
    assert snapshot(store) == before


@pytest.mark.parametrize("bad", [10**20, 2**31, -(2**40), "1", 1.0, True])
def test_ids_past_the_database_integers_or_of_another_type_are_unknown(store, bad):
    """Every call taking an id: a KeyError naming it (PostgreSQL refuses to compare an integer column
    with 10^20 or with text), or for the audited rule a ValueError; nothing written."""
    session = store.create_session("s", settings={"n_rows": 10})
    before = snapshot(store)
    for call in [
        lambda: store.session_by_id(bad),
        lambda: store.dataset(bad),
        lambda: store.revision(bad),
        lambda: store.rules(bad),
        lambda: store.answers(bad),
        lambda: store.queued_pairs(bad),
        lambda: store.preferences(bad),
        lambda: store.contents(bad),
        lambda: store.model_runs(bad),
        lambda: store.export_rules(bad),
        lambda: store.add_model_run(bad, "svr", {}, {}, 1),
        lambda: store.update_settings(bad, {}),
        lambda: store.create_session("t", dataset_id=bad),
        lambda: store.add_answer(bad, 0, 1, "a", "ann"),
        lambda: store.undo_answer(bad, "ann"),
        lambda: store.queue_pairs(bad, [(0, 1)], 1, "ann"),
        lambda: store.import_preferences(bad, PreferenceSet.order(0, 1), "ann"),
        lambda: store.import_answers(
            bad, pd.DataFrame({"row_a": [0], "row_b": [1], "choice": ["a"], "annotator": ["x"]})
        ),
        lambda: store.remove_rule(bad),
        lambda: store.edit_answer(bad, "ann", "a"),
        lambda: store.remove_answer(bad, "ann"),
    ]:
        with pytest.raises(KeyError, match=f"no (session|data set|rule|answer) {bad!r}"):
            call()
    with pytest.raises(ValueError, match=f"no rule {bad!r} to audit"):
        store.add_answer(session.id, 0, 1, "a", "ann", rule_id=bad)
    assert snapshot(store) == before


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


def test_a_rule_removed_while_it_is_audited_waits_for_the_audit(store):
    """Another process removes the rule right after this one checked the rule exists: the removal waits
    for the answer to commit (the session is locked), so the answer is kept, no longer linked to the
    rule, instead of a foreign-key error."""
    session = store.create_session("s", settings={"n_rows": 10})
    rule_id = store.add_rule(
        session.id, Rule("r", [Within("age", 1.0)], Ordering("rooms")), PreferenceSet.order(0, 1), "ann"
    )
    other = Store(store.url)
    removal = threading.Thread(target=other.remove_rule, args=(rule_id,))

    def after_cursor_execute(connection, cursor, statement, parameters, context, executemany):
        if removal.ident is None and statement.lstrip().upper().startswith("SELECT") and "FROM rules" in statement:
            removal.start()
            removal.join(timeout=1.0)  # it waits for this transaction (or, unlocked, removes the rule now)

    sa.event.listen(store.engine, "after_cursor_execute", after_cursor_execute)
    answer_id = store.add_answer(session.id, 2, 3, "a", "bob", rule_id=rule_id)
    sa.event.remove(store.engine, "after_cursor_execute", after_cursor_execute)
    removal.join()
    assert store.rules(session.id) == []
    answers = store.answers(session.id)
    assert answers["id"].tolist() == [answer_id] and answers["rule_id"].isna().all()
    assert pairs_of(store.preferences(session.id)[0]) == [(2, 3)]


# ---------------------------------------------------------------- annotators in separate processes

N_ROWS = 1_000
ANSWER_CHOICES = ("a", "b", "equal", "skip")


def planned_answer(k: int, m: int, n_answers: int) -> tuple[int, int, str]:
    """Annotator k's m-th answer: rows (m, n_answers + k), a pair no other answer has, and a choice."""
    return m, n_answers + k, ANSWER_CHOICES[m % 4]


def annotate(url: str, k: int, n_answers: int, start, results) -> None:
    """Annotator k in a process of its own: at ``start`` (a barrier), opens its own Store on the
    database (empty: the tables are made by whoever comes first), creates the session "shared" unless
    another did first, and gives its planned answers, each 25th undone and given again.  Puts
    (k, whether it created the session, every error as text) on ``results``."""
    created, errors = False, []
    try:
        start.wait()
        store = Store(url)
        try:
            store.create_session("shared", settings={"n_rows": N_ROWS})
            created = True
        except ValueError as error:
            if "already exists" not in str(error):
                raise
        session = store.session("shared")
        for m in range(n_answers):
            try:
                store.add_answer(session.id, *planned_answer(k, m, n_answers), f"annotator {k}")
                if m % 25 == 24:
                    store.undo_answer(session.id, f"annotator {k}")
                    store.add_answer(session.id, *planned_answer(k, m, n_answers), f"annotator {k}")
            except Exception as error:  # counted: the test wants none
                errors.append(f"answer {m}: {type(error).__name__}: {error}")
    except Exception as error:
        errors.append(f"{type(error).__name__}: {error}")
    results.put((k, created, errors))


def test_concurrent_annotators_lose_and_duplicate_nothing(database_url):
    """Four annotators, each a process with its own Store, start at once on an empty database: one
    creates the session (the others are told it exists), and every answer is stored once, in each
    annotator's order, with its preferences, and no write raises."""
    n_annotators, n_answers = 4, 100
    context = multiprocessing.get_context("spawn")
    start, results = context.Barrier(n_annotators), context.Queue()
    workers = [
        context.Process(target=annotate, args=(database_url, k, n_answers, start, results)) for k in range(n_annotators)
    ]
    for worker in workers:
        worker.start()
    reports = sorted(results.get(timeout=600) for _ in workers)
    for worker in workers:
        worker.join()
    assert [errors for _, _, errors in reports] == [[]] * n_annotators
    assert sum(created for _, created, _ in reports) == 1

    store = Store(database_url)
    session = store.session("shared")
    answers = store.answers(session.id)
    for k in range(n_annotators):
        theirs = answers[answers["annotator"] == f"annotator {k}"]
        stored = list(zip(theirs["row_a"], theirs["row_b"], theirs["choice"], strict=True))
        assert stored == [planned_answer(k, m, n_answers) for m in range(n_answers)]
    expected = []  # the preferences by hand: 'a' a over b, 'b' the reverse, 'equal' both, 'skip' none
    for k in range(n_annotators):
        for m in range(n_answers):
            a, b, choice = planned_answer(k, m, n_answers)
            expected += {"a": [(a, b)], "b": [(b, a)], "equal": [(a, b), (b, a)], "skip": []}[choice]
    assert sorted(pairs_of(store.preferences(session.id)[0])) == sorted(expected)
    undos = n_annotators * (n_answers // 25)
    assert store.revision(session.id) == n_annotators * n_answers + 2 * undos  # no write's revision lost


def test_a_new_sqlite_file_locked_by_another_connection_is_waited_for(tmp_path):
    """Switching a file to WAL fails at once while another connection holds its write lock (as a store
    making the tables does: BEGIN IMMEDIATE; SQLite does not apply its busy timeout there): the store
    tries again until the lock is gone, as the busy timeout would, instead of raising "database is
    locked"."""
    path = tmp_path / "new.sqlite"
    holder = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
    holder.execute("CREATE TABLE other (x)")
    holder.execute("BEGIN IMMEDIATE")
    release = threading.Timer(0.5, holder.execute, args=("COMMIT",))
    release.start()
    try:
        store = Store(f"sqlite:///{path}")
        assert store.sessions().empty
        with sqlite3.connect(path) as check:
            assert check.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    finally:
        release.join()
        holder.close()


def test_a_sessions_contents_in_words_name_only_what_it_holds():
    from ordercore.studio.store import describe_contents

    nothing = {"rules": 0, "answers": 0, "imported": 0, "queued": 0, "grades": 0}
    assert describe_contents(nothing) == "nothing"
    assert describe_contents(nothing | {"grades": 19}) == "19 grades"
    assert describe_contents(nothing | {"rules": 2, "answers": 1, "grades": 1}) == "2 rules, 1 answer and 1 grade"
    assert (
        describe_contents(nothing | {"imported": 1200, "queued": 3}) == "1,200 imported preferences and 3 queued pairs"
    )
