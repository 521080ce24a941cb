"""AppTests of the Data page, on the sample homes with the store in a temporary file (what the page
shows is checked against the store, read directly): the split it sets up, the sources and uploads
it opens with their defaults (worked out by hand), and the choices it refuses, changing nothing."""

import pytest
from streamlit.testing.v1 import AppTest

from ordercore.studio.store import Store
from tests.studio_app import APP, metric, press, upload


def test_data_page_sets_up_the_split(ready, store_path):
    assert metric(ready, "Labeled") == "60" and metric(ready, "Rows") == "3,000"
    settings = Store(f"sqlite:///{store_path}").session("s1").settings
    assert len(settings["labeled"]) == 60 and not set(settings["labeled"]) & set(settings["test"])


def test_the_preview_shows_a_target_only_on_labeled_rows_and_tells_every_value_apart(ready, store_path):
    """The preview's first 200 rows: first what each row is (labeled, held out or unlabeled, as the
    store holds them); the target blank on every row the store does not hold as labeled (pool and held
    out), the CSV's value on the labeled ones; in every column two different values of
    the CSV never read the same, and each reads back as its value."""
    import numpy as np
    import pandas as pd

    from ordercore.studio.data import SAMPLE_PATH

    settings = Store(f"sqlite:///{store_path}").session("s1").settings
    labeled, held_out = set(settings["labeled"]), set(settings["test"])
    preview = ready.dataframe[0].value
    truth = pd.read_csv(SAMPLE_PATH).head(200)
    seen = np.array([row in labeled for row in range(200)])
    roles = ["labeled" if r in labeled else "held out" if r in held_out else "unlabeled" for r in range(200)]
    assert preview.columns[0] == "row is" and preview["row is"].tolist() == roles
    assert seen.any() and (preview["price"][~seen] == "").all()
    assert [float(v.replace(",", "")) for v in preview["price"][seen]] == truth["price"][seen].astype(float).tolist()
    for column in truth.columns.drop("price"):
        texts, values = preview[column].astype(str), truth[column]
        assert texts.nunique() == values.nunique(), column
        if pd.api.types.is_numeric_dtype(values):
            numbers = [float(v.replace(",", "").replace("−", "-")) for v in texts]  # a minus is "−" on the page
            assert np.allclose(numbers, values, rtol=1e-12, atol=0), column


def test_data_page_refuses_bad_choices_and_keeps_the_settings(ready, store_path):
    before = Store(f"sqlite:///{store_path}").session("s1").settings
    next(box for box in ready.multiselect if box.label == "Features").set_value([]).run()
    ready.button(key="data_apply").click().run()
    assert not ready.exception and "Nothing was changed" in ready.error[0].value
    assert Store(f"sqlite:///{store_path}").session("s1").settings == before


def test_labeled_rows_chosen_by_hand_define_the_split():
    import pandas as pd

    from ordercore.studio.data import SAMPLE_FEATURES, SAMPLE_PATH, study_data

    frame = pd.read_csv(SAMPLE_PATH)
    data = study_data(frame, "price", SAMPLE_FEATURES, {"labeled": [5, 3, 9], "test_fraction": 0.1})
    assert data.labeled.tolist() == [3, 5, 9]
    assert data.test.size == round(0.1 * 2997) and not set(data.test) & {3, 5, 9}
    assert data.pool.size == 3000 - 3 - data.test.size
    with pytest.raises(ValueError, match="at least one labeled row"):
        study_data(frame, "price", SAMPLE_FEATURES, {"labeled": []})


def test_a_session_holding_answers_keeps_its_data(ready, store_path):
    at = ready.switch_page("app_pages/pairwise.py").run()
    press(at, "a")
    at.switch_page("app_pages/data.py").run()
    assert "its data is fixed" in at.info[0].value and [b.key for b in at.button] == ["create_session"]
    store = Store(f"sqlite:///{store_path}")
    session = store.session("s1")
    with pytest.raises(ValueError, match="its data is fixed"):
        store.update_settings(session.id, {**session.settings, "source": "california", "n_rows": 20640})
    assert store.session("s1") == session


