"""The sixth outside probing's findings in the Studio's engine, store and page helpers (/tmp/corpus6, V
cases): each bad input refused in words naming it (the source, the column, the row, the seed), nothing
stored; one annotator's name typed two ways is one person; an import says which lines repeated the file."""

from __future__ import annotations

import unicodedata

import numpy as np
import pandas as pd
import pytest

from ordercore.knowledge.rules import Ordering, Rule, Within
from ordercore.preferences import PreferenceSet
from ordercore.studio import data_choice, rule_view, toy_cubic
from ordercore.studio import numbers as studio_numbers
from ordercore.studio.data import data_settings
from ordercore.studio.row_names import RowNames
from ordercore.studio.session import SessionEngine
from ordercore.studio.store import Store
from tests.test_corpus4_library import state
from tests.test_session_engine import add_rule
from tests.test_store_refusals import NoJob, engine, new_session, store, table  # noqa: F401 (fixtures)

RULE = Rule("small age gap", [Within("age", 5.0)], Ordering("rooms"))


def everything(store, session_ids) -> list:  # noqa: F811
    """What the sessions hold (``state``) and how many sessions there are."""
    return [state(store, session_id) for session_id in session_ids] + [len(store.sessions())]


# ---------------------------------------------------------------------------------------- V157/V192
def test_data_settings_of_an_unknown_source_names_it_and_the_known_ones():
    with pytest.raises(ValueError, match="^unknown data source 'bogus': the sources are sample, california"):
        data_settings(table(), "bogus", "price", ["x"], {"n_labeled": 10})


def test_row_names_by_an_identifier_the_table_lacks_are_refused():
    with pytest.raises(ValueError, match="^the identifier column 'nosuch' is not in the table$"):
        RowNames.of(table(), "price", "nosuch")
    assert RowNames.of(table(), "price", "home_id").name(0) == "home_id 100"


# ---------------------------------------------------------------------------------------- V154/V156/V152/V161
@pytest.mark.parametrize(
    "split, said",
    [
        ({"labeled": [1.7, 2.2]}, r"^labeled row 1\.7 is not a row number \(a whole number from 0\)$"),
        ({"labeled": [1, 2], "test": [500]}, r"^test row 500 is not one of the table's rows 0 … 59$"),
        ({"labeled": [1, 2], "test": [3.5]}, r"^test row 3\.5 is not a row number"),
        ({"n_labeled": 10, "seed": -1}, r"^the seed must be a whole number >= 0, got -1$"),
        ({"n_labeled": 10, "seed": 1.5}, r"^the seed must be a whole number >= 0, got 1\.5$"),
        ({"n_labeled": "ten"}, r"^the labeled budget must be a whole number >= 1, got 'ten'$"),
    ],
)
def test_data_settings_refuse_rows_seeds_and_budgets_that_are_no_whole_numbers_of_the_table(split, said):
    with pytest.raises(ValueError, match=said):
        data_settings(table(), "upload", "price", ["x"], split)


def test_data_settings_keep_whole_rows_given_as_floats_and_numpy_integers():
    settings, _ = data_settings(table(), "upload", "price", ["x"], {"labeled": [1.0, np.int64(2)], "test": [3]})
    assert settings["labeled"] == [1, 2] and settings["test"] == [3]


def test_data_settings_of_a_table_with_two_columns_of_one_name_are_refused():
    frame = table()
    with pytest.raises(ValueError, match="^the table has 2 columns named 'x': rename all but one$"):
        data_settings(pd.concat([frame, frame[["x"]]], axis=1), "upload", "price", ["x"], {"n_labeled": 10})


@pytest.mark.parametrize(
    "arguments, said",
    [
        (("ten", 0.2, 0), r"^the labeled budget must be a whole number >= 1, got 'ten'$"),
        ((10, 0.2, -1), r"^the seed must be a whole number >= 0, got -1$"),
        ((10, 0.2, 0, [2.5]), r"^labeled row 2\.5 is not a row number"),
    ],
)
def test_split_choice_names_what_is_no_whole_number(arguments, said):
    with pytest.raises(ValueError, match=said):
        data_choice.split_choice(*arguments)


def test_the_toy_demo_refuses_a_negative_seed_naming_it():
    with pytest.raises(ValueError, match=r"^the seed must be a whole number >= 0, got -1$"):
        toy_cubic.ToyCubicDemo.draw(-1)


# ---------------------------------------------------------------------------------------- V175/V189
@pytest.mark.parametrize("seconds", [float("nan"), float("inf"), -5])
def test_a_duration_unknown_or_negative_reads_as_a_dash(seconds):
    assert studio_numbers.duration(seconds) == "—"
    assert studio_numbers.duration(70) == "1 min 10 s"


@pytest.mark.parametrize("count", [-1, 1.5, "2"])
def test_a_preview_of_a_count_that_is_no_whole_number_at_least_0_is_refused(count):
    preferences = PreferenceSet.order(i=[1, 2], j=[3, 4])
    if count == "2":  # text holding a whole number: read as it
        assert len(rule_view.preview_sample(preferences, count)) == 2
        return
    with pytest.raises(ValueError, match="^the number of pairs to preview must be a whole number >= 0"):
        rule_view.preview_sample(preferences, count)


# ---------------------------------------------------------------------------------------- V120/V123/V124
def test_contents_of_a_session_that_does_not_exist_is_refused_as_revision_is(store):  # noqa: F811
    for ask in (store.revision, store.contents):
        with pytest.raises(KeyError, match="no session 999"):
            ask(999)


