"""Exports and imports: preferences round-trip through CSV and JSON, and an import of what the session
holds adds nothing."""

import pandas as pd
import pytest

from ordercore.preferences import PreferenceSet
from tests.store_checks import triples


def test_export_and_import_round_trip(store):
    source = store.create_session("from", settings={"n_rows": 20})
    store.add_answer(source.id, 1, 2, "a", "ann", weight=2.0, margin=0.5)
    store.add_answer(source.id, 3, 4, "equal", "ann")
    made = store.preferences(source.id)[0]
    for format in ("csv", "json"):
        text = store.export_preferences(source.id, format)
        frame = (
            pd.read_csv(__import__("io").StringIO(text))
            if format == "csv"
            else pd.read_json(__import__("io").StringIO(text))
        )
        target = store.create_session(f"to-{format}", settings={"n_rows": 20})
        assert store.import_preferences(target.id, PreferenceSet.from_frame(frame), "bob") == len(made)
        imported, provenance = store.preferences(target.id)
        assert imported == made and set(provenance["source"]) == {"import"}
    with pytest.raises(ValueError, match="out of range"):
        store.import_preferences(target.id, PreferenceSet.order(0, 25), "bob")
    with pytest.raises(ValueError, match="format"):
        store.export_preferences(source.id, "xml")


def test_importing_what_the_session_holds_adds_nothing(store):
    session = store.create_session("s", settings={"n_rows": 50})
    first = PreferenceSet([1, 2, 3], [4, 5, 6], 0.5, [1.0, 2.0, 1.0])
    assert store.import_preferences(session.id, first, "ann") == 3
    revision = store.revision(session.id)
    assert store.import_preferences(session.id, first, "bob") == 0 and store.revision(session.id) == revision
    overlapping = PreferenceSet([1, 2, 7], [4, 5, 8], 0.5, [1.0, 3.0, 1.0])  # (2, 5) with another weight is new
    assert store.import_preferences(session.id, overlapping, "bob") == 2
    made, _ = store.preferences(session.id)
    assert triples(made) == [(1, 4, 0.5, 1.0), (2, 5, 0.5, 2.0), (3, 6, 0.5, 1.0), (2, 5, 0.5, 3.0), (7, 8, 0.5, 1.0)]
    assert store.contents(session.id) == {"rules": 0, "answers": 0, "imported": 5, "queued": 0, "grades": 0}
