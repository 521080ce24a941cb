"""The twelfth corpus's session-engine and store cases (issue 32, "nothing silently wrong"): an answer
edited to 'about equal' whose stored margin it keeps (R3: A16); an annotator given as bytes or a number told
it needed a name (R1: N15, N22); next_pairs' ahead handed unchecked to numpy (R6: NP05).  Each refusal is
checked to leave the store as it was (``store_checks.snapshot``), on SQLite and PostgreSQL."""

from __future__ import annotations

import re

import numpy as np
import pytest

from ordercore.studio.data import study_data
from ordercore.studio.session import SessionEngine
from ordercore.studio.store.schema import answers, preferences
from tests.store_checks import snapshot
from tests.test_store_refusals import NoJob, new_session, table


@pytest.fixture
def engine(store):
    """A session on 60 homes, automatic trust off (no assessment row written behind a refusal)."""
    engine = SessionEngine(store, new_session(store, "homes", table()), "test", NoJob())
    engine.set_model(automatic_trust=False)
    engine.wait(60)  # the fit it started has stored its run
    yield engine
    engine.wait(60)
    engine.close()


def triples(store, session_id) -> list:
    """The session's preferences as (i, j, margin), in the order stored."""
    made = store.preferences(session_id)[0]
    return list(zip(made.i.tolist(), made.j.tolist(), made.margin.tolist(), strict=True))


# ------------------------------------------------------------------------ R3: an edit keeps the margin
def answer_with_an_old_negative_margin(store, engine) -> tuple[int, int]:
    """An answer 'a' on (30, 31) with margin -1, as a store written before margins < 0 were refused (A03)
    holds it (made at margin 0, then set to -1 in the table, with its preference); its id and number."""
    answer_id = engine.answer("ann", (30, 31), "a")
    engine.wait(60)  # the retrain it started has stored its run
    with store.engine.begin() as connection:
        connection.execute(answers.update().where(answers.c.id == answer_id).values(margin=-1.0))
        connection.execute(preferences.update().where(preferences.c.session_id == engine.id).values(margin=-1.0))
    return answer_id, int(engine.answers().set_index("id").loc[answer_id, "number"])


@pytest.mark.parametrize(
    "choice, takes", [("equal", "'about equal' takes a closeness margin"), ("b", "'b' takes a margin")]
)
def test_an_edit_names_the_negative_margin_it_would_keep(store, engine, choice, takes):
    """A16: 'a' with margin -1 edited to 'equal' was told "'about equal' takes a closeness margin >= 0"
    though the user gave only a choice; now the stored margin is named, and nothing changes.  Since A03 a
    strict choice takes no negative margin either; a skip, which makes no preference, can be chosen."""
    answer_id, number = answer_with_an_old_negative_margin(store, engine)
    before = snapshot(store)
    with pytest.raises(
        ValueError,
        match=rf"^answer {answer_id} \(#{number} of the session\) has margin -1, which an edit keeps, and {takes} "
        r">= 0: remove the answer and answer the pair again$",
    ):
        engine.edit_answer("ann", answer_id, choice)
    assert snapshot(store) == before
    engine.edit_answer("ann", answer_id, "skip")
    assert triples(store, engine.id) == []


def test_an_edit_to_equal_keeps_a_margin_it_can_take(store, engine):
    """What the check leaves alone: margin 0.5 edited to 'equal' is |f(30) - f(31)| <= 0.5, the two
    preferences f(30) - f(31) >= -0.5 and f(31) - f(30) >= -0.5 (by hand)."""
    answer_id = engine.answer("ann", (30, 31), "a", margin=0.5)
    engine.edit_answer("ann", answer_id, "equal")
    assert sorted(triples(store, engine.id)) == [(30, 31, -0.5), (31, 30, -0.5)]


