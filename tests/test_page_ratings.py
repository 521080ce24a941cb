"""AppTests of the Ratings page, on the sample homes with the store in a temporary file (what the page
shows is checked against the store, read directly): a grade per button or key, undone, changed and
removed by its own annotator; a table of texts graded by its texts; the scale fixed once grades are
held; cross-validation, the least sure items, and the GP refused above its limit."""

import io

import pandas as pd

from ordercore.gp.family import MAX_GRADES as GP_MAX_GRADES
from ordercore.studio.store import Store
from tests.studio_app import engine, metric, send_key, sent_to, upload


def grades_held(store_path) -> list[tuple]:
    store = Store(f"sqlite:///{store_path}")
    grades = store.grades(store.session("s1").id)
    return [tuple(row) for row in grades[["row", "grade", "annotator"]].itertuples(index=False)]


def grade_shown(at, value: int):
    """Press grade ``value`` for the item on screen; returns the item."""
    item = at.session_state["screen"].item
    send_key(at, "grade_answers", str(value), [item])
    assert not at.exception
    engine(at).grading.wait()  # the refit runs in the background; the page shows it on its next run
    at.run()
    return item


def test_a_table_of_texts_opens_with_its_defaults_and_is_graded_by_its_texts(ready, store_path):
    """A CSV like the movie snippets (id, a numeric rating, ';'-joined ratings, sentences last): the Data
    page takes it as it comes, and the Ratings page grades its texts (a grade keeps that choice)."""
    rows = "".join(
        f'{k},{k % 5}.5,"{k % 4};{k % 3};{k}","a film with scene {k} and the {k % 7} actors"\n' for k in range(80)
    )
    at = ready
    at.text_input(key="new_session_name").input("texts")
    at.button(key="create_session").click().run()
    upload(at, "snippets.csv", ("id,mean_rating,ratings,text\n" + rows).encode())
    assert next(box for box in at.selectbox if box.label.startswith("Target")).value == "mean_rating"
    assert next(box for box in at.multiselect if box.label == "Features").value == ["id"]
    at.button(key="data_apply").click().run()
    assert not at.exception and not at.error
    at.switch_page("app_pages/ratings.py").run()
    assert (
        not at.exception
        and at.session_state["rating_text_" + str(Store(f"sqlite:///{store_path}").session("texts").id)] == "text"
    )
    assert "a film with scene" in sent_to(at, "grade_answers")[0]["text"]
    graded = sent_to(at, "grade_answers")[0]["target"][0]
    grade_shown(at, 2)
    at.switch_page("app_pages/ratings.py").run()
    # The latest grades name the item by its id, then its text (two items of one text stay apart).
    (latest,) = [frame.value for frame in at.dataframe if "annotator" in frame.value.columns]
    (item,) = latest["item"].tolist()
    name, text = item.split(": ", 1)
    column, value = name.split(" ", 1)  # the row's value in a column that names every row once
    table = pd.read_csv(io.StringIO("id,mean_rating,ratings,text\n" + rows), dtype=str)
    assert table[column].is_unique and table.at[graded, column] == value
    assert text == f"a film with scene {graded} and the {graded % 7} actors"
    assert Store(f"sqlite:///{store_path}").session("texts").settings["ratings"]["text"] == "text"
    assert "a film with scene" in sent_to(at, "grade_answers")[0]["text"]


def test_the_ratings_page_stores_a_grade_per_button_and_undo_removes_ones_own(ready, store_path):
    at = ready.switch_page("app_pages/ratings.py").run()
    assert not at.exception and metric(at, "Grades given") == "0"
    first = grade_shown(at, 3)
    assert grades_held(store_path) == [(first, 3, "ann")] and metric(at, "Grades given") == "1"
    assert "two different grades" in at.info[0].value  # no model from one grade
    second = grade_shown(at, 5)
    assert second != first and grades_held(store_path) == [(first, 3, "ann"), (second, 5, "ann")]
    # a model, not yet a CV MAE: said by the metric itself, never by a box that could outlive it (Minor 3)
    (cv,) = [m for m in at.metric if m.label == "CV MAE (grades)"]
    assert cv.value == "—" and cv.proto.delta == "too few grades" and "needs ≥ 10 grades" in cv.proto.help
    assert not any("cross-validated" in info.value for info in at.info)
    send_key(at, "grade_answers", "undo", None)
    assert grades_held(store_path) == [(first, 3, "ann")] and at.session_state["screen"].item == second


