"""The formats of the tables the command line writes (``predict``, ``rules apply``) and reads back (``fit
--preferences``, ``check``), by the ending of a file's name: one table for both directions, so that every
format written is one that is read (a .tsv that ``rules apply`` wrote was refused by ``fit`` as a CSV of one
column, corpus 11)."""

from __future__ import annotations

import datetime
import json
import math
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ordercore.inputs.printable import quoted


@dataclass(frozen=True)
class TableFormat:
    """A table's file format: ``what`` it is in words, the ``unit`` a refusal counts in it (a 'line' of text
    or a JSON 'record'), the ``separator`` of delimited text (None: JSON) and, for JSON, whether it is a
    record a line (JSON Lines) or one list of records."""

    what: str
    unit: str
    separator: str | None = None
    lines: bool = False

    def write(self, frame: pd.DataFrame, path: Path) -> None:
        """``frame`` to ``path`` in this format; floats to 17 digits (read back exactly), missing as empty/null."""
        if self.separator is not None:
            frame.to_csv(path, index=False, float_format="%.17g", sep=self.separator)
        elif self.lines:
            path.write_text("".join(json.dumps(record, allow_nan=False) + "\n" for record in _records(frame)))
        else:
            path.write_text(json.dumps(_records(frame), allow_nan=False))


TABLE_FORMATS = {
    ".csv": TableFormat("CSV", "line", ","),
    ".tsv": TableFormat("tab-separated", "line", "\t"),
    ".json": TableFormat("a JSON list of records", "record"),
    ".jsonl": TableFormat("JSON Lines, a record a line", "line", lines=True),
}
"""The formats, by the ending of a file's name (lower case); a name without one is CSV."""


def ending(path) -> str:
    """The ending of ``path``'s name that says its format, lower case: from its last dot on ('.jsonl' for a
    file named just .jsonl, which ``Path.suffix`` reads as none; '.' for 'x.json.', a trailing dot), or ''
    for a name without a dot.  ``TypeError`` for a ``path`` that is no path (None: pathlib's words were
    'expected str, bytes or os.PathLike object')."""
    if not isinstance(path, str | os.PathLike):
        raise TypeError(f"a table's file name is a path (str or pathlib.Path), got {type(path).__name__}")
    name = Path(path).name
    return "." + name.rpartition(".")[2].lower() if "." in name else ""


def table_format(path) -> TableFormat:
    """The format the ending of ``path``'s name names (none: CSV); ``ValueError`` naming the formats there
    are for any other ending."""
    found = ending(path)
    if not found:
        return TABLE_FORMATS[".csv"]
    if found not in TABLE_FORMATS:
        offered = ", ".join(f"{name} ({format_.what})" for name, format_ in TABLE_FORMATS.items())
        if found == ".":
            raise ValueError(f"the name ends in a dot, which names no format: a table is written as {offered}")
        raise ValueError(f"a table is written as {offered}, not {found}: name a file ending in one")
    return TABLE_FORMATS[found]


def _records(frame: pd.DataFrame) -> list[dict]:
    """``frame``'s rows as JSON records, a missing value None (null), a date or time as ISO 8601 text;
    ``ValueError`` naming the row and column of an infinite number (JSON holds none) or of a value of
    another kind (the encoder said 'Object of type ... is not JSON serializable', naming neither)."""
    records = frame.astype(object).where(frame.notna(), None).to_dict(orient="records")
    for row, record in enumerate(records, 1):
        for column, value in record.items():
            record[column] = _json_value(value, row, column)
    return records


def _json_value(value, row: int, column):
    """``value`` as JSON holds it (a numpy scalar as Python's, a date or time as ISO 8601 text)."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, datetime.date | datetime.time):
        return value.isoformat()
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(
            f"row {row}'s {quoted(column)} is {value}: JSON holds no infinity; write the table as .csv or .tsv"
        )
    if value is not None and not isinstance(value, str | int | float | bool):
        raise ValueError(
            f"row {row}'s {quoted(column)} holds a {type(value).__name__}, which JSON does not hold; write the "
            "table as .csv or .tsv"
        )
    return value
