"""JSON typed by people, parsed as data: a key given twice in one object is refused (``json.loads``
keeps the last silently, so ``{"i": [1], "i": [2]}`` read as row 2)."""

from __future__ import annotations

import json

from ordercore.printable import quoted


def _unique_keys(pairs: list[tuple]) -> dict:
    seen = set()
    for key, _ in pairs:
        if key in seen:
            raise ValueError(f"key {quoted(key)} appears twice in one object")
        seen.add(key)
    return dict(pairs)


def parse_json(text: str | bytes):
    """``json.loads(text)``, ``ValueError`` for a key that appears twice in one object (and, as
    ``json.JSONDecodeError``, for text that is no JSON)."""
    return json.loads(text, object_pairs_hook=_unique_keys)
