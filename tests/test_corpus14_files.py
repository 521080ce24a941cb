"""The fourteenth corpus's findings on files (issue 32, "nothing silently wrong").  PI12, CL01: a preferences,
answers or grades file holding both the rows' positions and their ids, the two disagreeing: the positions were
dropped without a word and the ids used.  The ids name the rows (an export's positions are its own table's, and
it imports into a table holding the same rows in any order), so the ids are still used, and the import (or the
command line, as a warning) says which positions differed, naming the first line.  The session's and the CLI
tests' tables name their homes 100, 101, … (``home_id`` = position + 100)."""

from __future__ import annotations

import io
import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ordercore import OrderPreferenceRegressor, load
from ordercore.cli.main import main
from ordercore.cli.tabular import Table, check_preference_file, read_preferences
from ordercore.data.tables import read_csv
from ordercore.knowledge.rules import Ordering, Rule, Within
from ordercore.preferences import PreferenceSet
from tests.conftest import labeled_homes_csv
from tests.store_checks import snapshot
from tests.test_corpus4_cli import refusal, rules_file
from tests.test_corpus12_studio import engine  # noqa: F401 (the fixture)


# ------------------------------------------------------------- R9: positions and ids that disagree
@pytest.mark.parametrize(
    "name, content, said",
    [
        ("p.csv", "home_id_i,i,home_id_j,j\n119,19,120,20\n121,30,122,22\n", "line 3: i '30' but home_id_i '121'"),
        ("p.csv", "home_id_i,i,home_id_j,j\n119,19,120,21\n", "line 2: j '21' but home_id_j '120', which is row 20"),
        ("p.csv", "home_id_i,i,home_id_j,j\n119,19,,5\n", "line 2: j '5' but an empty home_id_j, which is no row"),
        (
            "p.json",
            '[{"home_id_i": 119, "i": 19, "home_id_j": 120, "j": 20}, {"home_id_i": 121, "i": 2, '
            '"home_id_j": 122, "j": 22}]',
            "record 2: i '2' but home_id_i '121', which is row 21",
        ),  # fmt: skip
        ("a.csv", "home_id_a,row_a,home_id_b,row_b,choice,annotator\n119,19,120,40,a,ann\n", "line 2: row_b '40'"),
        ("g.csv", "home_id,row,grade,annotator\n105,5,3,ann\n106,7,4,ann\n", "line 3: row '7' but home_id '106'"),
    ],
)
def test_an_import_says_which_positions_differ_from_their_ids_rows(engine, name, content, said):  # noqa: F811
    assert said in engine.import_file(name, content.encode(), "imp")


def test_an_import_whose_positions_differ_stores_the_rows_of_its_ids(store, engine):  # noqa: F811
    """PI12: home_id 119 is row 19 (119 - 100), 120 row 20, whatever the positions 30, 31 say."""
    said = engine.import_file("p.csv", b"home_id_i,i,home_id_j,j,margin,weight\n119,30,120,31,0.1,1\n", "imp")
    assert "the ids were used" in said
    made = store.preferences(engine.id)[0]
    assert list(zip(made.i.tolist(), made.j.tolist(), strict=True)) == [(19, 20)]


def test_a_file_whose_positions_and_ids_agree_imports_those_rows_without_a_note(store, engine):  # noqa: F811
    """An empty home_id_j with j = -1 is a unary preference's 0."""
    content = "home_id_i,i,home_id_j,j,margin,weight\n119,19,120,20,0.5,1\n121,21,,-1,2,1\n"
    assert "differs" not in engine.import_file("p.csv", content.encode(), "imp")
    made = store.preferences(engine.id)[0]
    assert sorted(zip(made.i.tolist(), made.j.tolist(), made.margin.tolist(), strict=True)) == [
        (19, 20, 0.5),
        (21, -1, 2.0),
    ]


