"""A pair an annotator skipped is not drawn for them again (a new user's pass, issue 33: after a reload
the same skipped pairs came back in the same order); another annotator may still get it."""

import numpy as np
import pandas as pd

from ordercore.studio.data import data_settings
from ordercore.studio.offers import skipped_pairs
from ordercore.studio.session import ACTIVE, SessionEngine
from ordercore.studio.store import Store


def test_skipped_pairs_are_read_per_annotator():
    answers = pd.DataFrame(
        {
            "row_a": [3, 5, 7, 9],
            "row_b": [4, 6, 8, 10],
            "choice": ["skip", "a", "skip", "skip"],
            "annotator": ["ann", "ann", "bo", "ann"],
        }
    )
    assert skipped_pairs(answers, "ann").tolist() == [[3, 4], [9, 10]]
    assert skipped_pairs(answers, "cy").shape == (0, 2)


def test_a_skipped_pair_is_not_drawn_again_for_whoever_skipped_it(tmp_path):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"x": rng.normal(size=60), "z": rng.normal(size=60)})
    frame["price"] = 3 * frame["x"] + rng.normal(size=60)
    store = Store(f"sqlite:///{tmp_path / 'studio.sqlite'}")
    session = store.create_session("s")
    settings, _ = data_settings(frame, "upload", "price", ["x", "z"], {"n_labeled": 20, "test_fraction": 0.2})
    store.update_settings(session.id, settings, store.add_dataset("t", frame, frame.to_csv(index=False).encode()))
    engine = SessionEngine(store, session.id)
    pool = len(engine.data().pool)

    def drawn(annotator):  # every pair of the pool the random choice offers, the same draw each time
        found = engine.next_pairs(ACTIVE, annotator, np.random.default_rng(1), "random", count=pool * pool)
        return {frozenset(pair) for pair, _ in found}

    first = sorted(drawn("ann"), key=sorted)[:3]
    for pair in first:
        engine.answer("ann", tuple(pair), "skip")
    engine.wait()
    assert not drawn("ann") & set(first)  # never offered to ann again
    assert set(first) <= drawn("bo")  # bo has not seen them
    engine.close()
