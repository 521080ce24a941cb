"""Ratings: grade items on the session's scale with the number keys; an ordinal model learns as you go."""

import numpy as np
import pandas as pd
import streamlit as st

import app_state
from ordercore.gp.family import MAX_GRADES as GP_MAX_GRADES
from ordercore.studio.data import identifier_column, readable
from ordercore.studio.figures import confusion_figure
from ordercore.studio.ratings import (
    CV_EVERY_GRADE_UP_TO,
    CV_STEP,
    cross_validate,
    cross_validation_due,
    cross_validation_needs,
    least_sure,
    rating_models,
)
from ordercore.studio.store import MAX_RATING_SCALE

# How many of the least sure items the page lists (a comment: Streamlit's magic would show a string here).
NEXT_SHOWN = 10


def grade(engine, item: int, value: int) -> None:
    """Store this annotator's grade of ``item``, the item on screen when the button was drawn, then ask
    for the next.  A press for an item no longer on screen (keys typed ahead of the page) is ignored."""
    state = st.session_state
    if state.get("current_item") != item:
        return
    annotator = app_state.annotator()
    # Any access to st.session_state may stop this callback for the rerun a later key asked for: so the
    # item leaves the screen before the write and nothing touches the state after it (the Pairwise page's
    # rule).
    state.current_item = None
    try:
        engine.grade(annotator, item, value)
    except ValueError as error:
        state.current_item, state.rating_error = item, str(error)


def undo(engine) -> None:
    """Remove this annotator's own last grade (another annotator's stay) and show its item again."""
    row = engine.undo_grade(app_state.annotator())
    if row is not None:
        st.session_state.current_item = row


def change_grade(engine, grade_id: int, value: int | None) -> None:
    """Change one of this annotator's grades to ``value``, or remove it (None)."""
    try:
        if value is None:
            engine.remove_grade(app_state.annotator(), grade_id)
        else:
            engine.edit_grade(app_state.annotator(), grade_id, value)
    except (ValueError, KeyError) as error:
        st.session_state.rating_error = str(error).strip("'\"")


def set_options(engine) -> None:
    """Store the scale and the items chosen in the options (a callback)."""
    state = st.session_state
    text = state[f"rating_text_{engine.id}"]
    try:
        engine.set_options(
            "ratings", scale=int(state[f"rating_scale_{engine.id}"]), text=None if text == ROWS else text
        )
    except ValueError as error:
        state.rating_error = str(error)
    state.current_item = None


# The items choice meaning the table's rows (any other value names a text column).
ROWS = "rows"


def options_section(engine, data, options: dict, n_grades: int) -> None:
    """The scale (fixed once grades are held) and what is graded: the table's rows or a text column."""
    texts = [str(c) for c in data.frame.columns if not pd.api.types.is_numeric_dtype(data.frame[c])]
    with st.expander("Scale and items", expanded=n_grades == 0):
        cells = st.columns(2)
        cells[0].number_input(
            f"Grades (1 … K, K ≤ {MAX_RATING_SCALE})",
            2,
            MAX_RATING_SCALE,
            options["scale"],
            key=f"rating_scale_{engine.id}",
            on_change=set_options,
            args=(engine,),
            disabled=n_grades > 0,
            help="Fixed once the session holds grades.",
        )
        choices = [ROWS, *texts]
        cells[1].selectbox(
            "Items",
            choices,
            index=choices.index(options["text"]) if options["text"] in choices else 0,
            format_func=lambda c: "rows of the table (their features)" if c == ROWS else f"texts of column {c!r}",
            key=f"rating_text_{engine.id}",
            on_change=set_options,
            args=(engine,),
        )


