"""What the Rules page offers for a rule: each condition's form over a table (its columns and
amounts, read from the condition's fields; a tolerance starts from its column's spread), the
conditions a new rule starts from, seed 000's kind of rule (near on latitude/longitude, within a
quarter of a spread on age and income), the column it orders by and its name.  Nothing here imports
Streamlit: the page lays these out.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, fields

import numpy as np
import pandas as pd
from scipy.stats import rankdata

from ordercore.inputs.counts import whole_number
from ordercore.inputs.printable import quoted
from ordercore.knowledge.rules.conditions import CONDITIONS, WITHIN_SPREADS, Condition, Near, SameCategory, Within


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
    help: str | None = None
    per_spread: float | None = None
    decimals: int = 2
    step: float = 0.01


def rule_columns(frame: pd.DataFrame, kind: str, exclude=()) -> list[str]:
    """The table's columns a rule may use: 'numeric' (numbers, not booleans) or 'any', for 'same
    category': the columns of categories in words (``is_category``), fewest values first (a frame type of 4
    values before a note written in 12 stock phrases); never free text (nearly every value distinct: 'same
    description' holds for no pair) nor numbers, whose 'same' is 'within ± 0' (a first-time expert was offered
    both)."""
    columns = [str(c) for c in frame.columns if c not in exclude]
    if kind == "any":
        return sorted((c for c in columns if is_category(frame[c])), key=lambda c: frame[c].nunique())
    return [c for c in columns if pd.api.types.is_numeric_dtype(frame[c]) and not pd.api.types.is_bool_dtype(frame[c])]


def is_category(values: pd.Series) -> bool:
    """Whether a column holds categories in words: text (or booleans) repeated in few values, at least 2
    and at most half the rows distinct (a neighbourhood, not an id or a free-text note)."""
    distinct = values.nunique()
    numeric = pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values)
    return not numeric and 2 <= distinct <= max(2, values.notna().sum() // 2)


def offered_conditions(frame: pd.DataFrame, exclude=()) -> list[str]:
    """The condition kinds a rule over ``frame`` may use (``exclude``: columns not to offer): those with a
    column for each of their column inputs, where an input named for what it measures (``suggest``:
    Near's latitude and longitude) needs a column of one of those names, in any case (a table of cars
    has no place for "near (miles)")."""
    offered = []
    for kind, condition in CONDITIONS.items():
        inputs = [f.metadata for f in fields(condition) if "column" in f.metadata]
        options = [rule_columns(frame, meta["column"], exclude) for meta in inputs]
        if all(
            columns and (not meta["suggest"] or any(c.lower() in meta["suggest"] for c in columns))
            for meta, columns in zip(inputs, options, strict=True)
        ):
            offered.append(kind)
    return offered


def condition_form(
    kind: str, frame: pd.DataFrame, exclude=(), start: Condition | None = None, chosen: dict | None = None
) -> list[ConditionParameter]:
    """The inputs of condition ``kind`` over ``frame`` (``exclude``: columns not to offer, e.g. the
    target), with ``start``'s values as defaults when it is of that kind.  ``chosen``: the columns picked
    so far ({field name: column}); an amount measured in its column's units (``amount_field(spread=...)``,
    e.g. Within's tolerance) starts from that column's ``spread`` (``spread_amount``), unless ``start``
    is on the same columns."""
    parameters, chosen = [], dict(chosen or {})
    same_kind = start is not None and start.kind == kind
    for f in fields(CONDITIONS[kind]):
        current = getattr(start, f.name) if same_kind else None
        if "column" in f.metadata:
            options = rule_columns(frame, f.metadata["column"], exclude)
            suggested = [c for name in f.metadata["suggest"] for c in options if c.lower() == name]
            if current is not None and current in frame.columns and current not in options:
                options = [*options, current]  # a stored rule's column stays its own, offered or not
            default = current if current in options else (suggested or options or [None])[0]
            chosen.setdefault(f.name, default)
            parameters.append(ConditionParameter(f.name, f.name, default, options))
            continue
        low, high, below = f.metadata["amount"]
        default, help_text = f.metadata["default"], None
        per_spread = f.metadata.get("spread")
        columns = [chosen.get(c.name) for c in fields(CONDITIONS[kind]) if "column" in c.metadata]
        decimals, step = amount_steps(default)
        if per_spread is not None and columns and columns[0] in frame.columns:
            values = frame[columns[0]]
            default, help_text = spread_amount(values, per_spread), spread_help(values, columns[0], per_spread)
            decimals, step = amount_steps(per_spread * column_spread(values), whole_numbers(values))
        if current is not None and (not same_kind or columns == start.columns()):
            default = current
        parameters.append(
            ConditionParameter(
                f.name, f.metadata["label"], default, None, low, high, below, help_text, per_spread, decimals, step
            )
        )
    return parameters


def ordering_form(frame: pd.DataFrame, column: str) -> ConditionParameter:
    """The rule's "by at least" (its ordering's minimum difference) for ordering by ``column``: 0 to start
    with, typed in the steps of that column's tolerance (``amount_steps``: 1,000 km, 1 owner), so that a
    gap typed for another column never stays (a new user's 10,000 km became 10,000 years)."""
    values = frame[column]
    decimals, step = amount_steps(WITHIN_SPREADS * column_spread(values), whole_numbers(values))
    # no tooltip: its icon broke 'by at least' over two lines at 1024 px
    return ConditionParameter("min_difference", "by at least", 0.0, None, 0.0, None, False, None, None, decimals, step)


def amount_steps(scale: float, whole: bool = False) -> tuple[int, float]:
    """(decimals, step) for typing an amount of about ``scale``: two significant figures (21000, 1.7, 0.069),
    stepping by one unit of the second; for a column of whole numbers (``whole``), no decimals and a step of
    at least 1 (0.37 owners is the same as 0).  (2, 0.01), or (0, 1) for whole numbers, with no scale."""
    if not np.isfinite(scale) or scale <= 0:
        return (0, 1.0) if whole else (2, 0.01)
    magnitude = int(np.floor(np.log10(float(f"{scale:.2g}"))))
    if whole:
        return 0, max(1.0, 10.0 ** (magnitude - 1))
    return max(0, 1 - magnitude), 10.0 ** (magnitude - 1)


def whole_numbers(values) -> bool:
    """Whether every value of ``values`` (missing ones left out) is a whole number (floors, owners, km)."""
    numbers = pd.to_numeric(pd.Series(values), errors="coerce").dropna()
    return bool(len(numbers)) and bool((numbers == numbers.round()).all())


def spread_help(values, column: str, per_spread: float) -> str:
    """The tolerance's tooltip: its formula and value to two significant figures, and for whole numbers the
    whole number it is rounded to; for a stepped column, that it starts at its "same" and why."""
    if is_stepped(values):
        steps = np.unique(finite_values(values))
        shown = ", ".join(f"{v:,g}" for v in steps)
        return (
            f"Starts at 0, the same {column}: it holds only {steps.size} values ({shown}), and a tolerance of "
            f"{np.min(np.diff(steps)):,g} or more would make two neighbouring ones roughly equal"
        )
    formula = f"{per_spread * column_spread(values):,.2g}"
    rounded = (
        f", here {spread_amount(values, per_spread):,.0f} as {column} holds whole numbers"
        if whole_numbers(values)
        else ""
    )
    return (
        f"Starts at {per_spread:g} × the spread of {column} (its interquartile range / 1.349, the standard "
        f"deviation of a normal column, unmoved by outliers): {formula}{rounded}"
    )


def finite_values(values) -> np.ndarray:
    """``values`` as float64 (k,), missing and non-finite values left out."""
    x = np.asarray(values, dtype=np.float64)
    return x[np.isfinite(x)]


STEPPED_VALUES = 12
"""A numeric column of at most this many distinct values, each held on average by two rows or more, is
stepped (RAM sizes 4/8/16/32, storage 128 … 1024, bedrooms, a grade out of 10): its values are steps, not
points on a scale, and "roughly equal" on it is "the same" (a new user's 4 GB and 8 GB were roughly equal)."""


def is_stepped(values) -> bool:
    """Whether a numeric column is stepped: 2 to ``STEPPED_VALUES`` distinct values, at most half as many
    as its rows (ten values in twelve rows are a small sample of a scale, not its steps)."""
    x = finite_values(values)
    distinct = np.unique(x).size
    return 2 <= distinct <= min(STEPPED_VALUES, x.size // 2)


def column_spread(values) -> float:
    """A column's spread: its interquartile range / 1.349 (a normal column's standard deviation, unmoved
    by a few outliers), or its standard deviation where the quartiles are equal (a column of mostly one
    value); 0 for a constant or empty column.  Missing and non-finite values are left out."""
    x = finite_values(values)
    if x.size == 0:
        return 0.0
    low, high = np.quantile(x, [0.25, 0.75])
    return float((high - low) / 1.349) if high > low else float(np.std(x))


def spread_amount(values, per_spread: float = WITHIN_SPREADS) -> float:
    """``per_spread`` × ``column_spread(values)``, to two significant figures (0 for no spread); for a
    column of whole numbers (floors, rooms), the whole number nearest those (0: the same value; 18,282 km
    gives 18,000, the figure its tooltip shows); 0, its "same", for a stepped column (``is_stepped``), so
    that no default makes two of its neighbouring values roughly equal."""
    amount = per_spread * column_spread(values)
    if amount <= 0 or is_stepped(values):
        return 0.0
    amount = float(f"{amount:.2g}")
    return float(round(amount)) if whole_numbers(values) else amount


def condition_pairs(condition: Condition, frame: pd.DataFrame) -> tuple[float, int]:
    """(pairs, of): about how many pairs of ``frame``'s rows meet ``condition`` alone, among the pairs of
    rows with a value in each of its columns (exact for the window conditions, Within and SameCategory;
    Near's is estimated from a sample of rows on large tables; inf where it has no count)."""
    columns = condition.columns()
    complete = frame[columns].notna().all(axis=1).to_numpy()
    values = {}
    for column in set(columns):
        series = frame.loc[complete, column]
        if column in condition.numeric_columns():
            values[column] = series.to_numpy(dtype=np.float64)
        else:
            values[column] = pd.factorize(series)[0]
    n = int(complete.sum())
    return condition.candidate_count(values, n), n * (n - 1) // 2


ORDERING_NAMES = ("bedrooms", "rooms", "rm", "median_income")
"""Columns a new rule first orders by: a home's bedrooms or rooms (Boston's rm: rooms per dwelling), else a
block's median income (California), then any column named with 'bedroom' or 'room' but a block's total.
California's total_bedrooms and total_rooms count a block's homes and follow its population, not a home's
value: seed 000 orders by total_bedrooms, and its experiment keeps that rule (``experiments``), but the
Studio's default there was "more bedrooms" ordering blocks by their size (new-user pass on issue 33)."""

CLOSENESS_NAMES = ("latitude", "longitude", "lat", "lon", "lng")


def default_ordering(frame: pd.DataFrame, exclude=(), taken=(), labels=None) -> str | None:
    """The column a new rule orders by: one of ``ORDERING_NAMES``, else one named with 'bedroom' or
    'room', else among the numeric columns the suggested conditions do not pair rows on (never the
    location or the age and income columns of ``SUGGESTED_CLOSENESS``), never a block's total (``is_total``)
    the one ranking most strongly
    with ``labels`` (n,), NaN off the labeled rows: the largest |Spearman's ρ| (``rank_correlation``;
    in the table's order where it cannot be measured), else the first numeric one; among each of those,
    first a column no rule of the session orders by yet (``taken``), so that the form does not offer
    again a rule the session holds."""
    numeric = rule_columns(frame, "numeric", exclude)
    named = [c for c in ORDERING_NAMES if c in numeric]
    named += [c for part in ("bedroom", "room") for c in numeric if part in c.lower() and not is_total(c)]
    closeness = {*CLOSENESS_NAMES, *(c for names in SUGGESTED_CLOSENESS for c in names)}
    rest = [c for c in numeric if c.lower() not in closeness and not is_total(c)]
    if labels is not None:  # the strongest first; a column whose ρ is NaN after every measured one
        strength = {c: abs(rank_correlation(frame[c], labels)[0]) for c in rest}
        rest = sorted(rest, key=lambda c: -1.0 if np.isnan(strength[c]) else -strength[c])
    ranked = [*named, *rest, *numeric]
    return next((c for c in ranked if c not in taken), ranked[0] if ranked else None)


def is_total(column: str) -> bool:
    """Whether ``column`` is a block's total ('total_rooms', 'total bedrooms'): a count that grows with the
    block's size, no rule's measure of a home."""
    return column.lower().replace(" ", "_").startswith("total_")


def rank_correlation(values: pd.Series, labels: np.ndarray) -> tuple[float, int]:
    """(Spearman's ρ, rows) of ``values`` (n,) and ``labels`` (n,) over the rows with both (``labels``
    NaN elsewhere: the labeled rows only, never held-out targets); ρ is NaN with fewer than 3 such rows
    or a side that does not vary."""
    if len(values) != len(labels):
        raise ValueError(
            "rank_correlation: values and labels must have one length (a value per row); got values "
            f"{len(values)}, labels {len(labels)}"
        )
    x = pd.to_numeric(values, errors="coerce").to_numpy(dtype=np.float64)
    y = np.asarray(labels, dtype=np.float64)
    both = np.isfinite(x) & np.isfinite(y)
    rows = int(both.sum())
    if rows < 3 or np.ptp(x[both]) == 0 or np.ptp(y[both]) == 0:
        return float("nan"), rows
    return float(np.corrcoef(rankdata(x[both]), rankdata(y[both]))[0, 1]), rows


RHO_Z = 1.959964
"""Standard normal 97.5 % quantile: the 95 % interval of Spearman's ρ."""


def rank_correlation_interval(rho: float, rows: int) -> tuple[float, float]:
    """The 95 % interval of Spearman's ``rho`` over ``rows`` rows by Fisher's z with Fieller, Hartley and
    Pearson's (1957) variance 1.06 / (rows − 3): tanh(atanh ρ ± z √(1.06 / (rows − 3))); (−1, 1) with 3 rows
    or fewer (nothing to tell), (NaN, NaN) for a NaN ρ.  ρ = ±1 is taken as the next value ρ can take on
    ``rows`` rows (ranks without ties, two neighbours swapped: |ρ| = 1 − 12 / (rows³ − rows)), where atanh is
    finite: a perfect order of 4 or 5 rows, which chance gives 1 time in 12 or 60, had read "95 % interval
    −1.00 to −1.00".  On 4 rows the interval then spans 0 and on 5 it does not, as the exact permutation
    test says (two of 24 orders of 4 rows are perfect, p = 0.083; two of 120, p = 0.017).  ``ValueError``
    for a ρ outside [−1, 1] (no correlation can be; it was clipped to a confident interval) or a ``rows``
    that is no whole number >= 0."""
    if isinstance(rho, bool) or not isinstance(rho, numbers.Real):
        raise ValueError(f"rank_correlation_interval: rho must be a number from -1 to 1, got {quoted(rho)}")
    rows = whole_number(rows, "rank_correlation_interval: rows")  # a Python int: rows**3 cannot overflow
    if np.isnan(rho):
        return float("nan"), float("nan")
    if not -1 <= rho <= 1:
        raise ValueError(f"rank_correlation_interval: rho must be a number from -1 to 1, got {quoted(rho)}")
    if rows <= 3:
        return -1.0, 1.0
    nearest = 1.0 - 12.0 / (rows**3 - rows)  # the largest |ρ| below 1 on rows rows
    z, half = np.arctanh(np.clip(rho, -nearest, nearest)), RHO_Z * np.sqrt(1.06 / (rows - 3))
    return float(np.tanh(z - half)), float(np.tanh(z + half))


def default_direction(values: pd.Series, labels: np.ndarray) -> str:
    """The direction a new rule ordering by ``values`` (n,) starts in: 'lower' when, over the rows with a
    label (``labels`` (n,), NaN elsewhere: the labeled rows only, never held-out targets), the column and
    the labels surely rank in opposite orders (the 95 % interval of Spearman's ρ below 0,
    ``rank_correlation_interval``), else 'higher' (also when ρ is within the noise or cannot be measured)."""
    return "lower" if rank_correlation_interval(*rank_correlation(values, labels))[1] < 0 else "higher"


def rule_name(column: str, direction: str = "higher") -> str:
    """A rule's name from its ordering: 'more bedrooms', 'less age'."""
    return f"{'more' if direction == 'higher' else 'less'} {column}"


SUGGESTED_CLOSENESS = (("age", "housing_median_age"), ("income", "median_income"))
"""Columns the Rules page first offers as "roughly equal" (seed 000's rule: age and income)."""


def category_share(values: pd.Series, labels: np.ndarray) -> float:
    """How much of the labels' variance lies between the categories of ``values`` (n,), over the rows with
    a label (``labels`` (n,), NaN elsewhere) and a value: ε² (Kelley 1935), η² = SS_between / SS_total
    adjusted for the number of categories k among N rows, 1 − (SS_within / (N − k)) / (SS_total / (N − 1)),
    so that a column of one row per category does not explain everything by chance.  NaN with fewer than 2
    categories, no row left within them (N = k) or labels that do not vary."""
    y = np.asarray(labels, dtype=np.float64)
    known = np.isfinite(y) & values.notna().to_numpy()
    codes, y = pd.factorize(values[known])[0], y[known]
    k, rows = int(codes.max(initial=-1)) + 1, y.size
    total = float(np.sum((y - y.mean()) ** 2)) if rows else 0.0
    if k < 2 or rows <= k or total == 0:
        return float("nan")
    means = np.bincount(codes, weights=y) / np.bincount(codes)
    within = float(np.sum((y - means[codes]) ** 2))
    return 1.0 - (within / (rows - k)) / (total / (rows - 1))


def suggested_conditions(frame: pd.DataFrame, exclude=(), slots: int = 4, labels=None) -> list[Condition]:
    """The conditions a new rule starts from.  On a table of places (latitude and longitude): near on
    them, and within ``spread_amount`` on its age and income columns (seed 000's kind of rule).  Else
    "everything else about equal", in up to ``slots`` conditions: the same category in the column of text
    categories between which the ``labels`` (n,; NaN off the labeled rows) vary most (largest
    ``category_share``; without labels, or where none is measured, the one of fewest values: a first-time
    expert's bikes were held to the same condition, 3 values, where their type, 5 values, drives the price),
    then within ``spread_amount`` on its numeric columns, age and income first (a new user's laptops
    started from one condition, 'ssd within ± 47', true of 27 % of the pairs).  ``exclude``: columns not
    to pair rows on (the target, an identifier, the column the rule orders by)."""
    numeric = rule_columns(frame, "numeric", exclude)
    closeness = [next((c for c in names if c in numeric), None) for names in SUGGESTED_CLOSENESS]
    closeness = [c for c in closeness if c is not None]
    if {"latitude", "longitude"} <= set(numeric):
        return [Near("latitude", "longitude", 2.0), *(Within(c, spread_amount(frame[c])) for c in closeness)]
    texts = rule_columns(frame, "any", exclude)
    if labels is not None:  # the most telling first; a column whose share is NaN after every measured one
        share = {c: category_share(frame[c], labels) for c in texts}
        texts = sorted(texts, key=lambda c: np.inf if np.isnan(share[c]) else -share[c])
    ordered = closeness + [c for c in numeric if c not in closeness]
    suggested = [SameCategory(texts[0])] if texts else []
    suggested += [Within(c, spread_amount(frame[c])) for c in ordered]
    return suggested[:slots]
