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