@pytest.fixture
def homes(tmp_path) -> Table:
    """30 homes named 100, 101, … (home_id = position + 100), the price on every other one, read by --id home_id."""
    frame = pd.DataFrame({"home_id": np.arange(30) + 100, "x": np.arange(30.0), "price": np.arange(30.0) * 2})
    frame.loc[frame.index % 2 == 1, "price"] = np.nan
    frame.to_csv(tmp_path / "homes.csv", index=False)
    return Table.read(tmp_path / "homes.csv", "price", ["x"], "home_id")


@pytest.mark.parametrize(
    "name, content, said",
    [
        ("p.csv", "home_id_i,i,home_id_j,j\n119,19,120,20\n119,3,120,20\n", "line 3: i '3' but home_id_i '119'"),
        ("p.csv", "i,j,home_id_i,home_id_j\n19,21,119,120\n", "line 2: j '21' but home_id_j '120'"),
        ("p.json", '[{"home_id_i": 119, "i": 19, "home_id_j": 120, "j": 2}]', "record 1: j '2'"),
        (
            "p.jsonl",
            '{"home_id_i": 119, "i": 19, "home_id_j": 120, "j": 20}\n{"home_id_i": 1' + '21, "i": 1, '
            '"home_id_j": 122, "j": 22}\n',
            "record 2: i '1'",
        ),  # fmt: skip
    ],
)
def test_the_command_line_warns_of_positions_that_are_not_their_ids_rows(tmp_path, homes, name, content, said):
    (tmp_path / name).write_text(content)
    with pytest.warns(UserWarning, match=said):
        made = read_preferences(tmp_path / name, homes)
    assert made.i[0] == 19  # home_id 119 (119 - 100), as the ids say


@pytest.mark.parametrize(
    "content",
    [
        "home_id_i,i,home_id_j,j,margin\n119,19,120,20,0.5\n121,21,,-1,2\n",
        "home_id_i,home_id_j,margin\n119,120,0.5\n121,,2\n",  # R14 (CL01): ids alone, as the Studio reads them
    ],
    ids=["positions and ids", "ids alone"],
)
def test_the_command_line_reads_a_file_by_its_ids(tmp_path, homes, content):
    """home_id 119 is row 19 (119 - 100); an empty home_id_j is a unary preference's 0 (-1)."""
    (tmp_path / "p.csv").write_text(content)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # positions that are their ids' rows: read without a word
        made = read_preferences(tmp_path / "p.csv", homes)
    assert list(zip(made.i.tolist(), made.j.tolist(), made.margin.tolist(), strict=True)) == [
        (19, 20, 0.5),
        (21, -1, 2.0),
    ]


def test_check_names_the_rows_of_a_file_by_ids_alone_as_it_does(tmp_path):
    """``check`` needs no table: a file naming rows by home_id alone (CL01's file) is read by those ids."""
    (tmp_path / "p.csv").write_text("home_id_i,home_id_j\n50,51\n51,50\n")
    report, count, names = check_preference_file(tmp_path / "p.csv")
    assert count == 2 and list(names) == ["50", "51"]


# ------------------------------------------------------------------- R11, R12: PreferenceSet's readers
@pytest.mark.parametrize(
    "read, said",
    [
        (lambda: PreferenceSet(pd.array([1, None], dtype="Int64"), [2, 3]), "i is missing .* at position 1"),
        (lambda: PreferenceSet([1, 2], [3, np.nan]), "j is missing .* at position 1"),
        (lambda: PreferenceSet.from_frame(pd.DataFrame({"i": [1, np.nan], "j": [2, 3]})), "i is missing .* position 1"),
        (lambda: PreferenceSet.from_json('[{"i": 1, "j": 2}, {"i": 1}]'), "j is missing .* at position 1"),
        (lambda: PreferenceSet.from_csv(io.StringIO("i,j\n1,2\n3,\n")), "j is missing .* at position 1"),
        (lambda: PreferenceSet.from_csv(io.StringIO("i,i,j\n1,5,2\n")), "names the column 'i' twice"),
        (lambda: PreferenceSet.from_csv("i,j,j\n1,5,2\n"), "names the column 'j' twice"),
        (lambda: PreferenceSet.from_frame(pd.DataFrame([[1, 5, 2]], columns=["i", "i", "j"])), "'i' appears twice"),
    ],
)
def test_a_missing_row_or_a_repeated_column_is_said_as_such(read, said):
    """A NaN or NA in i or j was said 'got float64, e.g. 1.0' (a valid value); a second i as pandas' 'i.1'."""
    with pytest.raises(ValueError, match=said):
        read()


