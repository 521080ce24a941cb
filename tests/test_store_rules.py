"""The store's rules: stored with their preferences and taken away with them, removal waiting for an
audit in progress, and a rule the session holds already refused."""

import json
import threading

import pandas as pd
import pytest
import sqlalchemy as sa

from ordercore.knowledge.rules import Near, Ordering, RelativeWithin, Rule, SameCategory, Within, generate
from ordercore.preferences import PreferenceSet
from ordercore.studio.store import Store
from tests.store_checks import pairs_of, snapshot


def test_rules_store_their_preferences_and_take_them_away(store):
    frame = pd.DataFrame({"age": [1.0, 2.0, 3.0, 10.0], "rooms": [1, 2, 3, 4]})
    rule = Rule("r", [Within("age", 1.5)], Ordering("rooms"))
    made = generate(rule, frame).preferences
    session = store.create_session("s", settings={"n_rows": 20})
    rule_id = store.add_rule(session.id, rule, made, "ann")
    stored, provenance = store.preferences(session.id)
    assert stored == made and set(provenance["rule_id"]) == {rule_id}
    assert store.rules(session.id) == [(rule_id, rule)]
    assert json.loads(store.export_rules(session.id)) == [
        {"rule_number": 1} | rule.to_dict() | {"annotator": "ann", "pairs": len(made)}
    ]
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
    answer_id = store.add_answer(session.id, 1, 0, "a", "bob", rule_id=rule_id)  # a pair of the rule
    sa.event.remove(store.engine, "after_cursor_execute", after_cursor_execute)
    removal.join()
    assert store.rules(session.id) == []
    answers = store.answers(session.id)
    assert answers["id"].tolist() == [answer_id] and answers["rule_id"].isna().all()
    assert pairs_of(store.preferences(session.id)[0]) == [(1, 0)]


# ---------------------------------------------------------------- a rule the session holds already

BEDROOMS = Rule("more bedrooms", [Near("latitude", "longitude", 2.0), Within("age", 10)], Ordering("bedrooms"))
NEARBY = [Near("latitude", "longitude", 2.0), Within("age", 10)]


def add(store: Store, session_id: int, rule: Rule, annotator: str = "ann") -> int:
    return store.add_rule(session_id, rule, PreferenceSet.order([0, 1], [1, 2]), annotator)


def repeats(rule_id: int, name: str) -> str:
    return f"this rule is the same as rule #{rule_id} {name!r} (the same conditions and ordering)"


def test_a_removed_rules_number_is_never_given_again(store):
    """Issue 33, a first-time expert's F4: after removing #4 the next rule read #4.  Rules #1 … #4 added,
    #4 then #2 removed: the next two read #5 and #6 (one past the highest ever given); another session's
    rules count from #1."""
    session, other = (store.create_session(name, settings={"n_rows": 20}).id for name in ("s", "t"))
    added = [add(store, session, Rule(f"r{k}", [Within("age", k + 1)], Ordering("rooms"))) for k in range(4)]
    store.remove_rule(added[3])
    store.remove_rule(added[1])
    later = [add(store, session, Rule(f"q{k}", [Within("age", k + 10)], Ordering("rooms"))) for k in range(2)]
    assert store.rule_numbers(session) == {added[0]: 1, added[2]: 3, later[0]: 5, later[1]: 6}
    theirs = add(store, other, BEDROOMS)
    assert store.rule_numbers(other) == {theirs: 1}


