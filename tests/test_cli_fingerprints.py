"""``fit --preferences`` checks the fingerprints a Studio export writes beside its rows, as the Studio's
import does (issue 32, the eighth corpus's A189, A194): a file exported from a table where a home held other
values, or one by position fitted on the same rows in another order, landed on other rows without a word."""

from __future__ import annotations

import json

import numpy as np
import pytest

from ordercore.cli.main import main
from ordercore.models.files import read_model
from ordercore.studio.session import SessionEngine
from tests.test_corpus4_cli import refusal
from tests.test_store_refusals import NoJob, new_session, store, table  # noqa: F401 (fixtures)


@pytest.fixture
def exported(store, tmp_path):  # noqa: F811
    """Paths of a session's preferences (CSV and JSON; home 101 over 102, 104 over 103) exported by id and,
    from a session on the same table without ids, by position; and the tables they were made on."""
    paths = {}
    for ids in (True, False):
        frame = table(ids=ids)
        engine = SessionEngine(store, new_session(store, f"homes {ids}", frame), "test", NoJob())
        engine.set_model(automatic_trust=False)
        engine.answer("ann", (1, 2), "a")
        engine.answer("ann", (3, 4), "b")
        for format in ("csv", "json"):
            paths[ids, format] = tmp_path / f"p-{ids}.{format}"
            paths[ids, format].write_text(engine.export("preferences", format))
        frame.to_csv(tmp_path / f"t-{ids}.csv", index=False)
        engine.close()
    return paths


def fit(tmp_path, frame, preferences, ids=True) -> list:
    frame.to_csv(tmp_path / "fitted.csv", index=False)
    arguments = ["fit", tmp_path / "fitted.csv", "--target", "price", "--preferences", preferences]
    arguments += ["--id", "home_id"] * ids + ["--out", tmp_path / "m.npz"]
    main([str(a) for a in arguments])
    made = read_model(tmp_path / "m.npz").estimator.preferences_
    return sorted(zip(made.i.tolist(), made.j.tolist(), strict=True))


@pytest.mark.parametrize("format", ["csv", "json"])
def test_preferences_fit_on_the_same_homes_in_another_order(tmp_path, exported, format):
    same = table().sample(frac=1.0, random_state=3).reset_index(drop=True)
    at = {home: k for k, home in enumerate(same["home_id"])}
    assert fit(tmp_path, same, exported[True, format]) == sorted([(at[101], at[102]), (at[104], at[103])])


@pytest.mark.parametrize("format", ["csv", "json"])
def test_preferences_from_a_table_where_a_home_held_other_values_are_refused_naming_it(tmp_path, exported, format):
    other = table()
    other.loc[other["home_id"] == 102, "x"] += 0.5
    other.to_csv(tmp_path / "other.csv", index=False)
    path = exported[True, format]
    arguments = ["fit", tmp_path / "other.csv", "--target", "price", "--id", "home_id", "--preferences", path]
    assert refusal([*arguments, "--out", tmp_path / "m.npz"]) == (
        f"error: {path}: these preferences were made on another table: 1 of the rows they name (home_id 102) holds "
        "other values in this table than in the one they were exported from (their fingerprints differ); fit on the "
        "table they were exported from (or drop their columns i_fingerprint, j_fingerprint)"
    )
    assert not (tmp_path / "m.npz").exists()


def test_preferences_by_position_on_the_same_rows_in_another_order_are_refused(tmp_path, exported):
    reordered = table(ids=False).iloc[::-1].reset_index(drop=True)  # row k is row 59 - k
    reordered.to_csv(tmp_path / "reordered.csv", index=False)
    path = exported[False, "json"]
    out = ["--out", tmp_path / "m.npz"]
    message = refusal(["fit", tmp_path / "reordered.csv", "--target", "price", "--preferences", path, *out])
    assert "made on another table: 4 of the rows they name (row 1, row 2, row 4 and 1 more) hold other" in message
    # on the table they were made on, the same file fits on those rows
    assert fit(tmp_path, table(ids=False), path, ids=False) == [(1, 2), (4, 3)]


def test_a_damaged_fingerprint_is_named_by_fit(tmp_path, exported):
    records = json.loads(exported[True, "json"].read_text())
    records[0]["j_fingerprint"] = "zzz"
    path = tmp_path / "damaged.json"
    path.write_text(json.dumps(records))
    arguments = ["fit", tmp_path / "t-True.csv", "--target", "price", "--id", "home_id", "--preferences", path]
    message = refusal([*arguments, "--out", tmp_path / "m.npz"])
    assert message == (
        f"error: {path}: the file's j_fingerprint column is damaged: record 1 ('zzz') holds no fingerprint (16 "
        "lower-case hexadecimal digits, as the Studio exports them): export the file again"
    )


def test_a_table_with_text_ids_and_a_text_column_fits_its_sessions_export(store, tmp_path):  # noqa: F811
    """The fingerprint reads every column as the Studio reads an upload, whatever the CLI reads as text."""
    frame = table().assign(home_id=lambda f: "h" + f["home_id"].astype(str), kind=np.tile(["a", "b"], 30))
    engine = SessionEngine(store, new_session(store, "text ids", frame), "test", NoJob())
    engine.set_model(automatic_trust=False)
    engine.answer("ann", (1, 2), "a")
    (tmp_path / "p.csv").write_text(engine.export("preferences", "csv"))
    engine.close()
    assert fit(tmp_path, frame.iloc[::-1], tmp_path / "p.csv") == [(58, 57)]
