"""Bad input to the store and the session engine (corpus 14): each refused in words naming what is wrong,
before anything stored changes, or handled rightly.

- R5: a session name is one name however its accents are typed (composed é or e + a combining accent);
- R6: ``Store.add_dataset`` refuses a frame the Studio cannot use, and content that is not bytes;
- R7: ``SessionEngine`` refuses a session id that is no integer (True, 1.0), as the store's methods do;
- R8: ``add_model_run`` names the key of a value it cannot store, and refuses non-finite numbers."""

import json
import math

import numpy as np
import pandas as pd
import pytest
import sqlalchemy as sa

from ordercore.studio.session import SessionEngine
from ordercore.studio.store.schema import datasets, sessions


def stored(store) -> list:
    """Everything a refusal must leave as it was: the sessions, their settings, contents and model runs."""
    names = store.sessions()[["id", "name"]].to_dict("records")
    return [
        (row, store.session_by_id(row["id"]).settings, store.contents(row["id"]), store.model_runs(row["id"]).shape)
        for row in names
    ]


def datasets_held(store) -> int:
    """The number of data sets the store holds."""
    with store.engine.connect() as connection:
        return connection.execute(sa.select(sa.func.count()).select_from(datasets)).scalar_one()


# ---------------------------------------------------------------------------------------- R5 (SE07, SE27)
COMPOSED, DECOMPOSED = "Jos\u00e9", "Jose\u0301"  # the same name typed two ways: 4 and 5 code points


def test_a_name_typed_with_a_combining_accent_is_the_same_session(store):
    assert COMPOSED != DECOMPOSED and len(DECOMPOSED) == len(COMPOSED) + 1
    first = store.create_session(COMPOSED)
    before = stored(store)
    with pytest.raises(ValueError, match="already exists"):
        store.create_session(DECOMPOSED)
    with pytest.raises(ValueError, match="already exists"):
        store.create_session(" " + DECOMPOSED + " ")
    assert stored(store) == before and store.sessions()["name"].tolist() == [COMPOSED]
    assert store.session(DECOMPOSED).id == first.id == store.session(COMPOSED).id


def test_a_decomposed_name_is_stored_composed(store):
    made = store.create_session("cafe\u0301")
    assert made.name == "caf\u00e9" and store.sessions()["name"].tolist() == ["caf\u00e9"]
    assert store.session("caf\u00e9").id == made.id


def test_a_name_stored_decomposed_before_is_found_and_taken(store):
    """A store written before names were composed may hold 'José' as J o s e + accent: it is found by
    either spelling, and neither spelling makes a second session."""
    old = store.create_session("old")
    with store.engine.begin() as connection:
        connection.execute(sessions.update().where(sessions.c.id == old.id).values(name=DECOMPOSED))
    assert store.session(COMPOSED).id == old.id == store.session(DECOMPOSED).id
    before = stored(store)
    for spelling in (COMPOSED, DECOMPOSED):
        with pytest.raises(ValueError, match="already exists"):
            store.create_session(spelling)
    assert stored(store) == before


# ---------------------------------------------------------------------------------------- R6 (SE09 … SE22)
@pytest.mark.parametrize(
    "frame, content, error, words",
    [
        (pd.DataFrame([[1, 2]], columns=["a", "a"]), None, ValueError, "column 'a' twice"),
        (pd.DataFrame([[1, 2]], columns=["a", "a"]), b"a,a\n1,2\n", ValueError, "column 'a' twice"),
        (pd.DataFrame(), None, ValueError, "no rows"),
        (pd.DataFrame({"a": []}), None, ValueError, "no rows"),
        (pd.DataFrame(index=[0, 1]), None, ValueError, "no columns"),
        (
            pd.DataFrame([[1, 2]], columns=pd.MultiIndex.from_tuples([("a", "x"), ("a", "y")])),
            None,
            ValueError,
            "one row of names",
        ),
        ([[1, 2]], None, TypeError, "frame must be a pandas DataFrame, got list"),
        (np.ones((2, 2)), None, TypeError, "got ndarray"),
        (pd.DataFrame({"a": [1.0]}), "a\n1\n", TypeError, "content must be the upload's bytes .*got str"),
        (pd.DataFrame({"a": [1.0]}), [1], TypeError, "got list"),
        (pd.DataFrame({"a": [1 + 2j]}), None, ValueError, "column 'a' holds complex numbers"),
        (pd.DataFrame({"a": [1.0], "b": [np.complex64(1j)]}), None, ValueError, "column 'b' holds complex"),
        (pd.DataFrame({"a": [1.0, 2.0], "c": np.array([1j, 2], dtype=object)}), None, ValueError, "column 'c'"),
        (pd.DataFrame({"a": [np.inf, 1.0]}), None, ValueError, "column 'a' holds an infinite value .*at row 0"),
        (pd.DataFrame({"a": [1.0, 2.0], "b": [1.0, -np.inf]}), None, ValueError, "column 'b' .* at row 1"),
        (pd.DataFrame({"a": [1.0, 2.0], "b": [1, math.inf]}, dtype=object), None, ValueError, "column 'b'"),
        (pd.DataFrame({"a": [np.float32("inf")]}), b"a\ninf\n", ValueError, "infinite value"),
        (pd.DataFrame({"a": [1.0, 2.0], "b": ["x", 10**400]}), None, ValueError, "column 'b' .* at row 1"),
        (pd.DataFrame({"a": ["x", "y"], "b": [(1, 2), "z"]}), None, TypeError, "column 'b' holds tuple values"),
        (pd.DataFrame({1: [1.0], "1": [2.0]}), None, ValueError, "column '1' twice"),
        (pd.DataFrame({"a": [1.0], "": [2.0]}), None, ValueError, "column 2 has no name"),
        (pd.DataFrame({" ": [1.0], "b": [2.0]}), None, ValueError, "column 1 has no name"),
        (pd.DataFrame({None: [1.0], "b": [2.0]}), None, ValueError, "column 1 has no name"),
        (pd.DataFrame({np.nan: [1.0], "b": [2.0]}), None, ValueError, "column 1 has no name"),
    ],
)
def test_a_frame_the_studio_cannot_use_is_refused(store, frame, content, error, words):
    held = datasets_held(store)
    before = stored(store)
    with pytest.raises(error, match=words):
        store.add_dataset("d", frame, content)
    assert stored(store) == before and datasets_held(store) == held


