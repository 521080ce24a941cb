"""The formats of the tables the command line writes (``predict``, ``rules apply``) and reads back (``fit
--preferences``, ``check``), by the ending of a file's name: one table for both directions, so that every
format written is one that is read (a .tsv that ``rules apply`` wrote was refused by ``fit`` as a CSV of one
column, corpus 11)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pandas as pd


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
    for a name without a dot."""
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
    """``frame``'s rows as JSON records, a missing value None (null)."""
    return frame.astype(object).where(frame.notna(), None).to_dict(orient="records")
