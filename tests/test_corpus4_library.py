"""Issue 32, the fourth corpus of bad input to the library: each case is refused in one line of words
naming what is wrong (the column, the key, the line, the value cut to 40 characters), and nothing is
written (no model file, nothing in the Studio's store).  Preference files with an unknown column, a key
given twice in JSON, empty cells, an empty file; labels and features the estimators cannot read; an
unknown model setting, a directory given as a model file, a store on a device, a rule given preferences
it does not make."""

from __future__ import annotations

import json

import numpy as np
import pytest

import ordercore
from ordercore import NPSVOR, GPPreferenceModel, ModelFileError, MPMRegressor, OrderPreferenceRegressor
from ordercore.cli.main import main
from ordercore.knowledge.rules import RULE_FORMAT, Ordering, Rule, Within
from ordercore.preferences import ZERO, PreferenceSet
from ordercore.studio.store import Store
from tests.test_corpus3_input import homes  # noqa: F401 (a fixture)
from tests.test_model_files import assert_refused, entries_of, model_path, problem  # noqa: F401 (fixtures)
from tests.test_store_refusals import engine, held, store, table  # noqa: F401 (fixtures)


def fit(homes, preferences, out, *extra) -> str:  # noqa: F811
    """The CLI's error for a fit with the preference file ``preferences``, no model written."""
    with pytest.raises(SystemExit) as raised:
        main(["fit", str(homes), "--target", "price", "--preferences", str(preferences), "--out", str(out), *extra])
    assert not out.exists()
    return str(raised.value)


def state(store, session_id: int) -> tuple:  # noqa: F811
    """``held``, its margins as a list (comparable when the session holds none)."""
    contents, settings, margins = held(store, session_id)
    return contents, settings, margins.tolist()


# ---------------------------------------------------------------------------------------- F09/K38/S36b
def test_a_preference_column_no_format_has_is_refused_in_fit_check_and_import(tmp_path, homes, store, engine):  # noqa: F811
    """'wieght' (a typo) was dropped silently: every weight read as 1."""
    path = tmp_path / "p.csv"
    path.write_text("i,j,margin,wieght\n0,2,0,9\n")
    said = "unknown column(s) 'wieght': a preference file has the columns i, j, margin, weight"
    assert said in fit(homes, path, tmp_path / "m.npz")
    with pytest.raises(SystemExit, match=r"unknown column\(s\) 'wieght'"):
        main(["check", str(path)])
    before = state(store, engine.id)
    with pytest.raises(ValueError, match=r"^unknown column\(s\) 'wieght'"):
        engine.import_file("p.csv", path.read_bytes(), "ann")
    assert state(store, engine.id) == before


def test_a_sessions_export_by_id_still_reads_everywhere(tmp_path, capsys, store, engine):  # noqa: F811
    """The export's own columns (ids beside i and j, source, rule_id, answer_id, annotator) are known."""
    store.add_answer(engine.id, 1, 2, "a", "ann")
    table().to_csv(tmp_path / "t.csv", index=False)
    for format in ("csv", "json"):
        path = tmp_path / f"p.{format}"
        path.write_text(engine.export("preferences", format))
        main(["check", str(path)])
        assert capsys.readouterr().out.startswith(f"{path}: 1 preferences")
        main(["fit", str(tmp_path / "t.csv"), "--target", "price", "--id", "home_id", "--preferences", str(path),
              "--out", str(tmp_path / f"m{format}.npz")])  # fmt: skip
        assert (tmp_path / f"m{format}.npz").exists()
        assert engine.import_file(path.name, path.read_bytes(), "ann").startswith("Nothing was imported")
    assert path.read_text().startswith('[{"home_id_i": "101", "i": 1, "home_id_j": "102", "j": 2')


# ---------------------------------------------------------------------------------------- K10/R04/S17c
HEAD = '"format": "ordercore.preferences", "version": 1'
PREFERENCES_TWICE = "{" + HEAD + ', "i": [1], "i": [2], "j": [4], "margin": [0], "weight": [1]}'


def test_a_key_given_twice_in_json_is_refused_in_fit_check_and_import(tmp_path, homes, store, engine):  # noqa: F811
    """The last "i" won silently (row 2, not 1), in a preference file, a Studio import and a rule."""
    path = tmp_path / "p.json"
    path.write_text(PREFERENCES_TWICE)
    said = fit(homes, path, tmp_path / "m.npz")
    assert said == f"error: {path}: not valid preference JSON: key 'i' appears twice in one object"
    with pytest.raises(SystemExit, match="key 'i' appears twice"):
        main(["check", str(path)])
    before = state(store, engine.id)
    for name, text, key in [
        ("p.json", PREFERENCES_TWICE, "i"),
        ("p.json", '[{"i": 1, "j": 2, "j": 3}]', "j"),
        ("r.json", f'[{{"format": "{RULE_FORMAT}", "name": "a", "name": "b", "ordering": {{}}}}]', "name"),
    ]:
        with pytest.raises(ValueError, match=f"^could not read the JSON: key '{key}' appears twice in one object$"):
            engine.import_file(name, text.encode(), "ann")
    assert state(store, engine.id) == before


