"""Issue 32, the fifth corpus of bad input to the Studio's session engine and its files: each case is
refused in one line of words naming what is wrong (the column, the line, the setting), nothing stored;
a session's preferences export then its rules export counts each pair once, as the other order does."""

from __future__ import annotations

import io
import json
import re

import numpy as np
import pandas as pd
import pytest

from ordercore.knowledge.rules import Ordering, Rule, Within
from ordercore.studio.session import ACTIVE, SessionEngine
from tests.test_corpus4_library import state
from tests.test_session_engine import add_rule
from tests.test_store_refusals import NoJob, engine, exported, new_session, store, table  # noqa: F401 (fixtures)

RULE = Rule("small age gap", [Within("age", 5.0)], Ordering("rooms"))


# ---------------------------------------------------------------------------------------- T040b
def test_next_pair_before_the_data_is_chosen_says_so(store):  # noqa: F811
    bare = SessionEngine(store, store.create_session("no data").id, "test", NoJob())
    for ask in (bare.next_pair, bare.next_pairs):
        with pytest.raises(ValueError, match="^choose this session's data on the Data page first$"):
            ask(ACTIVE, "ann", np.random.default_rng(0))
    bare.close()


# ---------------------------------------------------------------------------------------- T017b
def test_a_preferences_export_then_its_rules_export_holds_each_pair_once(store, engine):  # noqa: F811
    add_rule(engine, RULE)
    engine.answer("ann", (1, 2), "a")
    preferences, rules = engine.export("preferences"), engine.export("rules")
    exported_rows = pd.read_csv(io.StringIO(preferences))
    from_rule = int((exported_rows["source"] == "rule").sum())  # the rule's pairs, as the file says
    target = SessionEngine(store, new_session(store, "target", table()), "test", NoJob())
    target.import_file("p.csv", preferences.encode(), "imp")
    said = target.import_file("r.json", rules.encode(), "imp")
    assert said == f"Imported 1 rule; {from_rule:,} of their pairs were already in the session and were left out."
    assert len(store.preferences(target.id)[0]) == len(exported_rows)
    target.close()


# ---------------------------------------------------------------------------------------- T026
@pytest.mark.parametrize(
    "name, text, unknown, known",
    [
        ("a.csv", "home_id_a,home_id_b,choice,wieght,margin,annotator\n130,131,a,9,0,ann\n", "'wieght'",
         "home_id_a, home_id_b, choice, weight, margin, annotator, created_at, rule_number, rule, number, "
         "rule_winner (older files: swapped, rule_id)"),
        ("g.csv", "home_id,grade,annotator,note\n105,2,ann,good\n", "'note'", "home_id, grade, annotator, created_at"),
        ("a.csv", "row_a,row_b,choice,annotator,Weight\n1,2,a,ann,3\n", "'Weight'", "row_a, row_b, choice, weight"),
    ],
)  # fmt: skip
def test_an_unknown_column_of_answers_or_grades_is_refused_naming_the_known_ones(store, engine, name, text, unknown,  # noqa: F811
                                                                                   known):  # fmt: skip
    before = state(store, engine.id)
    said = f"unknown column\\(s\\) {unknown}; an export of .* has the columns {re.escape(known)}"
    with pytest.raises(ValueError, match=said):
        engine.import_file(name, text.encode(), "imp")
    assert state(store, engine.id) == before


# ---------------------------------------------------------------------------------------- T067/T072/T051
@pytest.mark.parametrize(
    "changes, said",
    [
        ({"automatic_trust": "no"}, "automatic_trust must be True or False, got 'no'"),
        ({"automatic_trust": 1}, "automatic_trust must be True or False, got 1"),
        ({"parameters": None}, "parameters must be a dict of the model's settings, got None"),
    ],
)
def test_set_model_refuses_trust_that_is_no_boolean_and_parameters_that_are_no_dict(store, engine, changes, said):  # noqa: F811
    before = store.session_by_id(engine.id).settings
    with pytest.raises(ValueError, match=f"^{said}$"):
        engine.set_model(**changes)
    assert store.session_by_id(engine.id).settings == before and engine.model_settings().automatic_trust is False


