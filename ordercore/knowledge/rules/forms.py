"""What the Rules page offers for a rule: each condition's form over a table (its columns and
amounts, read from the condition's fields) and the conditions a new rule starts from, seed 000's
kind of rule (near on latitude/longitude, within a quarter of a standard deviation on age and
income).  Nothing here imports Streamlit: the page lays these out.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np
import pandas as pd

from ordercore.knowledge.rules.conditions import CONDITIONS, Condition, Near, Within


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
