"""Fingerprint columns are text, whatever they look like (issue 32, the eighth corpus's A074-A093): a
session's own export whose fingerprint read as a number ('0687991417410372' lost its 0, '8002290230e40998'
became inf) was refused on re-import as "made on another table"; a damaged fingerprint (garbage, upper
case, 15 digits, a number, a list) was reported so too, instead of as a damaged column."""

from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd
import pytest

from ordercore.studio import row_names
from ordercore.studio.session import SessionEngine
from tests.test_corpus4_library import state
from tests.test_store_refusals import NoJob, new_session, store, table  # noqa: F401 (fixtures)

EXPORTS = [("answers", "csv"), ("grades", "csv"), ("preferences", "csv"), ("preferences", "json")]

NUMBER_LIKE = ["0687991417410372", "8002290230e40998", "0000000000000001", "1234567890123456"]
"""Fingerprints a CSV reader takes for numbers: a leading 0, digits-e-digits (inf), all digits."""


@pytest.fixture
def numeric_looking(store, monkeypatch):  # noqa: F811
    """A session whose rows 0 … 3 have the fingerprints ``NUMBER_LIKE`` (the others their own), answered
    (0, 1), (2, 3) and graded on rows 0 … 3, and its exports by kind and format."""
    real = row_names.row_fingerprints

    def crafted(frame):
        made = real(frame).copy()
        made[: len(NUMBER_LIKE)] = NUMBER_LIKE
        return made

    monkeypatch.setattr(row_names, "row_fingerprints", crafted)
    engine = SessionEngine(store, new_session(store, "crafted", table()), "test", NoJob())
    engine.set_model(automatic_trust=False)
    engine.answer("ann", (0, 1), "a")
    engine.answer("ann", (2, 3), "b")
    for row in range(4):
        engine.grade("ann", row, 3)
    yield engine, {(kind, format): engine.export(kind, format) for kind, format in EXPORTS}
    engine.close()


@pytest.mark.parametrize("kind, format", EXPORTS)
def test_a_sessions_own_export_with_number_like_fingerprints_imports_into_it(numeric_looking, kind, format):
    engine, exported = numeric_looking
    written = set(NUMBER_LIKE) & set(exported[kind, format].replace('"', ",").replace("\n", ",").split(","))
    assert written == set(NUMBER_LIKE), "the export writes the crafted fingerprints as they are"
    said = engine.import_file(f"f.{format}", exported[kind, format].encode(), "imp")
    assert said.startswith("Nothing was imported: the session already holds all"), said


def damaged_csv(text: str, column: str, value: str) -> str:
    frame = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)
    return frame.assign(**{column: value}).to_csv(index=False)


CSV_DAMAGE = [
    ("answers", "a_fingerprint", "zzz", "line 2 ('zzz') holds"),
    ("answers", "a_fingerprint", "8002290230E40998", "line 2 ('8002290230E40998') holds"),  # row 2's, upper case
    ("answers", "b_fingerprint", "<cut>", "line 2 ('{cut}') holds"),
    ("grades", "fingerprint", "12345", "line 2 ('12345'), line 3 ('12345'), line 4 ('12345') and 1 more hold"),
]


@pytest.mark.parametrize("kind, column, value, said", CSV_DAMAGE)
def test_a_damaged_fingerprint_is_named_as_damaged_and_nothing_is_stored(numeric_looking, kind, column, value, said):
    engine, exported = numeric_looking
    text = exported[kind, "csv"]
    first = pd.read_csv(io.StringIO(text), dtype=str)[column].iloc[0]
    value = first[1:] if value == "<cut>" else value
    if kind == "answers":  # one answer, so that its line alone is named
        text = "\n".join(text.splitlines()[:2]) + "\n"
    said = said.format(cut=first[1:])
    before = state(engine.store, engine.id)
    with pytest.raises(ValueError) as raised:
        engine.import_file("f.csv", damaged_csv(text, column, value).encode(), "imp")
    assert str(raised.value) == (
        f"the file's {column} column is damaged: {said} no fingerprint (16 lower-case hexadecimal digits, as the "
        "Studio exports them): export the file again"
    )
    assert state(engine.store, engine.id) == before


@pytest.mark.parametrize("value, shown", [(123, "'123'"), ([1, 2], "'[1, 2]'"), ("0687991417410372 x", None)])
def test_a_damaged_json_fingerprint_names_its_record(numeric_looking, value, shown):
    engine, exported = numeric_looking
    records = json.loads(exported["preferences", "json"])
    records[1]["i_fingerprint"] = value
    before = state(engine.store, engine.id)
    with pytest.raises(ValueError, match=r"the file's i_fingerprint column is damaged: record 2 \(") as raised:
        engine.import_file("p.json", json.dumps(records).encode(), "imp")
    assert shown is None or f"record 2 ({shown}) holds no fingerprint" in str(raised.value)
    assert "another table" not in str(raised.value)
    assert state(engine.store, engine.id) == before


def test_every_exported_fingerprint_is_sixteen_lower_case_hexadecimal_digits(numeric_looking):
    engine, exported = numeric_looking
    frame = pd.read_csv(io.StringIO(exported["preferences", "csv"]), dtype=str)
    written = np.concatenate([frame["i_fingerprint"].to_numpy(), frame["j_fingerprint"].to_numpy()])
    assert all(len(f) == 16 and set(f) <= set("0123456789abcdef") for f in written)
