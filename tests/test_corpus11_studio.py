"""The eleventh corpus's session-engine and store cases (issue 32, "nothing silently wrong"): settings the
store kept though every later ``data()`` refused or misread them (R1: S021, S023, S027, L043) or every
later write failed on them (R3: S040-S051); numpy integer ids that SQLite never matched (R2: SQ01, SQ02,
S019); a store's lock wait off any range the databases take (R4: F03, F04, F09, F10, F14).  Each refusal
is checked to leave the store as it was (``store_checks.snapshot``), on SQLite and PostgreSQL."""

from __future__ import annotations

import numpy as np
import pytest

from ordercore.studio.session import SessionEngine
from ordercore.studio.splits import held_out_share
from tests.store_checks import snapshot
from tests.test_store_refusals import NoJob, new_session, table


# ------------------------------------------------------------------------ R1: settings data() refused
@pytest.mark.parametrize("share", [True, False, np.True_, np.False_])
def test_a_yes_no_test_share_is_refused_as_no_share(share):
    """L043: np.True_ was taken for 1.0 (Python's True was refused)."""
    with pytest.raises(ValueError, match=r"^the test share must be between 0 and 1, got .*: a yes/no is not a share"):
        held_out_share({"test_fraction": share})
    assert held_out_share({"test_fraction": np.float64(0.25)}) == 0.25  # a numpy number is one


@pytest.mark.parametrize(
    "change, drop, said",
    [
        ({"test_fraction": np.True_}, [], "the test share must be between 0 and 1, got np.True_: a yes/no"),  # S023
        ({"features": []}, [], r"choose at least one feature column \(the settings' features list is empty\)"),  # S027
        ({"labeled": [1, 1, 2]}, ["test"], "labeled row 1 is named 2 times; name each row once"),  # S021
        ({"labeled": []}, ["test"], "choose at least one labeled row"),
        ({"labeled": [1, 2], "test": [5, 5]}, [], "test row 5 is named 2 times"),
    ],
    ids=["S023", "S027", "S021", "no labeled rows", "test repeated"],
)
def test_settings_data_would_refuse_or_misread_are_not_stored(store, change, drop, said):
    """S021 (the repeated row collapsed: 2 labeled rows opened), S023 and S027 (stored; every later data()
    refused)."""
    session_id = new_session(store, "homes", table())
    before = snapshot(store)
    settings = {key: value for key, value in store.session_by_id(session_id).settings.items() if key not in drop}
    with pytest.raises(ValueError, match=said):
        store.update_settings(session_id, settings | change)
    with pytest.raises(ValueError, match=said):
        store.create_session("another", settings=settings | change)
    assert snapshot(store) == before
    assert SessionEngine(store, session_id, "t", NoJob()).data() is not None  # the session still opens


def test_labeled_rows_chosen_by_hand_without_test_rows_open_as_given(store):
    """What S021's check leaves alone: labeled rows alone (the test rows drawn among the others)."""
    session_id = new_session(store, "homes", table())
    settings = {key: value for key, value in store.session_by_id(session_id).settings.items() if key != "test"}
    store.update_settings(session_id, settings | {"labeled": [7, 3, 12]})
    data = SessionEngine(store, session_id, "t", NoJob()).data()
    assert data.labeled.tolist() == [3, 7, 12]
    assert not set(data.test.tolist()) & {3, 7, 12} and len(data.test) == round(0.2 * 57)  # of the other 57 rows