def main() -> None:
    st.title("Ratings")
    engine, data = app_state.need_engine_and_data()
    named = bool(app_state.annotator())
    if not named:
        st.info("Type your name as **Annotator** in the sidebar to grade: every grade is stored with it.")
    options = engine.rating_options()
    grades = engine.grades()
    options_section(engine, data, options, len(grades))
    models = rating_models()
    model_name = st.radio(
        "Model",
        list(models),
        format_func=models.get,
        key="rating_model_choice",
        horizontal=True,
        help=f"NPSVOR: one hyperplane per grade (seed 004). GP: one latent function per grade (seed 002 §3), "
        f"for at most {GP_MAX_GRADES} grades.",
    )
    try:
        with st.spinner("Refitting…"):
            fit = engine.rating_fit(options["text"], model_name)
    except ValueError as error:
        st.error(f"These items cannot be graded: {error}. Choose other items under *Scale and items*.")
        return
    own_rows = grades.loc[grades["annotator"] == app_state.annotator(), "row"].to_numpy(np.int64)
    item = item_on_screen(engine, fit, own_rows, len(data.frame))
    error = st.session_state.pop("rating_error", None)
    if error:
        st.error(error)
    if item is None:
        st.info("You have graded every item of this session.")
    else:
        item_view(engine, data, options, item, named)
    model_section(fit, grades, options["scale"], data, options["text"], own_rows)
    grades_section(engine, grades, named, options["scale"], item_names(data, options["text"]))


def item_on_screen(engine, fit: dict, own_rows: np.ndarray, n: int) -> int | None:
    """The item this tab shows: kept until graded (or the session changes), then the next one."""
    state = st.session_state
    if state.get("current_item") is None or state.get("item_for") != engine.id:
        state.current_item, state.item_for = next_item(fit, own_rows, n), engine.id
    return state.current_item


def next_item(fit: dict, graded: np.ndarray, n: int) -> int | None:
    """The item to grade next: the one the model is least sure of among those this annotator has not
    graded; a random one of them while there is no model."""
    if fit["problem"] is None:
        chosen = least_sure(fit["sureness"], graded, 1)
        return int(chosen[0]) if chosen.size else None
    left = np.setdiff1d(np.arange(n), graded)
    return int(app_state.rng().choice(left)) if left.size else None


def item_view(engine, data, options: dict, item: int, named: bool) -> None:
    """The item on screen (its text, or its row's features), one button per grade and undo."""
    scale = options["scale"]
    st.caption(f"Row {item}. Keys: **1** … **{scale}** grade it, **U** undoes your last grade.")
    if options["text"] is not None:
        with st.container(border=True):
            st.text(str(data.frame.at[item, options["text"]]))
    else:
        features = data.dataset.metadata["features"]
        identifier = identifier_column(data.frame, [data.dataset.metadata["target"], *features])
        shown = data.frame.loc[[item], ([identifier] if identifier else []) + features].T
        shown.columns = ["value"]
        st.dataframe(shown.style.format(readable), key="rating_item_table", width="stretch")
    cells = st.columns(scale + 1)
    for value, cell in zip(range(1, scale + 1), cells, strict=False):
        cell.button(
            str(value),
            # The item is in the key: a press sent for an item the page has since replaced names a button
            # that no longer exists, and Streamlit drops it.
            key=f"grade_{value}_{item}",
            shortcut=str(value),
            on_click=grade,
            args=(engine, item, value),
            type="primary",
            width="stretch",
            disabled=not named,
        )
    cells[-1].button(
        "Undo my last", key="grade_undo", shortcut="U", on_click=undo, args=(engine,), width="stretch",
        disabled=not named,
    )  # fmt: skip


def model_section(fit: dict, grades: pd.DataFrame, scale: int, data, text, own_rows) -> None:
    """What the model makes of the grades: cross-validated MAE, the confusion matrix, the items it is
    least sure of."""
    cells = st.columns(3)
    cells[0].metric("Grades given", f"{len(grades):,}")
    if fit["problem"] is not None:
        st.info(f"No model yet: {fit['problem']}.")
        return
    start = "warm, from the last fit" if fit["warm"] else "cold"
    cells[2].metric(
        "Refit and scoring", f"{fit['seconds'] * 1000:,.0f} ms", start, delta_color="off", delta_arrow="off"
    )
    too_few = cross_validation_needs(len(grades))
    if too_few:
        cells[1].metric("CV MAE (grades)", "—")
        st.info(f"No cross-validated MAE yet: {too_few}.")
    else:
        cv, on = session_cross_validation(fit, grades, scale)
        if on < len(grades):
            st.caption(
                f"Cross-validated on the first {on:,} grades: beyond {CV_EVERY_GRADE_UP_TO:,} grades it runs again "
                f"every {CV_STEP} grades (five refits take seconds at thousands of grades)."
            )
        cells[1].metric(
            "CV MAE (grades)",
            f"{cv.mae:.2f}",
            f"folds {cv.fold_mae.min():.2f} – {cv.fold_mae.max():.2f}",
            delta_color="off",
            delta_arrow="off",
        )
        st.plotly_chart(confusion_figure(cv.confusion, range(1, scale + 1)), key="rating_confusion")
    shown = least_sure(fit["sureness"], own_rows, NEXT_SHOWN)
    table = pd.DataFrame({"row": shown, "predicted grade": fit["predicted"][shown], "sureness": fit["sureness"][shown]})
    names = item_names(data, text)
    if names is not None:
        table.insert(1, names.name, names.to_numpy()[shown])
    st.subheader("Least sure: next to grade")
    st.dataframe(table, key="rating_next", hide_index=True, width="stretch")


