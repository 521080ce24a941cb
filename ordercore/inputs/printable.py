"""Why a name is not printable, in words: the one check of names typed by people (sessions, annotators,
rules, data sets), so that a text-direction mark is named as what it is, not as a tab or NUL."""

from __future__ import annotations

import unicodedata

_NAMES = {"\t": "TAB", "\n": "LINE FEED", "\r": "CARRIAGE RETURN", "\0": "NUL"}


def unprintable(text: str) -> str | None:
    """None when every character of ``text`` is printable, else the first that is not, described:
    'a control character: U+0009 TAB at position 3' or 'an invisible formatting character (such as a
    text-direction mark): U+202E RIGHT-TO-LEFT OVERRIDE at position 2'."""
    if text.isprintable():
        return None
    position, character = next((k, c) for k, c in enumerate(text) if not c.isprintable())
    kind = "a control character"
    if unicodedata.category(character) == "Cf":
        kind = "an invisible formatting character (such as a text-direction mark)"
    name = unicodedata.name(character, _NAMES.get(character, ""))
    return f"{kind}: U+{ord(character):04X}{' ' + name if name else ''} at position {position}"


def shown(text: str) -> str:
    """``text`` as a terminal may show it: itself when every character is printable, else its repr, in
    which an escape sequence or a text-direction mark shows as '\\x1b' or '\\u202e' and does nothing."""
    return text if text.isprintable() else repr(text)


SHOWN_CELL = 40
"""Characters of a value an error message quotes: a longer value is cut, its length said."""


def quoted(value) -> str:
    """A value as an error message quotes it: its repr, cut after ``SHOWN_CELL`` characters (a cell or
    id of a million characters was quoted whole, a message of a megabyte)."""
    text = str(value)
    if len(text) <= SHOWN_CELL:
        return repr(value)
    return f"{text[:SHOWN_CELL]!r}… ({len(text):,} characters)"
