"""The store's answers (grades: test_grades.py): the preferences they make, undo, edit and removal by
their own annotator only, audits of a rule, the side order shown, and bad answers refused with
nothing changed."""

import numpy as np
import pandas as pd
import pytest

from ordercore.knowledge.rules import Ordering, Rule, Within, generate
from ordercore.preferences import PreferenceSet
from tests.store_checks import FRAME, pairs_of, snapshot, triples


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


@pytest.mark.parametrize(
    "name, message",
    [
        ("x" * 61, "at most 60"),
        ("", "needs a name"),
        ("   ", "needs a name"),
        ("a\x00b", "control"),
        ("a\nb", "control"),
        (7, "an annotator name is text, got int 7"),
    ],
)
def test_annotator_names_are_checked_before_anything_is_written(store, name, message):
    session = store.create_session("s", settings={"n_rows": 10})
    with pytest.raises(ValueError, match=message):
        store.add_answer(session.id, 0, 1, "a", name)
    with pytest.raises(ValueError, match=message):
        store.undo_answer(session.id, name)
    assert store.revision(session.id) == 0


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
        with pytest.raises(ValueError, match=rf"^answer {theirs} is by 'bob': annotators change only their own$"):
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
