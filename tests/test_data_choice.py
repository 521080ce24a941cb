"""The Data page's choice of a session's data (ordercore/studio/data_choice.py), without Streamlit:
what the page starts from, what it refuses, and what it stores, against values worked out by hand
and the store read back directly."""

import numpy as np
import pandas as pd
import pytest

from ordercore.data.benchmarks import BENCHMARKS
from ordercore.knowledge.rules import Ordering, Rule, Within
from ordercore.preferences import PreferenceSet
from ordercore.studio.data import SAMPLE_FEATURES, SAMPLE_PATH, data_settings, load_source, study_data
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
    upload_megabytes,
    use_data,
)
from ordercore.studio.store import Store

NOTHING = {"rules": 0, "answers": 0, "imported": 0, "queued": 0, "grades": 0}


def test_the_data_is_fixed_once_a_session_on_a_source_holds_something():
    assert fixed_data_notice({}, {**NOTHING, "answers": 3}) is None  # no data chosen yet
    assert fixed_data_notice({"source": "sample"}, NOTHING) is None
    notice = fixed_data_notice({"source": "sample", "name": "Sample homes (generated)"}, {**NOTHING, "rules": 2})
    assert notice == (
        "This session holds 2 rules on Sample homes (generated): its data is fixed, as their row numbers refer "
        "to it. Create a new session (sidebar) to work on other data."
    )
    assert fixed_data_notice({"source": "upload"}, {**NOTHING, "answers": 1}).startswith(
        "This session holds 1 answer on upload: "
    )


def test_the_sources_offered_and_the_sessions_among_them(monkeypatch, tmp_path):
    monkeypatch.setenv("ORDERCORE_DATA", str(tmp_path))  # no benchmark file there
    assert source_choice({}) == (["sample", "upload"], 0)
    assert source_choice({"source": "upload"}) == (["sample", "upload"], 1)
    assert source_choice({"source": "california"}) == (["sample", "upload"], 0)  # not available here
    (tmp_path / BENCHMARKS["boston"].file).write_text("")  # only its presence counts here
    assert source_choice({"source": "boston"}) == (["sample", "boston", "upload"], 1)


def test_an_upload_over_the_stores_limit_is_refused_by_its_size(monkeypatch):
    monkeypatch.setattr("ordercore.studio.store.MAX_DATASET_BYTES", 2**20)
    assert upload_megabytes() == 1
    check_upload_size(2**20)  # exactly the limit is kept
    with pytest.raises(ValueError, match=r"^it is larger than 1 MB\.$"):
        check_upload_size(2**20 + 1)


def test_the_form_starts_from_the_sessions_choices_on_its_own_source_only():
    frame = pd.DataFrame({"a": [1, 2, 3, 4, 5], "b": [5.0, 4, 3, 2, 1], "y": [0.5, 1, 2, 3, 4]})
    fresh = DataForm.of({}, "upload", frame, "y", ["a", "b"])
    # budget: all rows but two (3), below the default 60; the default test share and seed
    assert (fresh.target, fresh.features, fresh.most_labeled, fresh.n_labeled) == ("y", ["a", "b"], 3, 3)
    assert (fresh.test_fraction, fresh.seed) == (0.2, 0)
    chosen = {"source": "upload", "target": "b", "features": ["a", "y"], "n_labeled": 2, "test_fraction": 0.1}
    again = DataForm.of({**chosen, "seed": 7}, "upload", frame, "y", ["a", "b"])
    assert (again.target, again.features, again.n_labeled, again.test_fraction, again.seed) == (
        "b",
        ["a", "y"],
        2,
        0.1,
        7,
    )
    assert again.feature_options("b") == ["a", "y"] and again.starting_features("a") == ["y"]
    # another source starts from its defaults, but keeps the budget, share and seed
    other = DataForm.of({**chosen, "seed": 7}, "sample", frame, "y", ["a", "b"])
    assert (other.target, other.features, other.n_labeled, other.seed) == ("y", ["a", "b"], 2, 7)
    # a stored target the table no longer has: the default
    assert DataForm.of({**chosen, "target": "gone"}, "upload", frame, "y", ["a"]).target == "y"
    assert DataForm.of({}, "upload", frame.head(2), "y", ["a"]).most_labeled == 1


