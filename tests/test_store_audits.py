"""An audit answer answers one of its rule's pairs (corpus 13, R5): the store refuses an audit of a pair the
rule's stored preferences do not order, by a click (RN18), by a second engine after the rule was edited (TW04)
and by an import (RN19), and changes nothing then.  The pairs are worked out by hand on a table of five ages."""

from __future__ import annotations

import pandas as pd
import pytest

from ordercore.knowledge.rules import Ordering, Rule, Within, generate
from tests.store_checks import snapshot

AGES = pd.DataFrame({"age": [1.0, 2.0, 3.0, 10.0, 11.0], "rooms": [1, 2, 3, 4, 5]})
WIDE = Rule("close in age", [Within("age", 8.0)], Ordering("rooms"))  # |age difference| <= 8: all but 0-3, 0-4, 1-4
TIGHT = Rule("close in age", [Within("age", 1.5)], Ordering("rooms"))  # 0-1, 1-2, 3-4


@pytest.fixture
def session_id(store):
    return store.create_session("ages", settings={"n_rows": len(AGES)}).id


def test_an_audit_of_a_pair_the_rule_does_not_make_is_refused(store, session_id):
    rule_id = store.add_rule(session_id, WIDE, generate(WIDE, AGES).preferences, "ann")
    store.add_answer(session_id, 2, 0, "a", "ann", rule_id=rule_id)  # either way round
    before = snapshot(store)
    with pytest.raises(ValueError, match=r"^rule #1 'close in age' does not order rows 0 and 3: an audit answers"):
        store.add_answer(session_id, 3, 0, "a", "ann", rule_id=rule_id)
    assert snapshot(store) == before
    store.add_answer(session_id, 3, 0, "a", "ann")  # the same answer, no audit: kept


def test_an_audit_by_an_engine_that_shows_the_rule_before_an_edit_is_refused(store, session_id):
    rule_id = store.add_rule(session_id, WIDE, generate(WIDE, AGES).preferences, "ann")
    store.add_answer(session_id, 0, 2, "b", "ann", rule_id=rule_id)  # 0-2 made by the wide rule
    store.replace_rule(rule_id, TIGHT, generate(TIGHT, AGES).preferences, "ann")
    before = snapshot(store)
    with pytest.raises(ValueError, match=r"^rule #1 'close in age' does not order rows 0 and 2"):
        store.add_answer(session_id, 0, 2, "b", "bob", rule_id=rule_id)
    assert snapshot(store) == before
    store.add_answer(session_id, 4, 3, "a", "bob", rule_id=rule_id)  # 3-4: the tight rule's


def test_an_import_links_audits_by_rule_number_then_rule_id_then_name_and_says_why_not(store, session_id):
    """RN03-RN05, RN19: an older file's rule_id and the export's rule_number were never read."""
    rule_id = store.add_rule(session_id, TIGHT, generate(TIGHT, AGES).preferences, "ann")  # 0-1, 1-2, 3-4
    lines = [  # row_a, row_b, rule_number, rule_id, rule: linked to, why not
        (0, 1, "1", "", "", rule_id, "linked by rule_number"),
        (1, 2, "", str(rule_id), "", rule_id, "linked by rule_id"),
        (3, 4, "", "", "close in age", rule_id, "linked by rule name"),
        (4, 3, "abc", "", "", None, "rule_number 'abc' is not a whole number"),
        (2, 1, "", str(rule_id + 98), "", None, f"this session has no rule id {rule_id + 98}"),
        (1, 0, "1", "", "another", None, "rule #1 is 'close in age' here, not 'another'"),
        (0, 2, "1", "", "close in age", None, "rule 'close in age' does not order its pair"),
    ]
    table = pd.DataFrame(
        [
            dict(row_a=a, row_b=b, choice="a", annotator="ann", rule_number=n, rule_id=i, rule=r)
            for a, b, n, i, r, *_ in lines
        ]
    )
    assert store.audit_links(session_id, table) == ([line[5] for line in lines], [line[6] for line in lines])
    store.import_answers(session_id, table)
    held = store.answers(session_id)
    assert held["rule_id"].astype(object).where(held["rule_id"].notna(), None).tolist() == [line[5] for line in lines]
