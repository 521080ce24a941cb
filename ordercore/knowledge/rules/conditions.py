""" "Roughly equal" conditions: the tests that make two rows roughly equal in a rule (seed 000's
bedroom rule: "within 25 miles, median age within 10 years, median income within $1000"), their
registry, and the candidate pairs each can generate.

A condition is data, never code: a frozen dataclass whose fields say which columns it reads and
which amounts it takes (``column_field``, ``amount_field``), registered under its ``kind`` so that
JSON rules and the Rules page find it.  Besides ``holds`` (a test on given pairs), a condition may
generate the pairs it can hold for without forming all n² of them, in chunks of about
``CHUNK_PAIRS``: a ``BallTree`` haversine radius query for geography (``Near``), sorted windows for
numeric closeness (``Within``, ``RelativeWithin``), grouping for categories (``SameCategory``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict, dataclass, field, fields
from typing import ClassVar

import numpy as np
from sklearn.neighbors import BallTree

EARTH_RADIUS_MILES = 3958.8
"""Mean Earth radius; haversine distances in radians times this are miles."""

CHUNK_PAIRS = 2_000_000
"""Candidate pairs handled at once: bounds generation memory to a few tens of MB."""

NEAR_SAMPLE_ROWS = 1000
"""Rows whose neighbours ``Near.candidate_count`` counts to estimate its pairs (all rows when fewer)."""


def column_field(kind: str = "numeric", suggest: tuple[str, ...] = ()):
    """A condition's column parameter: ``kind`` 'numeric' or 'any' (which columns may fill it), and
    column names to suggest first (the Rules page reads this)."""
    return field(metadata={"column": kind, "suggest": suggest})


WITHIN_SPREADS = 0.25
"""A "within" tolerance starts at this many spreads of its column (``forms.column_spread``): two values
of a normal column are within a quarter of its standard deviation of each other for 14 % of the pairs
of rows (2 Φ(0.25 / √2) - 1), so the condition keeps about the closest seventh of the pairs, as seed
000's rule does on age and income."""


def amount_field(
    minimum: float, maximum: float | None, default: float, label: str, *, below: bool = False, spread=None
):
    """A condition's numeric parameter, in [minimum, maximum] (None: unbounded above; with ``below``,
    strictly below maximum), with the default and label the Rules page shows.  ``spread``: for an
    amount in its column's units, the Rules page starts it at this many spreads of the column instead."""
    metadata = {"amount": (minimum, maximum, below), "default": default, "label": label, "spread": spread}
    return field(metadata=metadata)


@dataclass(frozen=True)
class Condition:
    """One "roughly equal" test between two rows.  Subclasses are frozen dataclasses whose fields
    are made by ``column_field`` and ``amount_field``; each subclass registers itself in
    ``CONDITIONS`` under its ``kind``, which is how JSON and the Rules page find it.

    ``values`` maps each column a rule uses to an array over the rows being paired: float64 for
    numeric columns, integer category codes otherwise, with no missing values (rows with a missing
    value in any of the rule's columns never pair: ``generate`` leaves them out first).
    """

    kind: ClassVar[str]
    label: ClassVar[str]

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        CONDITIONS[cls.kind] = cls

    def columns(self) -> list[str]:
        return [getattr(self, f.name) for f in fields(self) if "column" in f.metadata]

    def numeric_columns(self) -> list[str]:
        return [getattr(self, f.name) for f in fields(self) if f.metadata.get("column") == "numeric"]

    def check(self) -> None:
        """Raise ``ValueError`` for a parameter outside its ``amount_field`` range (or not finite)."""
        for f in fields(self):
            if "amount" not in f.metadata:
                continue
            value, (low, high, below) = getattr(self, f.name), f.metadata["amount"]
            if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
                raise ValueError(f"{type(self).__name__} {self.columns()}: {f.name} must be a number, got {value!r}")
            above_high = high is not None and (value >= high if below else value > high)
            if not np.isfinite(value) or value < low or above_high:
                bounds = f">= {low}" if high is None else f"in [{low}, {high}{')' if below else ']'}"
                raise ValueError(f"{type(self).__name__} {self.columns()}: {f.name} must be {bounds}, got {value!r}")

    def check_values(self, values: dict) -> None:
        """Raise ``ValueError`` where the table's values make no sense for this condition."""

    def holds(self, values: dict, i: np.ndarray, j: np.ndarray) -> np.ndarray:
        """Boolean mask: rows i and j (int arrays of equal length) are roughly equal."""
        raise NotImplementedError

    def candidates(self, values: dict, n: int) -> Iterator[tuple[np.ndarray, np.ndarray]] | None:
        """Chunks of pairs (i < j) among n rows that contain every pair this condition holds for,
        or None when it has no faster way than all pairs."""
        return None

    def candidate_count(self, values: dict, n: int) -> float:
        """About how many pairs ``candidates`` yields among n rows (an estimate will do): generation
        draws candidates from the condition with the fewest.  By default all n (n - 1) / 2."""
        return n * (n - 1) / 2

    def to_dict(self) -> dict:
        return {"kind": self.kind, **asdict(self)}

    def words(self) -> str:
        """The condition in words, as a rule's line says it: by default its amounts and columns, 'within ± 0.5
        (age)'; a kind says itself better by overriding this ('age within ± 0.5')."""
        amounts = [f"{f.metadata['label']} {getattr(self, f.name):,g}" for f in fields(self) if "amount" in f.metadata]
        return f"{' '.join(amounts) or self.label} ({', '.join(self.columns())})"


