"""A preference table's cells, checked in words: a line naming no row, an empty margin or weight, a
margin or weight that is text (or true/false, which would read as 1 or 0).  The line is the file's
(CSV: the header is line 1), or the record's number in a JSON list."""

from __future__ import annotations

import numpy as np
import pandas as pd


def refuse_empty_cells(frame: pd.DataFrame, unit: str = "line") -> None:
    """``ValueError`` naming the line (CSV: the header is line 1) or record of a preference that names no
    row (i and j both empty), or of the first empty margin and weight cell, every such column named."""
    first = 2 if unit == "line" else 1
    blank = [frame[c].isna().to_numpy() | frame[c].astype(str).str.strip().eq("").to_numpy() for c in ("i", "j")]
    neither = np.flatnonzero(blank[0] & blank[1])
    if neither.size:
        raise ValueError(
            f"{unit} {neither[0] + first} names no row: its i and j are both empty (a unary preference leaves "
            f"one of them empty, for the constant 0); {neither.size} such {unit}(s)"
        )
    empty = [(c, np.flatnonzero(frame[c].isna().to_numpy())) for c in ("margin", "weight") if c in frame]
    said = [
        f"the {c} on {unit} {bad[0] + first}" + (f" ({bad.size} in all)" if bad.size > 1 else "")
        for c, bad in empty
        if bad.size
    ]
    if said:
        raise ValueError(
            f"empty cell(s): {'; '.join(said)}: give each a number (a file without the column takes margin 0, weight 1)"
        )


def refuse_text_numbers(frame: pd.DataFrame, unit: str) -> None:
    """``ValueError`` naming the line (CSV: the header is line 1) or record and the value of the first
    margin or weight cell that is not a number (text, or true/false, which would read as 1 or 0)."""
    first = 2 if unit == "line" else 1
    for column in ("margin", "weight"):
        if column not in frame:
            continue
        cells = frame[column]
        numeric = pd.to_numeric(cells.astype(object).where(~cells.map(_is_bool), "bool"), errors="coerce")
        bad = np.flatnonzero((cells.notna() & numeric.isna()).to_numpy())
        if bad.size:
            value = cells.iloc[bad[0]]
            shown = str(value).lower() if _is_bool(value) else value  # as a CSV or JSON file writes it
            raise ValueError(f"{unit} {bad[0] + first}: the {column} {shown!r} is not a number")


def _is_bool(value) -> bool:
    return isinstance(value, bool | np.bool_)
