"""Data: the session's table, target, features, labeled budget and hidden test split."""

import streamlit as st

import app_state
from ordercore.studio.data import SOURCE_LABELS, data_settings, load_source
from ordercore.studio.data_choice import (
    DataForm,
    check_upload_size,
    column_kinds,
    fixed_data_notice,
    in_use,
    kept_upload,
    source_choice,
    split_choice,
    split_counts,
    split_summary,
    split_warning,
    upload_megabytes,
    use_data,
)


def main() -> None:
    st.title("Data")
    session = app_state.current_session()
    if session is None:
        st.info("Create or resume a labelling session in the sidebar first.")
        return
    notice = fixed_data_notice(session.settings, app_state.store().contents(session.id))
    if notice is not None:
        st.info(notice)
        show_data(app_state.session_data(session))
        return
    sources, index = source_choice(session.settings)
    # Widget keys carry the session (a new session starts from its own settings, the sample homes by
    # default) and target and features carry the source too (a new source starts from its defaults).
    source = st.radio(
        "Data set",
        sources,
        index=index,
        format_func=SOURCE_LABELS.get,
        key=f"data_source_{session.id}",
        horizontal=True,
    )
    opened = open_table(session, source)
    if opened is None:
        return
    frame, upload, form, name = opened
    target, features = choose_columns(form, f"{session.id}_{source}")
    split = choose_split(frame.drop(columns=target), form)
    if st.button("Use this data for the session", type="primary", key="data_apply"):
        try:
            data = use_data(app_state.store(), session.id, frame, source, target, features, split, upload, name)
        except ValueError as error:
            st.error(f"{error}. Nothing was changed.")
            return
        st.success(split_summary(name or SOURCE_LABELS[source], data))
        session = app_state.current_session()
    same_table = kept_upload(app_state.store(), session, upload)
    if not in_use(session.settings, source, target, features, split, same_table):
        preview_section(frame, source, target, features, split, name)
    show_data(app_state.session_data(session))


def open_table(session, source: str):
    """(table, CSV bytes of an upload or None, the form's starting values, the upload's file name or
    None), or None once the page has said why there is no table."""
    upload = name = None
    if source == "upload":
        file = st.file_uploader("CSV file", type=["csv"], key="data_upload", help=f"At most {upload_megabytes()} MB.")
        if file is None and session.dataset_id is not None:  # the session's upload, kept by the store
            kept = app_state.store().dataset(session.dataset_id)
            upload, name = kept["content"], kept["name"]
            st.caption(
                app_state.plain(f"The session's upload, {name}, kept by the store: choose a file to replace it.")
            )
        if file is None and upload is None:
            st.info("Choose a CSV file.")
            return None
    try:
        if upload is None and source == "upload":
            check_upload_size(file.size)
            upload, name = file.getvalue(), file.name
        frame, default_target, default_features = load_source(source, upload)
    except (ValueError, FileNotFoundError) as error:
        st.error(f"Could not open this data set: {error}")
        return None
    return frame, upload, DataForm.of(session.settings, source, frame, default_target, default_features), name


def choose_columns(form: DataForm, key: str) -> tuple[str, list[str]]:
    """The target and the features; ``key`` (the session and source) keys their widgets."""
    target = st.selectbox(
        "Target (what the model predicts)",
        form.columns,
        index=form.columns.index(form.target),
        key=f"data_target_{key}",
    )
    features = st.multiselect(
        "Features",
        form.feature_options(target),
        default=form.starting_features(target),
        key=f"data_features_{key}_{target}",
    )
    return target, features


def choose_split(frame, form: DataForm) -> dict:
    """The labeled rows (drawn at random, or ticked in the table), the budget, test share and seed."""
    by_hand = st.radio("Labeled rows", ["random", "chosen by hand"], key="data_labeled_mode", horizontal=True)
    picked = None
    if by_hand == "chosen by hand":
        st.caption("Tick the rows whose target the model may see (targets are not shown: choose by the features).")
        selection = st.dataframe(
            frame, key="data_pick", on_select="rerun", selection_mode="multi-row", height=300, width="stretch"
        )
        picked = selection.selection.rows
    left, middle, right = st.columns(3)
    # The key carries the row count: a small table's budget starts within its range.
    n_labeled = left.number_input(
        "Labeled budget l", 1, form.most_labeled, form.n_labeled, key=f"data_n_labeled_{len(frame)}"
    )
    test_fraction = middle.slider(
        "Held out: share of the other rows with a target",
        0.0,
        1.0,
        form.test_fraction,
        0.05,
        key="data_test_fraction",
        help="The rows with a target beyond the labeled budget: this share is held out to measure the models "
        "(their targets never shown where you label), the others join the pool you compare, target hidden.",
    )
    seed = right.number_input("Random split seed", 0, 10**6, form.seed, key="data_seed")
    return split_choice(n_labeled, test_fraction, seed, picked)


def preview_section(frame, source: str, target: str, features, split: dict, name) -> None:
    """Before use: the columns' kinds and roles (which is the target) and the first rows as the session
    would show them, the split drawn as use would draw it (targets only on the labeled rows)."""
    with st.expander("Preview before use: the columns and the first rows", expanded=True):
        try:  # (tens of milliseconds on California's 20,640 rows)
            _, data = data_settings(frame, source, target, features, split, name)
        except ValueError as error:
            st.caption(f"No preview: {error}.")
            return
        kinds = column_kinds(data)
        st.dataframe(kinds, key="data_columns_before_use", hide_index=True, width="stretch")
        st.dataframe(data.shown(20), key="data_rows_before_use", hide_index=True, width="stretch")
        st.caption(
            app_state.plain(
                f"The target, {target}, is shown only on the rows this split labels: the held-out rows' targets, "
                "which measure the models, are never shown."
            )
        )


def show_data(data) -> None:
    """The session's split as counts, and the first rows of its table (targets only on labeled rows)."""
    if data is not None:
        for cell, (label, count) in zip(st.columns(4), split_counts(data), strict=True):
            cell.metric(label, count)
        if (warning := split_warning(data)) is not None:
            st.warning(warning)
        st.dataframe(data.shown(200), key="data_preview", hide_index=True, width="stretch")
        st.caption(
            "Targets are shown only on the labeled rows: the unlabeled rows are the ones you compare, and the "
            "held-out rows measure the models, so no page you label on shows theirs (the Model page's demo "
            "figures plot them, to show how the models do)."
        )


main()
