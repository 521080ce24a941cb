"""What the database takes: every value is checked against its limits (text lengths, integer ranges,
value sizes, NUL characters) before anything is written, and refused in words (``ValueError``;
``KeyError`` for an id that cannot name a row), on SQLite and PostgreSQL alike."""

from __future__ import annotations

import json
import numbers
import unicodedata

import numpy as np
import sqlalchemy as sa

from ordercore.inputs.printable import quoted, unprintable

MAX_VALUE_BYTES = 500_000_000
"""Largest binary or text value written (a block of preferences holds about 15 million): half of
SQLite's default limit (10^9 bytes) and of PostgreSQL's for a field (1 GB), leaving the driver room."""

MAX_INTEGER = 2**31 - 1
"""Largest value of an Integer column (PostgreSQL's integer is 32-bit): row counts and numbers."""

ANNOTATOR_MAX_LENGTH = 60
"""Longest annotator name (shown beside every answer)."""


def check_annotator(name) -> str:
    """An annotator's name, stripped and in Unicode's composed form (NFC: 'René' typed as e + a combining
    accent on one keyboard and as 'é' on another is one person, not two): 1 to ``ANNOTATOR_MAX_LENGTH``
    printable characters; else ``ValueError`` saying what is wrong."""
    missing = name is None or (isinstance(name, float) and name != name)  # NaN: a table's empty cell
    if not missing and not isinstance(name, str):  # b'ann' and 123 were told they needed a name
        raise ValueError(f"an annotator name is text, got {type(name).__name__} {quoted(name)}")
    if missing or not name.strip():
        raise ValueError("an annotator needs a name: type yours in the sidebar")
    name = unicodedata.normalize("NFC", name.strip())
    if len(name) > ANNOTATOR_MAX_LENGTH:
        raise ValueError(f"an annotator name has at most {ANNOTATOR_MAX_LENGTH} characters, this one {len(name)}")
    if not name.isprintable():
        raise ValueError(f"an annotator name may not hold {unprintable(name)}")
    return name


def composed(value):
    """Text in Unicode's composed form (NFC: 'José' typed with e + a combining accent is 'José' typed with é),
    stripped; anything else as given (for the checks to refuse in words)."""
    return unicodedata.normalize("NFC", value.strip()) if isinstance(value, str) else value


def check_name(value: str, what: str, column: sa.Column) -> str:
    """A session, data set, rule or model name (or an assessment's key or owner), stripped: 1 to the
    column's length of printable characters."""
    longest = column.type.length
    if not isinstance(value, str) or not value.strip() or len(value) > longest:
        raise ValueError(f"{what} must be a non-empty name of at most {longest} characters")
    if not value.isprintable():
        raise ValueError(f"{what} may not hold {unprintable(value)}")
    return value.strip()


def check_count(value, what: str) -> int:
    """A count stored in an Integer column: an integer (not a bool) in [0, ``MAX_INTEGER``]."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not 0 <= value <= MAX_INTEGER:
        raise ValueError(f"{what} must be an integer from 0 to {MAX_INTEGER:,}, got {value!r}")
    return int(value)


def check_size(value: bytes | str, what: str) -> bytes | str:
    """A binary or text value of at most ``MAX_VALUE_BYTES`` bytes (text counted as UTF-8)."""
    size = len(value) if isinstance(value, bytes) else len(value.encode("utf-8", "surrogatepass"))
    if size > MAX_VALUE_BYTES:
        raise ValueError(f"{what} takes {size:,} bytes, more than the store's limit of {MAX_VALUE_BYTES:,}")
    return value


def check_row(value, n_rows: int, what: str) -> int:
    """A row index of the session's table: an integer (not a bool, not 2.7) in [0, n_rows)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{what} must be a row number (an integer), got {value!r}")
    if not 0 <= int(value) < n_rows:
        raise ValueError(f"{what} is row {int(value)}, outside the session's table of {n_rows:,} rows")
    return int(value)


def id_number(value, what: str) -> int:
    """A row's id as given by a caller: an integer (not a bool) within the Integer column's range
    (PostgreSQL refuses to compare one with a number beyond it); ``KeyError`` naming ``what`` else, and for
    no integer (True, 1.0, '1') saying that an id is one."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise KeyError(f"no {what} {value!r}: a {what}'s id is an integer, got {type(value).__name__}")
    if abs(value) > MAX_INTEGER:
        raise KeyError(f"no {what} {value!r}")
    return int(value)


def json_text(values, what: str, entry: str) -> str:
    """``values``, a dict of JSON values (numbers, text, True/False, None, lists, dicts), as stored JSON text,
    numpy numbers as the Python numbers they hold; ``what`` names the dict ('session settings'), ``entry`` one
    of its values ('session setting').  ``TypeError`` naming the entry (its keys joined by '.', list positions
    in brackets) that holds another value (a set: float()'s words named no key) or a key that is no text;
    ``ValueError`` naming one that holds NaN or ±infinity (JSON has neither: json.dumps wrote NaN and Infinity,
    and a model run's inf MAE was stored without a word)."""
    if not isinstance(values, dict):
        raise TypeError(f"{what} must be a dict, got {type(values).__name__}")
    return json.dumps(_json_value(values, "", what, entry), allow_nan=False)


def _json_value(value, path: str, what: str, entry: str):
    """``value`` at ``path`` of ``json_text``'s dict, as a plain JSON value."""
    if isinstance(value, dict):
        for key in value:
            if not isinstance(key, str):
                inside = f" in {path}" if path else ""
                raise TypeError(f"{entry} key {key!r}{inside} is a {type(key).__name__}: keys must be text")
        return {key: _json_value(item, f"{path}.{key}" if path else key, what, entry) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_json_value(item, f"{path}[{position}]", what, entry) for position, item in enumerate(value)]
    if isinstance(value, np.bool_ | np.integer | np.floating):
        value = value.item()
    if value is None or isinstance(value, str | bool):
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        value = float(value)
        if not np.isfinite(value):
            noun = entry.split()[-1]
            raise ValueError(f"{entry} {path or what} is {value}: a {noun} must be a finite number")
        return value
    raise TypeError(
        f"{entry} {path or what} holds a value of type {type(value).__name__}: {what} must hold JSON values "
        "(numbers, text, True/False, None, lists, dicts)"
    )
