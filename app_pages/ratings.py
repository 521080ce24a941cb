"""Ratings: grade items on the session's scale with the number keys; an ordinal model learns as you go."""

from functools import partial

import numpy as np
import pandas as pd
import streamlit as st

import app_state
from app_widgets.answer_keys import UNDO, answer_keys, entry, sent_events
from ordercore.gp.family import MAX_GRADES as GP_MAX_GRADES
from ordercore.studio.figures import confusion_figure
from ordercore.studio.numbers import shown_decimals
from ordercore.studio.ratings import (
    CV_EVERY_GRADE_UP_TO,
    CV_STEP,
    cross_validation_needs,
    least_sure,
    rating_models,
)
from ordercore.studio.session_files import export_file_name
from ordercore.studio.store import MAX_RATING_SCALE

# How many of the least sure items the page lists (a comment: Streamlit's magic would show a string here).
NEXT_SHOWN = 10


KEY = "grade_answers"
AHEAD = 24
# How many items the browser holds ahead of the one on screen (a comment: Streamlit's magic would show a
# string here).


def take_sent(engine) -> list[str]:
    """Apply the grades the browser sent (``Offers.apply``; an undo shows its item again first); the ids
    read."""
    screen, annotator = app_state.screen(), app_state.annotator()

    def grade(item, value, _extra, _context) -> None:
        engine.grade(annotator, item[0], int(value))

    def undo():
        row = engine.undo_grade(annotator)
        return None if row is None else ((int(row),), None)

    events = sent_events(KEY, {str(value) for value in range(1, MAX_RATING_SCALE + 1)}, 1)
    read, error = screen.items.apply(events, engine.id, grade, undo)
    screen.error = error or screen.error
    return read


def change_grade(engine, screen, annotator: str, grade_id: int, value: int | None) -> None:
    """Change one of this annotator's grades to ``value``, or remove it (None)."""
    try:
        if value is None:
            engine.remove_grade(annotator, grade_id)
        else:
            engine.edit_grade(annotator, grade_id, value)
    except (ValueError, KeyError) as error:
        screen.error = str(error).strip("'\"")


def set_options(engine) -> None:
    """Store the scale and the items chosen in the options (a callback)."""
    state = st.session_state
    text = state[f"rating_text_{engine.id}"]
    try:
        engine.set_options(
            "ratings", scale=int(state[f"rating_scale_{engine.id}"]), text=None if text == ROWS else text
        )
    except ValueError as error:
        app_state.screen().error = str(error)


# The items choice meaning the table's rows (any other value names a text column).
ROWS = "rows"


def options_section(engine, data, options: dict, n_grades: int) -> None:
    """The scale (fixed once grades are held) and what is graded: the table's rows or a text column."""
    frame, named = data.frame, data.row_names.identifier  # the id names the items: never a text to grade
    texts = [str(c) for c in frame.columns if c != named and not pd.api.types.is_numeric_dtype(frame[c])]
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
    options_section(engine, data, options, len(engine.grades()))
    models = rating_models()
    model_name = st.radio(
        "Model",
        list(models),
        format_func=models.get,
        key="rating_model_choice",
        horizontal=True,
        help=f"NPSVOR (nonparallel support vector ordinal regression): one hyperplane per grade. GP (Gaussian "
        f"process preference model): one hidden score per grade, "
        f"for at most {GP_MAX_GRADES} grades.",
    )
    try:
        engine.rating_items(options["text"])
    except ValueError as error:
        st.error(f"These items cannot be graded: {error}. Choose other items under *Scale and items*.")
        return
    grade_area(engine, data, options, model_name, named)
    model_view(engine, data, options, model_name)


