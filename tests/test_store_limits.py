"""A write that fails inside its transaction changes nothing (made to fail at each of its statements),
and values past the database's limits are refused before anything is written, on both backends."""

import json

import numpy as np
import pandas as pd
import pytest
import sqlalchemy as sa

from ordercore.knowledge.rules import Ordering, Rule, Within, generate
from ordercore.preferences import PreferenceSet
from ordercore.studio.store import Store, metadata
from tests.store_checks import FRAME, InjectedFailure, busy, own_connection, snapshot, statements_sent


@pytest.fixture
def busy_store(store):
    return busy(store)


def write(store: Store, operation: str):
    """The call making ``operation`` on the "main" session, its arguments looked up beforehand."""
    main = store.session("main").id
    rule_id = store.rules(main)[0][0]
    rule = Rule("new rule", [Within("age", 5.0)], Ordering("rooms", direction="lower"))
    made = generate(rule, FRAME).preferences
    imported = PreferenceSet([1, 2, 3, 4], [0, 1, 2, 3], 0.25, 3.0)
    tighter = Rule("main rule", [Within("age", 0.5)], Ordering("rooms"))  # its audit's pair (2, 1) no longer
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
        "replace_rule": lambda: store.replace_rule(rule_id, tighter, generate(tighter, FRAME).preferences, "carol"),
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
        "replace_rule",
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
        (
            lambda: store.add_dataset("a\x00b", pd.DataFrame({"x": [1.0]})),
            ValueError,
            "control character: U\\+0000 NUL at position 1",
        ),
        (lambda: store.add_answer(session.id, 0, 2, "a", "a" * 10_000), ValueError, "at most 60"),
        (lambda: store.add_model_run(session.id, "svr", {"C": object()}, {}, 3), TypeError, "parameter C holds"),
        (lambda: store.add_answer(session.id, 0, 2, ["a"], "ann"), ValueError, "choice must be one of"),
        (lambda: store.add_answer(session.id, 0, 2, "a", "ann", weight="2"), ValueError, "a number in"),
        (lambda: store.add_answer(session.id, 0, 2, "a", "ann", weight=1e9), ValueError, r"\[0, 1e\+06\].*1000000000"),
        (lambda: store.add_answer(session.id, 0, 2, "a", "ann", margin=None), ValueError, "finite number"),
        (lambda: store.edit_answer(1, "ann", {"a"}), ValueError, "choice must be one of"),
        (lambda: store.remove_answer("1", "ann"), KeyError, "no answer '1'"),
        (lambda: store.add_answer(session.id, 0, 2, "a", "ann", rule_id="1"), ValueError, "rule_id must be a rule num"),
        (lambda: store.undo_answer("1", "ann"), KeyError, "no session '1'"),
    ]
    monkeypatch.setattr("ordercore.studio.store.limits.MAX_VALUE_BYTES", 2_000)  # a block of 50 preferences is larger
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
    # a whole number the store holds no rule of is no rule; text, a float or a bool is no rule number
    # (the sixth corpus's V022: '1' was said to be no rule, though rule 1 existed)
    said = (
        f"no rule {bad!r} to audit"
        if type(bad) is int
        else rf"rule_id must be a rule number \(an integer\), got {bad!r}"
    )
    with pytest.raises(ValueError, match=said):
        store.add_answer(session.id, 0, 1, "a", "ann", rule_id=bad)
    assert snapshot(store) == before


def test_rule_and_session_names_are_checked(store):
    session = store.create_session("s", settings={"n_rows": 10})
    bidi = "bad\u202ename"  # a text-direction mark: not "tabs and NUL", what it is
    for name, message in [
        ("x" * 10_000, "at most 200"),
        ("bad\x00name", "control character: U\\+0000 NUL at position 3"),
        (bidi, "invisible formatting character .*U\\+202E RIGHT-TO-LEFT OVERRIDE at position 3"),
    ]:
        with pytest.raises(ValueError, match=message):
            store.add_rule(
                session.id, Rule(name, [Within("age", 1.0)], Ordering("rooms")), PreferenceSet.order(0, 1), "ann"
            )
        with pytest.raises(ValueError, match=message):
            store.create_session(name)
    assert store.rules(session.id) == [] and store.sessions()["name"].tolist() == ["s"]