def test_a_frame_the_studio_can_use_is_still_taken(store):
    frame = pd.DataFrame({"x": [1.0, np.nan], "name": ["a", None], "flag": [True, False], 3: [1, 2]})
    dataset_id = store.add_dataset("ok", frame)
    assert json.loads(store.dataset(dataset_id)["columns"]) == ["x", "name", "flag", "3"]
    assert store.dataset(dataset_id)["n_rows"] == 2


# ---------------------------------------------------------------------------------------- R7 (NX20, NX21)
@pytest.mark.parametrize(
    "session_id, kind", [(True, "bool"), (1.0, "float"), ("1", "str"), (np.float64(1.0), "float64"), (None, "NoneType")]
)
def test_the_engine_refuses_a_session_id_that_is_no_integer(store, session_id, kind):
    session = store.create_session("s")
    assert session.id == 1
    with pytest.raises(KeyError, match=f"no session .*: a session's id is an integer, got {kind}"):
        SessionEngine(store, session_id, "t", lambda *a, **k: None)
    assert SessionEngine(store, np.int64(1), "t", lambda *a, **k: None).id == 1


# ---------------------------------------------------------------------------------------- R8 (MR03, MR06)
@pytest.mark.parametrize(
    "parameters, metrics, error, words",
    [
        ({"a": {1}}, {}, TypeError, "model parameter a holds a value of type set"),
        ({"kernel": {"gamma": object()}}, {}, TypeError, "model parameter kernel.gamma holds a value of type object"),
        ({}, {"scores": [1.0, b"x"]}, TypeError, r"model metric scores\[1\] holds a value of type bytes"),
        ({}, {"mae": float("inf")}, ValueError, "model metric mae is inf"),
        ({}, {"mae": np.float64("nan")}, ValueError, "model metric mae is nan"),
        ({"lambda2": -np.inf}, {}, ValueError, "model parameter lambda2 is -inf"),
        ({}, {"fold": [1.0, float("nan")]}, ValueError, r"model metric fold\[1\] is nan"),
        ({(1, 2): 1.0}, {}, TypeError, r"model parameter key \(1, 2\) is a tuple"),
        ([1.0], {}, TypeError, "model parameters must be a dict, got list"),
    ],
)
def test_a_model_run_names_the_value_it_cannot_store(store, parameters, metrics, error, words):
    session = store.create_session("s")
    before = stored(store)
    with pytest.raises(error, match=words):
        store.add_model_run(session.id, "svr", parameters, metrics, 0)
    assert stored(store) == before


def test_a_model_run_stores_numpy_numbers_as_numbers(store):
    session = store.create_session("s")
    store.add_model_run(session.id, "svr", {"C": np.float32(0.5), "n": np.int64(3), "on": np.True_}, {}, 0)
    parameters = store.model_runs(session.id).loc[0, "parameters"]
    assert parameters == {"C": 0.5, "n": 3, "on": True}
    assert [type(parameters[key]) for key in ("C", "n", "on")] == [float, int, bool]  # not 3.0 and 1.0


def test_the_studio_opens_one_session_however_its_name_is_typed(store_path):
    """The sidebar selects the session it created from a name typed with a combining accent, and a link
    naming it so opens it (the session list holds the composed name)."""
    from streamlit.testing.v1 import AppTest

    from tests.studio_app import APP

    at = AppTest.from_file(APP, default_timeout=60).run()
    at.text_input(key="new_session_name").input(DECOMPOSED)
    at.button(key="create_session").click().run()
    assert not at.exception and not at.error
    assert at.session_state.session_name == COMPOSED and at.selectbox(key="session_picker").value == COMPOSED
    linked = AppTest.from_file(APP, default_timeout=60)
    linked.query_params["session"] = DECOMPOSED
    linked.run()
    assert not linked.exception and not linked.error and linked.session_state.session_name == COMPOSED