def test_a_new_source_starts_from_its_defaults_and_a_new_session_on_the_sample(store_path):
    """Boston chosen on s1 brings Boston's target and features (not the homes'); s2 opens on the homes."""
    from ordercore.studio.data import available_sources, load_source

    if "boston" not in available_sources():
        pytest.skip("needs ORDERCORE_DATA with Boston")
    at = AppTest.from_file(APP, default_timeout=120).run()
    at.text_input(key="annotator_input").input("ann")
    at.text_input(key="new_session_name").input("s1")
    at.button(key="create_session").click().run()
    next(widget for widget in at.radio if widget.label == "Data set").set_value("boston").run()
    _, target, features = load_source("boston")
    assert next(box for box in at.selectbox if box.label.startswith("Target")).value == target
    assert next(box for box in at.multiselect if box.label == "Features").value == features
    at.button(key="data_apply").click().run()
    assert Store(f"sqlite:///{store_path}").session("s1").settings["source"] == "boston"
    at.text_input(key="new_session_name").input("s2")
    at.button(key="create_session").click().run()
    assert next(widget for widget in at.radio if widget.label == "Data set").value == "sample"
    _, target, features = load_source("sample")
    assert next(box for box in at.multiselect if box.label == "Features").value == features


def test_an_uploaded_table_starts_from_its_last_numeric_target_and_the_columns_a_model_can_take():
    """By hand: the text column is last, so the target is the last numeric column; sentences and a
    60-valued text column (more than MAX_CATEGORIES) are not default features, a 3-valued one is."""
    import numpy as np
    import pandas as pd

    from ordercore.studio.data import upload_defaults

    frame = pd.DataFrame(
        {
            "id": range(60),
            "score": np.linspace(0, 1, 60),
            "kind": ["a", "b", "c"] * 20,
            "ratings": [f"{k};{k + 1}" for k in range(60)],
            "text": [f"sentence number {k} of the table" for k in range(60)],
        }
    )
    assert upload_defaults(frame) == ("score", ["kind"])  # the id names rows: not a feature
    assert upload_defaults(frame[["kind", "text"]]) == ("text", ["kind"])  # nothing numeric: the last column
    # a note of few distinct phrases is free text, shown beside each row; short categories with a space are not
    frame["note"] = ["one owner, small dent", "new tyres and brakes", "needs a little paint work"] * 20
    frame["city"] = ["New York", "Boston", "San Jose", "Austin"] * 15
    assert upload_defaults(frame) == ("score", ["kind", "city"])


def test_an_uploaded_table_never_starts_from_an_identifier_or_a_spread_as_its_target():
    """By hand, the movie snippets' layout (id, mean_rating, rating_sd, ';'-joined ratings, text): the
    target is mean_rating, not the spread rating_sd after it nor the id; with only those, the last numeric."""
    import pandas as pd

    from ordercore.studio.data import upload_defaults

    frame = pd.DataFrame(
        {
            "id": range(60),
            "mean_rating": [k % 9 - 4.0 for k in range(60)],
            "rating_sd": [k % 3 / 2 for k in range(60)],
            "ratings": [f"{k % 9 - 4};{k % 5};{k}" for k in range(60)],
            "text": [f"sentence number {k} of the table" for k in range(60)],
        }
    )
    assert upload_defaults(frame) == ("mean_rating", ["rating_sd"])
    assert upload_defaults(frame[["id", "rating_sd", "text"]]) == ("rating_sd", ["id"])  # nothing else is left


def test_a_csv_with_fewer_rows_than_the_labeled_budget_opens_and_is_used(ready, store_path):
    """Five rows against the default budget of 60 (a traceback before): the budget starts at its
    largest, 3 (all rows but two), and the session takes the table."""
    at = ready
    at.text_input(key="new_session_name").input("small")
    at.button(key="create_session").click().run()
    upload(at, "small.csv", b"a,b,y\n1,2,3\n4,5,6\n7,8,9\n1,1,1\n2,2,2\n")
    assert not at.exception and not at.error
    budget = next(box for box in at.number_input if box.label == "Labeled budget l")
    assert (budget.value, budget.max) == (3, 3)
    at.button(key="data_apply").click().run()
    assert not at.exception and at.success[0].value.startswith("Session uses small.csv: 3 labeled")
    settings = Store(f"sqlite:///{store_path}").session("small").settings
    assert settings["source"] == "upload" and len(settings["labeled"]) == 3
    # 2 rows left, split between the pool and the test rows: the page says so (it was silent)
    pool = 5 - 3 - len(settings["test"])
    assert any(f"Only {pool} of the 5 rows are left unlabeled to compare" in w.value for w in at.warning)
    for page in ("pairwise", "model", "rules"):
        at.switch_page(f"app_pages/{page}.py").run()
        assert not at.exception and not at.error