@pytest.mark.parametrize(
    "change, said",
    [
        ({"labeled": [0, 1, 500]}, r"^labeled row 500 is not one of the table's rows 0 … 59$"),
        ({"test": [0.5]}, r"^test row 0\.5 is not a row number"),
        ({"target": "nosuch"}, r"^the target column 'nosuch' is not in the session's table$"),
        ({"features": ["x", "wieght"]}, r"^the feature column 'wieght' is not in the session's table$"),
    ],
)
def test_update_settings_refuse_rows_and_columns_the_sessions_table_lacks(store, engine, change, said):  # noqa: F811
    before = everything(store, [engine.id])
    with pytest.raises(ValueError, match=said):
        store.update_settings(engine.id, dict(store.session_by_id(engine.id).settings, **change))
    assert everything(store, [engine.id]) == before


def test_update_settings_take_numpy_integers_as_the_numbers_they_hold(store, engine):  # noqa: F811
    engine.set_options("ratings", scale=np.int64(4))
    assert store.session_by_id(engine.id).settings["ratings"]["scale"] == 4


def test_a_data_set_of_dict_cells_is_refused_naming_the_column(store):  # noqa: F811
    with pytest.raises(TypeError, match="^column 'a' holds dict values; a data set holds numbers or text$"):
        store.add_dataset("dicts", pd.DataFrame({"a": [{"x": 1}]}))


# ---------------------------------------------------------------------------------------- V002
def test_a_name_typed_composed_or_decomposed_is_one_annotator(store, engine):  # noqa: F811
    composed, decomposed = "Ren\u00e9", "Rene\u0301"
    assert composed != decomposed and unicodedata.normalize("NFC", decomposed) == composed
    engine.answer(composed, (9, 10), "a")
    engine.answer(decomposed, (11, 12), "a")
    assert sorted(set(store.answers(engine.id)["annotator"])) == [composed]
    engine.undo_answer(composed)  # the answer typed decomposed, the last: this person's
    assert store.answers(engine.id)[["row_a", "row_b"]].values.tolist() == [[9, 10]]


# ---------------------------------------------------------------------------------------- V014/V015/V022
@pytest.mark.parametrize("margin, shown", [("abc", "'abc'"), (None, "None"), (True, "True")])
def test_an_answers_margin_that_is_no_number_is_named(store, engine, margin, shown):  # noqa: F811
    before = everything(store, [engine.id])
    with pytest.raises(
        ValueError, match=f"^an answer's margin must be a number \\(in the target's units\\), got {shown}$"
    ):
        engine.answer("ann", (21, 22), "a", margin=margin)
    assert everything(store, [engine.id]) == before


def test_a_rule_id_as_text_is_said_to_be_no_rule_number_not_a_missing_rule(store, engine):  # noqa: F811
    rule_id = add_rule(engine, RULE)
    made, provenance = engine.preferences()
    first = int(provenance["rule_id"].eq(rule_id).fillna(False).to_numpy(dtype=bool).argmax())
    pair = (int(made.i[first]), int(made.j[first]))  # an audit answers one of the rule's pairs
    before = everything(store, [engine.id])
    with pytest.raises(ValueError, match=f"^rule_id must be a rule number \\(an integer\\), got '{rule_id}'$"):
        engine.answer("ann", pair, "a", rule_id=str(rule_id))
    assert everything(store, [engine.id]) == before
    engine.answer("ann", pair, "a", rule_id=rule_id)


# ---------------------------------------------------------------------------------------- V067/V083/V097
def test_rules_exported_as_csv_are_refused_as_other_unsupported_formats_are(engine):  # noqa: F811
    add_rule(engine, RULE)
    with pytest.raises(ValueError, match="^no export of 'rules' as 'csv': a session exports answers and grades"):
        engine.export("rules", "csv")
    assert engine.export("rules").lstrip().startswith("[") and engine.export("rules", "json") == engine.export("rules")
    assert engine.export("answers") == engine.export("answers", "csv")


def test_a_new_answer_given_twice_in_a_file_is_said_to_repeat_a_line_not_to_be_held(store, engine):  # noqa: F811
    engine.answer("ann", (1, 2), "a")
    # as written by hand (or before exports had fingerprints): the last two fields, the rows' fingerprints, cut
    exported = [line.rsplit(",", 2)[0] for line in engine.export("answers").splitlines()]
    other = SessionEngine(store, new_session(store, "other", table()), "test", NoJob())
    new_line = exported[1].replace("101", "140").replace("102", "141")
    said = other.import_file("a.csv", "\n".join([exported[0], new_line, new_line, ""]).encode(), "imp")
    assert said == "Imported 1 answer (1 line repeated another line of the file)."
    said = other.import_file("a.csv", "\n".join([*exported, new_line, new_line, ""]).encode(), "imp")
    assert said == "Imported 1 answer (1 was already in the session; 1 line repeated another line of the file)."
    other.close()


def test_json_in_a_file_named_csv_is_said_to_be_json(store, engine):  # noqa: F811
    engine.answer("ann", (1, 2), "a")
    before = everything(store, [engine.id])
    with pytest.raises(ValueError, match=r"^p\.csv holds JSON, not CSV \(it starts with '\{' or '\['\): name the file"):
        engine.import_file("p.csv", engine.export("preferences", "json").encode(), "imp")
    assert everything(store, [engine.id]) == before


def test_a_rule_file_nested_too_deeply_is_said_so_in_words(store, engine):  # noqa: F811
    with pytest.raises(ValueError, match="^could not read the JSON: its lists and objects are nested too deeply"):
        engine.import_file("r.json", ("[" * 5000 + "]" * 5000).encode(), "imp")


# ---------------------------------------------------------------------------------------- V134
def test_a_database_whose_driver_is_not_installed_is_named_with_the_missing_module():
    with pytest.raises(ValueError, match=r"^cannot open the store mysql://u:\*\*\*@127\.0\.0\.1:1/db: its driver for "):
        Store("mysql://u:p@127.0.0.1:1/db")
