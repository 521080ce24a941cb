"""The eleventh corpus's session-engine and store cases (issue 32, "nothing silently wrong"): settings the
store kept though every later ``data()`` refused or misread them (R1: S021, S023, S027, L043) or every
later write failed on them (R3: S040-S051); numpy integer ids that SQLite never matched (R2: SQ01, SQ02,
S019); a store's lock wait off any range the databases take (R4: F03, F04, F09, F10, F14).  Each refusal
is checked to leave the store as it was (``store_checks.snapshot``), on SQLite and PostgreSQL."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import sqlalchemy as sa

from ordercore.knowledge.rules import Ordering, Rule, Within, generate
from ordercore.preferences import PreferenceSet
from ordercore.studio.rule_edits import edit_rule
from ordercore.studio.session import SessionEngine
from ordercore.studio.splits import held_out_share
from ordercore.studio.store import Store
from tests.store_checks import pairs_of, snapshot
from tests.test_store_refusals import NoJob, new_session, table


def training_preferences(engine: SessionEngine, rule: Rule) -> PreferenceSet:
    """The preferences ``rule`` makes on the session's training pairs, as the Rules page makes them."""
    data = engine.data()
    labeled = np.zeros(len(data.frame), dtype=bool)
    labeled[data.labeled] = True
    return generate(rule, data.frame, labeled, random_state=0).preferences


# ------------------------------------------------------------------------ R1: settings data() refused
@pytest.mark.parametrize("share", [True, False, np.True_, np.False_])
def test_a_yes_no_test_share_is_refused_as_no_share(share):
    """L043: np.True_ was taken for 1.0 (Python's True was refused)."""
    with pytest.raises(ValueError, match=r"^the test share must be between 0 and 1, got .*: a yes/no is not a share"):
        held_out_share({"test_fraction": share})
    assert held_out_share({"test_fraction": np.float64(0.25)}) == 0.25  # a numpy number is one


@pytest.mark.parametrize(
    "change, drop, said",
    [
        ({"test_fraction": np.True_}, [], "the test share must be between 0 and 1, got np.True_: a yes/no"),  # S023
        ({"features": []}, [], r"choose at least one feature column \(the settings' features list is empty\)"),  # S027
        ({"labeled": [1, 1, 2]}, ["test"], "labeled row 1 is named 2 times; name each row once"),  # S021
        ({"labeled": []}, ["test"], "choose at least one labeled row"),
        ({"labeled": [1, 2], "test": [5, 5]}, [], "test row 5 is named 2 times"),
    ],
    ids=["S023", "S027", "S021", "no labeled rows", "test repeated"],
)
def test_settings_data_would_refuse_or_misread_are_not_stored(store, change, drop, said):
    """S021 (the repeated row collapsed: 2 labeled rows opened), S023 and S027 (stored; every later data()
    refused)."""
    session_id = new_session(store, "homes", table())
    before = snapshot(store)
    settings = {key: value for key, value in store.session_by_id(session_id).settings.items() if key not in drop}
    with pytest.raises(ValueError, match=said):
        store.update_settings(session_id, settings | change)
    with pytest.raises(ValueError, match=said):
        store.create_session("another", settings=settings | change)
    assert snapshot(store) == before
    assert SessionEngine(store, session_id, "t", NoJob()).data() is not None  # the session still opens


def test_labeled_rows_chosen_by_hand_without_test_rows_open_as_given(store):
    """What S021's check leaves alone: labeled rows alone (the test rows drawn among the others)."""
    session_id = new_session(store, "homes", table())
    settings = {key: value for key, value in store.session_by_id(session_id).settings.items() if key != "test"}
    store.update_settings(session_id, settings | {"labeled": [7, 3, 12]})
    data = SessionEngine(store, session_id, "t", NoJob()).data()
    assert data.labeled.tolist() == [3, 7, 12]
    assert not set(data.test.tolist()) & {3, 7, 12} and len(data.test) == round(0.2 * 57)  # of the other 57 rows


