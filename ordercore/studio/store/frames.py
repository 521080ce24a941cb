"""The tables data sets are made of: what the store takes (``check_frame``: what the table readers take, and
finite real numbers, text, True/False, dates or missing values in each cell) and what identifies a table
given without its CSV (``frame_bytes``)."""

from __future__ import annotations

import json
import numbers

import numpy as np
import pandas as pd

from ordercore.inputs.printable import quoted


def check_frame(frame, content) -> None:
    """``TypeError``/``ValueError`` in words for a table the Studio cannot use, as the table readers refuse it
    (``data.tables.read_csv``): no DataFrame, ``content`` that is no bytes, more than one row of column
    names, no rows or no columns, a column with no name (None, NaN, blank) or a name given twice (also as 1 and
    '1': stored as text); then ``_check_cells``."""
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"a data set's frame must be a pandas DataFrame, got {type(frame).__name__}")
    if content is not None and not isinstance(content, bytes):
        raise TypeError(
            f"a data set's content must be the upload's bytes (the CSV as read), got {type(content).__name__}"
        )
    if isinstance(frame.columns, pd.MultiIndex):
        raise ValueError(
            f"the frame's columns have {frame.columns.nlevels} levels of names (a MultiIndex); a data set has one row "
            "of names: join or drop the levels"
        )
    if frame.shape[0] == 0:
        raise ValueError("the frame has no rows; a data set needs at least one")
    if frame.shape[1] == 0:
        raise ValueError("the frame has no columns; a data set needs at least one")
    seen: dict[str, int] = {}
    for position, name in enumerate(frame.columns, 1):
        if name is None or (isinstance(name, float) and name != name) or not str(name).strip():
            raise ValueError(f"the frame's column {position} has no name ({quoted(name)}): name it, or remove it")
        name = str(name)
        if name in seen:
            raise ValueError(f"the frame names the column {quoted(name)} twice (columns {seen[name]} and {position})")
        seen[name] = position
    _check_cells(frame)


NOT_CELLS = (dict, list, tuple, set, frozenset, bytes, np.ndarray, pd.Series, pd.DataFrame)
"""Values no table reader gives a cell: a data set holds numbers, text, True/False, dates and missing values."""


def _check_cells(frame: pd.DataFrame) -> None:
    """``TypeError`` naming the first column holding a value that is no number or text (a dict, a list:
    pandas said "unhashable type: 'dict'"); ``ValueError`` naming the first holding complex numbers, and the
    first column and row of an infinite number (the models take neither; both were stored without a word)."""
    for position, column in enumerate(frame.columns):
        values = frame.iloc[:, position]
        kinds = {type(value) for value in values} if values.dtype == object else {values.dtype.type}
        for kind in kinds:
            if issubclass(kind, NOT_CELLS):
                raise TypeError(
                    f"column {quoted(column)} holds {kind.__name__} values; a data set holds numbers or text"
                )
            if issubclass(kind, complex | np.complexfloating):
                raise ValueError(
                    f"column {quoted(column)} holds complex numbers; a data set holds real numbers or text"
                )
        numeric = pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values)
        numbers_held = values.to_numpy(dtype=np.float64, na_value=np.nan) if numeric else values.map(_real_or_nan)
        infinite = np.flatnonzero(np.isinf(np.asarray(numbers_held, dtype=np.float64)))
        if infinite.size:
            raise ValueError(
                f"column {quoted(column)} holds an infinite value (or one beyond float64's range) at row {infinite[0]} "
                f"(counted from 0{f'; {infinite.size - 1} more' if infinite.size > 1 else ''}): a data set holds "
                "finite numbers"
            )


def _real_or_nan(value) -> float:
    """A cell of a column that is not all numbers, as a float when it is a number (not a bool), else NaN."""
    if not isinstance(value, numbers.Number | np.number) or isinstance(value, bool | np.bool_):
        return np.nan
    try:
        return float(value)
    except OverflowError:  # an int beyond float64, as the table readers read it
        return np.inf


def frame_bytes(frame: pd.DataFrame) -> bytes:
    """What identifies a table given without its CSV: its column names and types, then its index and
    values (``hash_pandas_object`` hashes values only: a table with renamed columns was taken for the
    first, and given its id, name and columns)."""
    header = json.dumps([[str(name), str(dtype)] for name, dtype in frame.dtypes.items()]).encode()
    return header + b"\n" + pd.util.hash_pandas_object(frame, index=True).to_numpy().tobytes()