def session_cross_validation(fit: dict, grades: pd.DataFrame, scale: int):
    """The cross-validation of the grades, and how many grades it was run on: run again when the grades
    changed, but only every ``CV_STEP`` added grades beyond ``CV_EVERY_GRADE_UP_TO``
    (``cross_validation_due``); an edit or removal runs it at once."""
    rows, values = grades["row"].to_numpy(np.int64), grades["grade"].to_numpy(np.int64)
    last = st.session_state.get("rating_cv")
    extends = (
        last is not None
        and last["kind"] == fit["key"][:2]
        and last["rows"].size <= rows.size
        and np.array_equal(last["rows"], rows[: last["rows"].size])
        and np.array_equal(last["values"], values[: last["rows"].size])
    )
    if not extends or (last["rows"].size < rows.size and cross_validation_due(rows.size, last["rows"].size)):
        with st.spinner("Cross-validating…"):
            cv = cross_validate(fit["model"], rows, values, scale)
        last = st.session_state.rating_cv = {"kind": fit["key"][:2], "rows": rows, "values": values, "cv": cv}
    return last["cv"], last["rows"].size


# Characters of an item's name (a text) that a list of grades shows.
SHORT_NAME = 60


def shortened(name) -> str:
    name = str(name)
    return name if len(name) <= SHORT_NAME else name[: SHORT_NAME - 1] + "…"


def item_names(data, text: str | None) -> pd.Series | None:
    """What names an item beside its row number: its text, or the table's identifier column (None when
    the table has none)."""
    column = text if text is not None else identifier_column(data.frame, [data.dataset.metadata["target"]])
    return None if column is None else data.frame[column]


def grades_section(engine, grades: pd.DataFrame, named: bool, scale: int, names: pd.Series | None) -> None:
    """The latest grades with what was graded, this annotator's to change or remove, and the CSV export."""
    if grades.empty:
        return
    st.subheader("Latest grades")
    latest = grades.tail(10).iloc[::-1]
    if names is not None:
        latest.insert(2, names.name, names.to_numpy()[latest["row"]])
    st.dataframe(latest, key="rating_grades", hide_index=True, width="stretch")
    st.download_button(
        "Export grades (CSV)",
        engine.store.export_grades(engine.id),
        file_name=f"{engine.info().name}_grades.csv",
        key="rating_export",
        help="Import it into another session on the same data under Rules › Export and import.",
    )
    own = grades[grades["annotator"] == app_state.annotator()].iloc[::-1]
    if not named or own.empty:
        return
    with st.expander(f"My grades ({len(own)}): change or remove one"):
        # The labels leave the grade out: a browser keeps showing the label it had for the chosen option
        # after an edit changed it.  The grade is said below, and its button is the one pressed.
        labels = {
            int(grade.id): f"#{grade.id}: row {grade.row}"
            + (f", {names.name}: {shortened(names.iat[grade.row])}" if names is not None else "")
            for grade in own.itertuples()
        }
        chosen = st.selectbox("Grade", list(labels), format_func=labels.get, key="rating_history")
        now = int(own.loc[own["id"] == chosen, "grade"].iloc[0]) if chosen in labels else None
        if now is not None:
            st.caption(f"Your grade {now} now: press another to change it.")
        cells = st.columns(scale + 1)
        for value, cell in zip(range(1, scale + 1), cells, strict=False):
            cell.button(
                str(value),
                key=f"rating_edit_{value}",
                on_click=change_grade,
                args=(engine, chosen, value),
                type="primary" if value == now else "secondary",
                disabled=value == now,
            )
        cells[-1].button("Remove", key="rating_remove", on_click=change_grade, args=(engine, chosen, None))


main()