# ------------------------------------------------------------------------ R2: numpy integer ids
def writes(store, session_id, rule_id) -> None:
    """A write of every kind to a session through ids of the type given (ints or numpy integers)."""
    tighter = Rule("tighter", [Within("age", 2.0)], Ordering("rooms"))
    store.replace_rule(rule_id, tighter, PreferenceSet.order([4, 6], [3, 5]), "ann")
    store.add_rule(session_id, Rule("other", [Within("x", 1.0)], Ordering("age")), PreferenceSet.order(8, 9), "ann")
    answer = store.add_answer(session_id, 3, 4, "a", "ann", rule_id=rule_id)  # a pair of the rule
    store.add_answer(session_id, 12, 13, "equal", "bob", margin=0.5)
    store.edit_answer(type(rule_id)(answer), "ann", "b")
    store.undo_answer(session_id, "bob")
    grade = store.add_grade(session_id, 3, 2, "ann")
    store.edit_grade(type(rule_id)(grade), "ann", 4)
    store.queue_pairs(session_id, [(1, 2), (2, 3)], 2, "ann")
    store.import_preferences(session_id, PreferenceSet([20, 21], [22, 23], 1.0, 0.5), "bob")
    settings = store.session_by_id(session_id).settings
    store.update_settings(session_id, settings | {"labelling": {"goal": 7}})
    store.add_model_run(session_id, "svr", {"C": 1.0}, {"test_mae": 2.0}, 3)


def read(store, session_id) -> tuple:
    """What a session holds, read through int ids, without ids and times (two sessions compared)."""
    made, provenance = store.preferences(session_id)
    answers = store.answers(session_id)[["row_a", "row_b", "choice", "margin", "annotator"]]
    return (
        store.contents(session_id),
        store.revision(session_id),
        [rule for _, rule in store.rules(session_id)],
        pairs_of(made),
        made.margin.tolist(),
        provenance["source"].tolist(),
        answers.to_dict("records"),
        store.grades(session_id)[["row", "grade"]].to_dict("records"),
        store.queued_pairs(session_id)[["row_a", "row_b", "copies"]].to_dict("records"),
        store.session_by_id(session_id).settings["labelling"],
        len(store.export_rules(session_id)),
    )


def test_numpy_integer_ids_reach_the_same_rows_as_ints(store):
    """SQ01, SQ02 (SQLite said "no rule 1" for np.int64(1), PostgreSQL found it), and every other write
    (add_rule, add_answer, queue_pairs, import_preferences, update_settings … read nothing for a numpy
    session id on SQLite and failed in json's words): the same writes through ints and through numpy
    integers leave two sessions holding the same."""
    held = []
    for name, number in (("ints", int), ("numpy", np.int64)):
        session_id = store.create_session(name, settings={"n_rows": 30}).id
        rule_id = store.add_rule(
            session_id, Rule("r", [Within("age", 5.0)], Ordering("rooms")), PreferenceSet.order(0, 1), "ann"
        )
        writes(store, number(session_id), number(rule_id))
        held.append(read(store, session_id))
        store.remove_rule(number(rule_id))
        assert [rule.name for _, rule in store.rules(session_id)] == ["other"]
    assert held[0] == held[1]
    assert held[0][0] == {"rules": 2, "answers": 1, "imported": 2, "queued": 2, "grades": 1}  # counted by hand


def test_a_rule_edited_through_a_numpy_id(store):
    """S019: ``edit_rule(engine, np.int64(1), ...)`` said "no rule 1" on SQLite."""
    engine = SessionEngine(store, new_session(store, "homes", table()), "test", NoJob())
    engine.set_model(automatic_trust=False)
    wide, narrow = (Rule("r1", [Within("age", tolerance)], Ordering("rooms", "higher")) for tolerance in (5.0, 0.5))
    rule_id = engine.add_rule("ann", wide, training_preferences(engine, wide))
    said = edit_rule(engine, np.int64(rule_id), "ann", narrow, training_preferences(engine, narrow))
    assert said.startswith(f"rule #{rule_id}: within ± 5 → 0.5 (age)")
    assert store.rules(engine.id) == [(rule_id, narrow)]
    assert pairs_of(store.preferences(engine.id)[0]) == pairs_of(training_preferences(engine, narrow))
    engine.wait(60)
    engine.close()