def test_a_files_content_given_as_text_is_refused_in_words(store, engine):  # noqa: F811
    before = state(store, engine.id)
    with pytest.raises(TypeError, match="^a file's content is its bytes .*, got str$"):
        engine.import_file("a.csv", "row_a,row_b,choice,annotator\n1,2,a,ann\n", "imp")
    assert state(store, engine.id) == before


# ---------------------------------------------------------------------------------------- T004-T013
@pytest.mark.parametrize(
    "kind, old, new, said",
    [
        ("answers", "choice", "Choice", "as answers it lacks the column(s) choice ('Choice' differs from 'choice' only "
         "in case or spaces)"),
        ("answers", "home_id_a", "id_a", "as answers it lacks the column(s) home_id_a; "),
        ("grades", "grade", "rating", "as grades it lacks the column(s) grade; "),
        ("answers", "home_id_a", "home_id_a ", "as answers it lacks the column(s) home_id_a ('home_id_a ' differs "
         "from 'home_id_a' only in case or spaces)"),
        ("answers", ",annotator", "", "as answers it lacks the column(s) annotator; "),
    ],
)  # fmt: skip
def test_a_hand_edited_export_names_the_columns_it_lacks_and_its_own(store, engine, exported, kind, old, new, said):  # noqa: F811
    header, *rows = exported[kind].splitlines()
    edited = header.replace(old, new, 1)
    if old == ",annotator":  # the column dropped from every line, not only the header
        at = header.split(",").index("annotator")
        rows = [",".join(v for k, v in enumerate(row.split(",")) if k != at) for row in rows]
    before = state(store, engine.id)
    with pytest.raises(ValueError) as refused:
        engine.import_file(f"{kind}.csv", "\n".join([edited, *rows]).encode(), "imp")
    columns = edited.split(",")  # the first 12 named (an export holds its fingerprints' columns too)
    own = ", ".join(repr(column) for column in columns[:12]) + (" …" if len(columns) > 12 else "")
    data_page = " (a table of rows and their values is chosen on the Data page, not imported)"
    assert str(refused.value) == (
        f"not a file the Studio exports: {said.rstrip('; ')}; this file's columns are {own}{data_page}"
    )
    assert state(store, engine.id) == before


# ---------------------------------------------------------------------------------------- T024
def test_two_exports_pasted_together_name_the_line_that_repeats_the_header(store, engine, exported):  # noqa: F811
    lines = exported["answers"].splitlines()
    before = state(store, engine.id)
    with pytest.raises(ValueError, match=f"^line {len(lines) + 1} repeats the header line \\(a second file pasted"):
        engine.import_file("a.csv", (exported["answers"] * 2).encode(), "imp")
    assert state(store, engine.id) == before


# ---------------------------------------------------------------------------------------- R19/N007/N008/N010
def test_a_rule_without_an_ordering_says_the_field_is_missing():
    document = {key: value for key, value in RULE.to_dict().items() if key != "ordering"}
    with pytest.raises(ValueError, match="^rule 'small age gap' has no \"ordering\" field \\(a rule's fields are"):
        Rule.from_dict(document)


@pytest.mark.parametrize("encoding", ["utf-8-sig", "utf-16", "utf-32"])
def test_a_rule_file_with_a_byte_order_mark_reads_in_the_library_and_the_studio(store, engine, encoding):  # noqa: F811
    text = json.dumps([RULE.to_dict()])
    assert Rule.from_json(json.dumps(RULE.to_dict()).encode(encoding).decode(encoding.replace("-sig", ""))) == RULE
    assert engine.import_file("r.json", text.encode(encoding), "imp") == "Imported 1 rule."
    assert [rule for _, rule in store.rules(engine.id)] == [RULE]


def test_a_rule_file_that_is_not_utf8_is_said_so_with_its_byte(store, engine):  # noqa: F811
    text = json.dumps([Rule("café", [Within("age", 5.0)], Ordering("rooms")).to_dict()], ensure_ascii=False)
    column = text.index("é") + 1
    before = state(store, engine.id)
    said = f"^could not read the JSON: it is not UTF-8 text \\(byte 0xe9 on line 1, column {column}\\); save it as UTF"
    with pytest.raises(ValueError, match=said):
        engine.import_file("r.json", text.encode("latin-1"), "imp")
    assert state(store, engine.id) == before
