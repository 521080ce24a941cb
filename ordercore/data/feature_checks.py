"""The checks a table's feature columns pass before ``tables.Preprocessing`` fits them, each refusal in
words naming the column (and the rows): infinite numbers, numbers marked as text ('$1,200', '12%'),
a numeric column with a stray text, empty texts, and text columns that cannot be categories (a
different value in every row, or more than ``MAX_CATEGORIES`` values)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ordercore.inputs.printable import quoted as _cell

MAX_CATEGORIES = 50
"""A text column with more distinct values than this is refused as a feature (likely an id)."""


def refuse_infinite(values: np.ndarray, columns) -> None:
    """``ValueError`` naming the first column and row (from 0 below the header) of an infinite value."""
    bad = np.argwhere(~np.isfinite(values))
    if bad.size:
        row, column = bad[0]
        raise ValueError(
            f"numeric feature column {columns[column]!r} holds an infinite value (a number beyond float64's range, "
            f"read as {values[row, column]}) at row {row} (counted from 0 below the header)"
            + (f" and {len(bad) - 1} more cell(s)" if len(bad) > 1 else "")
        )


NUMBER_MARKS = {
    "thousands separators (1,150 for 1150)": r"[+-]?\d{1,3}(,\d{3})+(\.\d*)?",
    "percent signs (12.5%)": r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*%",
    "decimal commas (54,5 for 54.5)": r"[+-]?\d+,\d+",
}
r"""Numbers written in a way ``read_csv`` leaves as text: what they hold -> a pattern of the whole cell.
Each reads a run of digits one way only (``\d+\.?\d*`` split a run in every way before failing: a
cell of a million digits took hours)."""


def _refuse_marked_numbers(column: pd.Series, stray: pd.Series) -> None:
    """``ValueError`` naming the cells when most of a column's text cells are numbers written with
    thousands separators, percent signs or decimal commas (an Excel export in another locale), which would
    otherwise make it a categorical feature."""
    text = stray.astype(str).str.strip()
    for what, pattern in NUMBER_MARKS.items():
        marked = text[text.str.fullmatch(pattern)]
        if len(marked) and 2 * len(marked) >= len(stray):
            shown = ", ".join(f"{index} ({_cell(value)})" for index, value in marked.head(3).items())
            more = f" and {len(marked) - 3} more" if len(marked) > 3 else ""
            raise ValueError(
                f"column {column.name!r} holds numbers written with {what} at row(s) {shown}{more} (counted from 0 "
                "below the header): write plain numbers, or leave the column out"
            )


def refuse_stray_text(column: pd.Series) -> None:
    """``ValueError`` naming the cells when a text column is mostly numbers: a few stray texts ('twelve'
    in an age column) would otherwise turn it silently into one indicator per distinct value."""
    present = column.dropna()
    numbers = pd.to_numeric(present, errors="coerce")
    stray = present[numbers.isna()]
    _refuse_marked_numbers(column, stray)
    if len(present) and 0 < len(stray) < len(present) / 2:
        shown = ", ".join(f"{index} ({_cell(value)})" for index, value in stray.head(5).items())
        more = f" and {len(stray) - 5} more" if len(stray) > 5 else ""
        raise ValueError(
            f"column {column.name!r} holds numbers except at row(s) {shown}{more} (counted from 0 below the "
            "header): correct those cells or leave the column out (or, in the library, name it in categorical to "
            "use its values as categories)"
        )


def empty_texts(column: pd.Series) -> bool:
    """Whether a text column holds an empty text ('' or only spaces)."""
    if pd.api.types.is_numeric_dtype(column):
        return False
    return bool(column.map(lambda value: isinstance(value, str) and not value.strip()).any())


DISTINCT_ROWS = 10
"""Rows from which a categorical column with a different value in every row is refused (``_levels``)."""


def category_levels(column: pd.Series, named: bool = False) -> tuple[str, ...]:
    """The sorted distinct values (as text) of a categorical column, at most ``MAX_CATEGORIES``; a text
    column not ``named`` categorical, of ``DISTINCT_ROWS`` rows or more with a different value in each, is
    refused (dates, codes: as indicators it tells the rows nothing, and a new row matches none; a
    tester's dates became 40 indicators without a word)."""
    levels = sorted(column.astype(str).unique())
    if not named and DISTINCT_ROWS <= len(column) and len(levels) == len(column) <= MAX_CATEGORIES:
        raise ValueError(
            f"column {column.name!r} has a different value in each of its {len(column)} rows (dates? codes?): as "
            "categories it tells the rows nothing; convert it to numbers, or leave it out"
        )
    if len(levels) > MAX_CATEGORIES:
        raise ValueError(
            f"column {column.name!r} has {len(levels)} distinct values; as a categorical feature it may have at "
            f"most {MAX_CATEGORIES} (is it an identifier?)"
        )
    return tuple(levels)
