"""The store's rules: stored with their preferences and taken away with them, and removal waiting for
an audit in progress."""

import json
import threading

import pandas as pd
import sqlalchemy as sa

from ordercore.knowledge.rules import Ordering, Rule, Within, generate
from ordercore.preferences import PreferenceSet
from ordercore.studio.store import Store
from tests.store_checks import pairs_of


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
