"""Which table a session's exported rows come from (issue 32, Z015): an export of answers, grades or
preferences carries, beside each row it names, that row's *fingerprint*, a digest of its values in every
column of the session's table; an import checks each against the importing session's row of the same id
(or position) and refuses a file whose rows hold other values there, naming them.  Answers exported from
one table imported into a session on another whose ids overlap became answers about other homes without
a word.  The same table, its rows in any order (the round trip, a copy of a session), has the same
fingerprints; a file written before fingerprints were exported is imported unchecked, as before.
"""

from __future__ import annotations

import hashlib
import re

import numpy as np
import pandas as pd

from ordercore.inputs.printable import quoted

FINGERPRINTS = {"row_a": "a_fingerprint", "row_b": "b_fingerprint", "row": "fingerprint"}
FINGERPRINTS |= {"i": "i_fingerprint", "j": "j_fingerprint"}
"""Per column of row positions (answers' row_a and row_b, grades' row, preferences' i and j), the export's
column of those rows' fingerprints, which an import checks against its own."""

HERE, REMEDY = "this session's table", "import them into a session on that table. Nothing was imported"
"""The table a refusal of the Studio's import names, and what it says to do."""

SHOWN_ROWS = 3
"""The rows a refusal names (it counts them all)."""

EMPTY = 0x9E3779B97F4A7C15
"""The word of an empty cell."""


def row_fingerprints(frame: pd.DataFrame) -> np.ndarray:
    """Each row's fingerprint (n,), 16 hexadecimal digits: a 64-bit digest of its columns' names and values,
    taken in the order of the names (a table's column order does not matter); a number by its float64 value
    (3 and 3.0 are one), a text by a digest of its UTF-8 bytes, an empty cell as empty."""
    digest = np.full(len(frame), _word("ordercore rows 1"), dtype=np.uint64)
    for column in sorted(frame.columns, key=str):
        digest = _mix(digest ^ np.uint64(_word(str(column))))
        digest = _mix(digest ^ _words(frame[column]))
    return np.array([f"{value:016x}" for value in digest.tolist()], dtype=object)


def _word(text: str) -> int:
    """A 64-bit digest of ``text``."""
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).digest(), "little")


def _words(column: pd.Series) -> np.ndarray:
    """One 64-bit word (n,) per cell of ``column``: a number's float64 bits (-0 as 0), a digest of other
    values' text (each distinct value hashed once), ``EMPTY`` for an empty cell."""
    if pd.api.types.is_numeric_dtype(column.dtype) and not pd.api.types.is_bool_dtype(column.dtype):
        values = column.to_numpy(dtype=np.float64, na_value=np.nan) + 0.0  # -0.0 + 0.0 is 0.0
        words = values.view(np.uint64).copy()
        words[np.isnan(values)] = EMPTY
        return words
    codes, distinct = pd.factorize(column)
    table = np.array([_word(str(value)) for value in distinct] + [EMPTY], dtype=np.uint64)
    return table[codes]  # code -1 (an empty cell): the last


def _mix(words: np.ndarray) -> np.ndarray:
    """SplitMix64's finaliser of each word: every bit of the result depends on every bit of the word."""
    with np.errstate(over="ignore"):
        words = (words ^ (words >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        words = (words ^ (words >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return words ^ (words >> np.uint64(31))


DIGITS = re.compile(r"[0-9a-f]{16}")
"""A fingerprint as exports write it (``row_fingerprints``): 16 lower-case hexadecimal digits."""


def split_fingerprints(table: pd.DataFrame, unit: str = "line") -> tuple[pd.DataFrame, pd.DataFrame | None]:
    """(``table`` without its fingerprint columns, those columns renamed to the row columns they go with,
    as text, or None when it has none: a file written before they were exported).  ``ValueError`` naming
    the column and the {unit}s (CSV: the header is line 1; JSON: records from 1) of a damaged fingerprint,
    one that is neither empty nor 16 lower-case hexadecimal digits."""
    found = {name: column for column, name in FINGERPRINTS.items() if name in table.columns}
    if not found:
        return table, None
    given = table[list(found)]
    given = given.astype(object).where(given.notna(), "").map(lambda value: str(value).strip())
    for name in found:
        refuse_damaged(given[name], unit)
    return table.drop(columns=list(found)), given.rename(columns=found)


def refuse_damaged(column: pd.Series, unit: str) -> None:
    """``ValueError`` when a fingerprint column (its cells as text, stripped) holds a cell that is neither
    empty nor ``DIGITS``, naming the column, the first {unit}s and their values."""
    bad = np.flatnonzero([text != "" and DIGITS.fullmatch(text) is None for text in column])
    if not bad.size:
        return
    first = 2 if unit == "line" else 1
    shown = ", ".join(f"{unit} {k + first} ({quoted(column.iloc[k])})" for k in bad[:SHOWN_ROWS])
    shown += f" and {bad.size - SHOWN_ROWS:,} more" if bad.size > SHOWN_ROWS else ""
    raise ValueError(
        f"the file's {column.name} column is damaged: {shown} {'holds' if bad.size == 1 else 'hold'} no fingerprint "
        "(16 lower-case hexadecimal digits, as the Studio exports them): export the file again"
    )


def refuse_another_table(
    kind: str, table: pd.DataFrame, given: pd.DataFrame | None, own, name, here=HERE, remedy=REMEDY
) -> None:
    """``ValueError`` when rows a file names (``table``'s row columns, as positions in the table ``here``)
    hold other values there (``own``, its rows' fingerprints (n,); ``name(row)`` names a row) than in the
    table the file was exported from (``given``, ``split_fingerprints``'s), naming them, and what to do."""
    if given is None:
        return
    given = given[[column for column in given.columns if column in table.columns]]
    rows = table[list(given.columns)].apply(pd.to_numeric, errors="coerce").to_numpy(dtype=np.float64).ravel()
    written = given.to_numpy(dtype=object).ravel()  # line by line
    inside = (written != "") & (rows >= 0) & (rows < len(own))
    rows, written = rows[inside].astype(np.int64), written[inside]
    differ = pd.unique(rows[own[rows] != written])
    if not len(differ):
        return
    shown = ", ".join(name(row) for row in differ[:SHOWN_ROWS])
    shown += f" and {len(differ) - SHOWN_ROWS:,} more" if len(differ) > SHOWN_ROWS else ""
    hold = "holds" if len(differ) == 1 else "hold"
    raise ValueError(
        f"these {kind} were made on another table: {len(differ):,} of the rows they name ({shown}) {hold} other "
        f"values in {here} than in the one they were exported from (their fingerprints differ); {remedy}"
    )
