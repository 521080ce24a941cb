"""Preferences in blocks and rows, read back in the order written: from a fresh store, after a reused
block id, with a write committed between two reads, and a damaged block named."""

import numpy as np
import pytest
import sqlalchemy as sa

from ordercore.knowledge.rules import Ordering, Rule, Within
from ordercore.preferences import PreferenceSet
from ordercore.studio.store import Store, preference_blocks
from tests.store_checks import own_connection


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


def test_a_damaged_block_is_an_error_naming_it(store):
    session = store.create_session("s", settings={"n_rows": 20})
    store.add_rule(session.id, Rule("r", [Within("age", 1.0)], Ordering("rooms")), PreferenceSet.order(0, 1), "ann")
    with own_connection(store) as connection:
        cut = sa.func.substr(preference_blocks.c.content, 1, 40)
        connection.execute(preference_blocks.update().values(content=cut))
    with pytest.raises(ValueError, match="block of preferences is damaged"):
        Store(store.url).preferences(session.id)
