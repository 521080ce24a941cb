"""A session's preferences as stored, written and read back in the order they were written.

A click's preferences are rows with the answer that made them (``answer_id``, so "about equal" keeps
both directions together and undo removes both).  A rule's preferences (hundreds of thousands over a
large table) and an import's are one block each: their arrays in one binary value, written in one
statement, with the rule (``rule_id``) or import they came from.  Rows and blocks carry the session
revision their write made, which orders them: ``Store.preferences`` gives them back in the order
they were written (stores from before blocks keep their rule preferences as rows, and read as before).
"""

from __future__ import annotations

import io
import zipfile

import numpy as np
import pandas as pd
import sqlalchemy as sa

from ordercore.preferences import COLUMNS, PreferenceSet
from ordercore.studio.store.schema import preference_blocks, preferences
from ordercore.studio.store.sessions import known_session, read_revision

ROW_COLUMNS = ("revision", "i", "j", "margin", "weight", "source", "rule_id", "answer_id", "annotator")
BLOCK_COLUMNS = ("id", "revision", "source", "rule_id", "annotator")
PROVENANCE_COLUMNS = ("source", "rule_id", "answer_id", "annotator")


def encode_block(made: PreferenceSet) -> bytes:
    """A block's stored value: the arrays i, j (int64) and margin, weight (float64), each (p,), as
    one uncompressed .npz (numbers only, read back without pickle)."""
    buffer = io.BytesIO()
    np.savez(buffer, **{name: getattr(made, name) for name in COLUMNS})
    return buffer.getvalue()


def decode_block(content: bytes, n_preferences: int) -> PreferenceSet:
    """The n_preferences preferences ``encode_block`` stored in ``content``; ``ValueError`` if damaged."""
    try:
        with np.load(io.BytesIO(content), allow_pickle=False) as arrays:
            made = PreferenceSet(*(arrays[name] for name in COLUMNS))
    except (OSError, KeyError, ValueError, zipfile.BadZipFile) as error:
        raise ValueError(f"a stored block of preferences is damaged: {error}") from None
    if len(made) != n_preferences:
        raise ValueError(f"a stored block of preferences holds {len(made)} preferences, not {n_preferences}")
    return made


def insert_block(connection, made: PreferenceSet, content: bytes, owner: dict, source: str, rule_id=None) -> None:
    """One block of preferences (``content``: ``encode_block(made)``); nothing for an empty set.
    owner : session_id, revision, annotator and created_at."""
    if len(made):
        connection.execute(
            preference_blocks.insert().values(
                **owner, source=source, rule_id=rule_id, n_preferences=len(made), content=content
            )
        )


def insert_clicks(connection, clicks: list[tuple[int, str, PreferenceSet]], owner: dict) -> None:
    """The preferences of answers as rows, in one statement: ``clicks`` (answer id, its annotator, the
    one or two preferences it makes) in the order written.  owner : session_id, revision, created_at."""
    rows = [
        {**owner, "i": int(i), "j": int(j), "margin": float(d), "weight": float(w), "source": "click"}
        | {"rule_id": None, "answer_id": answer_id, "annotator": annotator}
        for answer_id, annotator, made in clicks
        for i, j, d, w in zip(made.i, made.j, made.margin, made.weight, strict=True)
    ]
    if rows:
        connection.execute(preferences.insert(), rows)


def _row_columns(rows) -> dict[str, np.ndarray]:
    """Preference rows (``ROW_COLUMNS`` tuples) as one array (p,) per column; missing ids are NaN."""
    columns = dict(zip(ROW_COLUMNS, zip(*rows, strict=True), strict=True)) if rows else dict.fromkeys(ROW_COLUMNS, ())
    arrays = {name: np.asarray(columns[name], dtype=object) for name in ("source", "annotator")}
    for name in ("rule_id", "answer_id"):
        arrays[name] = np.array([np.nan if v is None else v for v in columns[name]], dtype=np.float64)
    for name, dtype in (("revision", np.int64), ("i", np.int64), ("j", np.int64), ("margin", float), ("weight", float)):
        arrays[name] = np.asarray(columns[name], dtype=dtype)
    return arrays


def _block_provenance(block) -> dict:
    """A block's provenance (``BLOCK_COLUMNS`` row): one value per column for all its preferences."""
    return {
        "source": block.source,
        "rule_id": np.nan if block.rule_id is None else float(block.rule_id),
        "answer_id": np.nan,
        "annotator": block.annotator,
    }


