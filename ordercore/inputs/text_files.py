"""Files people save as text, read as UTF-8 (a UTF-8 byte-order mark, which Notepad and Excel write,
dropped), and said in words when they are not: Python's "'utf-8' codec can't decode byte 0xff in
position 0" named no fix, and UTF-16 text without a byte-order mark decodes as UTF-8 with a NUL
byte after each letter, so a preference file's header ' i' read as lacking the column i.  And JSON
typed by people, parsed as data (``parse_json``): a key given twice in one object is refused
(``json.loads`` keeps the last silently, so ``{"i": [1], "i": [2]}`` read as row 2)."""

from __future__ import annotations

import codecs
import json
import os
from pathlib import Path

from ordercore.inputs.printable import quoted

MARKS = {
    codecs.BOM_UTF32_LE: "UTF-32",
    codecs.BOM_UTF32_BE: "UTF-32",
    codecs.BOM_UTF16_LE: "UTF-16",
    codecs.BOM_UTF16_BE: "UTF-16",
}
"""Byte-order marks of the encodings that are not UTF-8 (UTF-32's little-endian one first: it begins
with UTF-16's)."""


def utf8_text(raw: bytes) -> str:
    """``raw`` decoded as UTF-8 without a leading byte-order mark; ``ValueError`` 'it is not UTF-8 text
    (...); save it as UTF-8' for a UTF-16 or UTF-32 byte-order mark, a byte that is not UTF-8 (named
    with its line and column) or a NUL byte (UTF-16 or UTF-32 text without a mark)."""
    mark = next((name for bom, name in MARKS.items() if raw.startswith(bom)), None)
    if mark is not None:
        raise ValueError(f"it is not UTF-8 text (it begins with a {mark} byte-order mark); save it as UTF-8")
    skip = len(codecs.BOM_UTF8) if raw.startswith(codecs.BOM_UTF8) else 0
    try:
        text = raw[skip:].decode("utf-8")
    except UnicodeDecodeError as error:
        offset = skip + error.start
        raise ValueError(
            f"it is not UTF-8 text (byte {raw[offset]:#x} on {_where(raw, offset)}); save it as UTF-8"
        ) from None
    if "\x00" in text:
        where = _where(raw, raw.index(b"\x00"))
        raise ValueError(f"it is not UTF-8 text (a NUL byte on {where}: UTF-16 or UTF-32?); save it as UTF-8")
    return text


def read_utf8(path) -> str:
    """The text of the file at ``path`` (``utf8_text``)."""
    return utf8_text(file_path(path).read_bytes())


def file_path(path) -> Path:
    """``path`` as a ``Path``: ``TypeError`` for anything but text or a path object (bytes ended in
    pathlib's 'argument should be a str object or an os.PathLike object'), ``ValueError`` for a NUL in
    it (pathlib's bare 'embedded null byte')."""
    if not isinstance(path, str | os.PathLike):
        raise TypeError(f"a file's path is text or a pathlib.Path, got {type(path).__name__}")
    if "\x00" in str(path):
        raise ValueError(f"a file's path holds a NUL byte, which no file name holds: {quoted(str(path))}")
    return Path(path)


def _where(raw: bytes, offset: int) -> str:
    """'line 5, column 40' of the byte at ``offset`` (columns counted in characters)."""
    line_start = raw.rfind(b"\n", 0, offset) + 1
    column = len(raw[line_start:offset].decode("utf-8", errors="replace")) + 1
    line = raw.count(b"\n", 0, offset) + 1
    return f"line {line}, column {column}"


def parse_json(text: str | bytes):
    """``json.loads(text)``, ``ValueError`` for a key that appears twice in one object, for lists and
    objects nested deeper than Python's reader goes (it said "maximum recursion depth exceeded while
    decoding a JSON array from a unicode string"), as ``JSONLinesError`` for JSON Lines (a value a line)
    and, as ``json.JSONDecodeError``, for text that is no JSON, and for text with nothing in it (the
    decoder said 'Expecting value: line 1 column 1 (char 0)')."""
    if not text.removeprefix(b"\xef\xbb\xbf" if isinstance(text, bytes) else "\ufeff").strip():  # a BOM alone too
        raise ValueError("the file is empty (no JSON value in it)")
    try:
        return json.loads(text, object_pairs_hook=_unique_keys)
    except RecursionError:
        raise ValueError(NESTED_TOO_DEEPLY) from None
    except json.JSONDecodeError as error:
        if error.msg == "Extra data" and _json_lines(text):
            raise JSONLinesError(JSON_LINES) from None
        raise


class JSONLinesError(ValueError):
    """JSON Lines (a JSON value on each line) where one JSON value was expected: a reader that takes JSON
    Lines by another name (.jsonl) says so."""


JSON_LINES = "it holds JSON Lines (a JSON value on each line), not one JSON value"
"""What ``parse_json`` says of JSON Lines: the decoder said 'Extra data: line 2 column 1 (char 14)'."""


def _json_lines(text: str | bytes) -> bool:
    """Whether ``text`` holds two or more lines and each that is not blank is a JSON value."""
    lines = [line for line in text.splitlines() if line.strip()]
    try:
        for line in lines:
            json.loads(line)
    except (ValueError, RecursionError):
        return False
    return len(lines) > 1


NESTED_TOO_DEEPLY = "its lists and objects are nested too deeply to read (the files ordercore writes nest a few levels)"
"""What ``parse_json`` says of JSON nested deeper than Python reads (about a thousand levels)."""


def _unique_keys(pairs: list[tuple]) -> dict:
    seen = set()
    for key, _ in pairs:
        if key in seen:
            raise ValueError(f"key {quoted(key)} appears twice in one object")
        seen.add(key)
    return dict(pairs)
