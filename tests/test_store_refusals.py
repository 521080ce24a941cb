"""Bad input to the store, the session engine and rules is refused in one line of words, the store left
as it was (issue 32): imported margins the models cannot fit, model settings the Studio does not offer,
files naming rows by an id the table lacks, rows named as the file names them, and the store's own
refusals (a URL of an unknown kind, a directory, another program's SQLite file)."""

from __future__ import annotations

import json
import sqlite3

import numpy as np
import pandas as pd
import pytest

from ordercore.knowledge.rules import Near, Ordering, Rule, Within
from ordercore.preferences import PreferenceSet
from ordercore.studio.data import data_settings
from ordercore.studio.row_names import RowNames
from ordercore.studio.session import SessionEngine
from ordercore.studio.session_files import import_session_file, read_session_file
from ordercore.studio.store import Store
from tests.test_session_engine import add_rule


def table(n: int = 60, ids: bool = True) -> pd.DataFrame:
    """Homes whose home_id (100, 101, …) is not their position; price grows with rooms."""
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"x": rng.uniform(0, 10, n), "rooms": rng.integers(1, 7, n), "age": rng.uniform(0, 50, n)})
    frame["price"] = 20 * frame["rooms"] - 0.5 * frame["age"] + rng.normal(0, 5, n)
    return frame.assign(home_id=np.arange(n) + 100) if ids else frame


def new_session(store: Store, name: str, frame: pd.DataFrame) -> int:
    session = store.create_session(name)
    settings, _ = data_settings(frame, "upload", "price", ["x", "rooms", "age"], {"n_labeled": 20})
    store.update_settings(session.id, settings, store.add_dataset(name, frame, frame.to_csv(index=False).encode()))
    return session.id


class NoJob:
    """Automatic trust's job, never started (these tests check refusals, not assessments)."""

    def __call__(self, *args, **options):
        raise AssertionError("no assessment is expected")


@pytest.fixture
def store(database_url):
    return Store(database_url)


@pytest.fixture
def engine(store):
    engine = SessionEngine(store, new_session(store, "homes", table()), "test", NoJob())
    engine.set_model(automatic_trust=False)
    yield engine
    engine.wait(60)
    engine.close()


def held(store: Store, session_id: int) -> tuple:
    """What a session holds: its counts, settings and preferences' margins."""
    return store.contents(session_id), store.session_by_id(session_id).settings, store.preferences(session_id)[0].margin


# ---------------------------------------------------------------------------------------- SW10
@pytest.mark.parametrize(
    "name, text, line",
    [
        ("p.csv", "home_id_i,home_id_j,margin,weight\n141,142,1,1\n141,143,1e300,1\n", "line 3 of the preferences"),
        ("p.csv", "i,j,margin\n1,2,1e300\n", "line 2 of the preferences"),
        ("a.csv", "home_id_a,home_id_b,choice,margin,annotator\n151,152,a,1e300,dave\n", "line 2 of the answers"),
    ],
)
def test_an_imported_margin_beyond_1e9_spreads_is_refused_naming_its_line(store, engine, name, text, line):
    before = held(store, engine.id)
    with pytest.raises(ValueError, match=f"{line}: a preference margin of 1e\\+300 is more than 1e\\+09 times"):
        engine.import_file(name, text.encode(), "zed")
    assert held(store, engine.id)[0] == before[0] and store.contents(engine.id)["answers"] == 0


def test_an_imported_rule_with_a_huge_margin_is_refused(store, engine):
    rule = Rule("huge", [Within("age", 5.0)], Ordering("rooms"), margin=1e300)
    with pytest.raises(ValueError, match="rule 1 of the file: a preference margin of 1e\\+300"):
        engine.import_file("rules.json", json.dumps([rule.to_dict()]).encode(), "zed")
    assert store.contents(engine.id)["rules"] == 0


