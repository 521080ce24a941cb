"""CSV files read back with every float exactly as written, on each pandas the project supports, their
header first checked for width (``table_width.MAX_COLUMNS``), and a row of more fields than the header
refused in words (``parser_words``), the first row too: pandas made its extra leading fields the row
index and shifted every column (an answers import's choice 'a' was read as a row's id).

pandas 2's default C parser ("high" precision) reads about a third of 17-digit floats one unit in the
last place off, so a stored label or preference margin came back changed; ``float_precision=
"round_trip"`` reads them exactly.  pandas 3 reads them exactly by default and deprecates the argument
(a ``Pandas4Warning``), so it is passed only before pandas 3."""

from __future__ import annotations

import re

import pandas as pd

from ordercore.inputs.printable import quoted
from ordercore.inputs.table_width import refuse_wide_header

EXACT = {"float_precision": "round_trip"} if int(pd.__version__.split(".")[0]) < 3 else {}
"""The keyword ``pd.read_csv`` needs to read floats exactly on the installed pandas."""


def read_csv(source, **options) -> pd.DataFrame:
    """``pd.read_csv(source, **options)`` with floats read exactly (``EXACT``); ``ValueError`` first for a
    header of more than ``table_width.MAX_COLUMNS`` columns, ``pd.errors.ParserError`` (a ``ValueError``)
    in ``parser_words`` for a row of more fields than the header."""
    refuse_wide_header(source, options.get("sep", ","))
    refuse_extra_fields(source, options.get("sep", ","))
    try:
        return pd.read_csv(source, **options, **EXACT)
    except pd.errors.ParserError as error:
        raise pd.errors.ParserError(parser_words(error)) from None


def refuse_extra_fields(source, sep: str) -> None:
    """``pd.errors.ParserError`` in words when the first row under the header has more fields than it
    (pandas reads no error there: it takes the extra leading fields as the row index); ``source``, a path or
    a file object, is read from where it is and put back there."""
    start = source.tell() if hasattr(source, "tell") else None
    try:
        pd.read_csv(source, sep=sep, header=None, nrows=2, dtype=str, keep_default_na=False)
    except pd.errors.ParserError as error:
        raise pd.errors.ParserError(parser_words(error)) from None
    except (pd.errors.EmptyDataError, UnicodeDecodeError, ValueError):
        pass  # the reading proper says what is wrong
    finally:
        if start is not None:
            source.seek(start)


def parser_words(error: Exception) -> str:
    """pandas' parser error in words: 'Expected 5 fields in line 6, saw 6' as which line has how many
    fields against the header's (a stray delimiter or an unquoted one in a value)."""
    found = re.search(r"Expected (\d+) fields in line (\d+), saw (\d+)", str(error))
    if found is None:
        return " ".join(str(error).split())
    expected, line, saw = found.groups()
    return (
        f"line {line} has {saw} fields where the header has {expected} (a stray delimiter, or a value holding "
        "one without quotes)"
    )


def repeated_column(source, **options) -> str | None:
    """Words for the first name a CSV's header repeats, or None: pandas reads a second 'j' as 'j.1' and
    uses the first, silently.  ``source``: a path or a file object (read from where it is, and put back
    there); ``options``: the separator and encoding the file is read with.  ``ValueError`` for a header
    wider than ``table_width.MAX_COLUMNS``."""
    refuse_wide_header(source, options.get("sep", ","))
    start = source.tell() if hasattr(source, "tell") else None
    try:
        header = pd.read_csv(source, header=None, nrows=1, dtype=str, keep_default_na=False, **options)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError):
        return None  # the reading proper says what is wrong
    finally:
        if start is not None:
            source.seek(start)
    seen = {}
    for position, name in enumerate(header.iloc[0] if len(header) else [], 1):
        if name in seen:
            return f"the header names the column {quoted(name)} twice (columns {seen[name]} and {position})"
        seen[name] = position
    return None