# ------------------------------------------------------------------------ R1: an annotator of another type
@pytest.mark.parametrize(
    "annotator, said",
    [(b"ann", "bytes b'ann'"), (123, "int 123"), (1.5, "float 1.5"), (["ann"], "list ['ann']")],
    ids=["N15 bytes", "N22 int", "float", "list"],
)
def test_an_annotator_of_another_type_is_told_its_type(store, engine, annotator, said):
    """N15, N22: a name given as bytes or int was told "an annotator needs a name"; nothing is stored."""
    before = snapshot(store)
    for write in (lambda: engine.answer(annotator, (7, 9), "a"), lambda: engine.grade(annotator, 7, 2)):
        with pytest.raises(ValueError, match=rf"^an annotator name is text, got {re.escape(said)}$"):
            write()
    assert snapshot(store) == before


@pytest.mark.parametrize("annotator", [None, float("nan"), "", "   "])
def test_no_annotator_still_needs_a_name(engine, annotator):
    with pytest.raises(ValueError, match=r"^an annotator needs a name: type yours in the sidebar$"):
        engine.answer(annotator, (7, 9), "a")


# ------------------------------------------------------------------------ R6: next_pairs' ahead
@pytest.mark.parametrize(
    "ahead, said",
    [
        ([(1, 2, 3)], r"ahead holds pairs of two rows \(a, b\), got \(1, 2, 3\)"),
        (["ab"], r"ahead holds pairs of two rows \(a, b\), got 'ab'"),
        ([(1, 2.5)], r"ahead's row 2\.5 is not a row number \(a whole number from 0\)"),
    ],
    ids=["NP05", "text", "fraction"],
)
def test_next_pairs_checks_ahead_as_it_checks_exclude(store, engine, ahead, said):
    """NP05: ahead=[(1, 2, 3)] met numpy's 'cannot reshape array of size 3 into shape (2)'; exclude with the
    same value was refused in words, and now both are (``session_checks.row_pairs``)."""
    before = snapshot(store)
    with pytest.raises(ValueError, match=f"^{said}$"):
        engine.next_pairs("active", "ann", np.random.default_rng(0), strategy="random", ahead=ahead)
    with pytest.raises(ValueError, match="^" + said.replace("ahead", "exclude") + "$"):
        engine.next_pairs("active", "ann", np.random.default_rng(0), strategy="random", exclude=ahead)
    assert snapshot(store) == before


def test_next_pairs_takes_ahead_as_pairs_of_numpy_integers(engine):
    """What the check leaves alone: ahead as tuples of numpy integers (as a tab holds them) is taken, and
    three pairs of two different rows of the 60 are drawn."""
    ahead = [(np.int64(a), np.int64(a + 1)) for a in range(4, 58, 2)]
    drawn = engine.next_pairs("active", "ann", np.random.default_rng(0), strategy="random", count=3, ahead=ahead)
    assert len(drawn) == 3 and all(a != b and 0 <= min(a, b) and max(a, b) < 60 for (a, b), _ in drawn)


# ------------------------------------------------------------------------ R2: the file readers' words
@pytest.mark.parametrize("content", [b"", b"  \n", "\ufeff".encode()], ids=["J17 0 bytes", "blank", "BOM only"])
def test_an_empty_json_file_is_told_empty_as_a_csv_is(store, engine, content):
    """J17: a 0-byte rules file got the decoder's 'Expecting value: line 1 column 1 (char 0)'."""
    before = snapshot(store)
    with pytest.raises(ValueError, match=r"^could not read the JSON: the file is empty \(no JSON value in it\)$"):
        engine.import_file("homes-rules.json", content, "imp")
    with pytest.raises(ValueError, match=r"^could not read the CSV: the file is empty \(no header, no rows\)$"):
        engine.import_file("homes-grades.csv", content, "imp")
    assert snapshot(store) == before