CONDITIONS: dict[str, type[Condition]] = {}
"""The registry of condition kinds (filled by ``Condition.__init_subclass__``)."""


@dataclass(frozen=True)
class Near(Condition):
    """Geographic distance between the rows' (latitude, longitude), in degrees, at most ``miles``."""

    latitude: str = column_field(suggest=("latitude", "lat"))
    longitude: str = column_field(suggest=("longitude", "lon", "lng"))
    miles: float = amount_field(0.0, None, 2.0, "miles")
    kind: ClassVar[str] = "near"
    label: ClassVar[str] = "near (miles)"

    def check(self) -> None:
        super().check()
        if self.latitude == self.longitude:
            raise ValueError(f"Near: latitude and longitude must be two different columns, got {self.latitude!r} twice")

    def words(self) -> str:
        return f"within {self.miles:,g} mile{'' if self.miles == 1 else 's'}"

    def check_values(self, values: dict) -> None:
        for column, limit in ((self.latitude, 90.0), (self.longitude, 180.0)):
            outside = np.abs(values[column]) > limit
            if outside.any():
                raise ValueError(
                    f"Near: column {column!r} must hold degrees within ±{limit:g}; "
                    f"{int(outside.sum())} row(s) do not (e.g. {float(values[column][outside][0])!r})"
                )

    def holds(self, values: dict, i: np.ndarray, j: np.ndarray) -> np.ndarray:
        lat, lon = np.radians(values[self.latitude]), np.radians(values[self.longitude])
        # Haversine: 2 asin √(sin²(Δφ/2) + cos φ_i cos φ_j sin²(Δλ/2)).
        h = np.sin((lat[i] - lat[j]) / 2) ** 2 + np.cos(lat[i]) * np.cos(lat[j]) * np.sin((lon[i] - lon[j]) / 2) ** 2
        return 2 * EARTH_RADIUS_MILES * np.arcsin(np.sqrt(np.clip(h, 0, 1))) <= self.miles * (1 + 1e-12)

    def _tree(self, values: dict) -> tuple[np.ndarray, BallTree]:
        """The rows as (latitude, longitude) in radians (n, 2) and their haversine ``BallTree``."""
        points = np.radians(np.column_stack([values[self.latitude], values[self.longitude]]))
        return points, BallTree(points, metric="haversine")

    def candidate_count(self, values: dict, n: int) -> float:
        """Pairs within ``miles``, from the neighbour counts of ``NEAR_SAMPLE_ROWS`` random rows."""
        points, tree = self._tree(values)
        sample = np.random.default_rng(0).permutation(n)[:NEAR_SAMPLE_ROWS]
        # Each sampled row counts itself among its neighbours; every pair is counted from both ends.
        neighbours = tree.query_radius(points[sample], r=self.miles / EARTH_RADIUS_MILES, count_only=True) - 1
        return float(neighbours.sum()) * n / max(sample.size, 1) / 2

    def candidates(self, values: dict, n: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        points, tree = self._tree(values)
        radius = self.miles / EARTH_RADIUS_MILES
        # Count first, so that each chunk of rows returns about CHUNK_PAIRS neighbours (a dense city
        # has thousands of rows within 25 miles of each other).
        counts = tree.query_radius(points, r=radius, count_only=True)
        for rows in _chunks(counts):
            neighbours = tree.query_radius(points[rows], r=radius)
            i = np.repeat(rows, counts[rows])
            j = np.concatenate(neighbours)
            keep = i < j
            yield i[keep], j[keep]


@dataclass(frozen=True)
class Within(Condition):
    """|a - b| <= tolerance on a numeric column."""

    column: str = column_field()
    tolerance: float = amount_field(0.0, None, 10.0, "within ±", spread=WITHIN_SPREADS)
    kind: ClassVar[str] = "within"
    label: ClassVar[str] = "within ± amount"

    def words(self) -> str:
        return f"{self.column} within ± {self.tolerance:,g}"

    def holds(self, values: dict, i: np.ndarray, j: np.ndarray) -> np.ndarray:
        x = values[self.column]
        return np.abs(x[i] - x[j]) <= self.tolerance

    def _window(self, values: dict) -> tuple[np.ndarray, np.ndarray]:
        """The sorting order (n,) and, in it, the end of each row's window of close values (n,)."""
        order, sorted_x = _sorted(values[self.column])
        return order, np.searchsorted(sorted_x, sorted_x + self.tolerance, side="right")

    def candidate_count(self, values: dict, n: int) -> float:
        return _window_count(*self._window(values))

    def candidates(self, values: dict, n: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        yield from _window_pairs(*self._window(values))


@dataclass(frozen=True)
class RelativeWithin(Condition):
    """|a - b| <= fraction · max(|a|, |b|) on a numeric column (0 <= fraction < 1)."""

    column: str = column_field()
    fraction: float = amount_field(0.0, 1.0, 0.1, "within (fraction)", below=True)
    kind: ClassVar[str] = "relative_within"
    label: ClassVar[str] = "within ± fraction"

    def words(self) -> str:
        return f"{self.column} within ± {100 * self.fraction:,g} % of the larger"

    def holds(self, values: dict, i: np.ndarray, j: np.ndarray) -> np.ndarray:
        x = values[self.column]
        return np.abs(x[i] - x[j]) <= self.fraction * np.maximum(np.abs(x[i]), np.abs(x[j]))

    def _window(self, values: dict) -> tuple[np.ndarray, np.ndarray]:
        """The sorting order (n,) and, in it, the end of each row's window of close values (n,);
        for a non-negative column only (b <= a / (1 - fraction) for a <= b)."""
        order, sorted_x = _sorted(values[self.column])
        return order, np.searchsorted(sorted_x, sorted_x / (1 - self.fraction), side="right")

    def candidate_count(self, values: dict, n: int) -> float:
        """As Within's; infinite for a column with negative values, which has no window."""
        return np.inf if np.any(values[self.column] < 0) else _window_count(*self._window(values))

    def candidates(self, values: dict, n: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        if np.any(values[self.column] < 0):
            raise ValueError(
                f"RelativeWithin {self.column!r} as a rule's only condition needs a non-negative column; "
                "add another condition (e.g. Within or Near) to generate candidates"
            )
        yield from _window_pairs(*self._window(values))


@dataclass(frozen=True)
class SameCategory(Condition):
    """The two rows have the same value in a column (any type)."""

    column: str = column_field("any")
    kind: ClassVar[str] = "same_category"
    label: ClassVar[str] = "same category"

    def words(self) -> str:
        return f"same {self.column}"

    def holds(self, values: dict, i: np.ndarray, j: np.ndarray) -> np.ndarray:
        codes = values[self.column]
        return codes[i] == codes[j]

    def candidate_count(self, values: dict, n: int) -> float:
        sizes = np.unique(values[self.column], return_counts=True)[1].astype(np.float64)  # codes or numbers
        return float(np.sum(sizes * (sizes - 1) / 2))

    def candidates(self, values: dict, n: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        codes = values[self.column]
        order = np.argsort(codes, kind="stable")
        for group in np.split(order, np.flatnonzero(np.diff(codes[order])) + 1):
            yield from _window_pairs(group, np.full(group.size, group.size))


# ---------------------------------------------------------------------------------------- candidates
def _sorted(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The order that sorts x (stable) and x sorted."""
    order = np.argsort(x, kind="stable")
    return order, x[order]


def _window_count(order: np.ndarray, ends: np.ndarray) -> float:
    """How many pairs ``_window_pairs(order, ends)`` yields."""
    return float(np.maximum(ends - np.arange(order.size) - 1, 0).sum())


def candidate_pairs(conditions, values: dict, n: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Chunks of candidate pairs (i < j) from the first of ``conditions`` (sorted by
    ``candidate_count``) that has a candidate generator; every pair when none has one."""
    for condition in conditions:
        chunks = condition.candidates(values, n)
        if chunks is not None:
            return chunks
    return _window_pairs(np.arange(n), np.full(n, n))


def _chunks(counts: np.ndarray) -> Iterator[np.ndarray]:
    """Consecutive row ranges whose counts sum to about CHUNK_PAIRS (at least one row each)."""
    start, cumulative = 0, np.cumsum(counts)
    while start < counts.size:
        base = cumulative[start - 1] if start else 0
        stop = max(start + 1, int(np.searchsorted(cumulative, base + CHUNK_PAIRS, side="right")))
        yield np.arange(start, min(stop, counts.size))
        start = stop


def _window_pairs(order: np.ndarray, ends: np.ndarray) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Pairs (order[a], order[b]) for a < b < ends[a], in chunks of about CHUNK_PAIRS."""
    counts = np.maximum(ends - np.arange(order.size) - 1, 0)
    for rows in _chunks(counts):
        sizes = counts[rows]
        a = np.repeat(rows, sizes)
        # b runs a + 1, a + 2, ... within each row's window.
        offsets = np.arange(sizes.sum()) - np.repeat(np.cumsum(sizes) - sizes, sizes)
        i, j = order[a], order[a + 1 + offsets]
        yield np.minimum(i, j), np.maximum(i, j)