def test_a_rule_the_session_holds_is_refused_whatever_it_is_called(store):
    """The same conditions (listed the other way round, an amount written 10.0 for 10) and ordering,
    under another name or weight, by another annotator: refused naming the rule it repeats, nothing
    written.  A rule differing in one amount, column, kind, condition or the ordering is another rule;
    another session, or the session once the rule is removed, may hold it."""
    session = store.create_session("s", settings={"n_rows": 20})
    other = store.create_session("t", settings={"n_rows": 20})
    held = add(store, session.id, BEDROOMS)
    copies = [
        Rule("renamed", [Within("age", 10.0), Near("latitude", "longitude", 2.0)], Ordering("bedrooms", "higher", 0)),
        Rule("more bedrooms", NEARBY, Ordering("bedrooms"), margin=1.0, weight=2.0),
    ]
    before = snapshot(store)
    for copy in copies:
        with pytest.raises(ValueError) as refused:
            add(store, session.id, copy, "bob")
        assert str(refused.value) == repeats(held, "more bedrooms")
    assert snapshot(store) == before
    different = [
        Rule("an amount", [Near("latitude", "longitude", 2.5), Within("age", 10)], Ordering("bedrooms")),
        Rule("a column", [Near("latitude", "longitude", 2.0), Within("income", 10)], Ordering("bedrooms")),
        Rule("a kind", [Near("latitude", "longitude", 2.0), RelativeWithin("age", 0.1)], Ordering("bedrooms")),
        Rule("one fewer", NEARBY[:1], Ordering("bedrooms")),
        Rule("one more", [*NEARBY, SameCategory("town")], Ordering("bedrooms")),
        Rule("lower", NEARBY, Ordering("bedrooms", "lower")),
        Rule("rooms", NEARBY, Ordering("rooms")),
        Rule("a step", NEARBY, Ordering("bedrooms", min_difference=1.0)),
    ]
    added = [add(store, session.id, rule) for rule in different]
    assert [rule_id for rule_id, _ in store.rules(session.id)] == [held, *added]
    theirs = add(store, other.id, BEDROOMS)
    assert store.rules(other.id) == [(theirs, BEDROOMS)]
    store.remove_rule(held)
    renamed = add(store, session.id, copies[0], "bob")
    assert [rule for rule_id, rule in store.rules(session.id) if rule_id == renamed] == [copies[0]]


def test_the_same_rule_added_twice_at_once_is_stored_once(store):
    """Another process adds the same rule (under another name) right after this one checked the
    session's rules: it waits for this add to commit (the session is locked), then is refused naming
    it; the session holds one rule and its preferences once."""
    session = store.create_session("s", settings={"n_rows": 20})
    other = Store(store.url)
    outcome = []

    def add_the_same():
        try:
            outcome.append(add(other, session.id, Rule("the same", NEARBY, Ordering("bedrooms")), "bob"))
        except ValueError as error:
            outcome.append(str(error))

    racer = threading.Thread(target=add_the_same)

    def after_cursor_execute(connection, cursor, statement, parameters, context, executemany):
        if racer.ident is None and statement.lstrip().upper().startswith("SELECT") and "FROM rules" in statement:
            racer.start()
            racer.join(timeout=1.0)  # it waits for this transaction (or, unlocked, adds its copy now)

    sa.event.listen(store.engine, "after_cursor_execute", after_cursor_execute)
    rule_id = add(store, session.id, BEDROOMS)
    sa.event.remove(store.engine, "after_cursor_execute", after_cursor_execute)
    racer.join()
    assert outcome == [repeats(rule_id, "more bedrooms")]
    assert [held for held, _ in store.rules(session.id)] == [rule_id]
    assert pairs_of(store.preferences(session.id)[0]) == [(0, 1), (1, 2)]


def test_annotators_adding_one_rule_together_store_it_once(database_url):
    """Four annotators, each a thread with a Store of its own, add the same rule under their own names
    at once: one is stored, and each of the others is told which."""
    n_annotators = 4
    stores = [Store(database_url) for _ in range(n_annotators)]
    session = stores[0].create_session("s", settings={"n_rows": 20})
    start, outcomes = threading.Barrier(n_annotators), {}

    def annotate(k):
        start.wait()
        try:
            outcomes[k] = add(stores[k], session.id, Rule(f"by {k}", NEARBY, Ordering("bedrooms")), f"annotator {k}")
        except ValueError as error:
            outcomes[k] = str(error)

    threads = [threading.Thread(target=annotate, args=(k,)) for k in range(n_annotators)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    [(rule_id, rule)] = stores[0].rules(session.id)
    winner = int(rule.name.removeprefix("by "))
    assert outcomes == {k: rule_id if k == winner else repeats(rule_id, rule.name) for k in range(n_annotators)}
