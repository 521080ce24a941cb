""" "Roughly equal" rules: one rule creates many order preferences at once (seed 000, the California
bedroom rule: "within 25 miles, median age within 10 years, median income within $1000, the block
with more bedrooms is worth more").

A rule is data, never code: conditions that make two rows roughly equal, an ordering that says
which of the two has the higher target, a margin d and a weight w.  It round-trips through JSON.

Generation never forms all n² pairs: candidates come from the most selective condition (a
``BallTree`` haversine radius query for geography, grouping for categories, sorted windows for
numeric closeness), in chunks, and the other conditions filter them.  Beyond ``max_pairs`` the
pairs are a uniform sample, kept as the smallest of independent random keys, so memory stays
bounded by the cap plus one chunk.

Scope (seed 000): training pairs join two unlabeled rows or a labeled and an unlabeled row, never
two labeled rows (those are redundant or wrong); the labeled-labeled pairs estimate a rule's
accuracy instead.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field

import numpy as np
import pandas as pd
from sklearn.neighbors import BallTree

from ordercore.preferences import PreferenceSet

EARTH_RADIUS_MILES = 3958.8
"""Mean Earth radius; haversine distances in radians times this are miles."""

CHUNK_PAIRS = 2_000_000
"""Candidate pairs handled at once: bounds generation memory to a few tens of MB."""

DEFAULT_MAX_PAIRS = 20_000
"""Preferences one rule yields at most unless told otherwise (uniform sample beyond)."""

SCOPES = ("training", "labeled", "all")
RULE_FORMAT, RULE_VERSION = "ordercore.rule", 1


# ---------------------------------------------------------------------------------------- conditions
@dataclass(frozen=True)
class Near:
    """Geographic distance between the rows' (latitude, longitude), in degrees, at most ``miles``."""

    latitude: str
    longitude: str
    miles: float
    kind: str = field(default="near", init=False)

    def columns(self) -> list[str]:
        return [self.latitude, self.longitude]

    def check(self) -> None:
        if not np.isfinite(self.miles) or self.miles < 0:
            raise ValueError(f"Near: the radius must be a finite number of miles >= 0, got {self.miles!r}")

    def holds(self, frame_values: dict, i: np.ndarray, j: np.ndarray) -> np.ndarray:
        lat, lon = np.radians(frame_values[self.latitude]), np.radians(frame_values[self.longitude])
        # Haversine: 2 asin √(sin²(Δφ/2) + cos φ_i cos φ_j sin²(Δλ/2)).
        h = np.sin((lat[i] - lat[j]) / 2) ** 2 + np.cos(lat[i]) * np.cos(lat[j]) * np.sin((lon[i] - lon[j]) / 2) ** 2
        return 2 * EARTH_RADIUS_MILES * np.arcsin(np.sqrt(np.clip(h, 0, 1))) <= self.miles * (1 + 1e-12)


@dataclass(frozen=True)
class Within:
    """|a - b| <= tolerance on a numeric column."""

    column: str
    tolerance: float
    kind: str = field(default="within", init=False)

    def columns(self) -> list[str]:
        return [self.column]

    def check(self) -> None:
        if not np.isfinite(self.tolerance) or self.tolerance < 0:
            raise ValueError(f"Within {self.column!r}: the tolerance must be finite and >= 0, got {self.tolerance!r}")

    def holds(self, frame_values: dict, i: np.ndarray, j: np.ndarray) -> np.ndarray:
        x = frame_values[self.column]
        return np.abs(x[i] - x[j]) <= self.tolerance


@dataclass(frozen=True)
class RelativeWithin:
    """|a - b| <= fraction · max(|a|, |b|) on a numeric column (0 <= fraction < 1)."""

    column: str
    fraction: float
    kind: str = field(default="relative_within", init=False)

    def columns(self) -> list[str]:
        return [self.column]

    def check(self) -> None:
        if not np.isfinite(self.fraction) or not 0 <= self.fraction < 1:
            raise ValueError(f"RelativeWithin {self.column!r}: the fraction must be in [0, 1), got {self.fraction!r}")

    def holds(self, frame_values: dict, i: np.ndarray, j: np.ndarray) -> np.ndarray:
        x = frame_values[self.column]
        return np.abs(x[i] - x[j]) <= self.fraction * np.maximum(np.abs(x[i]), np.abs(x[j]))


@dataclass(frozen=True)
class SameCategory:
    """The two rows have the same value in a column (any type)."""

    column: str
    kind: str = field(default="same_category", init=False)

    def columns(self) -> list[str]:
        return [self.column]

    def check(self) -> None:
        pass

    def holds(self, frame_values: dict, i: np.ndarray, j: np.ndarray) -> np.ndarray:
        codes = frame_values[self.column]
        return codes[i] == codes[j]


CONDITIONS = {cls.__dataclass_fields__["kind"].default: cls for cls in (Near, Within, RelativeWithin, SameCategory)}
NUMERIC = (Near, Within, RelativeWithin)


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
        if not self.conditions:
            raise ValueError(f"rule {self.name!r} needs at least one 'roughly equal' condition")
        for condition in self.conditions:
            if not isinstance(condition, tuple(CONDITIONS.values())):
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
        numeric = [c for cond in self.conditions if isinstance(cond, NUMERIC) for c in cond.columns()]
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
            "conditions": [asdict(condition) for condition in self.conditions],
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
        except json.JSONDecodeError as error:
            raise ValueError(f"rule JSON does not parse: {error}") from None
        return cls.from_dict(data)


# ---------------------------------------------------------------------------------------- generation
@dataclass(frozen=True)
class RulePreferences:
    """What a rule produced: ``preferences`` (winner over loser, the rule's margin and weight) and
    ``n_matched``, the pairs that met the rule in scope before the ``max_pairs`` cap."""

    preferences: PreferenceSet
    n_matched: int


