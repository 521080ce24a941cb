"""``NeighbourPairs``: a row and one of its nearest neighbours of the same group (category), checked by
brute force on small tables."""

import numpy as np
import pandas as pd

from ordercore.data.tables import prepare
from ordercore.knowledge.pair_choice import NeighbourPairs


def test_a_partner_is_one_of_the_k_nearest_of_its_own_group():
    rng = np.random.default_rng(3)
    X, groups = rng.normal(size=(60, 2)), rng.integers(3, size=60)
    rows = np.arange(5, 60)
    pairs = NeighbourPairs(X, rows, n_neighbours=4, groups=groups).draw(300, rng)
    for a, b in pairs:
        assert a != b and groups[a] == groups[b] and a in rows and b in rows
        same = rows[(groups[rows] == groups[a]) & (rows != a)]
        closer = np.count_nonzero(np.linalg.norm(X[same] - X[a], axis=1) < np.linalg.norm(X[b] - X[a]))
        assert closer < 4
    lonely = NeighbourPairs(X, rows[:3], groups=np.arange(60)).draw(20, rng)  # no two share a group: any
    assert set(lonely.ravel()) <= set(rows[:3]) and (lonely[:, 0] != lonely[:, 1]).all()


def test_alike_groups_by_category_not_by_a_note_and_measures_numbers_by_their_spread():
    """'size' spans thousands, 'age' units: standardised, both count; the category groups, the note (one
    level per row) does not."""
    frame = pd.DataFrame(
        {
            "kind": ["a", "b"] * 10,
            "note": [f"note {k}" for k in range(20)],
            "size": np.arange(20) * 1000.0,
            "age": np.r_[np.zeros(10), np.ones(10) * 9],
            "y": np.arange(20.0),
        }
    )
    dataset = prepare(frame, "y", ["kind", "note", "size", "age"], categorical=["kind", "note"])
    pairs = NeighbourPairs.alike(dataset, np.arange(20), n_neighbours=1).draw(200, np.random.default_rng(0))
    kind, size, age = frame["kind"].to_numpy(), frame["size"].to_numpy(), frame["age"].to_numpy()
    assert (kind[pairs[:, 0]] == kind[pairs[:, 1]]).all()
    z = np.column_stack([(size - size.mean()) / size.std(), (age - age.mean()) / age.std()])
    for a, b in pairs:
        same = np.flatnonzero((kind == kind[a]) & (np.arange(20) != a))
        assert np.linalg.norm(z[b] - z[a]) == np.linalg.norm(z[same] - z[a], axis=1).min()