def test_a_reload_says_the_data_page_shows_the_sessions_kept_upload(ready, store_path):
    """After a reload the Data page's uploader is empty though the session uses its upload: the page
    says which file the store keeps (a new user saw 'Upload a CSV' chosen and nothing in it)."""
    at = ready
    at.text_input(key="new_session_name").input("bikes")
    at.button(key="create_session").click().run()
    upload(at, "bikes.csv", b"a,b,y\n" + b"".join(b"%d,%d,%d\n" % (k, k % 7, 3 * k) for k in range(80)))
    at.button(key="data_apply").click().run()
    assert not at.exception
    reloaded = AppTest.from_file(APP, default_timeout=60)
    reloaded.query_params["session"] = "bikes"
    reloaded.run()
    reloaded.switch_page("app_pages/data.py").run()
    assert next(w for w in reloaded.radio if w.label == "Data set").value == "upload"
    assert any(c.value.startswith("The session's upload, bikes\\.csv, kept by the store") for c in reloaded.caption)


@pytest.mark.parametrize(
    "content, message",
    [
        (b"a,y\n1,2\n", "has a value in 1 row(s)"),
        (b"a,y\n1,inf\n2,3\n3,4\n", "contains infinite values"),
        (("a,y\n" + "".join(f"{i},{(-1) ** i}e305\n" for i in range(20))).encode(), "labels reach 1e+305"),
    ],
)
def test_a_csv_the_models_cannot_fit_is_refused_and_nothing_changes(ready, store_path, content, message):
    store = Store(f"sqlite:///{store_path}")
    before = store.session("s1")
    upload(ready, "bad.csv", content)
    ready.button(key="data_apply").click().run()
    assert not ready.exception and message in ready.error[0].value and "Nothing was changed" in ready.error[0].value
    assert store.session("s1") == before


def test_an_upload_over_the_size_limit_is_refused_before_it_is_read_or_stored(ready, store_path, monkeypatch):
    monkeypatch.setattr("ordercore.studio.store.MAX_DATASET_BYTES", 2**20)
    store = Store(f"sqlite:///{store_path}")
    before = store.session("s1")
    upload(ready, "big.csv", b"a,y\n" + b"1,2\n" * (2**18 + 1))  # 1 MB and 8 bytes
    assert not ready.exception and ready.error[0].value == "Could not open this data set: it is larger than 1 MB."
    assert [b.key for b in ready.button if b.key == "data_apply"] == []
    assert store.session("s1") == before


def test_choosing_upload_before_any_file_asks_for_one(ready):
    """A session on the sample homes (its data set row holds no upload): choosing 'Upload a CSV' asks for
    a file instead of failing on the missing one."""
    next(widget for widget in ready.radio if widget.label == "Data set").set_value("upload").run()
    assert not ready.exception and any(info.value == "Choose a CSV file." for info in ready.info)


def test_the_preview_shows_the_id_and_the_target_first_so_a_wide_table_does_not_hide_them(ready):
    """New-user report 9, Minor 8: a table of used cars with a long description showed price_eur off the right edge
    even at 1400 px.  The preview reads: what each row is, the car's id, its price, then the CSV's other columns in
    their order."""
    from tests.test_page_rules_amounts import cars

    table = cars()
    table.insert(
        1,
        "description",
        [f"{a}-year-old {m}, garage kept, like new" for a, m in zip(table.age_years, table.make, strict=True)],
    )
    at = ready.switch_page("app_pages/data.py").run()
    upload(at, "cars.csv", table.to_csv(index=False).encode())
    at.button(key="data_apply").click().run()
    assert not at.exception and not at.error, at.error
    preview = next(frame.value for frame in at.dataframe if "row is" in frame.value.columns)
    assert list(preview.columns) == ["row is", "car_id", "price_eur", "description", "make", "age_years", "mileage_km"]
