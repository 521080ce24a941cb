"""The shared queue: a simulation of annotators taking pairs from it, checked by direct counting."""

import numpy as np
import pandas as pd
import pytest

from ordercore.studio.shared_queue import next_queued_pair, queue_progress, queue_summary
from ordercore.studio.store import MAX_COPIES, Store


def queue(rows):
    """A Store.queued_pairs-like frame from (row_a, row_b, copies) tuples, oldest first."""
    return pd.DataFrame(rows, columns=["row_a", "row_b", "copies"])


def answers(rows):
    return pd.DataFrame(rows, columns=["annotator", "row_a", "row_b", "choice"])


def test_progress_counts_distinct_annotators_either_way_round_skips_included():
    queued = queue([(1, 2, 2), (3, 4, 1), (5, 6, 3)])
    given = answers([("ann", 2, 1, "a"), ("ann", 1, 2, "b"), ("bob", 1, 2, "skip"), ("ann", 9, 8, "a")])
    progress = queue_progress(queued, given)
    assert progress["answered_by"].tolist() == [2, 0, 0] and progress["done"].tolist() == [True, False, False]


def test_annotators_drawing_from_the_queue_each_see_a_pair_once_and_every_pair_gets_its_copies():
    """Four annotators answer in a random interleaving until nobody has anything left.  Checked by
    counting: each pair has exactly ``copies`` distinct annotators, nobody answered a pair twice."""
    rng = np.random.default_rng(3)
    queued = queue([(k, k + 50, int(rng.integers(1, 5))) for k in range(30)])
    given, people, waiting = [], ["ann", "bob", "cy", "dee"], {"ann", "bob", "cy", "dee"}
    while waiting:
        who = people[rng.integers(len(people))]
        pair = next_queued_pair(queued, answers(given), who)
        if pair is None:
            waiting.discard(who)
            continue
        given.append((who, *(pair if rng.random() < 0.5 else pair[::-1]), str(rng.choice(["a", "b", "skip"]))))
    seen = pd.DataFrame(given, columns=["who", "a", "b", "choice"])
    seen["pair"] = [frozenset(p) for p in zip(seen["a"], seen["b"], strict=True)]
    assert not seen.duplicated(["who", "pair"]).any()
    per_pair = seen.groupby("pair")["who"].nunique()
    assert [per_pair[frozenset((k, k + 50))] for k in range(30)] == queued["copies"].tolist()
    assert queue_summary(queued, answers(given), "ann") == {"queued": 30, "done": 30, "wanted": 0, "left_for_you": 0}


def test_the_oldest_open_pair_comes_first_and_the_summary_counts_what_is_left():
    queued = queue([(1, 2, 1), (3, 4, 2), (5, 6, 2)])
    given = answers([("bob", 1, 2, "a"), ("ann", 4, 3, "b")])
    assert next_queued_pair(queued, given, "ann") == (5, 6)
    assert next_queued_pair(queued, given, "bob") == (3, 4)
    assert queue_summary(queued, given, "ann") == {"queued": 3, "done": 1, "wanted": 3, "left_for_you": 1}


@pytest.fixture
def store(tmp_path):
    return Store(f"sqlite:///{tmp_path / 'queue.sqlite'}")


def test_the_store_queues_each_pair_once_and_checks_rows_and_copies(store):
    session = store.create_session("q", settings={"n_rows": 10})
    assert store.queue_pairs(session.id, [(1, 2), (2, 1), (3, 4)], 2, "ann") == 2
    assert store.queue_pairs(session.id, np.array([[4, 3], [5, 6]]), 3, "bob") == 1
    held = store.queued_pairs(session.id)
    assert held[["row_a", "row_b", "copies", "annotator"]].values.tolist() == [
        [1, 2, 2, "ann"],
        [3, 4, 2, "ann"],
        [5, 6, 3, "bob"],
    ]
    for pairs, copies, message in [
        ([(1, 10)], 2, "outside the session's table"),
        ([(1.5, 2)], 2, "an integer"),
        ([(7, 7)], 2, "two different rows"),
        ([(7, 8)], 0, "1 to"),
        ([(7, 8)], MAX_COPIES + 1, "1 to"),
        ([(7, 8)], True, "1 to"),
    ]:
        with pytest.raises(ValueError, match=message):
            store.queue_pairs(session.id, pairs, copies, "ann")
    assert len(store.queued_pairs(session.id)) == 3
    assert store.contents(session.id)["queued"] == 3
    with pytest.raises(ValueError, match="3 queued pairs"):
        store.update_settings(session.id, {"source": "california", "n_rows": 20640})