def test_the_budget_starts_within_the_rows_that_have_a_target():
    """A table of 240 rows, 50 with a price (a new user's: the default 60 was refused): the budget goes
    up to 49 and starts at 40, four in five of them; the budget the form starts from is one the split
    takes (``study_data``: 40 labeled, 2 of the other 10 held out)."""
    y = np.full(240, np.nan)
    y[::4][:50] = np.linspace(1.0, 50.0, 50)
    frame = pd.DataFrame({"a": np.arange(240.0), "y": y})
    form = DataForm.of({}, "upload", frame, "y", ["a"])
    assert (form.most_labeled, form.n_labeled) == (49, 40)
    data = study_data(frame, "y", ["a"], {"n_labeled": form.n_labeled})
    assert (data.labeled.size, data.test.size) == (40, 2)


def test_the_split_takes_the_rows_ticked_by_hand_even_none_and_else_draws_them():
    assert split_choice(60, 0.2, 3) == {"n_labeled": 60, "test_fraction": 0.2, "seed": 3}
    by_hand = split_choice(np.int64(5), 0.25, 0, [np.int64(9), 4])
    assert by_hand == {"n_labeled": 5, "test_fraction": 0.25, "seed": 0, "labeled": [9, 4]}
    assert all(type(row) is int for row in by_hand["labeled"])
    assert split_choice(5, 0.2, 0, [])["labeled"] == []  # ticked none: data_settings says what is wrong


def test_using_data_stores_the_split_and_a_refused_choice_changes_nothing(tmp_path):
    store = Store(f"sqlite:///{tmp_path / 'studio.sqlite'}")
    session = store.create_session("s1")
    frame, target, features = load_source("sample")
    split = split_choice(60, 0.2, 0)
    data = use_data(store, session.id, frame, "sample", target, features, split)
    stored = store.session("s1")
    assert stored.settings["labeled"] == data.labeled.tolist() and len(data.labeled) == 60
    assert stored.settings["test"] == data.test.tolist() and stored.settings["n_rows"] == 3000
    assert store.dataset(stored.dataset_id)["content"] is None  # the sample is not an upload
    assert stored.settings["name"] == "Sample homes (generated)"
    flats = store.create_session("s2")
    upload = b"flat_ref,area,price\nF-1,40,100\nF-2,55,130\nF-3,70,150\nF-4,90,210\nF-5,35,80\n"
    small, small_target, small_features = load_source("upload", upload)
    use_data(
        store, flats.id, small, "upload", small_target, small_features, split_choice(2, 0.2, 0), upload, "flats.csv"
    )
    kept = store.session("s2")
    assert kept.settings["name"] == "flats.csv" and store.dataset(kept.dataset_id)["name"] == "flats.csv"
    # the Data page's preview: the kept file is in use; another of the same columns and size is not
    assert kept_upload(store, kept, upload) and kept_upload(store, stored, None)
    assert not kept_upload(store, kept, upload.replace(b"F-5,35,80", b"F-5,35,81"))
    assert not kept_upload(store, stored, upload)  # s1 uses the sample, no upload
    with pytest.raises(ValueError):
        use_data(store, session.id, frame, "sample", target, [], split)  # no features
    assert store.session("s1") == stored
    rule = Rule("older", [Within("age", 5.0)], Ordering("income"))
    store.add_rule(session.id, rule, PreferenceSet.order([0], [1]), "ann")
    upload = b"a,y\n1,2\n2,3\n3,5\n4,4\n5,6\n"
    small, small_target, small_features = load_source("upload", upload)
    with pytest.raises(ValueError, match="its data is fixed"):
        use_data(store, session.id, small, "upload", small_target, small_features, split_choice(2, 0.2, 0), upload)
    assert store.session("s1") == stored