@pytest.mark.parametrize(
    "read, said",
    [
        (lambda: PreferenceSet.from_frame({"i": [1], "j": [2]}), "from_frame takes a pandas DataFrame .* got dict"),
        (lambda: PreferenceSet.from_csv(b"i,j\n1,2\n"), "from_csv reads a path .* got bytes"),
        (lambda: PreferenceSet.from_json(b"/tmp/nope.json"), "from_json reads JSON text or a path .* got bytes"),
        (lambda: PreferenceSet.from_csv(42), "from_csv reads a path .* got int"),
    ],
)
def test_a_source_of_another_type_is_named_with_what_is_read(read, said):
    with pytest.raises(TypeError, match=said):
        read()


def test_a_path_with_a_nul_is_said_so(tmp_path):
    with pytest.raises(ValueError, match="path holds a NUL byte"):
        PreferenceSet.from_csv(str(tmp_path / "a\x00b.csv"))


@pytest.mark.parametrize("text", ['\ufeff[{"i": 1, "j": 2}]', '\ufeff{"format": "ordercore.preferences", "version": 1, '
                                  '"i": [1], "j": [2], "margin": [0.0], "weight": [1.0]}'])  # fmt: skip
def test_json_text_with_a_byte_order_mark_is_read_as_json(text):
    """PS59: taken for a file's name (FileNotFoundError naming the JSON)."""
    made = PreferenceSet.from_json(text)
    assert (made.i.tolist(), made.j.tolist()) == ([1], [2])


# ------------------------------------------------------------------------------ R10: rules files' words
RULE = Rule("r1", [Within("age", 5)], Ordering("rooms", "higher")).to_dict()


@pytest.mark.parametrize(
    "records, said",
    [
        ([{**RULE, "format": "other"}], "record 1 has the format 'other': a rule's is \"ordercore.rule\""),
        ([RULE, {k: v for k, v in RULE.items() if k != "format"} | {"name": "r2"}], "record 2 has no format"),
    ],
)
def test_a_rules_file_of_another_format_is_refused_as_such(store, engine, records, said):  # noqa: F811
    """RI13: read as a grades file 'lacking the column(s) home_id, grade'."""
    before = snapshot(store)
    with pytest.raises(ValueError, match=said):
        engine.import_file("r.json", json.dumps(records).encode(), "imp")
    assert snapshot(store) == before


def test_a_rule_the_file_repeats_is_said_repeated_not_held_by_the_session(store, engine):  # noqa: F811
    """EX24: a session holding no rule was told '1 was already in the session'."""
    assert store.rules(engine.id) == []
    said = engine.import_file("r.json", json.dumps([RULE, RULE]).encode(), "imp")
    assert said == "Imported 1 rule (1 rule repeated another rule of the file)."
    assert len(store.rules(engine.id)) == 1


# ------------------------------------------------------------- R13: a flag for an input not given
def test_fit_refuses_max_pairs_without_rules_and_writes_nothing(tmp_path, homes_csv):  # noqa: F811
    """CL09: --max-pairs 10 without --rules was ignored, exit 0."""
    out = tmp_path / "m.npz"
    said = refusal(["fit", homes_csv, "--target", "price", "--max-pairs", "10", "--out", out])
    assert "--max-pairs 10 applies to the preferences --rules make" in said
    assert not out.exists()


