"""Ids in a preference or answer file read as the table's ids (issue 32, corpus 9 S43, S49, C05): the
command line and the Studio read them alike."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ordercore.inputs.printable import quoted

WHOLE_FLOAT = r"(-?\d+)\.0+"
"""A whole number written as a float, '115.0': what a spreadsheet's re-save makes of the id 115."""


def as_held_ids(ids, held) -> pd.Series:
    """``ids`` (k,) as text naming the ``held`` ids (the table's, as text): stripped of surrounding
    spaces, and '115.0' read as '115' where the table holds 115 and not 115.0; others as they are."""
    text = pd.Series(ids, dtype=object).astype(str).str.strip()
    held = pd.Index(held)
    whole = text.str.fullmatch(WHOLE_FLOAT) & ~text.isin(held)
    integer = text.str.extract(f"^{WHOLE_FLOAT}$", expand=False)
    return text.where(~(whole & integer.isin(held)), integer)


def other_positions(written: pd.Series, rows: np.ndarray, ids: pd.Series, id_column: str, unit: str) -> str:
    """Words naming the first {unit} (a CSV's header is line 1) whose 0-based position ``written`` (a file's
    i, j, row_a, row_b or row; empty or -1 for a unary preference's 0) is not ``rows`` (k,), the position of
    its id in ``ids`` (k,), column ``id_column`` (-1: an empty id, the constant 0), and how many differ; ""
    when none does.  The ids name the rows (an export names its own table's positions, which differ in a
    table holding the same rows in another order), so a reader says that it dropped positions that differ."""
    blank = written.isna().to_numpy() | written.astype(str).str.strip().eq("").to_numpy()
    numbers = pd.to_numeric(written.where(~blank), errors="coerce").to_numpy(dtype=float)
    differ = np.flatnonzero(np.where(blank, rows >= 0, numbers != rows))
    if not differ.size:
        return ""
    k = differ[0]
    at = "no row (the constant 0)" if rows[k] < 0 else f"row {rows[k]} of this table"
    named = f"an empty {id_column}" if rows[k] < 0 else f"{id_column} {quoted(str(ids.iloc[k]))}"
    return (
        f"the column {written.name} differs from the row of {id_column} on {differ.size} {unit}(s), e.g. "
        f"{unit} {k + (2 if unit == 'line' else 1)}: {written.name} {quoted(str(written.iloc[k]))} but {named}, "
        f"which is {at} (positions count from 0); the ids were used (a file from a table in another order?)"
    )
