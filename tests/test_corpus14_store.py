"""Bad input to the store and the session engine (corpus 14): each refused in words naming what is wrong,
before anything stored changes, or handled rightly.

- R5: a session name is one name however its accents are typed (composed é or e + a combining accent);
- R6: ``Store.add_dataset`` refuses a frame the Studio cannot use, and content that is not bytes;
- R7: ``SessionEngine`` refuses a session id that is no integer (True, 1.0), as the store's methods do;
- R8: ``add_model_run`` names the key of a value it cannot store, and refuses non-finite numbers."""

import numpy as np
import pytest
import sqlalchemy as sa

from ordercore.studio.session import SessionEngine
from ordercore.studio.store.schema import datasets


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


# ---------------------------------------------------------------------------------------- R7 (NX20, NX21)
@pytest.mark.parametrize("session_id", [True, 1.0, "1", np.float64(1.0), None])
def test_the_engine_refuses_a_session_id_that_is_no_integer(store, session_id):
    session = store.create_session("s")
    assert session.id == 1
    with pytest.raises(KeyError, match="no session"):
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
