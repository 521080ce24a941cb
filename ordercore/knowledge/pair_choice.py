"""Candidate pairs a person can judge, and questions that do not keep returning to one row.

``NeighbourPairs`` draws each pair as a row and one of its nearest neighbours of the same category, on the
numeric features scaled by their spread, so the two are roughly equal in the other features and "all
else roughly equal, which is worth more?" has an answer (two random rows differ in everything;
neighbours in the model's space mixed a City bike with a Road bike, one category indicator weighing no
more than a numeric feature).  A neighbour is also close: within the closest ``CLOSE_SHARE`` of the
pairs of rows of one category.  Without that, on a small table of many categories (220 used cars in 20 make × body
groups, 7 of them in the pool of each) the "ten nearest" were the whole group, and the choice, which
prefers pairs far apart in value, paired a 3-year-old car with a 15-year-old one of the same group
(new-user report 9).

``recent_window`` says how many of an annotator's last questions keep their rows out of the next pair
(``pair_scores.RecentRows``): the choices led by the models otherwise ask one row again and again,
the row the fit errs on most (report 9: one car in 11 of the first 36 pairs).  The models score the
candidates (``ordercore.pair_scores``)."""

from __future__ import annotations

import numpy as np
from scipy.spatial.distance import pdist
from sklearn.neighbors import NearestNeighbors

N_NEIGHBOURS = 10
"""How many nearest neighbours of a row ``NeighbourPairs`` draws its partner from."""

CLOSE_SHARE = 0.1
"""A neighbour pair's rows are within the distance of the closest tenth of the pairs of rows of one category
(numeric features scaled by their spread), as a "within" rule's default keeps about the closest seventh of the
pairs on each of its columns (``rules.conditions.WITHIN_SPREADS``).  On report 9's used cars: at most 3
years and 45,000 km apart (median 1 year), where the ten nearest of a group reached 14 years (median 5)."""

PAIRS_FOR_RADIUS = 20_000
"""Most pairs of rows whose distances ``NeighbourPairs`` takes the ``CLOSE_SHARE`` quantile of (a uniform
sample of them beyond)."""

RADIUS_TOLERANCE = 1e-9
"""Relative slack on ``radius``: a pair at the quantile's own distance, measured by the neighbour index
rather than ``pdist``, may differ from it in the last bits."""

DRAW_ROUNDS = 20
"""Rounds of anchors ``NeighbourPairs.draw`` tries (a row without a close neighbour is drawn again):
enough while one row in twenty has one."""

RECENT_QUESTIONS = 20
"""The window: a row asked in an annotator's last 20 questions is not asked again by a choice led by the
models, unless no other pair is left (``recent_window``).  20 is ``committee_choice.AUDIT_START``: an
annotator's first questions, which measure them, are about 40 different rows, not a few over and over.
A row's first answer already moves the fit there, so its next ones teach less than another row's;
a person remembers a row seen a few questions ago and reads its return as the tool not listening."""

POOL_SHARE_RECENT = 8
"""The window holds at most the pool's rows / 8 questions (``recent_window``): the 2 rows of each keep at
most a quarter of the pool's rows out, so more than half of random pairs of pool rows remain free."""


