"""Exports carry each row's fingerprint, and an import checks them (issue 32, the seventh corpus's Z015):
answers exported from one table imported into a session on another whose ids overlap became answers about
other homes without a word.  The same table, its rows and columns in any order, still imports; a file
without fingerprints (written before, or by hand) imports as before."""

from __future__ import annotations

import hashlib
import io
import json
import struct

import numpy as np
import pandas as pd
import pytest

from ordercore.preferences import PreferenceSet
from ordercore.studio.fingerprints import row_fingerprints
from ordercore.studio.session import SessionEngine
from tests.test_corpus4_library import state
from tests.test_store_refusals import NoJob, engine, new_session, store, table  # noqa: F401 (fixtures)

EXPORTS = [("answers", "csv"), ("grades", "csv"), ("preferences", "csv"), ("preferences", "json")]


def session_on(store, name: str, frame: pd.DataFrame) -> SessionEngine:  # noqa: F811
    made = SessionEngine(store, new_session(store, name, frame), "test", NoJob())
    made.set_model(automatic_trust=False)
    return made


def filled(engine) -> dict:  # noqa: F811
    """The session's answer between home_id 101 and 102, a grade of 105, and its exports by kind and format."""
    engine.answer("ann", (1, 2), "a")
    engine.grade("ann", 5, 3)
    return {(kind, format): engine.export(kind, format) for kind, format in EXPORTS}


def without_fingerprints(text: str, format: str) -> str:
    """An export as written before exports had fingerprints."""
    if format == "json":
        return json.dumps([{k: v for k, v in r.items() if "fingerprint" not in k} for r in json.loads(text)])
    frame = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)
    return frame.drop(columns=[c for c in frame.columns if "fingerprint" in c]).to_csv(index=False)


@pytest.mark.parametrize("kind, format", EXPORTS)
def test_a_file_whose_rows_hold_other_values_here_is_refused_naming_them(store, engine, kind, format):  # noqa: F811
    exported = filled(engine)[kind, format]
    other = table()
    other.loc[other["home_id"] == 102, "age"] += 1.0  # one home of the answer differs, by one year
    other.loc[other["home_id"] == 105, "rooms"] += 1  # the graded home
    receiver = session_on(store, "other", other)
    before = state(store, receiver.id)
    said = f"1 of the rows they name (home_id {105 if kind == 'grades' else 102}) holds"
    with pytest.raises(ValueError) as raised:
        receiver.import_file(f"f.{format}", exported.encode(), "imp")
    assert str(raised.value) == (
        f"these {kind} were made on another table: {said} other values in this session's table than in the one they "
        "were exported from (their fingerprints differ); import them into a session on that table. Nothing was imported"
    )
    assert state(store, receiver.id) == before
    # the same file without its fingerprints (written before them): imported as before, unchecked
    assert receiver.import_file(f"f.{format}", without_fingerprints(exported, format).encode(), "imp").startswith("Imp")
    receiver.close()


@pytest.mark.parametrize("kind, format", EXPORTS)
def test_a_session_on_the_same_table_in_another_order_imports_the_file(store, engine, kind, format):  # noqa: F811
    """The documented round trip: a copy of the session, its table's rows and columns in another order."""
    exported = filled(engine)[kind, format]
    same = table().sample(frac=1.0, random_state=3).reset_index(drop=True)
    same = same[list(same.columns[::-1])]
    receiver = session_on(store, "copy", same)
    said = receiver.import_file(f"f.{format}", exported.encode(), "imp")
    assert said.startswith("Imported ") and "already" not in said
    position = {home: k for k, home in enumerate(same["home_id"])}
    if kind == "answers":
        assert receiver.answers()[["row_a", "row_b"]].values.tolist() == [[position[101], position[102]]]
    if kind == "grades":
        assert receiver.grades()["row"].tolist() == [position[105]]
    receiver.close()


