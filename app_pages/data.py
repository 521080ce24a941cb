"""Data: the session's table, target, features, labeled budget and hidden test split."""

import streamlit as st

import app_state
from ordercore.studio.data import (
    DEFAULT_N_LABELED,
    DEFAULT_TEST_FRACTION,
    SOURCE_LABELS,
    available_sources,
    data_settings,
    load_source,
)
from ordercore.studio.store import MAX_DATASET_BYTES, describe_contents


def main() -> None:
    st.title("Data")
    session = app_state.current_session()
    if session is None:
        st.info("Create or resume a labelling session in the sidebar first.")
        return
    settings = session.settings
    held = app_state.store().contents(session.id)
    if settings.get("source") and any(held.values()):
        st.info(
            f"This session holds {describe_contents(held)} on {settings.get('name', settings['source'])}: its "
            "data is fixed, as their row numbers refer to it. Create a new session (sidebar) to work on other data."
        )
        show_data(app_state.session_data(session))
        return
    sources = available_sources() + ["upload"]
    current = settings.get("source", "sample")
    # Widget keys carry the session (a new session starts from its own settings, the sample homes by
    # default) and target and features carry the source too (a new source starts from its defaults).
    source = st.radio(
        "Data set",
        sources,
        index=sources.index(current) if current in sources else 0,
        format_func=SOURCE_LABELS.get,
        key=f"data_source_{session.id}",
        horizontal=True,
    )
    upload = None
    if source == "upload":
        file = st.file_uploader(
            "CSV file", type=["csv"], key="data_upload", help=f"At most {MAX_DATASET_BYTES // 2**20} MB."
        )
        if file is None and session.dataset_id is None:
            st.info("Choose a CSV file.")
            return
        if file is not None and file.size > MAX_DATASET_BYTES:
            st.error(f"Could not open this data set: it is larger than {MAX_DATASET_BYTES // 2**20} MB.")
            return
        upload = file.getvalue() if file is not None else app_state.store().dataset(session.dataset_id)["content"]
    try:
        frame, default_target, default_features = load_source(source, upload)
    except (ValueError, FileNotFoundError) as error:
        st.error(f"Could not open this data set: {error}")
        return
    same = source == current
    columns = [str(c) for c in frame.columns]
    target = st.selectbox(
        "Target (what the model predicts)",
        columns,
        index=columns.index(settings["target"] if same and settings.get("target") in columns else default_target),
        key=f"data_target_{session.id}_{source}",
    )
    features = st.multiselect(
        "Features",
        [c for c in columns if c != target],
        default=[
            c
            for c in (settings.get("features") if same and settings.get("features") else default_features)
            if c != target
        ],
        key=f"data_features_{session.id}_{source}_{target}",
    )
    by_hand = st.radio("Labeled rows", ["random", "chosen by hand"], key="data_labeled_mode", horizontal=True)
    picked = []
    if by_hand == "chosen by hand":
        st.caption("Tick the rows whose target the model may see.")
        selection = st.dataframe(
            frame, key="data_pick", on_select="rerun", selection_mode="multi-row", height=300, width="stretch"
        )
        picked = [int(row) for row in selection.selection.rows]
    left, middle, right = st.columns(3)
    # At most all rows but two (one to test, one to pair), and the key carries the row count: a small
    # table's budget starts within its range.
    most = max(1, len(frame) - 2)
    n_labeled = left.number_input(
        "Labeled budget l",
        1,
        most,
        min(int(settings.get("n_labeled", DEFAULT_N_LABELED)), most),
        key=f"data_n_labeled_{len(frame)}",
    )
    test_fraction = middle.slider(
        "Hidden test share of the rest",
        0.0,
        0.5,
        float(settings.get("test_fraction", DEFAULT_TEST_FRACTION)),
        0.05,
        key="data_test_fraction",
    )
    seed = right.number_input("Random split seed", 0, 10**6, int(settings.get("seed", 0)), key="data_seed")
    if st.button("Use this data for the session", type="primary", key="data_apply"):
        split = {"n_labeled": int(n_labeled), "test_fraction": float(test_fraction), "seed": int(seed)}
        if by_hand == "chosen by hand":
            split["labeled"] = picked
        try:
            new, data = data_settings(frame, source, target, features, split)
        except ValueError as error:
            st.error(f"{error}. Nothing was changed.")
            return
        store = app_state.store()
        try:
            dataset_id = store.add_dataset(SOURCE_LABELS[source], frame, upload)
            store.update_settings(session.id, new, dataset_id)
        except ValueError as error:
            st.error(f"{error}. Nothing was changed.")
            return
        st.success(
            f"Session uses {SOURCE_LABELS[source]}: {data.labeled.size} labeled, {data.test.size} held out, "
            f"{data.pool.size} in the pool."
        )
        session = app_state.current_session()
    show_data(app_state.session_data(session))


def show_data(data) -> None:
    """The session's split as counts, and the first rows of its table."""
    if data is not None:
        counts = st.columns(4)
        counts[0].metric("Rows", f"{len(data.frame):,}")
        counts[1].metric("Labeled", f"{data.labeled.size:,}")
        counts[2].metric("Held out for testing", f"{data.test.size:,}")
        counts[3].metric("Unlabeled pool", f"{data.pool.size:,}")
        st.dataframe(data.frame.head(200), key="data_preview", width="stretch")


main()
