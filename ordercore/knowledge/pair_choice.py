"""Candidate pairs a person can judge: ``NeighbourPairs`` draws each pair as a row and one of its
nearest neighbours in the model's feature space, so the two are roughly equal in most features and
"all else roughly equal, which is worth more?" has an answer (two random rows differ in everything).
The models score the candidates (``ordercore.pair_scores``)."""

from __future__ import annotations

import numpy as np
from sklearn.neighbors import NearestNeighbors

N_NEIGHBOURS = 10


"""How many nearest neighbours of a row ``NeighbourPairs`` draws its partner from."""


class NeighbourPairs:
    """Candidate pairs among ``rows`` (r,) of X (n, d): a row drawn uniformly and one of its
    ``n_neighbours`` nearest neighbours among ``rows`` (Euclidean, in X as the model sees it), drawn
    uniformly.  The neighbour index is built once; each ``draw`` costs one query."""

    def __init__(self, X: np.ndarray, rows: np.ndarray, n_neighbours: int = N_NEIGHBOURS):
        self.rows = np.asarray(rows, dtype=np.int64)
        if self.rows.size < 2:
            raise ValueError("neighbour pairs need at least two rows")
        self.n_neighbours = min(int(n_neighbours), self.rows.size - 1)
        self._X = np.asarray(X)[self.rows]
        self._index = NearestNeighbors(n_neighbors=self.n_neighbours + 1).fit(self._X)

    def draw(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """n candidate pairs (n, 2) of row indices (into X), each of two different rows."""
        anchors = rng.integers(self.rows.size, size=n)
        _, neighbours = self._index.kneighbors(self._X[anchors])
        # Each row's neighbour list holds the row itself (or a duplicate of it) among the first; drop
        # the anchor wherever it is, then draw one of the others.
        others = np.array(
            [
                [k for k in row if k != anchor][: self.n_neighbours]
                for row, anchor in zip(neighbours, anchors, strict=True)
            ]
        )
        partners = others[np.arange(n), rng.integers(self.n_neighbours, size=n)]
        return np.column_stack([self.rows[anchors], self.rows[partners]])