def test_a_file_by_position_into_a_table_of_the_same_rows_in_another_order_is_refused(store):  # noqa: F811
    """Without an id column rows travel by position: another order puts an answer on other homes."""
    source = session_on(store, "source", table(ids=False))
    source.answer("ann", (1, 2), "a")
    exported = source.export("answers")
    assert exported.splitlines()[0].startswith("row_a,row_b,") and exported.splitlines()[0].endswith(",b_fingerprint")
    shuffled = session_on(store, "shuffled", table(ids=False).iloc[::-1].reset_index(drop=True))
    with pytest.raises(ValueError, match=r"^these answers were made on another table: 2 of the rows they name \(row 1"):
        shuffled.import_file("a.csv", exported.encode(), "imp")
    assert shuffled.answers().empty
    same = session_on(store, "same", table(ids=False))
    assert same.import_file("a.csv", exported.encode(), "imp") == "Imported 1 answer."
    for made in (source, shuffled, same):
        made.close()


def test_exports_write_each_rows_fingerprint_beside_it(engine):  # noqa: F811
    exported = filled(engine)
    fingerprints = row_fingerprints(engine.data().frame)
    answers = pd.read_csv(io.StringIO(exported["answers", "csv"]), dtype=str)
    assert answers[["a_fingerprint", "b_fingerprint"]].values.tolist() == [[fingerprints[1], fingerprints[2]]]
    grades = pd.read_csv(io.StringIO(exported["grades", "csv"]), dtype=str)
    assert grades["fingerprint"].tolist() == [fingerprints[5]]
    preferences = pd.read_csv(io.StringIO(exported["preferences", "csv"]), dtype=str)
    assert preferences[["i_fingerprint", "j_fingerprint"]].values.tolist() == [[fingerprints[1], fingerprints[2]]]
    # the library reads a session's preference export as it reads any preference file (fit --preferences)
    assert PreferenceSet.from_csv(exported["preferences", "csv"]) == engine.store.preferences(engine.id)[0]


def test_a_fingerprint_reads_a_rows_values_whatever_the_order_of_rows_and_columns():
    frame = pd.DataFrame({"x": [1.0, 2.5, -0.0], "rooms": [3, 4, 5], "town": ["north", "south", None]})
    fingerprints = row_fingerprints(frame)
    assert len(set(fingerprints)) == 3 and all(len(f) == 16 for f in fingerprints)
    reordered = frame.iloc[[2, 0, 1], ::-1]
    assert row_fingerprints(reordered).tolist() == fingerprints[[2, 0, 1]].tolist()
    as_floats = frame.assign(rooms=frame["rooms"].astype(float), x=[1.0, 2.5, 0.0])  # 3 is 3.0; -0 is 0
    assert row_fingerprints(as_floats).tolist() == fingerprints.tolist()
    changed = [frame.assign(x=[1.0, 2.5, 1e-300]), frame.rename(columns={"x": "y"}), frame.assign(town="north")]
    for other in changed:
        assert row_fingerprints(other)[2] != fingerprints[2]
    assert row_fingerprints(frame.assign(town=["north", "south", ""]))[2] != fingerprints[2]  # '' is text, not empty
    assert np.array_equal(row_fingerprints(frame.head(0)), np.array([], dtype=object))


def word(text: str) -> int:
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little")


def mix(z: int) -> int:
    """SplitMix64's finaliser in Python's integers."""
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) % 2**64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) % 2**64
    return z ^ (z >> 31)


def fingerprint_by_hand(row: dict) -> str:
    """A row's fingerprint computed one cell at a time, as ``row_fingerprints`` documents it."""
    digest = word("ordercore rows 1")
    for name in sorted(row):
        value = row[name]
        cell = struct.unpack("<Q", struct.pack("<d", float(value)))[0] if isinstance(value, float) else word(value)
        digest = mix(mix(digest ^ word(name)) ^ cell)
    return f"{digest:016x}"


def test_a_fingerprint_is_the_documented_digest_of_the_rows_values_and_reads_the_same_in_later_versions():
    frame = pd.DataFrame({"x": [1.0, 2.5], "town": ["a", "søder"]})
    assert row_fingerprints(frame).tolist() == [fingerprint_by_hand(row) for row in frame.to_dict("records")]
    # pinned: an export's fingerprints must read the same in every later version (else its files are refused)
    assert row_fingerprints(frame)[0] == "1293d789709b04d8"
