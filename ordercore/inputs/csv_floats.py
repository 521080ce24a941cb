"""CSV files read back with every float exactly as written, on each pandas the project supports, their
header first checked for width (``table_width.MAX_COLUMNS``).

pandas 2's default C parser ("high" precision) reads about a third of 17-digit floats one unit in the
last place off, so a stored label or preference margin came back changed; ``float_precision=
"round_trip"`` reads them exactly.  pandas 3 reads them exactly by default and deprecates the argument
(a ``Pandas4Warning``), so it is passed only before pandas 3."""

from __future__ import annotations

import pandas as pd

from ordercore.inputs.printable import quoted
from ordercore.inputs.table_width import refuse_wide_header

EXACT = {"float_precision": "round_trip"} if int(pd.__version__.split(".")[0]) < 3 else {}
"""The keyword ``pd.read_csv`` needs to read floats exactly on the installed pandas."""


def read_csv(source, **options) -> pd.DataFrame:
    """``pd.read_csv(source, **options)`` with floats read exactly (``EXACT``); ``ValueError`` first for a
    header of more than ``table_width.MAX_COLUMNS`` columns."""
    refuse_wide_header(source, options.get("sep", ","))
    return pd.read_csv(source, **options, **EXACT)


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