@pytest.mark.parametrize(
    "cells, said",
    [
        ('"1,5",0', r"weight '1,5' is not a number \(use a dot for decimals\)"),  # I20
        ('1,"0,25"', r"margin '0,25' is not a number \(use a dot for decimals\)"),
        ("heavy,0", r"weight 'heavy' is not a number"),
    ],
    ids=["I20 weight", "margin", "word"],
)
def test_an_answers_file_names_the_column_of_a_cell_that_is_no_number(store, engine, cells, said):
    """I20: a weight '1,5' got float()'s 'could not convert string to float: '1,5'', no column named."""
    content = f"home_id_a,home_id_b,choice,weight,margin,annotator\n143,144,a,{cells},imp2\n".encode()
    before = snapshot(store)
    with pytest.raises(ValueError, match=f"^line 2 of the answers: {said}$"):
        engine.import_file("homes-answers.csv", content, "imp")
    assert snapshot(store) == before
    if "heavy" not in cells:  # with a dot the same cell reads: 1.5 or -0.25
        engine.import_file("homes-answers.csv", content.replace(b'"1,5"', b"1.5").replace(b'"0,25"', b"0.25"), "imp")
        stored = store.answers(engine.id).iloc[-1]
        assert (stored["weight"], stored["margin"]) in {(1.5, 0.0), (1.0, 0.25)}


@pytest.mark.parametrize(
    "content, line",
    [("home_id,grade,annotator\n150,2,imp2\n\x00\n", 3), ("home_id,grade,annotator\n150,2,im\x00p2\n", 2)],
    ids=["I28 NUL line", "NUL in a name"],
)
def test_a_csv_holding_a_nul_byte_is_refused_naming_its_line(store, engine, content, line):
    """I28: a lone NUL line was read as home id '\\x00' ('home_id   is not in this session's table')."""
    before = snapshot(store)
    with pytest.raises(ValueError, match=rf"^could not read the CSV: line {line} holds a NUL byte \(a binary file"):
        engine.import_file("homes-grades.csv", content.encode(), "imp")
    assert snapshot(store) == before


# ------------------------------------------------------------------------ A03: a margin that contradicts the choice
@pytest.mark.parametrize(
    "choice, means",
    [
        ("a", "'A is worth more' is f(A) - f(B) >= margin, which a negative margin lets A fall below B"),
        ("b", "'B is worth more' is f(B) - f(A) >= margin, which a negative margin lets B fall below A"),
        ("equal", "'about equal' is |f(A) - f(B)| <= margin, which no f meets with a negative margin"),
        ("skip", "a skip makes no preference, but its margin is kept for an edit to another choice"),
    ],
)
def test_an_answer_refuses_a_negative_margin_in_words(store, engine, choice, means):
    """A03: 'a' with margin -1 was stored as f(a) - f(b) >= -1, which lets A fall below B: the choice
    contradicted.  Refused by the engine, the store and an answers file alike, nothing stored."""
    before = snapshot(store)
    with pytest.raises(ValueError, match=rf"^margin must be >= 0, got -1\.0: {re.escape(means)}$"):
        engine.answer("ann", (30, 31), choice, margin=-1.0)
    with pytest.raises(ValueError, match=r"^margin must be >= 0, got -0\.5: "):
        store.add_answer(engine.id, 30, 31, choice, "ann", margin=-0.5)
    content = f"home_id_a,home_id_b,choice,weight,margin,annotator\n143,144,{choice},1,-1,imp2\n".encode()
    with pytest.raises(
        ValueError, match=rf"^line 2 of the answers: margin must be >= 0, got -1\.0: {re.escape(means)}$"
    ):
        engine.import_file("homes-answers.csv", content, "imp")
    assert snapshot(store) == before


def test_an_answer_keeps_a_margin_of_zero_or_more_as_written(store, engine):
    """What the check leaves alone, by hand: 'a' with margin 0.5 is f(30) - f(31) >= 0.5, 'b' with margin 0 is
    f(33) - f(32) >= 0."""
    engine.answer("ann", (30, 31), "a", margin=0.5)
    engine.answer("ann", (32, 33), "b", margin=0.0)
    assert triples(store, engine.id) == [(30, 31, 0.5), (33, 32, 0.0)]


# ------------------------------------------------------------------------ I12: an answers file stating a pair both ways
ANSWERS_HEADER = "home_id_a,home_id_b,choice,annotator\n"
GRAPH_SAID = ": the Rules page's preference graph counts them."


