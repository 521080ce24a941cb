"""How many columns a table people hand the library may have, checked on its header line before the body is
parsed: pandas reads a header at about 0.1 ms a column and the library's checks take more, so a header of
10^6 columns (an 8 MB file, under the Studio's 50 MB upload limit) gave no answer for a quarter of an hour
(corpus 13, R4).  Every table reader (``csv_floats``, ``data.tables``, the preference and session files,
JSON records too) refuses a wider one here, in words, at once."""

from __future__ import annotations

import csv
import io
from pathlib import Path

MAX_COLUMNS = 1_000
"""The most columns a table is read with: far more than any file the Studio writes (a dozen) or the seeds'
data sets hold (61, triazines), and few enough that a table is read in seconds."""


def header_line(source) -> str:
    """The whole first line of ``source`` (a path, a seekable file object of text or bytes, read back to
    where it was, or bytes), as text (a byte not UTF-8 read as U+FFFD)."""
    if isinstance(source, bytes):
        source = io.BytesIO(source)
    if hasattr(source, "read"):
        start = source.tell()
        first = source.readline()
        source.seek(start)
    else:
        with open(Path(source), "rb") as file:
            first = file.readline()
    return first.decode("utf-8", errors="replace") if isinstance(first, bytes) else first


def refuse_wide_header(source, sep: str = ",") -> None:
    """``ValueError`` naming the count and ``MAX_COLUMNS`` when the header line of ``source`` (as
    ``header_line`` takes it) has more columns than that, cells separated by ``sep``; quotes are honoured."""
    line = header_line(source)
    if line.count(sep) < MAX_COLUMNS:  # at most count + 1 columns: within the limit without parsing
        return
    count = line.count(sep) + 1
    if '"' in line:  # a quoted name may hold the separator
        count = len(next(csv.reader([line.rstrip("\r\n")], delimiter=sep), []))
    _refuse(count, "the header line names")


def refuse_wide_records(records: list[dict]) -> None:
    """``ValueError`` naming the count and ``MAX_COLUMNS`` when JSON ``records`` (each a dict) name more
    distinct keys (a table's columns) than that."""
    keys = set()
    for record in records:
        keys.update(record)
        if len(keys) > MAX_COLUMNS:
            break
    if len(keys) > MAX_COLUMNS:
        count = len(set().union(*records))
        _refuse(count, "the records name")


def _refuse(count: int, where: str) -> None:
    if count > MAX_COLUMNS:
        raise ValueError(
            f"{where} {count:,} columns; a table is read with at most {MAX_COLUMNS:,} columns "
            "(is this the file meant?): keep the columns needed and remove the rest"
        )
