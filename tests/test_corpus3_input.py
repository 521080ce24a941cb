"""Issue 32, the third corpus of bad input: each case is refused in one line of words naming what is wrong,
and nothing is written (no file, nothing in the Studio's store).  A cell of a million digits (the
number-mark check took hours), targets and features whose squares overflow in MPMR and NPSVOR (NaN or
wrong ranks, with numpy's overflow warnings as the only word), and, in the Studio, a margin the models
cannot fit given to the store directly, an answer's weight or margin that no float holds, a pair of
three rows, an item id that is no whole number (1.7 edited answer 1), option values of the wrong kind,
and a rule over a column the table lacks."""

from __future__ import annotations

import json
import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from ordercore import NPSVOR, MPMRegressor
from ordercore.cli.main import main
from ordercore.knowledge.rules import Ordering, Rule, Within
from ordercore.preferences import PreferenceSet
from ordercore.studio.session import SessionEngine
from ordercore.studio.store import Store
from tests.test_store_refusals import NoJob, new_session, table


# ---------------------------------------------------------------------------------------- tables
def test_a_cell_of_a_million_digits_is_refused_at_once_and_quoted_short(tmp_path):
    """A stray cell of 10^6 digits in a number column: the percent-sign pattern split the run of digits
    in every way before failing (hours), and the refusal quoted the cell whole (a megabyte)."""
    frame = pd.DataFrame({"home_id": [1, 2, 3, 4], "age": [5.0, 6.0, 7.0, 8.0], "price": [1.0, np.nan, 3.0, 4.0]})
    text = frame.to_csv(index=False) + "9" * 1_000_000 + "\n"
    (tmp_path / "t.csv").write_text(text)
    with pytest.raises(SystemExit) as raised:
        main(["fit", str(tmp_path / "t.csv"), "--target", "price", "--out", str(tmp_path / "m.npz")])
    message = str(raised.value)
    assert message.startswith("error: column 'home_id' holds numbers except at row(s) 4 ('9999")
    assert "(1,000,000 characters)" in message and len(message) < 500
    assert not (tmp_path / "m.npz").exists()


# ---------------------------------------------------------------------------------------- preference, rule files
@pytest.fixture
def homes(tmp_path):
    frame = pd.DataFrame({"age": np.arange(10.0), "rooms": np.arange(10) % 4, "price": np.arange(10.0)})
    frame.loc[frame.index % 2 == 1, "price"] = np.nan
    frame.to_csv(tmp_path / "t.csv", index=False)
    return tmp_path / "t.csv"


def test_a_preference_file_naming_a_column_twice_is_refused(tmp_path, homes):
    """'i,j,j': pandas read the second j as 'j.1', and the fit used the first, silently."""
    (tmp_path / "p.csv").write_text("i,j,j\n0,1,2\n")
    with pytest.raises(SystemExit) as raised:
        main(
            [
                "fit",
                str(homes),
                "--target",
                "price",
                "--preferences",
                str(tmp_path / "p.csv"),
                "--out",
                str(tmp_path / "m.npz"),
            ]
        )
    assert str(raised.value) == (
        f"error: {tmp_path / 'p.csv'}: the header names the column 'j' twice (columns 2 and 3): which one is meant?"
    )
    assert not (tmp_path / "m.npz").exists()


def test_a_rule_field_the_format_does_not_have_is_refused(tmp_path, homes):
    """A misspelt field ('wieght') was ignored, the weight left at 1."""
    rule = Rule("r", [Within("age", 2.0)], Ordering("rooms")).to_dict() | {"wieght": 5}
    (tmp_path / "r.json").write_text(json.dumps(rule))
    with pytest.raises(SystemExit) as raised:
        main(
            [
                "fit",
                str(homes),
                "--target",
                "price",
                "--rules",
                str(tmp_path / "r.json"),
                "--out",
                str(tmp_path / "m.npz"),
            ]
        )
    assert "rule 'r': unknown field(s) ['wieght'] (a misspelt weight or margin would be left at its default)" in str(
        raised.value
    )
    assert not (tmp_path / "m.npz").exists()


def test_a_figure_no_writer_takes_is_refused_before_the_run(tmp_path, capsys):
    """--figure f.txt was refused after the whole run, in 6 lines, and the results were not saved."""
    out = tmp_path / "s.json"
    command = ["experiments", "session", "--dataset", "sample", "--trials", "1", "--clicks", "5", "--out", str(out)]
    with pytest.raises(SystemExit) as raised:
        main([*command, "--figure", str(tmp_path / "f.txt")])
    assert raised.value.code == 2
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert error.endswith(f"argument --figure: '{tmp_path / 'f.txt'}' must end in .html (or .png, .svg, .pdf: images)")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "command",
    [
        ["table1", "--labeled", "3", "--unlabeled", "4", "--trials", "1", "--quick", "--preferences", "5"],
        ["session", "--trials", "1", "--clicks", "5"],
    ],
)
def test_an_experiment_on_a_constant_target_is_refused(tmp_path, command):
    """Both models fit a constant exactly: the summary read 'improvement nan%' after numpy's warning."""
    frame = pd.DataFrame({"age": np.arange(20.0), "rooms": np.arange(20) % 4, "price": 5.0})
    frame.to_csv(tmp_path / "t.csv", index=False)
    out = tmp_path / "r.json"
    with pytest.raises(SystemExit) as raised:
        main(["experiments", *command, "--data", str(tmp_path / "t.csv"), "--target", "price", "--out", str(out)])
    assert str(raised.value) == (
        "error: the target column 'price' holds one value (5.0) in every row that has one: SVR and SSL would both "
        "fit it exactly, there is nothing to compare"
    )
    assert not out.exists()


