""" "Roughly equal" rules: one rule creates many order preferences at once (seed 000, the California
bedroom rule: "within 25 miles, median age within 10 years, median income within $1000, the block
with more bedrooms is worth more").

A rule is data, never code: conditions that make two rows roughly equal, an ordering that says
which of the two has the higher target, a margin d and a weight w.  It round-trips through JSON.

Generation never forms all n² pairs: candidates come from the most selective condition, the one
whose generator yields the fewest pairs (a ``BallTree`` haversine radius query for geography,
grouping for categories, sorted windows for numeric closeness), in chunks, and the other conditions
filter them.  Every matching pair is kept by default; with ``max_pairs`` the pairs beyond it are a
uniform sample, kept as the smallest of independent random keys, so memory stays bounded by the
cap plus one chunk.

Scope (seed 000): training pairs join two unlabeled rows or a labeled and an unlabeled row, never
two labeled rows (those are redundant or wrong); the labeled-labeled pairs estimate a rule's
accuracy instead.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field, fields
from typing import ClassVar

import numpy as np
import pandas as pd
from sklearn.neighbors import BallTree

from ordercore.preferences import PreferenceSet

EARTH_RADIUS_MILES = 3958.8
"""Mean Earth radius; haversine distances in radians times this are miles."""

CHUNK_PAIRS = 2_000_000
"""Candidate pairs handled at once: bounds generation memory to a few tens of MB."""

NEAR_SAMPLE_ROWS = 1000
"""Rows whose neighbours ``Near.candidate_count`` counts to estimate its pairs (all rows when fewer)."""

SCOPES = ("training", "labeled", "all")
RULE_FORMAT, RULE_VERSION = "ordercore.rule", 1
NAME_MAX_LENGTH = 200
"""Longest rule name (the store's limit for every name)."""


# ---------------------------------------------------------------------------------------- conditions
def column_field(kind: str = "numeric", suggest: tuple[str, ...] = ()):
    """A condition's column parameter: ``kind`` 'numeric' or 'any' (which columns may fill it), and
    column names to suggest first (the Rules page reads this)."""
    return field(metadata={"column": kind, "suggest": suggest})


def amount_field(minimum: float, maximum: float | None, default: float, label: str, *, below: bool = False):
    """A condition's numeric parameter, in [minimum, maximum] (None: unbounded above; with ``below``,
    strictly below maximum), with the default and label the Rules page shows."""
    return field(metadata={"amount": (minimum, maximum, below), "default": default, "label": label})


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


CONDITIONS: dict[str, type[Condition]] = {}
"""The registry of condition kinds (filled by ``Condition.__init_subclass__``)."""


@dataclass(frozen=True)
class Near(Condition):
    """Geographic distance between the rows' (latitude, longitude), in degrees, at most ``miles``."""

    latitude: str = column_field(suggest=("latitude", "lat"))
    longitude: str = column_field(suggest=("longitude", "lon", "lng"))
    miles: float = amount_field(0.0, None, 2.0, "miles")
    kind: ClassVar[str] = "near"
    label: ClassVar[str] = "within a distance (miles)"

    def check_values(self, values: dict) -> None:
        for column, limit in ((self.latitude, 90.0), (self.longitude, 180.0)):
            outside = np.abs(values[column]) > limit
            if outside.any():
                raise ValueError(
                    f"Near: column {column!r} must hold degrees within ±{limit:g}; "
                    f"{int(outside.sum())} row(s) do not (e.g. {values[column][outside][0]!r})"
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
    tolerance: float = amount_field(0.0, None, 10.0, "within")
    kind: ClassVar[str] = "within"
    label: ClassVar[str] = "within an absolute difference"

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
    label: ClassVar[str] = "within a relative difference"

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
    label: ClassVar[str] = "in the same category"

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


@dataclass(frozen=True)
class Ordering:
    """Of two roughly equal rows, the one with the higher (``direction='higher'``) or lower value of
    ``column`` has the higher target; pairs whose values differ by less than ``min_difference``
    (or not at all) give no preference."""

    column: str
    direction: str = "higher"
    min_difference: float = 0.0

    def check(self) -> None:
        if self.direction not in ("higher", "lower"):
            raise ValueError(f"Ordering direction must be 'higher' or 'lower', got {self.direction!r}")
        if not np.isfinite(self.min_difference) or self.min_difference < 0:
            raise ValueError(f"Ordering min_difference must be finite and >= 0, got {self.min_difference!r}")


@dataclass(frozen=True)
class Rule:
    """Roughly-equal conditions, an ordering, and the margin d and weight w of every preference."""

    name: str
    conditions: tuple
    ordering: Ordering
    margin: float = 0.0
    weight: float = 1.0

    def __post_init__(self):
        object.__setattr__(self, "conditions", tuple(self.conditions))
        if not isinstance(self.name, str) or not self.name.strip():
            raise ValueError("a rule needs a name")
        if len(self.name) > NAME_MAX_LENGTH or not self.name.isprintable():
            raise ValueError(
                f"a rule name has at most {NAME_MAX_LENGTH} characters and no control characters (tabs, line "
                f"breaks, NUL); this one has {len(self.name)}"
            )
        if not self.conditions:
            raise ValueError(f"rule {self.name!r} needs at least one 'roughly equal' condition")
        for condition in self.conditions:
            if not isinstance(condition, Condition):
                raise TypeError(f"rule {self.name!r}: {condition!r} is not a condition")
            condition.check()
        if not isinstance(self.ordering, Ordering):
            raise TypeError(f"rule {self.name!r}: the ordering must be an Ordering")
        self.ordering.check()
        if not np.isfinite(self.margin):
            raise ValueError(f"rule {self.name!r}: the margin must be finite")
        if not np.isfinite(self.weight) or self.weight < 0:
            raise ValueError(f"rule {self.name!r}: the weight must be finite and >= 0")

    def columns(self) -> list[str]:
        return [c for condition in self.conditions for c in condition.columns()] + [self.ordering.column]

    def check_columns(self, frame: pd.DataFrame) -> None:
        """Raise ``ValueError`` for a column the table lacks, or a non-numeric column a numeric
        condition or the ordering needs."""
        missing = [c for c in self.columns() if c not in frame.columns]
        if missing:
            raise ValueError(f"rule {self.name!r}: unknown column(s) {missing}; the table has {list(frame.columns)}")
        numeric = [c for condition in self.conditions for c in condition.numeric_columns()]
        for column in numeric + [self.ordering.column]:
            if not pd.api.types.is_numeric_dtype(frame[column]) or pd.api.types.is_bool_dtype(frame[column]):
                raise ValueError(
                    f"rule {self.name!r}: column {column!r} must be numeric, it holds {frame[column].dtype}"
                )

    # ------------------------------------------------------------------ JSON
    def to_dict(self) -> dict:
        return {
            "format": RULE_FORMAT,
            "version": RULE_VERSION,
            "name": self.name,
            "conditions": [condition.to_dict() for condition in self.conditions],
            "ordering": asdict(self.ordering),
            "margin": self.margin,
            "weight": self.weight,
        }

    @classmethod
    def from_dict(cls, data: dict) -> Rule:
        """A rule from ``to_dict``'s output; raises ``ValueError`` on anything else."""
        if not isinstance(data, dict) or data.get("format") != RULE_FORMAT:
            raise ValueError(f"not an ordercore rule (expected format {RULE_FORMAT!r})")
        if data.get("version") != RULE_VERSION:
            raise ValueError(f"unsupported rule version {data.get('version')!r}; this is version {RULE_VERSION}")
        try:
            conditions = []
            for spec in data["conditions"]:
                spec = dict(spec)
                kind = spec.pop("kind", None)
                if kind not in CONDITIONS:
                    raise ValueError(f"unknown condition kind {kind!r}; known: {sorted(CONDITIONS)}")
                conditions.append(CONDITIONS[kind](**spec))
            return cls(
                name=data["name"],
                conditions=conditions,
                ordering=Ordering(**data["ordering"]),
                margin=float(data.get("margin", 0.0)),
                weight=float(data.get("weight", 1.0)),
            )
        except (KeyError, TypeError) as error:
            raise ValueError(f"malformed rule: {error}") from None

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)

    @classmethod
    def from_json(cls, text: str) -> Rule:
        try:
            data = json.loads(text)
        except (json.JSONDecodeError, RecursionError) as error:
            raise ValueError(f"rule JSON does not parse: {error}") from None
        return cls.from_dict(data)


# ---------------------------------------------------------------------------------------- forms
@dataclass(frozen=True)
class ConditionParameter:
    """One input of a condition's form: a column (``options`` lists the table's eligible columns)
    or a number (``options`` is None; ``minimum``, ``maximum`` bound it, ``maximum`` exclusive when
    ``below``)."""

    name: str
    label: str
    default: object
    options: list[str] | None = None
    minimum: float | None = None
    maximum: float | None = None
    below: bool = False


def rule_columns(frame: pd.DataFrame, kind: str, exclude=()) -> list[str]:
    """The table's columns a rule may use: 'numeric' (numbers, not booleans) or 'any'."""
    columns = [str(c) for c in frame.columns if c not in exclude]
    if kind == "any":
        return columns
    return [c for c in columns if pd.api.types.is_numeric_dtype(frame[c]) and not pd.api.types.is_bool_dtype(frame[c])]


def condition_form(
    kind: str, frame: pd.DataFrame, exclude=(), start: Condition | None = None
) -> list[ConditionParameter]:
    """The inputs of condition ``kind`` over ``frame`` (``exclude``: columns not to offer, e.g. the
    target), with ``start``'s values as defaults when it is of that kind."""
    parameters = []
    for f in fields(CONDITIONS[kind]):
        current = getattr(start, f.name) if start is not None and start.kind == kind else None
        if "column" in f.metadata:
            options = rule_columns(frame, f.metadata["column"], exclude)
            suggested = [c for c in f.metadata["suggest"] if c in options]
            default = current if current in options else (suggested or options or [None])[0]
            parameters.append(ConditionParameter(f.name, f.name, default, options))
        else:
            low, high, below = f.metadata["amount"]
            default = f.metadata["default"] if current is None else current
            parameters.append(ConditionParameter(f.name, f.metadata["label"], default, None, low, high, below))
    return parameters


SUGGESTED_CLOSENESS = (("age", "housing_median_age"), ("income", "median_income"))
"""Columns the Rules page first offers as "roughly equal" (seed 000's rule: age and income)."""


def suggested_conditions(frame: pd.DataFrame, exclude=()) -> list[Condition]:
    """The conditions a new rule starts from: near on latitude/longitude when the table has them, and
    within a quarter of a standard deviation on its age and income columns (seed 000's kind of rule)."""
    numeric = rule_columns(frame, "numeric", exclude)
    suggested: list[Condition] = []
    if {"latitude", "longitude"} <= set(numeric):
        suggested.append(Near("latitude", "longitude", 2.0))
    for names in SUGGESTED_CLOSENESS:
        column = next((c for c in names if c in numeric), None)
        if column is not None:
            quarter = 0.25 * float(np.nanstd(frame[column].to_numpy(dtype=np.float64)))
            suggested.append(Within(column, float(f"{quarter:.1g}") if quarter > 0 else 0.0))
    return suggested


# ---------------------------------------------------------------------------------------- generation
@dataclass(frozen=True)
class RulePreferences:
    """What a rule produced: ``preferences`` (winner over loser, the rule's margin and weight) and
    ``n_matched``, the pairs that met the rule in scope (before the ``max_pairs`` cap, if any)."""

    preferences: PreferenceSet
    n_matched: int


def _sorted(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The order that sorts x (stable) and x sorted."""
    order = np.argsort(x, kind="stable")
    return order, x[order]


def _window_count(order: np.ndarray, ends: np.ndarray) -> float:
    """How many pairs ``_window_pairs(order, ends)`` yields."""
    return float(np.maximum(ends - np.arange(order.size) - 1, 0).sum())


def _candidate_pairs(conditions, values: dict, n: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
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


def complete_values(rule: Rule, frame: pd.DataFrame) -> tuple[np.ndarray, dict]:
    """(rows, values): the rows of ``frame`` with a value in every column ``rule`` uses (missing and
    non-finite values never pair, nor order), and each such column over those rows as float64
    (numeric) or integer category codes (anything else).  Checks each condition's values."""
    rule.check_columns(frame)
    values, complete = {}, np.ones(len(frame), dtype=bool)
    for column in set(rule.columns()):
        series = frame[column]
        if pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series):
            values[column] = series.to_numpy(dtype=np.float64)
            complete &= np.isfinite(values[column])
        else:
            values[column] = pd.factorize(series)[0]
            complete &= values[column] >= 0  # factorize codes a missing value -1
    rows = np.flatnonzero(complete)
    values = {column: array[rows] for column, array in values.items()}
    for condition in rule.conditions:
        condition.check_values(values)
    return rows, values


def _matching_pairs(rule: Rule, conditions, values: dict, labeled, scope: str, i, j) -> tuple[np.ndarray, np.ndarray]:
    """(winner, loser): the candidate pairs (i, j) (int arrays of equal length) that lie in ``scope``,
    differ enough in the ordering column and meet every one of ``conditions`` (the rule's, tested in
    this order on the pairs still left), the preferred row first."""
    both = labeled[i] & labeled[j]
    i, j = (x[{"training": ~both, "labeled": both, "all": np.ones_like(both)}[scope]] for x in (i, j))
    difference = values[rule.ordering.column][i] - values[rule.ordering.column][j]
    keep = (np.abs(difference) > 0) & (np.abs(difference) >= rule.ordering.min_difference)
    i, j, difference = i[keep], j[keep], difference[keep]
    for condition in conditions:
        keep = condition.holds(values, i, j)
        i, j, difference = i[keep], j[keep], difference[keep]
    higher_wins = (difference > 0) == (rule.ordering.direction == "higher")
    return np.where(higher_wins, i, j), np.where(higher_wins, j, i)


def _sample(pieces: list, max_pairs: int) -> list:
    """``pieces`` [(winner, loser, keys), ...] cut to the ``max_pairs`` pairs of smallest keys (a uniform
    sample without replacement when the keys are independent uniform draws), as one piece."""
    winner, loser, keys = (np.concatenate(arrays) for arrays in zip(*pieces, strict=True))
    best = np.argpartition(keys, max_pairs)[:max_pairs] if max_pairs else np.zeros(0, np.int64)
    return [(winner[best], loser[best], keys[best])]


def generate(
    rule: Rule,
    frame: pd.DataFrame,
    labeled=None,
    *,
    scope: str = "training",
    max_pairs: int | None = None,
    random_state=None,
) -> RulePreferences:
    """The preferences ``rule`` creates over the rows of ``frame`` (indices are row positions), sorted
    by (i, j).

    labeled : boolean mask (n,) of rows with a label (default: none).  scope : 'training' (pairs
    with at least one unlabeled row, seed 000), 'labeled' (both labeled: for estimating accuracy)
    or 'all'.  max_pairs : None (default) keeps every matching pair; a number caps them, with a
    uniform sample (drawn with ``random_state``) beyond it.  Rows with a missing value in any
    column the rule uses take part in no pair.
    """
    if scope not in SCOPES:
        raise ValueError(f"scope must be one of {SCOPES}, got {scope!r}")
    if max_pairs is not None and (not isinstance(max_pairs, int | np.integer) or max_pairs < 0):
        raise ValueError(f"max_pairs must be a non-negative integer or None, got {max_pairs!r}")
    n = len(frame)
    labeled = np.zeros(n, dtype=bool) if labeled is None else np.asarray(labeled, dtype=bool)
    if labeled.shape != (n,):
        raise ValueError(f"labeled must be a boolean mask of shape ({n},), got {labeled.shape}")
    rows, values = complete_values(rule, frame)
    labeled = labeled[rows]
    rng = np.random.default_rng(random_state)
    # The most selective condition generates candidates, and filters first.
    conditions = sorted(rule.conditions, key=lambda condition: condition.candidate_count(values, rows.size))
    pieces, n_kept, n_matched = [], 0, 0
    for i, j in _candidate_pairs(conditions, values, rows.size):
        winner, loser = _matching_pairs(rule, conditions, values, labeled, scope, i, j)
        n_matched, n_kept = n_matched + winner.size, n_kept + winner.size
        pieces.append((rows[winner], rows[loser], None if max_pairs is None else rng.random(winner.size)))
        if max_pairs is not None and n_kept > max_pairs:
            pieces, n_kept = _sample(pieces, max_pairs), max_pairs
    winner, loser = (np.concatenate([p[k] for p in pieces] or [np.zeros(0, np.int64)]) for k in (0, 1))
    order = np.lexsort((loser, winner))
    preferences = PreferenceSet.order(winner[order], loser[order], margin=rule.margin, weight=rule.weight)
    return RulePreferences(preferences, n_matched)