# ------------------------------------------------------------------------ R3: label_scaling
@pytest.mark.parametrize(
    "scaling",
    [["a", "b"], [0, 0], [0], [50.0, -2.0], [50.0, float("inf")], [float("nan"), 2.0], [True, 2.0], [1, 10**400], "ab"],
    ids=["S040 text", "S041 zero scale", "S050 one number", "negative", "infinite", "nan", "bool", "huge int", "str"],
)
def test_a_label_scaling_the_margins_cannot_be_checked_with_is_not_stored(store, scaling):
    """S040, S041, S050: stored; every later answer and rule was then refused in float()'s or
    TargetScaling's words (S047-S049, S051), or checked against a spread of 0."""
    session_id = new_session(store, "homes", table())
    settings = store.session_by_id(session_id).settings
    before = snapshot(store)
    said = (
        r"^label_scaling \(the labels' center and scale, .*\) must be two finite numbers \[center, scale\], the scale"
    )
    with pytest.raises(ValueError, match=said):
        store.update_settings(session_id, settings | {"label_scaling": scaling})
    with pytest.raises(ValueError, match=said):
        store.create_session("another", settings=settings | {"label_scaling": scaling})
    assert snapshot(store) == before
    store.add_answer(session_id, 7, 9, "a", "ann", margin=1.0)  # S047, S049, S051: the session takes answers
    assert store.answers(session_id)[["row_a", "row_b", "margin"]].to_dict("records") == [
        {"row_a": 7, "row_b": 9, "margin": 1.0}
    ]


def test_a_stored_label_scaling_checks_margins_in_the_labels_units(store):
    """What a good label_scaling does (center 50, scale 2: 1e9 spreads are a margin of 2e9), an int and a
    numpy float taken as numbers."""
    session_id = new_session(store, "homes", table())
    store.update_settings(session_id, store.session_by_id(session_id).settings | {"label_scaling": [50, np.float64(2)]})
    assert store.session_by_id(session_id).settings["label_scaling"] == [50, 2.0]
    store.add_answer(session_id, 1, 2, "a", "ann", margin=1.9e9)
    with pytest.raises(
        ValueError, match=r"a preference margin of 2\.1e\+09 is more than 1e\+09 times the labels' spread \(2\)"
    ):
        store.add_answer(session_id, 3, 4, "a", "ann", margin=2.1e9)


# ------------------------------------------------------------------------ R4: the store's lock wait
def lock_wait_set(store: Store) -> int:
    """The lock wait a connection of ``store`` runs with, in milliseconds, as the database reports it."""
    with store.engine.connect() as connection:
        if store.engine.dialect.name == "sqlite":
            return connection.execute(sa.text("PRAGMA busy_timeout")).scalar()
        return int(connection.execute(sa.text("SELECT setting FROM pg_settings WHERE name = 'lock_timeout'")).scalar())


@pytest.mark.parametrize(
    "lock_wait, milliseconds",
    [(Decimal("2"), 2_000), (Fraction(1, 2), 500), (np.float64(0.25), 250), (86_400, 86_400_000)],
    ids=["F03 Decimal", "Fraction", "numpy", "one day"],
)
def test_a_lock_wait_of_any_real_number_up_to_a_day_is_set_in_milliseconds(database_url, lock_wait, milliseconds):
    """F03: Decimal("2") was refused as no positive number; a day's wait is within both databases'
    32-bit milliseconds (2,147,483,647)."""
    assert lock_wait_set(Store(database_url, lock_wait=lock_wait)) == milliseconds