def recent_window(pool_size: int) -> int:
    """How many of an annotator's last questions keep their rows out of the next pair, for a pool of
    ``pool_size`` rows: ``RECENT_QUESTIONS``, fewer on a small pool (``POOL_SHARE_RECENT``)."""
    return int(min(RECENT_QUESTIONS, pool_size // POOL_SHARE_RECENT))


class NeighbourPairs:
    """Candidate pairs among ``rows`` (r,) of X (n, d): a row drawn uniformly among those whose group
    (``groups`` (n,), e.g. its category; None: one group) holds another of ``rows`` among its
    ``n_neighbours`` nearest there (Euclidean in X) and within ``radius``, and one of those, drawn
    uniformly.  ``radius``: the distance of the closest ``close_share`` of the pairs of rows of one group
    (None: any distance).  Each group's neighbour index is built once; each ``draw`` costs a query per group
    and round, and each row's close neighbours are kept once found."""

    def __init__(
        self, X: np.ndarray, rows: np.ndarray, n_neighbours: int = N_NEIGHBOURS, groups=None, close_share=None
    ):
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
        self.radius = None if close_share is None else self._share_radius(close_share)
        self._close: dict[int, np.ndarray] = {}

    def _share_radius(self, share: float) -> float:
        """The distance within which the closest ``share`` of the pairs of rows of one group lie: over all
        of them, or ``PAIRS_FOR_RADIUS`` drawn uniformly among them (seeded: the same every time)."""
        groups = list(self._members.values())
        counts = np.array([m.size * (m.size - 1) // 2 for m in groups], dtype=np.float64)
        if counts.sum() <= PAIRS_FOR_RADIUS:
            distances = np.concatenate([pdist(self._X[members]) for members in groups])
        else:
            rng = np.random.default_rng(0)
            drawn = np.bincount(
                rng.choice(len(groups), PAIRS_FOR_RADIUS, p=counts / counts.sum()), minlength=len(groups)
            )
            distances = []
            for members, m in zip(groups, drawn, strict=True):
                first, second = rng.integers(members.size, size=m), rng.integers(members.size - 1, size=m)
                second += second >= first  # another row of the group
                distances.append(np.linalg.norm(self._X[members[first]] - self._X[members[second]], axis=1))
            distances = np.concatenate(distances)
        return float(np.quantile(distances, share))

    @classmethod
    def alike(cls, dataset, rows: np.ndarray, n_neighbours: int = N_NEIGHBOURS) -> NeighbourPairs:
        """Pairs of ``dataset``'s ``rows`` (``ordercore.data.Dataset``) roughly equal in the other
        features: within the same category (every categorical feature of at most half as many levels as
        rows the same; an indicator block of X), near on its numeric features (X's first columns:
        each standardized by its spread, so none counts for more than another): among a row's
        ``n_neighbours`` nearest and within the closest ``CLOSE_SHARE`` of the pairs of ``rows`` of one category."""
        X = np.asarray(dataset.X, dtype=np.float64)
        preprocessing = dataset.preprocessing
        if preprocessing is None or not preprocessing.categorical:
            return cls(X, rows, n_neighbours, close_share=CLOSE_SHARE)
        start, blocks = len(preprocessing.numeric), []
        for _, levels in preprocessing.categorical:
            if len(levels) <= max(2, len(X) // 2):  # a category, not a note or an id
                blocks.append(X[:, start : start + len(levels)])
            start += len(levels)
        numeric = X[:, : len(preprocessing.numeric)] if preprocessing.numeric else np.zeros((len(X), 1))
        if not blocks:
            return cls(numeric, rows, n_neighbours, close_share=CLOSE_SHARE)
        _, groups = np.unique(np.hstack(blocks), axis=0, return_inverse=True)
        return cls(numeric, rows, n_neighbours, groups.ravel(), CLOSE_SHARE)

    def draw(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """Up to n candidate pairs (<= n, 2) of row indices (into X), each of two different rows of one
        group within ``radius``: anchors drawn in rounds (``DRAW_ROUNDS``) until n have a close neighbour.
        When none is found, each anchor's nearest neighbour of its group, however far."""
        pairs = []
        for _ in range(DRAW_ROUNDS):
            anchors = self._anchors[rng.integers(self._anchors.size, size=n - len(pairs))]
            close = self._neighbours(anchors)
            pairs += [
                (anchor, near[rng.integers(near.size)])
                for anchor, near in zip(anchors, close, strict=True)
                if near.size
            ]
            if len(pairs) == n:
                break
        if not pairs:  # no row has a neighbour that close
            anchors = self._anchors[rng.integers(self._anchors.size, size=n)]
            nearest = self._neighbours(anchors, nearest=True)
            pairs = [(anchor, near[0]) for anchor, near in zip(anchors, nearest, strict=True)]
        pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
        return self.rows[pairs]

    def _neighbours(self, anchors: np.ndarray, nearest: bool = False) -> list[np.ndarray]:
        """Each anchor's neighbours of its group (positions into ``rows``), nearest first: its k nearest
        within ``radius`` (kept once found), or with ``nearest`` its k nearest at any distance."""
        known = np.fromiter(self._close, dtype=np.int64, count=len(self._close))
        unknown = np.unique(anchors) if nearest else np.setdiff1d(anchors, known)
        found_here = {}
        for g in np.unique(self._codes[unknown]):
            at = unknown[self._codes[unknown] == g]
            members, k = self._members[g], self._k[g]
            distances, found = self._index[g].kneighbors(self._X[at])
            for anchor, row, away in zip(at, found, distances, strict=True):
                # The row itself (or a duplicate of it) is among the first: drop the anchor wherever it is.
                keep = members[row] != anchor
                near, away = members[row][keep][:k], away[keep][:k]
                if not nearest and self.radius is not None:
                    near = near[away <= self.radius * (1 + RADIUS_TOLERANCE)]
                found_here[anchor] = near
        if not nearest:
            self._close.update(found_here)
            return [self._close[a] for a in anchors]
        return [found_here[a] for a in anchors]