def test_fit_takes_max_pairs_with_rules(tmp_path, homes_csv):  # noqa: F811
    rules = rules_file(tmp_path, Rule("r", [Within("age", 4.0)], Ordering("bedrooms")).to_dict())
    out = tmp_path / "m.npz"
    main(["fit", str(homes_csv), "--target", "price", "--rules", str(rules), "--max-pairs", "3", "--out", str(out)])
    assert out.exists()


@pytest.fixture
def homes_csv(tmp_path):
    """60 sample homes, the price on every 3rd row (as the CLI's tests have them)."""
    return labeled_homes_csv(tmp_path, 60, 3)


# --------------------------------------------------------------------------- R2: a model file's save()
@pytest.fixture
def fitted():
    """An LP fitted on 8 rows of y = x."""
    X = np.arange(8.0).reshape(-1, 1)
    return OrderPreferenceRegressor().fit(X, X.ravel())


@pytest.mark.parametrize("preprocessing", [42, "x", {"a": 1}, pd.DataFrame({"a": [1]})])
def test_save_refuses_preprocessing_of_another_type_and_writes_nothing(tmp_path, fitted, preprocessing):
    """PK11, PK14, PK15: AttributeError "'int' object has no attribute 'to_dict'"."""
    with pytest.raises(TypeError, match="preprocessing must be a Preprocessing .* or None, got"):
        fitted.save(tmp_path / "m.npz", preprocessing=preprocessing)
    assert list(tmp_path.iterdir()) == []


def test_save_and_load_name_a_nul_in_the_path(tmp_path, fitted):
    """PK13: pathlib's bare 'embedded null byte'."""
    with pytest.raises(ValueError, match="path holds a NUL byte"):
        fitted.save(str(tmp_path / "a\x00b.npz"))
    with pytest.raises(ValueError, match="path holds a NUL byte"):
        load(str(tmp_path / "a\x00b.npz"))
    assert list(tmp_path.iterdir()) == []


# ------------------------------------------------------------- the same classes in the other readers
@pytest.mark.parametrize(
    "read, said",
    [
        (lambda: PreferenceSet.from_json('[{"j": 2}]'), r"lacks column\(s\) \['i'\]"),  # was KeyError 'i'
        (lambda: PreferenceSet.from_csv(""), "from_csv takes CSV text or a path .* got an empty string"),
        (lambda: PreferenceSet.from_json(Path("/nonexistent/a\x00b.json")), "path holds a NUL byte"),
        (lambda: read_csv("/nonexistent/a\x00b.csv"), "path holds a NUL byte"),
    ],
)
def test_the_other_readers_say_the_same_faults_in_words(read, said):
    """from_csv('') was read as the path '.' (IsADirectoryError); the data table's reader said 'embedded null byte'."""
    with pytest.raises(ValueError, match=said):
        read()


@pytest.mark.parametrize(
    "document, said",
    [
        ({"format": "other", "name": "x"}, "the JSON object has the format 'other': one to import is a rule"),
        ({"i": [1], "j": [2]}, "the JSON object has no format"),
    ],
)
def test_a_json_object_of_another_format_is_refused_naming_both_formats(store, engine, document, said):  # noqa: F811
    """Was told only 'preference JSON must have "format": "ordercore.preferences"', a rule's format unsaid."""
    before = snapshot(store)
    with pytest.raises(ValueError, match=said):
        engine.import_file("x.json", json.dumps(document).encode(), "imp")
    assert snapshot(store) == before


@pytest.mark.parametrize("n_samples, said", [(-5, "n_samples must be .*-5"), (3.5, "n_samples must be .*3.5")])
def test_check_indices_names_an_impossible_row_count_not_the_preferences(n_samples, said):
    """PS46, PS47: a negative count was reported as 'X has -5 rows' blaming the preferences; 3.5 was taken."""
    with pytest.raises(ValueError, match=said):
        PreferenceSet.order([0], [1]).check_indices(n_samples)
    PreferenceSet.order([0], [1]).check_indices(2)  # (a right count: nothing said)
