"""``NeighbourPairs``: a row and one of its nearest neighbours of the same group (category), and close
(within the closest tenth of the group's pairs), checked by brute force on small tables."""

import numpy as np
import pandas as pd
import pytest

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


def used_cars() -> pd.DataFrame:
    """Three makes of 8 cars each, 1, 3, …, 15 years old, km in step with age (new-user report 9's table in
    small: a make's 'ten nearest' are all its cars)."""
    age = np.tile(np.arange(1.0, 16.0, 2.0), 3)
    make = np.repeat(["BMW", "Kia", "Ford"], 8)
    frame = pd.DataFrame({"make": make, "age": age, "km": age * 15_000 + (make == "Kia") * 1_000})
    frame["price"] = 30_000 * 0.88 ** frame["age"]
    return frame


def test_similar_rows_are_close_not_merely_the_nearest_of_a_small_category():
    """Report 9: 'Similar rows' paired a 3-year-old car with a 15-year-old one of the same make and body: in
    a category of 7 rows, 'one of its 10 nearest' is any of them.  Here the closest tenth of a make's pairs
    are those two years apart (7 of its 28), so every pair drawn is of one make, two years apart, and over
    many draws every such pair comes; without the closeness bound pairs 14 years apart came."""
    frame = used_cars()
    dataset = prepare(frame, "price", ["make", "age", "km"], categorical=["make"])
    rows = np.arange(len(frame))
    pairs = NeighbourPairs.alike(dataset, rows).draw(2000, np.random.default_rng(0))
    make, age = frame["make"].to_numpy(), frame["age"].to_numpy()
    assert (make[pairs[:, 0]] == make[pairs[:, 1]]).all()
    assert (np.abs(age[pairs[:, 0]] - age[pairs[:, 1]]) == 2).all()
    assert len({frozenset(pair) for pair in pairs.tolist()}) == 3 * 7  # each make's 7 pairs two years apart
    numeric, groups = dataset.X[:, :2], make
    before = NeighbourPairs(numeric, rows, groups=groups).draw(2000, np.random.default_rng(0))
    assert np.abs(age[before[:, 0]] - age[before[:, 1]]).max() == 14


def test_the_closeness_bound_is_the_quantile_of_a_categorys_pairs_by_brute_force():
    rng = np.random.default_rng(8)
    X, groups = rng.normal(size=(90, 3)), rng.integers(4, size=90)
    rows = np.arange(90)
    pairs = NeighbourPairs(X, rows, n_neighbours=6, groups=groups, close_share=0.1)
    same = [(a, b) for a in rows for b in rows if a < b and groups[a] == groups[b]]
    distances = np.array([np.linalg.norm(X[a] - X[b]) for a, b in same])
    assert pairs.radius == pytest.approx(np.quantile(distances, 0.1))
    for a, b in pairs.draw(500, rng):
        assert groups[a] == groups[b] and np.linalg.norm(X[a] - X[b]) <= pairs.radius * (1 + 1e-9)
        others = rows[(groups == groups[a]) & (rows != a)]
        closer = np.count_nonzero(np.linalg.norm(X[others] - X[a], axis=1) < np.linalg.norm(X[b] - X[a]))
        assert closer < 6
    closest = min(same, key=lambda pair: np.linalg.norm(X[pair[0]] - X[pair[1]]))
    only = NeighbourPairs(X, rows, n_neighbours=6, groups=groups, close_share=0.0).draw(50, rng)
    assert {tuple(sorted(pair)) for pair in only.tolist()} == {tuple(int(v) for v in closest)}