@st.fragment
def grade_area(engine, data, options: dict, model_name: str, named: bool) -> None:
    """The item on screen with its grade keys (the browser shows the next item the moment a key goes
    down: ``app_widgets.answer_keys``), the latest grades and this annotator's own: a grade reruns this
    part alone; the refit it causes runs in the background (``model_view`` shows it)."""
    screen = app_state.screen()
    read = take_sent(engine)
    grades = engine.grades()
    with st.spinner("Fitting…"):  # only the first fit of these items and model is awaited
        fit = engine.rating_fit(options["text"], model_name)
    own_rows = grades.loc[grades["annotator"] == app_state.annotator(), "row"].to_numpy(np.int64)
    context = (engine.id, options["text"], options["scale"])
    screen.items.offer(context, next_items(fit, own_rows, len(data.frame)), basis=engine.grading.version)
    if screen.error:
        st.error(screen.error)
        screen.error = None
    scale = options["scale"]
    target = app_state.plain(data.dataset.metadata["target"])  # what a grade grades (new-user pass 10, Minor 10)
    st.caption(
        f"Grade the item by its {target}: **1** = lowest {target} … **{scale}** = highest {target}, as you judge it "
        f"among this table's items. Keys: **1** … **{scale}** grade the item, **U** undoes your last grade."
    )
    entries = [item_entry(data, options, screen.items, item) for item in screen.items.upcoming]
    buttons = [(str(value), str(value), str(value), True) for value in range(1, scale + 1)]
    answer_keys(KEY, entries, read, named, [*buttons, (UNDO, "Undo my last", "U", False)], repr(context))
    if screen.item is None:
        st.info("You have graded every item of this session.")
    grades_section(engine, data, grades, named, scale, options["text"])


@st.fragment(run_every=1.0)
def model_view(engine, data, options: dict, model_name: str) -> None:
    """What the model makes of the grades, as of its last refit (redrawn every second)."""
    grades = engine.grades()
    fit = engine.rating_fit(options["text"], model_name)
    own_rows = grades.loc[grades["annotator"] == app_state.annotator(), "row"].to_numpy(np.int64)
    model_section(engine, fit, grades, options["scale"], data, options["text"], own_rows)


def one_precision(distances: np.ndarray) -> list[str]:
    """The distances (least first) to one precision: the decimals that show the smallest positive one to
    two significant digits (0.0030, 0.0035, 0.0190; it read 0.003, 0.0035, 0.019)."""
    positive = distances[np.isfinite(distances) & (distances > 0)]
    decimals = shown_decimals(float(positive.min()), 2) if positive.size else 2
    return [f"{d:,.{decimals}f}" if np.isfinite(d) else "—" for d in distances]


def next_items(fit: dict, graded: np.ndarray, n: int) -> list[tuple[tuple[int], None]]:
    """The ``AHEAD`` items to grade next, each (item,): those the model is least sure of among those this
    annotator has not graded; random ones of them while there is no model."""
    if fit["problem"] is None:
        chosen = least_sure(fit["sureness"], graded, AHEAD)
    else:
        left = np.setdiff1d(np.arange(n), graded)
        chosen = app_state.rng().choice(left, size=min(AHEAD, left.size), replace=False)
    return [((int(item),), None) for item in chosen]


def item_entry(data, options: dict, offers, item: tuple[int]) -> dict:
    """What the browser shows of ``item``: its text, or its row's features (computed once)."""
    if item not in offers.entries:
        row = item[0]
        caption = data.row_names.name(row)
        if options["text"] is not None:
            offers.entries[item] = entry(item, caption, [], [], text=str(data.frame.at[row, options["text"]]))
        else:  # every context column, texts included, each value as the table writes it (the id is the caption)
            names = data.row_names
            rows = [(column, names.value(column, data.frame.at[row, column])) for column in names.columns]
            offers.entries[item] = entry(item, caption, ["", "value"], rows)
    return offers.entries[item]