# ---------------------------------------------------------------------------------------- F14/S37
def test_a_long_reference_is_quoted_cut_to_40_characters(store, engine):  # noqa: F811
    """A 10-million-character i was echoed whole: an error line of 10 MB."""
    long = "x" * 10_000_000
    text = "{" + HEAD + f', "i": ["{long}"], "j": [4], "margin": [0], "weight": [1]}}'
    with pytest.raises(ValueError) as raised:
        engine.import_file("p.json", text.encode(), "ann")
    said = f"i must hold row indices (integers), got <U10000000, e.g. {'x' * 40!r}… (10,000,000 characters)"
    assert str(raised.value) == said


# ---------------------------------------------------------------------------------------- K06/K43/F18
def test_a_preference_naming_no_row_is_said_so_with_its_line(tmp_path):
    """',' was 'a preference needs two different points: i == j at positions [1]'."""
    (tmp_path / "p.csv").write_text("i,j\n1,\n,\n")  # line 2 is unary (j empty), line 3 names no row
    with pytest.raises(SystemExit) as raised:
        main(["check", str(tmp_path / "p.csv")])
    assert str(raised.value) == (
        f"error: {tmp_path / 'p.csv'}: line 3 names no row: its i and j are both empty (a unary preference leaves "
        "one of them empty, for the constant 0); 1 such line(s)"
    )


def test_empty_margin_and_weight_cells_are_named_with_their_lines(tmp_path, homes):  # noqa: F811
    """'margin d must be finite; NaN or inf at positions [0]': no line, and the empty weight unsaid."""
    (tmp_path / "p.csv").write_text("i,j,margin,weight\n0,2,,1\n4,6,0.5,\n4,8,,1\n")
    assert fit(homes, tmp_path / "p.csv", tmp_path / "m.npz") == (
        f"error: {tmp_path / 'p.csv'}: empty cell(s): the margin on line 2 (2 in all); the weight on line 3: give "
        "each a number (a file without the column takes margin 0, weight 1)"
    )


# ---------------------------------------------------------------------------------------- S36c
def test_a_unary_preference_imports_into_a_session_as_the_library_reads_it(store, engine):  # noqa: F811
    """'1,,5,1' (f(x_1) >= 5, j empty as the CLI reads it) was 'j must hold row indices (integers), got
    float64, e.g. nan'; a session holds unary preferences (its export writes j = -1), so it imports."""
    assert engine.import_file("p.csv", b"i,j,margin,weight\n1,,5,1\n", "ann") == "Imported 1 preference."
    made = store.preferences(engine.id)[0]
    assert (made.i.tolist(), made.j.tolist(), made.margin.tolist(), made.weight.tolist()) == ([1], [ZERO], [5.0], [1.0])
    before = state(store, engine.id)
    with pytest.raises(ValueError, match=r"^line 3 names no row: its i and j are both empty"):
        engine.import_file("p.csv", b"i,j,margin,weight\n2,,5,1\n,,5,1\n", "ann")
    assert state(store, engine.id) == before


# ---------------------------------------------------------------------------------------- O43/X04
def test_an_empty_preference_file_is_said_to_be_empty(tmp_path, homes, store, engine):  # noqa: F811
    """pandas' 'No columns to parse from file'."""
    assert fit(homes, "/dev/null", tmp_path / "m.npz") == "error: /dev/null: the file is empty (no header, no rows)"
    (tmp_path / "p.csv").write_text("")
    with pytest.raises(SystemExit, match=r": the file is empty \(no header, no rows\)$"):
        main(["check", str(tmp_path / "p.csv")])
    with pytest.raises(ValueError, match=r"^could not read the CSV: the file is empty \(no header, no rows\)$"):
        engine.import_file("p.csv", b"", "ann")


# ---------------------------------------------------------------------------------------- M16/N03/N16/L38
def features(n: int = 30) -> np.ndarray:
    return np.column_stack([np.arange(n, dtype=float), np.arange(n, dtype=float) % 7])


def test_targets_that_are_not_numbers_are_named_by_row():
    """numpy's UFuncTypeError ('ufunc absolute did not contain a loop ...')."""
    with pytest.raises(ValueError, match=r"^y must hold numbers: row 0 holds 'a'$"):
        MPMRegressor().fit(features(), np.array(["a"] * 30))
    with pytest.raises(ValueError, match=r"^y must hold numbers: row 2 holds None$"):
        MPMRegressor().fit(features(3), np.array([1.0, 2.0, None], dtype=object))


@pytest.mark.parametrize(
    "labels, said",
    [
        ([1, "2", 3], r"^y mixes numbers and text: row 0 holds the number 1, row 1 the text '2'; give every rank"),
        ([1, 2, None], r"^y holds a missing label \(None\) at row 2; every row needs its rank$"),
        ([1.0, 2.0, np.nan], r"^y holds a missing label \(nan\) at row 2; every row needs its rank$"),
    ],
)
def test_ordinal_labels_mixing_numbers_and_text_or_missing_are_said_so(labels, said):
    """scikit-learn's 'Unknown label type: unknown. Maybe you are trying to fit a classifier ...'."""
    y = np.array(labels * 10, dtype=object if None in labels or "2" in labels else float)
    with pytest.raises(ValueError, match=said):
        NPSVOR().fit(features(), y)