# ---------------------------------------------------------------------------------------- SW11, CR2
@pytest.mark.parametrize(
    "changes, said",
    [
        ({"parameters": {"gamma": 0.5, "lambda1": 0.01, "lambda2": 1.0}}, "gamma = 0.5 is not offered"),
        ({"parameters": {"gamma": None, "lambda1": 0.01, "lambda2": 2.0}}, "lambda2 = 2.0 is not offered"),
        ({"parameters": {"lambda1": -1.0}}, "lambda1 = -1.0 is not offered"),
        ({"parameters": {"gamma": "x"}}, "gamma = 'x' is not offered"),
        ({"parameters": {"lambda2": float("nan")}}, "lambda2 = nan is not offered"),
        ({"time_limit": -5.0}, "time limit must be 5 to 600 seconds, got -5.0"),
        ({"time_limit": float("inf")}, "time limit must be 5 to 600 seconds, got inf"),
        ({"time_limit": "30"}, "time limit must be 5 to 600 seconds, got '30'"),
    ],
)
def test_set_model_refuses_a_value_the_studio_does_not_offer(store, engine, changes, said):
    before = store.session_by_id(engine.id).settings
    with pytest.raises(ValueError, match=said):
        engine.set_model(**changes)
    assert store.session_by_id(engine.id).settings == before


def test_set_model_keeps_the_values_it_offers(engine):
    chosen = {"gamma": 0.1, "lambda1": 0.01, "lambda2": 3.0}
    assert engine.set_model(parameters=chosen, time_limit=600.0).parameters == chosen
    assert engine.model_settings().parameters == chosen and engine.model_settings().time_limit == 600.0


def test_a_stored_time_limit_off_the_range_is_said_in_words(store, engine):
    settings = dict(store.session_by_id(engine.id).settings)
    store.update_settings(engine.id, settings | {"model": settings["model"] | {"time_limit": -5.0}})
    said = "^this session's stored settings are off: the retrain time limit must be 5 to 600 seconds, got -5.0;"
    with pytest.raises(ValueError, match=said):
        engine.trained(wait=True)
    engine.changed()
    engine.wait(60)
    assert "stored settings are off" in engine.models.error


# ---------------------------------------------------------------------------------------- SW9, U13, U14, U15
@pytest.fixture
def exported(store, engine):
    """The homes session's exports (rows by home_id): 2 answers, 2 grades and their preferences."""
    store.add_answer(engine.id, 1, 2, "a", "ann")
    store.add_answer(engine.id, 3, 4, "b", "ann")
    store.add_grade(engine.id, 5, 2, "ann")
    store.add_grade(engine.id, 6, 3, "ann")
    return {kind: engine.export(kind) for kind in ("preferences", "answers", "grades")}


@pytest.mark.parametrize("kind", ["preferences", "answers", "grades"])
def test_a_file_by_home_id_into_a_table_without_it_is_refused(store, exported, kind):
    other = new_session(store, "no ids", table(ids=False))
    names = RowNames.of(table(ids=False), "price", None)
    with pytest.raises(ValueError, match="^this file names rows by home_id, which this table lacks"):
        read_session_file(f"{kind}.csv", exported[kind].encode(), names)
    assert store.contents(other) == {"rules": 0, "answers": 0, "imported": 0, "queued": 0, "grades": 0}


def by_id(store, session_id, name: str, text: str):
    names = RowNames.of(table(), "price", "home_id")
    labeled = np.zeros(60, dtype=bool)
    return import_session_file(store, session_id, read_session_file(name, text.encode(), names), table(), labeled, "x")


def test_import_errors_name_rows_by_the_files_ids(store, engine):
    before = store.contents(engine.id)
    with pytest.raises(ValueError, match="^line 3 of the answers: an answer compares two different rows, got home_id "
                       "143 twice$"):  # fmt: skip
        by_id(store, engine.id, "a.csv", "home_id_a,home_id_b,choice,annotator\n141,142,a,erin\n143,143,b,erin\n")
    with pytest.raises(ValueError, match="^line 3 of the grades: 'erin' gave home_id 105 grade 2 already$"):
        by_id(store, engine.id, "g.csv", "home_id,grade,annotator\n105,2,erin\n105,4,erin\n")
    assert store.contents(engine.id) == before


def test_an_unknown_id_says_how_many_of_the_files_ids_the_table_lacks(store, engine):
    text = "home_id_a,home_id_b,choice,annotator\n" + "".join(f"{k},{k + 1},a,erin\n" for k in (150, 158, 160, 170))
    with pytest.raises(ValueError, match="^home_id 160 is not in this session's table of 60 rows \\(4 of the file's "
                       "home_ids are not\\)$"):  # fmt: skip
        by_id(store, engine.id, "a.csv", text)
    assert store.contents(engine.id)["answers"] == 0


