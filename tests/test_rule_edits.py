"""Editing a stored rule through the session engine (new-user report 9, Minor 10: the only action on a rule was
Remove, so tightening a tolerance lost the rule's number and its audits): the rule keeps its number, its
preferences are those the edited rule makes (counted by brute force over all pairs), its audit answers to pairs
it still makes stay its audits and the others stay as answers, unlinked; the page's words say what changed.  A
refused edit changes nothing (a store write failing at each of its statements: test_store_limits)."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd
import pytest

from ordercore.knowledge.rules import Ordering, Rule, Within, generate
from ordercore.studio.data import data_settings
from ordercore.studio.rule_edits import audit_split, edit_rule
from tests.store_checks import snapshot
from tests.test_session_engine import Counted, add_rule, engines, more_rooms, small_table


@pytest.fixture
def session_id(store):
    """A session on test_session_engine's small table: 30 labels, 20 % of the rest held out."""
    frame = small_table()
    session = store.create_session("homes")
    settings, _ = data_settings(frame, "upload", "price", ["x", "rooms", "age"], {"n_labeled": 30})
    store.update_settings(session.id, settings, store.add_dataset("homes", frame, frame.to_csv(index=False).encode()))
    return session.id


@pytest.fixture
def start():
    counted = Counted()
    yield counted
    for job in counted.started:
        job.cancel()


def brute_force_pairs(frame, labeled, x_within: float, age_within: float) -> set:
    """Every pair of rows, not both ``labeled`` (those check the rule), within ``x_within`` in x and
    ``age_within`` in age whose rooms differ."""
    return {
        frozenset((i, j))
        for i, j in combinations(range(len(frame)), 2)
        if abs(frame.x[i] - frame.x[j]) <= x_within
        and abs(frame.age[i] - frame.age[j]) <= age_within
        and frame.rooms[i] != frame.rooms[j]
        and not {i, j} <= labeled
    }


def made_by(engine, rule: Rule):
    """The preferences ``rule`` makes on the session's table, as the Rules page makes them."""
    data = engine.data()
    labeled = np.zeros(len(data.frame), dtype=bool)
    labeled[data.labeled] = True
    return generate(rule, data.frame, labeled, random_state=0).preferences


def rule_pairs(engine, rule_id: int) -> set:
    made, provenance = engine.preferences()
    mine = provenance["rule_id"].eq(rule_id).fillna(False).to_numpy(dtype=bool)
    return {frozenset((int(i), int(j))) for i, j in zip(made.i[mine], made.j[mine], strict=True)}


def test_an_edited_rule_keeps_its_number_and_the_audits_of_pairs_it_still_makes(store, session_id, start):
    (engine,) = engines(store, session_id, start, owners=("studio A",))
    engine.set_model(automatic_trust=False)
    frame = small_table()
    rule_id = add_rule(engine, more_rooms())
    labeled = set(engine.data().labeled.tolist())
    wide, tight = brute_force_pairs(frame, labeled, 1.0, 10.0), brute_force_pairs(frame, labeled, 0.5, 10.0)
    assert rule_pairs(engine, rule_id) == wide and tight < wide
    still, gone = sorted(tight)[0], sorted(wide - tight)[0]
    for pair in (still, gone):  # an audit answer to each
        engine.store.add_answer(engine.id, *sorted(pair), "a", "ann", rule_id=rule_id)
    other = add_rule(engine, Rule("older, cheaper", [Within("x", 1.0)], Ordering("age", "lower")))

    tighter = Rule("more rooms", [Within("x", 0.5), Within("age", 10.0)], Ordering("rooms", "higher"))
    made = made_by(engine, tighter)
    assert audit_split(engine.answers(), rule_id, made) == (1, 1)  # what the page says before saving
    words = edit_rule(engine, rule_id, "ann", tighter, made)
    engine.wait()
    assert words == (
        f"rule #{rule_id}: within ± 1 → 0.5 (x): {len(wide):,} → {len(tight):,} pairs; "
        "1 audit answer(s) still audit it, 1 no longer (kept as answers)"
    )
    assert [k for k, _ in engine.rules()] == [rule_id, other] and dict(engine.rules())[rule_id] == tighter
    assert rule_pairs(engine, rule_id) == tight and rule_pairs(engine, other)  # the other rule untouched
    answers = engine.answers()
    audits = {frozenset((a, b)): r for a, b, r in zip(answers.row_a, answers.row_b, answers.rule_id, strict=True)}
    assert audits[still] == rule_id and pd.isna(audits[gone])  # the answer kept, no longer an audit


def test_an_edit_into_a_rule_the_session_holds_is_refused_and_changes_nothing(store, session_id, start):
    (engine,) = engines(store, session_id, start, owners=("studio A",))
    engine.set_model(automatic_trust=False)
    first = add_rule(engine, more_rooms())
    second = add_rule(engine, Rule("close in x", [Within("x", 0.5)], Ordering("rooms", "higher")))
    before = snapshot(store)
    same = Rule("renamed", [Within("x", 0.5)], Ordering("rooms", "higher"))
    with pytest.raises(ValueError, match=f"rule #{second} 'close in x'"):
        edit_rule(engine, first, "ann", same, made_by(engine, same))
    with pytest.raises(KeyError):
        edit_rule(engine, 999, "ann", same, made_by(engine, same))
    assert snapshot(store) == before
