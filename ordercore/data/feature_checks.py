"""The checks a table's feature columns pass before ``tables.Preprocessing`` fits them, each refusal in
words naming the column (and the rows): infinite numbers, numbers marked as text ('$1,200', '12%'),
a numeric column with a stray text, empty texts, and text columns that cannot be categories (a
different value in every row, or more than ``MAX_CATEGORIES`` values); and the one a table passes
before a fitted preprocessing applies to it (``refuse_other_kind``): each column holds the kind of
values it held when the model was fitted (numbers, True/False or text)."""

from __future__ import annotations

import warnings

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
            f"numeric feature column {_cell(columns[column])} holds an infinite value (a number beyond float64's "
            f"range, read as {values[row, column]}) at row {row} (counted from 0 below the header)"
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
                f"column {_cell(column.name)} holds numbers written with {what} at row(s) {shown}{more} (counted "
                "from 0 below the header): write plain numbers, or leave the column out"
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
            f"column {_cell(column.name)} holds numbers except at row(s) {shown}{more} (counted from 0 below the "
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
            f"column {_cell(column.name)} has a different value in each of its {len(column)} rows (dates? codes?): as "
            "categories it tells the rows nothing; convert it to numbers, or leave it out"
        )
    if len(levels) > MAX_CATEGORIES:
        raise ValueError(
            f"column {_cell(column.name)} has {len(levels)} distinct values; as a categorical feature it may have at "
            f"most {MAX_CATEGORIES} (is it an identifier?)"
        )
    return tuple(levels)


KINDS = ("number", "boolean", "text")
"""What a feature column holds (``column_kind``), as a model file records it for each column."""


def column_kind(column: pd.Series) -> str:
    """'boolean' for True/False, 'number' for other numbers, 'text' for anything else (categories)."""
    if pd.api.types.is_bool_dtype(column.dtype):
        return "boolean"
    if column.dtype == object and column.notna().any() and pd.api.types.infer_dtype(column, skipna=True) == "boolean":
        return "boolean"
    return "number" if pd.api.types.is_numeric_dtype(column.dtype) else "text"


def _short(value: float) -> str:
    return f"{value:.6g}"


def fitted_words(kind: str | None, value_range=None, levels=(), mean: float | None = None) -> str:
    """What a column held when the model was fitted, in words: 'numbers (1 … 5)', 'True/False',
    "text ('north', 'south')"; ``kind`` None (a file written before kinds were recorded) says the mean."""
    if levels:
        shown = ", ".join(level if kind == "number" else _cell(level) for level in levels[:4])
        shown += ", …" if len(levels) > 4 else ""
        return f"{'numbers' if kind == 'number' else 'True/False' if kind == 'boolean' else 'text'} ({shown})"
    if kind == "boolean":
        return "True/False"
    if value_range is not None:
        return f"numbers ({_short(value_range[0])} … {_short(value_range[1])})"
    return "numbers" if mean is None else f"numbers (their mean {_short(mean)})"


def _now_words(column: pd.Series, kind: str, cells: np.ndarray) -> str:
    """What ``column`` holds, in words, quoting its first cell of ``cells`` (a mask) and its row."""
    if kind == "boolean" and not cells.any():
        return "True/False"
    row = int(np.flatnonzero(cells)[0]) if cells.any() else 0
    value = column.iloc[row]
    value = value.item() if isinstance(value, np.generic) else value
    what = "True/False" if kind == "boolean" else "numbers" if kind == "number" else "text"
    return f"{what} (e.g. {value if kind != 'text' else _cell(value)} at row {row}, counted from 0 below the header)"


def as_levels(column: pd.Series, levels) -> np.ndarray:
    """``column``'s values as the text of the ``levels`` they are (n,): a number as the level of the same
    number when every level is one (1.0 is the level '1'), else its text."""
    text = column.astype(str).to_numpy()
    numbers = pd.to_numeric(pd.Series(list(levels), dtype=object), errors="coerce")
    if column_kind(column) != "number" or numbers.isna().any():
        return text
    level_of = dict(zip(numbers.astype(float), levels, strict=True))
    matched = column.astype(float).map(level_of).to_numpy(dtype=object)
    return np.where(pd.isna(matched), text, matched)