def test_the_split_in_words_and_in_counts():
    frame = pd.DataFrame({"x": np.arange(1234.0), "y": np.arange(1234.0) % 7})
    data = study_data(frame, "y", ["x"], {"labeled": [0, 1, 2], "test": [3, 4]})
    assert split_summary("flats.csv", data) == "Session uses flats.csv: 3 labeled, 2 held out, 1,229 in the pool."
    assert split_counts(data) == [
        ("Rows", "1,234"),
        ("Labeled", "3"),
        ("Held out for testing", "2"),
        ("Unlabeled pool", "1,229"),
    ]
    sample = study_data(pd.read_csv(SAMPLE_PATH), "price", SAMPLE_FEATURES, {"n_labeled": 60})
    assert split_summary("Sample homes (generated)", sample).startswith("Session uses Sample homes (generated): 60 ")


def test_a_table_with_few_known_targets_holds_out_every_known_row_it_does_not_label():
    """A new user's 260 laptops with 49 known prices: 39 labeled, 2 held out and 8 known prices pooled,
    their values unused.  Now every known row not labeled is held out; a table with every target known
    keeps 0.2 (its pool is those rows)."""
    rng = np.random.default_rng(0)
    price = np.where(np.arange(260) < 49, rng.uniform(100, 900, 260), np.nan)
    frame = pd.DataFrame({"ram": rng.integers(4, 33, 260), "price": rng.permutation(price)})
    form = DataForm.of({}, "upload", frame, "price", ["ram"])
    assert (form.n_labeled, form.test_fraction) == (39, 1.0)  # round(0.8 x 49)
    split = split_choice(form.n_labeled, form.test_fraction, form.seed)
    _, data = data_settings(frame, "upload", "price", ["ram"], split)
    known = set(np.flatnonzero(frame["price"].notna()))
    assert (data.labeled.size, data.test.size) == (39, 10) and set(data.labeled) | set(data.test) == known
    full = frame.assign(price=rng.uniform(100, 900, 260))
    assert DataForm.of({}, "upload", full, "price", ["ram"]).test_fraction == 0.2


def test_the_preview_before_use_names_each_columns_kind_and_role_and_goes_once_the_choice_is_used():
    """A table with an id, a note, a category, a number and the target: each column's kind and role as written
    here by hand; the preview shows until the session's settings hold this very choice."""
    frame = pd.DataFrame(
        {
            "car_id": ["C1", "C2", "C3", "C4", "C5", "C6"],
            "note": ["one owner, small dent", "garage kept, like new", "needs new tyres soon"] * 2,
            "body": ["suv", "van", "suv", "van", "suv", "van"],
            "age": [1.0, 2, 3, 4, 5, 6],
            "price": [10.0, 9, 8, 7, 6, 5],
        }
    )
    split = split_choice(3, 0.5, 0)
    settings, data = data_settings(frame, "upload", "price", ["body", "age"], split, "cars.csv")
    assert column_kinds(data).values.tolist() == [
        ["car_id", "id", "names the rows"],
        ["note", "text", "not a feature"],
        ["body", "categories (2 values)", "feature"],
        ["age", "numbers", "feature"],
        ["price", "numbers", "target (what the model predicts)"],
    ]
    assert in_use(settings, "upload", "price", ["body", "age"], split)
    assert not in_use(settings, "upload", "price", ["body", "age"], split, same_table=False)  # another file
    assert not in_use({}, "upload", "price", ["body", "age"], split)  # nothing used yet
    assert not in_use(settings, "upload", "price", ["age"], split)
    assert not in_use(settings, "upload", "price", ["body", "age"], split_choice(3, 0.5, 1))