def test_a_preference_index_that_is_no_number_is_named_by_its_value():
    """'got object' named numpy's dtype, not the cell."""
    with pytest.raises(ValueError, match=r"i must hold row indices \(integers\), got object, e.g. 'foo'"):
        PreferenceSet(np.array([0, "foo"], dtype=object), [1, 2])


# ---------------------------------------------------------------------------------------- MPMR, NPSVOR
def sinc(n: int = 40) -> tuple[np.ndarray, np.ndarray]:
    X = np.linspace(-3, 3, n)[:, None]
    return X, np.sinc(X[:, 0])


def test_mpmr_refuses_targets_and_features_whose_squares_overflow():
    """y near 1e300 gave a wrong fit and Ω = NaN, X near 1e300 NaN predictions, each with numpy's
    overflow warnings only; y near 1e150 (squares still finite) fits as y does, with no warning."""
    X, y = sinc()
    with pytest.raises(ValueError, match=r"y is too large for MPMR in float64: its largest absolute value, 1e\+300"):
        MPMRegressor(rho=1e-6).fit(X, y * 1e300 / np.max(np.abs(y)))
    with pytest.raises(ValueError, match=r"X is too large to compute the 'rbf' kernel in float64"):
        MPMRegressor(rho=1e-6).fit(X * 1e300, y)
    fitted = MPMRegressor(rho=1e-6).fit(X, y)
    with pytest.raises(ValueError, match=r"X is too large"):
        fitted.predict(X * 1e300)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        large = MPMRegressor(rho=1e-6).fit(X, y * 1e150)
    np.testing.assert_allclose(large.predict(X) / 1e150, fitted.predict(X), atol=1e-12)
    assert np.isfinite(large.omega_)


def test_npsvor_refuses_features_whose_inner_products_overflow():
    """Features near 1e160: x_iᵀx_i overflowed in the solver and NPSVOR predicted a third of the ranks
    it predicts at 1e150, without a word."""
    rng = np.random.default_rng(2)
    X = rng.normal(size=(60, 3))
    y = np.digitize(X[:, 0], [-0.5, 0.5]) + 1
    with pytest.raises(ValueError, match=r"X is too large to compute the 'linear' kernel in float64"):
        NPSVOR(random_state=0).fit(X * 1e160, y)
    NPSVOR(random_state=0).fit(X * 1e150, y)  # squares still finite: fitted


# ---------------------------------------------------------------------------------------- the Studio
@pytest.fixture
def store(database_url):
    return Store(database_url)


@pytest.fixture
def engine(store):
    engine = SessionEngine(store, new_session(store, "homes", table(ids=False)), "test", NoJob())
    engine.set_model(automatic_trust=False)
    engine.answer("ann", (0, 1), "a")
    yield engine
    engine.wait(60)
    engine.close()


def held(store: Store, session_id: int) -> tuple:
    """All a session holds: its answers (without their times), rules, grades, settings and preferences."""
    answers = store.answers(session_id).drop(columns="created_at")
    rules = [(k, rule.to_json()) for k, rule in store.rules(session_id)]
    made = store.preferences(session_id)[0]
    return (
        answers.to_json(),
        rules,
        store.grades(session_id).drop(columns="created_at").to_json(),
        store.session_by_id(session_id).settings,
        made.i.tolist(),
        made.j.tolist(),
        made.margin.tolist(),
        made.weight.tolist(),
    )


SPREAD = r"a preference margin of -?1e\+300 is more than 1e\+09 times the labels' spread"


@pytest.mark.parametrize(
    "write",
    [
        lambda store, session: store.add_answer(session, 2, 3, "a", "ann", margin=1e300),
        lambda store, session: store.add_answer(session, 2, 3, "equal", "ann", margin=1e300),
        lambda store, session: store.add_rule(
            session, Rule("r", [Within("x", 1.0)], Ordering("rooms")), PreferenceSet([2], [3], 1e300), "ann"
        ),
        lambda store, session: store.import_preferences(session, PreferenceSet([2], [3], 1e300), "ann"),
    ],
    ids=["answer", "about-equal", "rule", "import"],
)
def test_the_store_itself_refuses_a_margin_the_models_cannot_fit(store, engine, write):
    """The engine refused such a margin, but a caller of the store directly stored it, and every retrain
    of the session failed after."""
    before = held(store, engine.id)
    with pytest.raises(ValueError, match=SPREAD):
        write(store, engine.id)
    assert held(store, engine.id) == before