@pytest.mark.parametrize(
    "lock_wait",
    [1e308, 3e6, 86_400.5, 10**400, Decimal("NaN"), Decimal("sNaN"), Decimal("Infinity"), np.True_, "2", None],
    ids=[
        "F04 F09 1e308",
        "F10 F14 35 days",
        "a day and a half second",
        "huge int",
        "NaN",
        "sNaN",
        "inf",
        "bool",
        "text",
        "None",
    ],
)
def test_a_lock_wait_beyond_a_day_or_no_number_is_refused_naming_lock_wait(database_url, lock_wait):
    """F04, F09 (OverflowError), F10 (PostgreSQL's own words about "lock_timeout") and F14 (SQLite's
    busy_timeout wrapped to 0: a write gave up at once, saying it had waited 3e+06 s); refused before
    anything is opened (no SQLite file made)."""
    said = r"^a store's lock wait must be a positive number of seconds, at most 86,400 \(one day\): lock_wait is "
    with pytest.raises(ValueError, match=said):
        Store(database_url, lock_wait=lock_wait)
    if database_url.startswith("sqlite"):
        assert not Path(sa.make_url(database_url).database).exists()


# ------------------------------------------------------------------------ R5: a rule's own preferences
def brute_force_pairs(engine: SessionEngine, tolerance: float) -> list:
    """The pairs (i, j) "age within ± tolerance, more rooms worth more" makes on the session's training
    pairs (not both labeled), by looping over every pair of rows."""
    data = engine.data()
    age, rooms, labeled = data.frame["age"].to_numpy(), data.frame["rooms"].to_numpy(), set(data.labeled.tolist())
    n = len(data.frame)
    return sorted(
        (i, j)
        for i in range(n)
        for j in range(n)
        if abs(age[i] - age[j]) <= tolerance and rooms[i] > rooms[j] and not {i, j} <= labeled
    )


@pytest.fixture
def rule_engine(store):
    """A session on 60 homes with rule #1, 'age within ± 5, more rooms worth more'."""
    engine = SessionEngine(store, new_session(store, "homes", table()), "test", NoJob())
    engine.set_model(automatic_trust=False)
    wide = Rule("r1", [Within("age", 5.0)], Ordering("rooms", "higher"))
    engine.rule_id = engine.add_rule("ann", wide, training_preferences(engine, wide))
    engine.wait(60)  # its retrain stored (a model run): the store is still from here on
    yield engine
    engine.wait(60)
    engine.close()


def test_a_rule_is_not_replaced_with_another_rules_preferences(store, rule_engine):
    """S004: ``Store.replace_rule`` took the preferences of 'x within ± 2, younger worth more' for rule #1
    ('age within ± 0.5, more rooms'), and unlinked its audits on their basis."""
    narrow = Rule("r1", [Within("age", 0.5)], Ordering("rooms", "higher"))
    other = training_preferences(rule_engine, Rule("r2", [Within("x", 2.0)], Ordering("age", "lower")))
    before = snapshot(store)
    said = r"^rule 'r1' does not make the given preference row \d+ over row \d+ on this table"
    with pytest.raises(ValueError, match=said):
        store.replace_rule(rule_engine.rule_id, narrow, other, "ann")
    assert snapshot(store) == before
    assert pairs_of(store.preferences(rule_engine.id)[0]) == brute_force_pairs(rule_engine, 5.0)


def test_a_rule_replaced_with_its_own_preferences_holds_the_pairs_it_makes(store, rule_engine):
    """The check leaves a rule's own preferences through: those of 'age within ± 0.5', counted by looping."""
    narrow = Rule("r1", [Within("age", 0.5)], Ordering("rooms", "higher"))
    replaced = store.replace_rule(rule_engine.rule_id, narrow, training_preferences(rule_engine, narrow), "ann")
    assert replaced.preferences_before == len(brute_force_pairs(rule_engine, 5.0))
    assert pairs_of(store.preferences(rule_engine.id)[0]) == brute_force_pairs(rule_engine, 0.5)


def test_a_session_without_data_takes_a_rules_preferences_on_its_row_count(store):
    """Where the store has no table to make a rule's pairs on (a session of a row count alone), it checks
    the rows only, as before."""
    session_id = store.create_session("rows only", settings={"n_rows": 10}).id
    rule = Rule("r", [Within("age", 1.0)], Ordering("rooms"))
    rule_id = store.add_rule(session_id, rule, PreferenceSet.order([0, 1], [1, 2]), "ann")
    store.replace_rule(rule_id, rule, PreferenceSet.order(3, 4), "ann")
    assert pairs_of(store.preferences(session_id)[0]) == [(3, 4)]