def model_section(engine, fit: dict, grades: pd.DataFrame, scale: int, data, text, own_rows) -> None:
    """What the model makes of the grades: cross-validated MAE, the confusion matrix, the items it is
    least sure of."""
    cells = st.columns(3)
    cells[0].metric("Grades given", f"{len(grades):,}")
    if fit["problem"] is not None:  # of the grades it was fitted on: said as theirs while the refit of these runs
        st.info(f"No model yet: {fit['problem']}." if fit["current"] else "Fitting the grades given so far…")
        return
    start = "from the last fit" if fit["warm"] else "from scratch"
    cells[2].metric(
        "Refit and scoring", f"{fit['seconds'] * 1000:,.0f} ms", start, delta_color="off", delta_arrow="off"
    )
    too_few = cross_validation_needs(len(grades))
    done = None if too_few else engine.grading.cross_validation(fit["key"][0])
    if done is None:  # why not, in the metric itself: a separate box outlived it once, beside a CV MAE drawn later
        why = f"No cross-validated MAE yet: {too_few or 'it runs in the background'}."
        not_yet = "too few grades" if too_few else "runs in the background"
        cells[1].metric("CV MAE (grades)", "—", not_yet, delta_color="off", delta_arrow="off", help=why)
    else:
        cv, on = done
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
    table = pd.DataFrame(
        {
            "item": [item_name(data, text, row) for row in shown],
            "predicted grade": fit["predicted"][shown],
            "distance to another grade": one_precision(fit["sureness"][shown]),
        }
    )
    st.subheader("Least sure: next to grade")
    st.caption(
        "The items whose predicted grade is nearest to changing (the distance in the model's score units): "
        "a grade there teaches the model most."
    )
    st.dataframe(table, key="rating_next", hide_index=True, width="stretch")


# Characters of an item's name (a text) that a list of grades shows.
SHORT_NAME = 60


def shortened(name) -> str:
    name = str(name)
    return name if len(name) <= SHORT_NAME else name[: SHORT_NAME - 1] + "…"


def item_name(data, text: str | None, row: int) -> str:
    """What names an item: its row by the table's id ('car_id 5186'), then its text (shortened) when
    texts are graded (two items of one text stay apart)."""
    name = data.row_names.name(row)
    return f"{name}: {shortened(data.frame.at[row, text])}" if text is not None else name


def grades_section(engine, data, grades: pd.DataFrame, named: bool, scale: int, text: str | None) -> None:
    """The latest grades with what was graded, this annotator's to change or remove, and the CSV export."""
    if grades.empty:
        return
    st.subheader("Latest grades")
    latest = grades.tail(10).iloc[::-1]
    table = pd.DataFrame(
        {
            "item": [item_name(data, text, row) for row in latest["row"]],
            "grade": latest["grade"],
            "annotator": latest["annotator"],
            "when (UTC)": latest["created_at"].astype(str).str.slice(0, 19),
        }
    )
    st.dataframe(table, key="rating_grades", hide_index=True, width="stretch")
    st.download_button(
        "Export grades (CSV)",
        partial(engine.export, "grades"),
        file_name=export_file_name(engine.info().name, "grades", "csv"),
        key="rating_export",
        help="Import it into another session on the same data under Rules › Export and import.",
        on_click="ignore",  # a click's rerun would renew the file behind the button while it downloads
    )
    own = grades[grades["annotator"] == app_state.annotator()].iloc[::-1]
    if not named or own.empty:
        return
    with st.expander(f"My grades ({len(own)}): change or remove one"):
        # The labels leave the grade out: a browser keeps showing the label it had for the chosen option
        # after an edit changed it.  The grade is said below, and its button is the one pressed.
        labels = {int(grade.id): f"#{grade.id}: {item_name(data, text, grade.row)}" for grade in own.itertuples()}
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
                args=(engine, app_state.screen(), app_state.annotator(), chosen, value),
                type="primary" if value == now else "secondary",
                disabled=value == now,
            )
        cells[-1].button(
            "Remove",
            key="rating_remove",
            on_click=change_grade,
            args=(engine, app_state.screen(), app_state.annotator(), chosen, None),
        )


main()