# ---------------------------------------------------------------------------------------- U12, U16, U17
def test_a_second_grade_of_a_row_names_the_grade_and_its_value(store, engine):
    grade_id = store.add_grade(engine.id, 1, 3, "alice")
    with pytest.raises(ValueError, match=f"^'alice' graded row 1 already \\(grade #{grade_id}: 3 of 5\\): edit"):
        store.add_grade(engine.id, 1, 4, "alice")
    assert store.grades(engine.id)["grade"].tolist() == [3]


def test_queued_pairs_that_are_not_pairs_are_refused_in_words(store, engine):
    with pytest.raises(ValueError, match="^queued pairs are \\(row, row\\) pairs"):
        engine.queue_pairs(np.array([1, 2, 3]), 1, "alice")
    assert store.contents(engine.id)["queued"] == 0


def test_an_unknown_option_group_is_named_with_the_known_ones(store, engine):
    before = store.session_by_id(engine.id).settings
    with pytest.raises(KeyError, match="no option group 'nogroup'; the session's are 'labelling', 'ratings'"):
        engine.set_options("nogroup", x=1)
    assert store.session_by_id(engine.id).settings == before


def test_an_unknown_option_is_refused_naming_the_groups_options(store, engine):
    """A typo ('rating_scale' for 'scale') would be stored and do nothing: refused, nothing stored."""
    before = store.session_by_id(engine.id).settings
    with pytest.raises(KeyError, match="no option 'rating_scale' in 'ratings'; its options are 'scale', 'text'"):
        engine.set_options("ratings", rating_scale=3)
    assert store.session_by_id(engine.id).settings == before
    engine.set_options("ratings", scale=3)
    assert engine.options("ratings")["scale"] == 3


# ---------------------------------------------------------------------------------------- a second corpus
def test_a_rule_reading_the_target_is_refused_by_the_engine_and_on_import(store, engine):
    """Ordering by the price (or pairing rows on it) would carry the held-out rows' prices into SSL."""
    for rule in (
        Rule("dearer", [Within("age", 5.0)], Ordering("price")),
        Rule("by price", [Within("price", 9.0)], Ordering("rooms")),
    ):
        with pytest.raises(
            ValueError, match=f"rule '{rule.name}' reads the target column 'price': its preferences would leak"
        ):
            engine.add_rule("ann", rule, PreferenceSet.order([0], [1]))
    document = json.dumps([Rule("ok", [Within("age", 5.0)], Ordering("rooms")).to_dict(), rule.to_dict()])
    with pytest.raises(ValueError, match="rule 2 of the file: rule 'by price' reads the target column 'price'"):
        engine.import_file("rules.json", document.encode(), "zed")
    assert store.contents(engine.id)["rules"] == 0 and len(store.preferences(engine.id)[0]) == 0


def test_another_sessions_answers_grades_and_rules_are_not_changed_through_this_one(store, engine):
    other = SessionEngine(store, new_session(store, "other", table()), "test", NoJob())
    other.set_model(automatic_trust=False)
    answer = other.answer("bo", (0, 1), "a")
    grade = other.grade("bo", 2, 3)
    rule = add_rule(other, Rule("r", [Within("age", 5.0)], Ordering("rooms")), "bo")  # the pairs it makes
    other.wait(60)
    before = held(store, other.id)
    for change, kind in [
        (lambda: engine.edit_answer("bo", answer, "b"), f"answer #{answer}"),
        (lambda: engine.remove_answer("bo", answer), f"answer #{answer}"),
        (lambda: engine.edit_grade("bo", grade, 1), f"grade #{grade}"),
        (lambda: engine.remove_grade("bo", grade), f"grade #{grade}"),
        (lambda: engine.remove_rule(rule), f"rule #{rule}"),
    ]:
        with pytest.raises(KeyError, match=f"{kind} is not one of this session's"):
            change()
    after = held(store, other.id)
    assert after[0] == before[0] and after[1] == before[1] and np.array_equal(after[2], before[2])
    other.remove_rule(rule)  # through its own session it is removed
    assert store.contents(other.id)["rules"] == 0
    other.wait(60)
    other.close()


# ---------------------------------------------------------------------------------------- U18, U19, U20
def test_a_url_of_an_unknown_database_kind_is_named():
    with pytest.raises(ValueError, match="^cannot open the store: 'nosuchdb' is not a database kind"):
        Store("nosuchdb://x/y")
    with pytest.raises(
        ValueError, match="^cannot open the store: 'just-a-name' is not a database URL \\(such as sqlite"
    ):
        Store("just-a-name")