def _block_order(condition) -> int:
    """Which condition generates candidates: geography, then categories, then numeric windows."""
    return {Near: 0, SameCategory: 1, Within: 2, RelativeWithin: 3}[type(condition)]


def _candidates(condition, values: dict, n: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Chunks of candidate pairs (i < j) that satisfy ``condition``, each a pair of int arrays."""
    if isinstance(condition, Near):
        points = np.radians(np.column_stack([values[condition.latitude], values[condition.longitude]]))
        tree = BallTree(points, metric="haversine")
        radius = condition.miles / EARTH_RADIUS_MILES
        # Count first, so that each chunk of rows returns about CHUNK_PAIRS neighbours (a dense city
        # has thousands of rows within 25 miles of each other).
        counts = tree.query_radius(points, r=radius, count_only=True)
        for rows in _chunks(counts):
            neighbours = tree.query_radius(points[rows], r=radius)
            i = np.repeat(rows, counts[rows])
            j = np.concatenate(neighbours)
            keep = i < j
            yield i[keep], j[keep]
        return
    if isinstance(condition, SameCategory):
        codes = values[condition.column]
        order = np.argsort(codes, kind="stable")
        boundaries = np.flatnonzero(np.diff(codes[order])) + 1
        groups = np.split(order, boundaries)
        for group in groups:
            yield from _window_pairs(group, np.full(group.size, group.size))
        return
    # Numeric closeness: sort, and pair each row with the rows after it up to the window's end.
    x = values[condition.column]
    order = np.argsort(x, kind="stable")
    sorted_x = x[order]
    if isinstance(condition, Within):
        ends = np.searchsorted(sorted_x, sorted_x + condition.tolerance, side="right")
    else:
        if np.any(sorted_x < 0):
            raise ValueError(
                f"RelativeWithin {condition.column!r} as a rule's only condition needs a non-negative column; "
                "add another condition (e.g. Within or Near) to generate candidates"
            )
        ends = np.searchsorted(sorted_x, sorted_x / (1 - condition.fraction), side="right")
    yield from _window_pairs(order, ends)


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


def generate(
    rule: Rule,
    frame: pd.DataFrame,
    labeled=None,
    *,
    scope: str = "training",
    max_pairs: int | None = DEFAULT_MAX_PAIRS,
    random_state=None,
) -> RulePreferences:
    """The preferences ``rule`` creates over the rows of ``frame`` (indices are row positions).

    labeled : boolean mask (n,) of rows with a label (default: none).  scope : 'training' (pairs
    with at least one unlabeled row, seed 000), 'labeled' (both labeled: for estimating accuracy)
    or 'all'.  max_pairs : cap, with a uniform sample beyond it (None: no cap).
    """
    if scope not in SCOPES:
        raise ValueError(f"scope must be one of {SCOPES}, got {scope!r}")
    if max_pairs is not None and (not isinstance(max_pairs, int | np.integer) or max_pairs < 0):
        raise ValueError(f"max_pairs must be a non-negative integer or None, got {max_pairs!r}")
    rule.check_columns(frame)
    n = len(frame)
    labeled = np.zeros(n, dtype=bool) if labeled is None else np.asarray(labeled, dtype=bool)
    if labeled.shape != (n,):
        raise ValueError(f"labeled must be a boolean mask of shape ({n},), got {labeled.shape}")
    values = {}
    for column in set(rule.columns()):
        series = frame[column]
        if pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series):
            values[column] = series.to_numpy(dtype=np.float64)
        else:
            values[column] = pd.factorize(series)[0]
    rng = np.random.default_rng(random_state)
    conditions = sorted(rule.conditions, key=_block_order)
    ordering = values[rule.ordering.column]
    kept_i, kept_j, kept_keys = np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
    n_matched = 0
    for i, j in _candidates(conditions[0], values, n):
        keep = np.ones(i.size, dtype=bool)
        for condition in conditions[1:]:
            keep &= condition.holds(values, i, j)
        i, j = i[keep], j[keep]
        # Missing values never make two rows equal, nor order them.
        finite = np.isfinite(ordering[i]) & np.isfinite(ordering[j])
        for column in {c for cond in conditions if isinstance(cond, NUMERIC) for c in cond.columns()}:
            finite &= np.isfinite(values[column][i]) & np.isfinite(values[column][j])
        difference = ordering[i] - ordering[j]
        keep = finite & (np.abs(difference) > 0) & (np.abs(difference) >= rule.ordering.min_difference)
        both = labeled[i] & labeled[j]
        keep &= {"training": ~both, "labeled": both, "all": np.ones_like(both)}[scope]
        i, j, difference = i[keep], j[keep], difference[keep]
        n_matched += i.size
        higher_wins = (difference > 0) == (rule.ordering.direction == "higher")
        winner, loser = np.where(higher_wins, i, j), np.where(higher_wins, j, i)
        keys = rng.random(winner.size)
        kept_i, kept_j, kept_keys = (
            np.concatenate([kept_i, winner]),
            np.concatenate([kept_j, loser]),
            np.concatenate([kept_keys, keys]),
        )
        if max_pairs is not None and kept_keys.size > max_pairs:
            # A uniform sample without replacement: the max_pairs smallest of independent uniform keys.
            best = np.argpartition(kept_keys, max_pairs)[:max_pairs] if max_pairs else np.zeros(0, np.int64)
            kept_i, kept_j, kept_keys = kept_i[best], kept_j[best], kept_keys[best]
    order = np.lexsort((kept_j, kept_i))
    preferences = PreferenceSet.order(kept_i[order], kept_j[order], margin=rule.margin, weight=rule.weight)
    return RulePreferences(preferences, n_matched)