@pytest.mark.parametrize(
    "lines, said",
    [
        ("143,144,a,imp2\n143,144,b,imp2\n", "state 1 pair both ways"),  # I12
        ("143,144,a,imp2\n144,143,a,imp2\n", "state 1 pair both ways"),  # the same, its sides swapped
        ("143,144,a,imp2\n144,145,a,imp2\n145,143,a,imp2\n", "state 1 cycle"),
        ("143,144,a,imp2\n143,144,a,imp2\n143,144,b,imp2\n", "state 1 pair both ways"),  # a repeat said once
        ("143,144,a,imp2\n143,144,b,imp3\n", None),  # two annotators disagreeing: what agreement measures
        ("143,144,a,imp2\n143,144,equal,imp2\n144,145,skip,imp2\n", None),
    ],
    ids=["I12", "swapped", "cycle", "repeated", "two annotators", "equal and skip"],
)
def test_an_answers_import_says_what_the_file_states_both_ways(store, engine, lines, said):
    """I12: a file holding one pair twice with opposite choices by one annotator imported as "Imported 2
    answers." with no note, where a preferences file stating a pair both ways is told so.  The expected
    findings are read off the lines by hand."""
    message = engine.import_file("homes-answers.csv", (ANSWERS_HEADER + lines).encode(), "imp")
    n_lines, repeated = lines.count("\n"), len(lines.splitlines()) - len(set(lines.splitlines()))
    imported = f"Imported {n_lines - repeated} answers" + (
        " (1 line repeated another line of the file)" if repeated else ""
    )
    if said is None:
        assert message == f"{imported}."
    else:
        assert message == f"{imported}. The file's answers, each annotator's taken apart, {said}{GRAPH_SAID}"


# ------------------------------------------------------------------------ settings JSON: NaN and infinity
@pytest.mark.parametrize(
    "extra, named",
    [
        ({"lambda2": float("nan")}, "lambda2 is nan"),
        ({"model": {"gamma": float("inf")}}, "model.gamma is inf"),
        ({"spreads": [1.0, np.float64("-inf")]}, r"spreads\[1\] is -inf"),
    ],
    ids=["NaN", "nested inf", "numpy -inf in a list"],
)
def test_session_settings_refuse_a_number_json_has_not_naming_it(store, engine, extra, named):
    """json.dumps wrote NaN and Infinity, which are not JSON, into a session's settings without a word."""
    before = snapshot(store)
    with pytest.raises(ValueError, match=rf"^session setting {named}: a setting must be a finite number$"):
        store.update_settings(engine.id, store.session_by_id(engine.id).settings | extra)
    with pytest.raises(ValueError, match=rf"^session setting {named}: a setting must be a finite number$"):
        store.create_session("other", settings=extra)
    assert snapshot(store) == before
    store.update_settings(engine.id, store.session_by_id(engine.id).settings | {"lambda2": 1e300})  # finite: taken
    assert store.session_by_id(engine.id).settings["lambda2"] == 1e300


# ------------------------------------------------------------------------ a split of test rows and no labeled rows
def test_test_rows_without_labeled_rows_are_refused_not_drawn_over(store, engine):
    """Settings with 'test' rows and no 'labeled' list were stored, and data() then drew labeled and test rows
    afresh, the test rows given lost without a word: refused by the store and by study_data alike."""
    said = r"^test rows are given \(2 of them\) but no labeled rows: a session's test rows are kept with its labeled"
    settings = {key: value for key, value in store.session_by_id(engine.id).settings.items() if key != "labeled"}
    before = snapshot(store)
    with pytest.raises(ValueError, match=said):
        store.update_settings(engine.id, settings | {"test": [3, 4]})
    assert snapshot(store) == before
    frame = table()
    with pytest.raises(ValueError, match=said):
        study_data(frame, "price", ["x"], {"test": [3, 4]})
    data = study_data(frame, "price", ["x"], {"labeled": [0, 1, 2], "test": [3, 4]})  # both lists: kept as given
    assert data.labeled.tolist() == [0, 1, 2] and data.test.tolist() == [3, 4]