def test_on_the_ratings_page_one_changes_ones_own_grades_and_sees_what_was_graded(ready, store_path):
    at = ready.switch_page("app_pages/ratings.py").run()
    first, second = grade_shown(at, 3), grade_shown(at, 5)
    store = Store(f"sqlite:///{store_path}")
    session_id = store.session("s1").id
    other = next(row for row in range(100) if row not in (first, second))
    store.add_grade(session_id, other, 2, "bob")
    at.run()
    homes = engine(at).data().frame
    latest = next(frame.value for frame in at.dataframe if "annotator" in frame.value.columns)
    assert latest["item"].tolist() == [f"home_id {homes['home_id'].iat[r]}" for r in (other, second, first)]
    assert list(latest.columns) == [
        "item",
        "grade",
        "annotator",
        "when (UTC)",
    ]  # no row positions, no store ids; times say their zone
    ids = store.grades(session_id).set_index("row")["id"]
    history = at.selectbox(key="rating_history")
    assert history.options == [f"#{ids[r]}: home_id {homes['home_id'].iat[r]}" for r in (second, first)]
    history.set_value(int(ids[first])).run()
    assert any("Your grade 3 now" in c.value for c in at.caption) and at.button(key="rating_edit_3").disabled
    at.button(key="rating_edit_1").click().run()
    assert not at.exception and grades_held(store_path) == [(first, 1, "ann"), (second, 5, "ann"), (other, 2, "bob")]
    assert any("Your grade 1 now" in c.value for c in at.caption) and at.button(key="rating_edit_1").disabled
    at.button(key="rating_remove").click().run()
    assert grades_held(store_path) == [(second, 5, "ann"), (other, 2, "bob")]


def test_the_ratings_page_shows_no_stray_docstring(ready):
    """Streamlit's magic writes a bare string of the page script to the page: a constant's docstring
    showed above the title."""
    at = ready.switch_page("app_pages/ratings.py").run()
    assert not at.exception and [m.value for m in at.markdown if "least sure items the page lists" in m.value] == []


def test_the_ratings_page_cross_validates_and_lists_the_least_sure_items(ready, store_path):
    at = ready.switch_page("app_pages/ratings.py").run()
    for value in [1, 5, 2, 4, 3] * 2:
        grade_shown(at, value)
    assert metric(at, "Grades given") == "10" and not any("cross-validated" in info.value for info in at.info)
    assert float(metric(at, "CV MAE (grades)")) >= 0
    shown = next(frame.value for frame in at.dataframe if "predicted grade" in frame.value.columns)
    where = {f"home_id {home}": row for row, home in enumerate(engine(at).data().frame["home_id"])}
    rows = [where[name] for name in shown["item"]]  # items named by id, as the expert reads them
    graded = {row for row, _, _ in grades_held(store_path)}
    assert len(shown) == 10 and not graded & set(rows)
    # The item on screen was drawn from the fit before the last grade (its refit runs in the background);
    # once that refit is in, the items held after it are the least sure of the fit the table shows.
    held = [item for (item,) in at.session_state["screen"].items.upcoming]
    expected = [row for row in rows if row != held[0]]
    assert held[1 : len(expected) + 1] == expected


def test_the_ratings_page_offers_the_gp_and_refuses_it_above_its_limit(ready, store_path):
    at = ready.switch_page("app_pages/ratings.py").run()
    at.radio(key="rating_model_choice").set_value("gp").run()
    for value in [1, 5, 2, 4]:
        grade_shown(at, value)
    assert not at.info or "two different" not in at.info[0].value
    assert next(m for m in at.metric if m.label == "Refit and scoring").delta == "from scratch"
    store = Store(f"sqlite:///{store_path}")
    session = store.session("s1")
    graded = {row for row, _, _ in grades_held(store_path)}
    for row in [r for r in range(200) if r not in graded][:GP_MAX_GRADES]:
        store.add_grade(session.id, row, row % 5 + 1, "bob")
    at.run()
    assert not at.exception and f"at most {GP_MAX_GRADES} grades" in at.info[0].value


def test_the_ratings_scale_is_fixed_once_grades_are_held(ready, store_path):
    at = ready.switch_page("app_pages/ratings.py").run()
    session_id = Store(f"sqlite:///{store_path}").session("s1").id
    at.number_input(key=f"rating_scale_{session_id}").set_value(3).run()
    assert not at.exception
    assert [choice for choice, _, _ in sent_to(at, "grade_answers", "buttons")] == ["1", "2", "3", "undo"]
    assert Store(f"sqlite:///{store_path}").session("s1").settings["ratings"]["scale"] == 3
    grade_shown(at, 2)
    assert at.number_input(key=f"rating_scale_{session_id}").disabled


def test_beyond_its_limit_the_ratings_page_cross_validates_every_few_grades(ready, store_path, monkeypatch):
    monkeypatch.setattr("ordercore.studio.ratings.CV_EVERY_GRADE_UP_TO", 10)
    monkeypatch.setattr("ordercore.studio.ratings.CV_STEP", 3)
    at = ready.switch_page("app_pages/ratings.py").run()
    for value in [1, 5, 2, 4, 3] * 2 + [1, 2]:
        grade_shown(at, value)
    assert metric(at, "Grades given") == "12" and any("first 10 grades" in caption.value for caption in at.caption)
    grade_shown(at, 5)
    assert not any("Cross-validated on the first" in caption.value for caption in at.caption)
    send_key(at, "grade_answers", "undo", None)  # not an extension of the grades: at once
    assert not any("Cross-validated on the first" in caption.value for caption in at.caption)


def test_an_item_is_named_by_the_tables_id(ready):
    import pandas as pd

    from ordercore.studio.data import SAMPLE_PATH

    at = ready.switch_page("app_pages/ratings.py").run()
    item = sent_to(at, "grade_answers")[0]
    ids = pd.read_csv(SAMPLE_PATH)["home_id"]
    assert item["caption"] == f"home_id {ids[item['target'][0]]}"