@pytest.mark.parametrize(
    "estimator",
    [OrderPreferenceRegressor(gamma=0.5), MPMRegressor(), NPSVOR(), GPPreferenceModel()],
    ids=lambda e: type(e).__name__,
)
def test_rows_of_x_of_different_lengths_are_named(estimator):
    """numpy's 'setting an array element with a sequence. The requested array has an inhomogeneous shape'."""
    with pytest.raises(ValueError, match=r"^X's rows have different lengths: row 0 has 2 values, row 2 has 1 value$"):
        estimator.fit([[1.0, 2.0], [3.0, 4.0], [5.0]], [1.0, 2.0, 3.0])


# ---------------------------------------------------------------------------------------- S34b
def test_an_unknown_model_setting_is_named_with_the_known_ones(store, engine):  # noqa: F811
    """TypeError: ModelSettings.__init__() got an unexpected keyword argument 'gamma'."""
    before = state(store, engine.id)
    with pytest.raises(ValueError) as raised:
        engine.set_model(gamma=-1)
    assert str(raised.value) == (
        "no model setting 'gamma'; the settings are family, parameters, automatic_trust, time_limit "
        "(a model's gamma goes in parameters={'gamma': ...})"
    )
    assert state(store, engine.id) == before


# ---------------------------------------------------------------------------------------- F06m
def test_a_directory_given_as_a_model_file_is_a_model_file_error(tmp_path):
    """A bare IsADirectoryError: callers catching ModelFileError (as documented) missed it."""
    with pytest.raises(ModelFileError, match=f"^{tmp_path} is a directory, not a model file$"):
        ordercore.load(tmp_path)


def test_a_model_files_metadata_naming_a_key_twice_is_a_model_file_error(model_path):  # noqa: F811
    """The last "format" won silently, as in any JSON the project reads."""
    entries, document = entries_of(model_path)
    text = '{"format": "not ordercore", ' + json.dumps(document)[1:]
    np.savez(model_path, **entries, metadata=np.frombuffer(text.encode("utf-8"), dtype=np.uint8))
    assert_refused(model_path, "its metadata is not valid JSON \\(key 'format' appears twice in one object\\)")


# ---------------------------------------------------------------------------------------- S01b
def test_a_store_on_a_device_is_said_to_be_no_regular_file():
    """SQLite's 'disk I/O error'."""
    with pytest.raises(ValueError, match=r"^cannot open the store '/dev/null': it is not a regular file"):
        Store("sqlite:////dev/null")


# ---------------------------------------------------------------------------------------- S31b
def rule_pairs(data, within: float) -> list[tuple[int, int]]:
    """By hand: the pairs (a over b) of rows whose ages are within ``within`` years and whose rooms are
    more in a than in b, one of them unlabeled (the rule 'more rooms, similar age' on training pairs)."""
    frame, labeled = data.frame, set(data.labeled.tolist())
    return [
        (a, b)
        for a in range(len(frame))
        for b in range(len(frame))
        if abs(frame.age[a] - frame.age[b]) <= within
        and frame.rooms[a] > frame.rooms[b]
        and not (a in labeled and b in labeled)
    ]


def ordered(pairs, margin: float = 0.0) -> PreferenceSet:
    """Pairs (a, b) as preferences a over b."""
    return PreferenceSet.order([a for a, _ in pairs], [b for _, b in pairs], margin=margin)


def test_a_rule_given_preferences_it_does_not_make_is_refused(store, engine):  # noqa: F811
    """An empty set was stored for a rule that matches pairs, as any set would have been."""
    rule, data = Rule("similar age", [Within("age", 5.0)], Ordering("rooms")), engine.data()
    pairs, rooms = rule_pairs(data, 5.0), data.frame.rooms
    stray = next((a, b) for a in range(60) for b in range(60) if a != b and rooms[a] == rooms[b])  # rooms tie
    before = state(store, engine.id)
    for made, said in [
        (PreferenceSet.empty(), f"^rule 'similar age' makes {len(pairs):,} preferences on this table, but none"),
        (ordered(pairs[:3], margin=1.0), "^the preferences given for rule 'similar age' do not all have its margin"),
        (
            ordered([pairs[0], stray]),
            f"^rule 'similar age' does not make the given preference row {stray[0]} over row {stray[1]} on this table$",
        ),  # fmt: skip
        (ordered([pairs[0], pairs[0]]), "^the preferences given for rule 'similar age' name a pair twice"),
    ]:
        with pytest.raises(ValueError, match=said):
            engine.add_rule("ann", rule, made)
        assert state(store, engine.id) == before
    engine.add_rule("ann", rule, ordered(pairs[::7]))  # a sample of its pairs, as a capped preview keeps
    assert store.contents(engine.id)["rules"] == 1