def _in_written_order(rows, blocks, block_sets: list[PreferenceSet]) -> tuple[PreferenceSet, pd.DataFrame]:
    """Preference rows and blocks (each ordered by revision; ``block_sets`` the blocks' preferences)
    merged by revision, the rows of a revision before a block of the same one (only revision 0, of
    stores from before revisions, has several writes), and their provenance."""
    columns = _row_columns(rows)
    row_set = PreferenceSet(*(columns[name] for name in COLUMNS))
    bounds = [0, *np.searchsorted(columns["revision"], [block.revision for block in blocks], side="right"), len(rows)]
    sets, parts = [], []
    for k, (start, stop) in enumerate(zip(bounds[:-1], bounds[1:], strict=True)):
        if stop > start:
            sets.append(row_set[start:stop])
            parts.append({name: columns[name][start:stop] for name in PROVENANCE_COLUMNS})
        if k < len(blocks):
            sets.append(block_sets[k])
            parts.append(_block_provenance(blocks[k]))
    return PreferenceSet.concatenate(sets), _provenance([len(made) for made in sets], parts)


def _provenance(sizes: list[int], parts: list[dict]) -> pd.DataFrame:
    """One provenance frame (sum(sizes) rows) from each segment's columns, given as an array of its
    size or one value for all of it: source and annotator as categories, the ids as nullable integers
    (built from codes: a rule's 500,000 rows cost no per-row Python work)."""

    def spread(value, size, dtype):
        return value if isinstance(value, np.ndarray) else np.full(size, value, dtype=dtype)

    frame = {}
    for name in ("source", "annotator"):
        categories = sorted({value for part in parts for value in np.atleast_1d(part[name])})
        code = {value: k for k, value in enumerate(categories)}
        codes = [
            spread(
                np.array([code[v] for v in part[name]], np.int32)
                if isinstance(part[name], np.ndarray)
                else code[part[name]],
                size,
                np.int32,
            )
            for part, size in zip(parts, sizes, strict=True)
        ]
        frame[name] = pd.Categorical.from_codes(np.concatenate(codes or [np.zeros(0, np.int32)]), categories)
    for name in ("rule_id", "answer_id"):
        ids = np.concatenate(
            [spread(part[name], size, np.float64) for part, size in zip(parts, sizes, strict=True)] or [np.zeros(0)]
        )
        frame[name] = pd.array(ids, dtype="Int64")
    return pd.DataFrame({name: frame[name] for name in PROVENANCE_COLUMNS})


class PreferenceStore:
    """``Store``'s reading of a session's preferences (a part of it: ``engine`` is the store's, and
    ``_blocks`` the block contents it has read, per session)."""

    engine: sa.Engine
    _blocks: dict[int, dict[tuple[int, int], PreferenceSet]]

    def preferences(self, session_id: int) -> tuple[PreferenceSet, pd.DataFrame]:
        """The session's preferences in the order they were written, and their provenance (p rows:
        source, rule_id, answer_id, annotator).  Rows and blocks are read at one revision (if a write
        commits in between, they are read again); a block's content is read once per ``Store``."""
        while True:
            with self.engine.connect() as connection:
                session_id = known_session(connection, session_id)
                revision = read_revision(connection, session_id)
                rows = connection.execute(
                    sa.select(*(preferences.c[name] for name in ROW_COLUMNS))
                    .where(preferences.c.session_id == session_id)
                    .order_by(preferences.c.revision, preferences.c.id)
                ).all()
                blocks = connection.execute(
                    sa.select(*(preference_blocks.c[name] for name in BLOCK_COLUMNS))
                    .where(preference_blocks.c.session_id == session_id)
                    .order_by(preference_blocks.c.revision, preference_blocks.c.id)
                ).all()
                block_sets = self._block_contents(connection, session_id, blocks)
                if block_sets is not None and read_revision(connection, session_id) == revision:
                    return _in_written_order(rows, blocks, block_sets)

    def _block_contents(self, connection, session_id: int, blocks) -> list[PreferenceSet] | None:
        """The preferences of each of ``blocks`` (``BLOCK_COLUMNS`` rows), their content read only for
        blocks this Store has not read before; None if one changed meanwhile.  A block is never
        edited, and (id, revision) names it even where SQLite reuses a deleted block's id."""
        known = self._blocks.get(session_id, {})
        keys = [(block.id, block.revision) for block in blocks]
        missing = [block.id for block, key in zip(blocks, keys, strict=True) if key not in known]
        if missing:
            query = sa.select(
                preference_blocks.c.id,
                preference_blocks.c.revision,
                preference_blocks.c.n_preferences,
                preference_blocks.c.content,
            ).where(preference_blocks.c.id.in_(missing))
            known = known | {
                (row.id, row.revision): decode_block(row.content, row.n_preferences)
                for row in connection.execute(query)
            }
        if any(key not in known for key in keys):
            return None
        self._blocks[session_id] = {key: known[key] for key in keys}  # blocks since deleted are let go
        return [known[key] for key in keys]