@pytest.mark.parametrize("values", [{"margin": Fraction(10**400, 3)}, {"weight": 10**400}, {"margin": -(10**400)}])
def test_a_weight_or_margin_no_float_holds_is_refused_in_words(store, engine, values):
    """A Fraction or an int beyond float64: numpy's TypeError ("ufunc 'isfinite' not supported …")."""
    before = held(store, engine.id)
    with pytest.raises(ValueError, match=r"weight must be a number in \[0, 1e\+06\] and margin a finite number"):
        store.add_answer(engine.id, 2, 3, "a", "ann", **values)
    assert held(store, engine.id) == before


def test_a_pair_of_three_rows_is_refused_naming_the_pair(store, engine):
    """The third row was passed on as the answer's weight: "got multiple values for argument 'weight'"."""
    before = held(store, engine.id)
    with pytest.raises(ValueError, match=r"an answer's pair is two rows \(a, b\), got \(2, 3, 4\)"):
        engine.answer("ann", (2, 3, 4), "a")
    assert held(store, engine.id) == before


@pytest.mark.parametrize("item_id", [1.7, True, "1"])
def test_an_item_id_that_is_no_whole_number_names_no_item(store, engine, item_id):
    """int(1.7), int(True), int('1'): each edited or removed answer 1."""
    answer = int(engine.answers()["id"].iloc[0])
    assert answer == 1
    before = held(store, engine.id)
    for change in (lambda: engine.edit_answer("ann", item_id, "b"), lambda: engine.remove_answer("ann", item_id)):
        with pytest.raises(KeyError, match=f"no answer {item_id!r}"):
            change()
    assert held(store, engine.id) == before


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"goal": -5}, "option 'goal' must be a whole number >= 0, got -5"),
        ({"goal": 2.5}, "option 'goal' must be a whole number >= 0, got 2.5"),
        ({"goal": float("nan")}, "option 'goal' must be a whole number >= 0, got nan"),
        ({"weigh_annotators": "no"}, "option 'weigh_annotators' must be True or False, got 'no'"),
    ],
)
def test_an_option_value_of_the_wrong_kind_is_refused(store, engine, changes, message):
    """A goal of -5 or 2.5 was stored, and weigh_annotators='no' weighed the clicks (the text is true)."""
    before = held(store, engine.id)
    with pytest.raises(ValueError, match=message):
        engine.set_options("labelling", **changes)
    assert held(store, engine.id) == before
    engine.set_options("labelling", goal=10, weigh_annotators=False)  # the right kinds are stored
    assert engine.options("labelling") == {"goal": 10, "weigh_annotators": False}


def test_an_imported_file_naming_a_column_twice_is_refused(store, engine):
    before = held(store, engine.id)
    with pytest.raises(ValueError, match=r"the header names the column 'j' twice \(columns 2 and 3\)"):
        engine.import_file("p.csv", b"i,j,j\n2,3,4\n", "ann")
    assert held(store, engine.id) == before


def test_a_text_option_over_a_column_the_table_lacks_is_refused(store, engine):
    """Stored, and every grading after failed with KeyError: 'nope'."""
    before = held(store, engine.id)
    with pytest.raises(ValueError, match=r"option 'text' must be None \(grade the rows\) or one of the table's"):
        engine.set_options("ratings", text="nope")
    assert held(store, engine.id) == before


def test_an_empty_import_is_said_as_empty(store, engine):
    """'[]' was 'not a file the Studio exports ... this one has []', and a header without lines 'the
    session already holds all 0 of these preferences'."""
    before = held(store, engine.id)
    with pytest.raises(ValueError, match=r"the file is an empty JSON list: it holds no rules or preferences to import"):
        engine.import_file("rules.json", b"[]", "ann")
    assert engine.import_file("p.csv", b"i,j\n", "ann") == "Nothing was imported: the file holds no preferences."
    assert held(store, engine.id) == before


@pytest.mark.parametrize(
    "rule, message",
    [
        (Rule("r", [Within("x", 1.0)], Ordering("nope")), r"rule 'r': unknown column\(s\) \['nope'\]"),
        (Rule("r", [Within("colour", 1.0)], Ordering("rooms")), r"rule 'r': unknown column\(s\) \['colour'\]"),
    ],
)
def test_a_rule_over_a_column_the_table_lacks_is_refused(store, engine, rule, message):
    """The engine stored such a rule (with the preferences it was given); a rules file was refused."""
    before = held(store, engine.id)
    with pytest.raises(ValueError, match=message):
        engine.add_rule("ann", rule, PreferenceSet([2], [3]))
    assert held(store, engine.id) == before