def refuse_other_kind(column: pd.Series, kind: str | None, value_range=None, levels=None, mean=None) -> None:
    """``ValueError`` naming ``column`` when it holds another kind of values than the one a model was fitted
    on: ``kind`` (``KINDS``; None: not recorded, a file written before), ``value_range`` (low, high) of a
    numeric column, ``levels`` (text) of a categorical one, ``mean`` of a numeric one (for files without a
    kind).  A numeric column fitted on numbers takes True/False only if its numbers lay in 0 … 1, and one
    fitted on True/False takes numbers only if they are 0 and 1: both read as 1 and 0 (a column of ratings
    1 … 5 given True/False was read as 1/0 and predicted without a word).  A categorical column of another
    kind is refused only where a value matches none of its levels (read as text, '3' is the level '3')."""
    now = column_kind(column)
    if levels is not None:
        if kind is None:  # a file written before kinds: its levels say 'text' when any is no number
            kind = "text" if pd.to_numeric(pd.Series(levels, dtype=object), errors="coerce").isna().any() else now
        unseen = ~np.isin(as_levels(column, levels), list(levels))
        if now == kind or not unseen.any():
            return
        held, shown = fitted_words(kind, levels=list(levels)), _now_words(column, now, unseen)
        raise ValueError(
            f"feature column {_cell(column.name)} held {held} when the model was fitted; this table holds {shown}, "
            "not one of them: give it the values the model was fitted on, or fit a model on this table"
        )
    if now == "text":
        bad = pd.to_numeric(column, errors="coerce").isna().to_numpy()
        example = f" (e.g. {_cell(column.iloc[int(np.flatnonzero(bad)[0])])})" if bad.any() else ""
        held = f": it held {fitted_words(kind, value_range, mean=mean)} when the model was fitted" if kind else ""
        raise ValueError(f"feature column {_cell(column.name)} is not numeric{example}{held}")
    if now == "boolean" and kind != "boolean":
        numbers = (
            (value_range is not None and value_range[0] >= 0 and value_range[1] <= 1)
            if kind == "number"
            else mean is None or 0 <= mean <= 1  # a file without kinds: a True/False column's mean lies in 0 … 1
        )
        if numbers:
            return
        cells = np.zeros(len(column), dtype=bool)
    elif now == "number" and kind == "boolean":
        cells = ~column.isin([0, 1]).to_numpy()
        if not cells.any():
            return
    else:
        return
    raise ValueError(
        f"feature column {_cell(column.name)} held {fitted_words(kind, value_range, mean=mean)} when the model was "
        f"fitted; this table holds {_now_words(column, now, cells)}: give it the kind of values the model was "
        "fitted on, or fit a model on this table"
    )


SHOWN_LEVELS = 5
"""The values and levels a message about unseen levels quotes."""


def check_levels(column: pd.Series, levels) -> None:
    """For a categorical ``column`` fitted on ``levels``: ``ValueError`` when none of its values is one of
    them (every row's indicators would be zero: 'X' for 'x', ' x' for 'x'), naming the column, values found
    and the levels; a ``UserWarning`` naming the values that are not when some rows hold one (those rows'
    indicators are all zero, as documented)."""
    given = as_levels(column, levels)
    unseen = ~np.isin(given, list(levels))
    if not unseen.any():
        return
    found = pd.unique(given[unseen])
    values = ", ".join(map(_cell, found[:SHOWN_LEVELS])) + (", …" if len(found) > SHOWN_LEVELS else "")
    fitted = ", ".join(map(_cell, list(levels)[:SHOWN_LEVELS])) + (", …" if len(levels) > SHOWN_LEVELS else "")
    if unseen.all():
        raise ValueError(
            f"feature column {_cell(column.name)} holds none of the levels the model was fitted on ({fitted}): it "
            f"holds {values} (case and spaces count): give it the values the model was fitted on, or fit a model on "
            "this table"
        )
    warnings.warn(
        f"feature column {_cell(column.name)} holds values the model was not fitted on at {int(unseen.sum())} of its "
        f"{len(column)} rows ({values}; fitted: {fitted}): those rows get all-zero {column.name} indicators",
        UserWarning,
        stacklevel=3,
    )