def test_another_programs_sqlite_file_is_refused_and_left_as_it_is(tmp_path):
    path = tmp_path / "theirs.db"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE sessions(x text)")
    with pytest.raises(ValueError, match="it is not an ordercore store \\(it has other tables: sessions\\)"):
        Store(f"sqlite:///{path}")
    with sqlite3.connect(path) as connection:
        assert connection.execute("SELECT name FROM sqlite_master").fetchall() == [("sessions",)]


def test_a_store_path_that_is_a_directory_is_said(tmp_path):
    with pytest.raises(ValueError, match="it is a directory"):
        Store(f"sqlite:///{tmp_path}")
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------------------------------- U9, U10
def test_a_conditions_unknown_key_is_named_with_its_known_ones():
    document = Rule("r", [Within("age", 5.0)], Ordering("rooms")).to_dict()
    document["conditions"][0]["extra"] = 1
    with pytest.raises(ValueError, match="^a within condition has no field 'extra'; its fields are column, tolerance$"):
        Rule.from_dict(document)


def test_near_names_a_value_outside_the_degrees_plainly():
    values = {"lat": np.array([10.0, 20.0]), "lon": np.array([242.0, 10.0])}
    with pytest.raises(ValueError, match=r"1 row\(s\) do not \(e.g. 242.0\)$"):
        Near("lat", "lon", 2.0).check_values(values)


def test_an_export_of_an_unknown_kind_or_format_is_refused_in_words(engine):
    for kind, format in [("everything", "csv"), ("answers", "xml"), ("answers", "json"), ("grades", "json")]:
        with pytest.raises(ValueError, match=f"no export of '{kind}' as '{format}': a session exports answers and"):
            engine.export(kind, format)
    assert engine.export("rules").strip() and engine.export("preferences", "json").strip()


def test_a_test_share_off_0_to_1_and_a_labeled_row_beyond_the_table_are_refused_naming_them():
    frame = table()
    for fraction in (-0.1, 1.5):
        with pytest.raises(ValueError, match=f"the test share must be between 0 and 1, got {fraction:g}"):
            data_settings(frame, "upload", "price", ["x"], {"n_labeled": 10, "test_fraction": fraction})
    with pytest.raises(ValueError, match="among the table's rows \\(row 500 is not one of its 0 … 59\\)"):
        data_settings(frame, "upload", "price", ["x"], {"labeled": [0, 500]})
    settings, _ = data_settings(frame, "upload", "price", ["x"], {"n_labeled": 10, "test_fraction": 0.0})
    assert settings["test"] == [] and len(settings["labeled"]) == 10


def test_an_export_resaved_by_a_spreadsheet_imports_and_a_latin1_one_is_placed(store, engine):
    """A second corpus' UC5 and UC6: an answers export resaved with a BOM and ';' was 'not a file the
    Studio exports'; a Latin-1 byte gave Python's codec message, its position wrong and no line."""
    resaved = "\ufeffhome_id_a;home_id_b;choice;annotator\n141;142;a;erin\n".encode()
    assert engine.import_file("answers.csv", resaved, "erin") == "Imported 1 answer."
    latin1 = "home_id_a,home_id_b,choice,annotator\n141,143,a,erin\n141,144,b,Zoë\n".encode("latin-1")
    with pytest.raises(ValueError, match="^could not read the CSV: it is not UTF-8 text \\(byte 0xeb on line 3"):
        engine.import_file("answers.csv", latin1, "erin")
    assert store.contents(engine.id)["answers"] == 1


def test_a_refused_import_says_nothing_was_imported_once(store, exported):
    """New-user report 9: 'Nothing was imported: this file names rows by car_id, which this table lacks; nothing
    was imported'.  The page's words, built by ``import_refusal``, say it once, whatever ends the reason."""
    from ordercore.studio.session_files import import_refusal

    names = RowNames.of(table(ids=False), "price", None)
    with pytest.raises(ValueError) as refused:
        read_session_file("answers.csv", exported["answers"].encode(), names)
    said = import_refusal(refused.value)
    assert said == "Nothing was imported: this file names rows by home_id, which this table lacks", said
    assert import_refusal(ValueError("x: which one is meant? Nothing was imported")) == (
        "Nothing was imported: x: which one is meant?"
    )
    assert import_refusal(KeyError("no column 'i'")) == "Nothing was imported: no column 'i'"
