"""The app's shared state: the store handle, the current session, its data and its models.

Only Streamlit plumbing lives here (caches and ``st.session_state``); the logic is in
``ordercore.store`` and ``ordercore.studio``.
"""

from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd
import streamlit as st

from ordercore.store import Store, store_url
from ordercore.studio import StudyData, Workbench, load_source, study_data


@st.cache_resource
def _store(url: str) -> Store:
    return Store(url)


def store() -> Store:
    """The configured store (ORDERCORE_STORE_URL / ORDERCORE_STORE), one handle per URL."""
    return _store(store_url())


def annotator() -> str:
    return (st.session_state.get("annotator") or "").strip()


def current_session():
    """The SessionInfo the sidebar selected, or None."""
    name = st.session_state.get("session_name")
    if not name:
        return None
    try:
        return store().session(name)
    except KeyError:
        return None


@st.cache_data(max_entries=8, show_spinner="Loading data…")
def _table(source: str, dataset_id: int | None, url: str) -> pd.DataFrame:
    content = _store(url).dataset(dataset_id)["content"] if source == "upload" else None
    return load_source(source, content)[0]


def session_data(session) -> StudyData | None:
    """The session's prepared data and split, or None before the Data page has set it up."""
    settings = session.settings
    if not settings.get("source"):
        return None
    frame = _table(settings["source"], session.dataset_id, store_url())
    key = ("study", session.id, json.dumps(settings, sort_keys=True))
    if st.session_state.get("study_key") != key:
        st.session_state.study_key = key
        st.session_state.study = study_data(frame, settings["target"], settings["features"], settings)
        st.session_state.pop("workbench", None)
    return st.session_state.study


def workbench(session, data: StudyData) -> Workbench:
    """The session's SVR/SSL pair, kept across reruns (rebuilt when its data or λ change)."""
    params = st.session_state.get("model_params", {"gamma": None, "lambda1": 1e-3, "lambda2": 1.0})
    key = (session.id, st.session_state.get("study_key"), json.dumps(params, sort_keys=True))
    if st.session_state.get("workbench_key") != key:
        st.session_state.workbench_key = key
        st.session_state.workbench = Workbench(data, **params)
        st.session_state.retrain_history = []
    return st.session_state.workbench


def retrain(session, data: StudyData) -> None:
    """Re-solve SSL for the session's stored preferences, once per change (not on every rerun)."""
    bench = workbench(session, data)
    preferences, _ = store().preferences(session.id)
    signature = (
        st.session_state.workbench_key,
        len(preferences),
        hash(preferences.i.tobytes() + preferences.j.tobytes()),
    )
    if st.session_state.get("retrained_for") == signature:
        return
    report = bench.update(preferences)
    st.session_state.retrained_for = signature
    st.session_state.retrain_history.append({"preferences": len(preferences), **report.__dict__})


def download_csv(frame: pd.DataFrame) -> bytes:
    buffer = io.StringIO()
    frame.to_csv(buffer, index=False)
    return buffer.getvalue().encode()


def need_session_and_data():
    """(session, data) or stop the page with what to do first."""
    session = current_session()
    if session is None:
        st.info("Create or resume a labelling session in the sidebar first.")
        st.stop()
    data = session_data(session)
    if data is None:
        st.info("Choose this session's data on the **Data** page first.")
        st.stop()
    return session, data


def rng() -> np.random.Generator:
    if "pair_rng" not in st.session_state:
        st.session_state.pair_rng = np.random.default_rng(0)
    return st.session_state.pair_rng