def test_while_the_grades_refit_runs_the_page_does_not_give_the_last_fits_problem_as_theirs(ready, monkeypatch):
    """A new user saw 'No model yet: … at least two different grades' for seconds after grading 14
    items 1 to 5: the page showed the problem of the fit before their grades while these were refitted."""
    import threading

    from ordercore.studio import grading

    at = ready.switch_page("app_pages/ratings.py").run()
    grade_shown(at, 3)
    assert any(info.value.startswith("No model yet: ") for info in at.info)  # one grade: a true problem
    release, refit = threading.Event(), grading._refit
    monkeypatch.setattr(grading, "_refit", lambda *args: (release.wait(60), refit(*args))[1])
    item = at.session_state["screen"].item
    try:
        send_key(at, "grade_answers", "5", [item])  # two different grades now; their refit is held back
        shown = [info.value for info in at.info]
    finally:
        release.set()
        engine(at).grading.wait()
    assert "Fitting the grades given so far…" in shown and not any(v.startswith("No model yet") for v in shown)
    assert not any(info.value.startswith("No model yet") for info in at.run().info)


def test_an_id_column_is_not_offered_as_texts_to_grade(ready):
    """A new user's bikes: *Items* offered "texts of column 'bike_id'" (TF-IDF of an id).  The id names
    the items; the note and the category are texts."""
    from tests.studio_app import bikes_table

    at = ready.switch_page("app_pages/data.py").run()
    upload(at, "bikes.csv", bikes_table().to_csv(index=False).encode())
    at.button(key="data_apply").click().run()
    at.switch_page("app_pages/ratings.py").run()
    assert not at.exception and engine(at).data().row_names.identifier == "bike_id"
    items = next(box for box in at.selectbox if box.label == "Items").options
    assert items[0] == "rows of the table (their features)"
    assert set(items[1:]) == {"texts of column 'listing_note'", "texts of column 'category'"}


def test_a_table_with_features_and_a_note_is_graded_by_its_rows_with_the_note_beside(ready):
    """A new user's cameras started on 'texts of column seller_note': each camera shown by its note alone,
    none of its brand, body or megapixels.  A table whose rows have features is graded by its rows, the
    note shown with each; a table of texts alone still starts on its texts (the snippets test above)."""
    from tests.studio_app import bikes_table

    bikes = bikes_table()
    bikes["listing_note"] += " Ridden to work and back most weekdays, kept indoors."  # phrases, as a seller's
    at = ready.switch_page("app_pages/data.py").run()
    upload(at, "bikes.csv", bikes.to_csv(index=False).encode())
    at.button(key="data_apply").click().run()
    at.switch_page("app_pages/ratings.py").run()
    assert not at.exception and next(box for box in at.selectbox if box.label == "Items").value == "rows"
    shown = sent_to(at, "grade_answers")[0]
    row = bikes.set_index("bike_id").loc[shown["caption"].removeprefix("bike_id ")]
    values = dict(shown["rows"])
    assert values["listing_note"] == row["listing_note"] and values["frame_cm"] == f"{row['frame_cm']}", values


def test_the_least_sure_distances_read_to_one_precision(ready):
    """A new user read 0.003, 0.0035, 0.0084, 0.019 in one column: now every distance has the decimals
    that give the smallest two significant digits (0.0030, 0.0035, 0.0084, 0.0190)."""
    import math

    at = ready.switch_page("app_pages/ratings.py").run()
    for value in [1, 5, 2, 4, 3] * 2:
        grade_shown(at, value)
    shown = next(frame.value for frame in at.dataframe if "predicted grade" in frame.value.columns)
    texts = shown["distance to another grade"].tolist()
    values = [float(text.replace(",", "")) for text in texts]
    assert values == sorted(values) and values[0] > 0
    decimals = max(0, 1 - math.floor(math.log10(values[0])))
    assert [len(text.partition(".")[2]) for text in texts] == [decimals] * len(texts), texts


def test_the_ratings_page_says_what_a_grade_means_in_the_targets_words(ready, store_path):
    """New-user pass 10, Minor 10: the buttons read '1 (1) … 5 (5)' and nothing said whether 5 is best or what a
    grade is about.  Where the expert grades, the page says 1 is the lowest of the target and K the highest, in
    the target's name (the sample homes': 'price', the last column of sample_data/homes.csv), for the scale set."""
    from pathlib import Path

    target = (Path(__file__).parents[1] / "sample_data" / "homes.csv").read_text().splitlines()[0].split(",")[-1]
    at = ready.switch_page("app_pages/ratings.py").run()
    session_id = Store(f"sqlite:///{store_path}").session("s1").id
    for scale in (5, 3):
        at.number_input(key=f"rating_scale_{session_id}").set_value(scale).run()
        assert not at.exception
        said = next(caption.value for caption in at.caption if "Keys:" in caption.value)
        assert f"**1** = lowest {target} … **{scale}** = highest {target}" in said, said
