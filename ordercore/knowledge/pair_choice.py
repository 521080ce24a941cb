"""Candidate pairs a person can judge: ``NeighbourPairs`` draws each pair as a row and one of its
nearest neighbours of the same category, on the numeric features scaled by their spread, so the two
are roughly equal in the other features and "all else roughly equal, which is worth more?" has an
answer (two random rows differ in everything; neighbours in the model's space mixed a City bike with a
Road bike, one category indicator weighing no more than a numeric feature).  The models score the
candidates (``ordercore.pair_scores``)."""

from __future__ import annotations

import numpy as np
from sklearn.neighbors import NearestNeighbors

N_NEIGHBOURS = 10
"""How many nearest neighbours of a row ``NeighbourPairs`` draws its partner from."""


class NeighbourPairs:
    """Candidate pairs among ``rows`` (r,) of X (n, d): a row drawn uniformly among those whose group
    (``groups`` (n,), e.g. its category; None: one group) holds another of ``rows``, and one of its
    ``n_neighbours`` nearest neighbours among the ``rows`` of its group (Euclidean in X), drawn
    uniformly.  Each group's neighbour index is built once; each ``draw`` costs one query per group."""

    def __init__(self, X: np.ndarray, rows: np.ndarray, n_neighbours: int = N_NEIGHBOURS, groups=None):
        self.rows = np.asarray(rows, dtype=np.int64)
        if self.rows.size < 2:
            raise ValueError("neighbour pairs need at least two rows")
        X = np.asarray(X, dtype=np.float64)[self.rows]
        codes = np.zeros(self.rows.size, np.int64) if groups is None else np.asarray(groups)[self.rows]
        _, codes = np.unique(codes, return_inverse=True)
        sizes = np.bincount(codes)
        if sizes.max() < 2:  # no two rows share a group: neighbours among all of them
            codes, sizes = np.zeros_like(codes), np.array([codes.size])
        self._members = {g: np.flatnonzero(codes == g) for g in np.flatnonzero(sizes >= 2)}
        self._anchors = np.concatenate(list(self._members.values()))
        self._k = {g: min(int(n_neighbours), members.size - 1) for g, members in self._members.items()}
        self._index = {
            g: NearestNeighbors(n_neighbors=self._k[g] + 1).fit(X[members]) for g, members in self._members.items()
        }
        self._X, self._codes = X, codes

    @classmethod
    def alike(cls, dataset, rows: np.ndarray, n_neighbours: int = N_NEIGHBOURS) -> NeighbourPairs:
        """Pairs of ``dataset``'s ``rows`` (``ordercore.data.Dataset``) roughly equal in the other
        features: within the same category (every categorical feature of at most half as many levels as
        rows the same; an indicator block of X), nearest on its numeric features (X's first columns:
        each standardized by its spread, so none counts for more than another)."""
        X = np.asarray(dataset.X, dtype=np.float64)
        preprocessing = dataset.preprocessing
        if preprocessing is None or not preprocessing.categorical:
            return cls(X, rows, n_neighbours)
        start, blocks = len(preprocessing.numeric), []
        for _, levels in preprocessing.categorical:
            if len(levels) <= max(2, len(X) // 2):  # a category, not a note or an id
                blocks.append(X[:, start : start + len(levels)])
            start += len(levels)
        numeric = X[:, : len(preprocessing.numeric)] if preprocessing.numeric else np.zeros((len(X), 1))
        if not blocks:
            return cls(numeric, rows, n_neighbours)
        _, groups = np.unique(np.hstack(blocks), axis=0, return_inverse=True)
        return cls(numeric, rows, n_neighbours, groups.ravel())

    def draw(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """n candidate pairs (n, 2) of row indices (into X), each of two different rows of one group."""
        anchors = self._anchors[rng.integers(self._anchors.size, size=n)]
        partners = np.empty(n, dtype=np.int64)
        for g in np.unique(self._codes[anchors]):
            at = np.flatnonzero(self._codes[anchors] == g)
            members, k = self._members[g], self._k[g]
            _, found = self._index[g].kneighbors(self._X[anchors[at]])
            # Each row's neighbour list holds the row itself (or a duplicate of it) among the first; drop
            # the anchor wherever it is, then draw one of the others.
            others = np.array(
                [
                    [members[q] for q in row if members[q] != anchor][:k]
                    for row, anchor in zip(found, anchors[at], strict=True)
                ]
            )
            partners[at] = others[np.arange(at.size), rng.integers(k, size=at.size)]
        return np.column_stack([self.rows[anchors], self.rows[partners]])
