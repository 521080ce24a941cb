"""Durable labelling sessions: data sets, rules, answers and the preferences they make, model runs.

SQLAlchemy Core over a SQLite file by default (``ORDERCORE_STORE`` names another file, and
``ORDERCORE_STORE_URL`` any SQLAlchemy URL, e.g. PostgreSQL).  Every write is one transaction that
is committed before the call returns, and SQLite runs with ``synchronous=FULL`` in WAL mode, so a
confirmed answer survives a crash or a restart; a failed write changes nothing.

A click's preferences are rows with the answer that made them (``answer_id``, so "about equal"
keeps both directions together and undo removes both).  A rule's preferences (hundreds of thousands
over a large table) and an import's are one block each: their arrays in one binary value, written
in one statement, with the rule (``rule_id``) or import they came from.  Rows and blocks carry the
session revision their write made, which orders them: ``preferences`` gives them back in the order
they were written (stores from before blocks keep their rule preferences as rows, and read as before).

Several processes may share one database (annotators of one session, each with their own Studio): a
write to a session begins by locking the session's row (``_lock``), so that the checks it makes (row
numbers against the session's table, the rule it audits, what it already holds) and what it writes
see every write committed before it, on SQLite and PostgreSQL alike.  Values are checked against the
database's limits (text lengths, integer ranges, value sizes, NUL characters) before anything is
written, and a name taken by another process meanwhile is a ``ValueError`` like any taken name.
"""

from __future__ import annotations

import hashlib
import io
import json
import numbers
import os
import sqlite3
import time
import zipfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pandas as pd
import sqlalchemy as sa

from ordercore.knowledge.rules import Rule
from ordercore.preferences import COLUMNS, PreferenceSet

DEFAULT_PATH = Path("ordercore_studio.sqlite")
"""The SQLite file used when neither ORDERCORE_STORE_URL nor ORDERCORE_STORE is set (in the
directory the app runs from)."""

MAX_DATASET_BYTES = 50 * 1024 * 1024
"""Largest uploaded table kept in the store (the app's upload limit is the same)."""

MAX_VALUE_BYTES = 500_000_000
"""Largest binary or text value written (a block of preferences holds about 15 million): half of
SQLite's default limit (10^9 bytes) and of PostgreSQL's for a field (1 GB), leaving the driver room."""

MAX_INTEGER = 2**31 - 1
"""Largest value of an Integer column (PostgreSQL's integer is 32-bit): row counts and numbers."""

CHOICES = {
    "a": "A higher",
    "b": "B higher",
    "equal": "about equal",
    "skip": "skip",
}
"""The answers a pairwise click can give."""

metadata = sa.MetaData()


def _key() -> sa.Column:
    return sa.Column("id", sa.Integer, primary_key=True)


def _owner() -> sa.Column:
    """The session a row belongs to; deleting the session deletes the row."""
    return sa.Column("session_id", sa.Integer, sa.ForeignKey("sessions.id", ondelete="CASCADE"), nullable=False)


def _created() -> sa.Column:
    return sa.Column("created_at", sa.DateTime(timezone=True), nullable=False)


datasets = sa.Table(
    "datasets",
    metadata,
    _key(),
    sa.Column("content_hash", sa.String(64), nullable=False, unique=True),
    sa.Column("name", sa.String(200), nullable=False),
    sa.Column("n_rows", sa.Integer, nullable=False),
    sa.Column("columns", sa.Text, nullable=False),  # JSON list
    sa.Column("content", sa.LargeBinary, nullable=True),  # CSV bytes of an upload; None for built-in sets
    _created(),
)

sessions = sa.Table(
    "sessions",
    metadata,
    _key(),
    sa.Column("name", sa.String(200), nullable=False, unique=True),
    sa.Column("dataset_id", sa.Integer, sa.ForeignKey("datasets.id"), nullable=True),
    sa.Column("settings", sa.Text, nullable=False, default="{}"),  # JSON: target, features, labeled rows, ...
    # +1 with every write of rules, answers, preferences; the server default lets older stores gain it.
    sa.Column("revision", sa.Integer, nullable=False, server_default="0"),
    _created(),
    sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
)

rules = sa.Table(
    "rules",
    metadata,
    _key(),
    _owner(),
    sa.Column("name", sa.String(200), nullable=False),
    sa.Column("spec", sa.Text, nullable=False),  # Rule.to_json()
    sa.Column("annotator", sa.String(200), nullable=False),
    _created(),
)

answers = sa.Table(
    "answers",
    metadata,
    _key(),
    _owner(),
    sa.Column("row_a", sa.Integer, nullable=False),
    sa.Column("row_b", sa.Integer, nullable=False),
    sa.Column("choice", sa.String(10), nullable=False),
    sa.Column("weight", sa.Float, nullable=False),
    sa.Column("margin", sa.Float, nullable=False),
    sa.Column("annotator", sa.String(200), nullable=False),
    _created(),
    # The rule whose pair this answers (an audit of the rule), or NULL for any other pair.  Added by
    # ``_add_missing_columns`` to older stores (their answers read with NULL: nothing is lost);
    # removing the rule sets it back to NULL and keeps the answer and its preferences.
    sa.Column("rule_id", sa.Integer, sa.ForeignKey("rules.id", ondelete="SET NULL"), nullable=True),
    # Whether A and B were shown the other way round from the order the pair was drawn in (for a rule's
    # pair: whether A is the rule's loser); NULL where not recorded (older answers, the library's own).
    sa.Column("swapped", sa.Boolean, nullable=True),
)

preferences = sa.Table(
    "preferences",
    metadata,
    _key(),
    _owner(),
    sa.Column("i", sa.Integer, nullable=False),
    sa.Column("j", sa.Integer, nullable=False),
    sa.Column("margin", sa.Float, nullable=False),
    sa.Column("weight", sa.Float, nullable=False),
    sa.Column("source", sa.String(10), nullable=False),  # 'rule' | 'click' | 'import'
    sa.Column("rule_id", sa.Integer, sa.ForeignKey("rules.id", ondelete="CASCADE"), nullable=True),
    sa.Column("answer_id", sa.Integer, sa.ForeignKey("answers.id", ondelete="CASCADE"), nullable=True),
    sa.Column("annotator", sa.String(200), nullable=False),
    _created(),
    # The session revision the write made (0: written before revisions ordered preferences).
    sa.Column("revision", sa.Integer, nullable=False, server_default="0"),
)

preference_blocks = sa.Table(
    "preference_blocks",
    metadata,
    _key(),
    _owner(),
    sa.Column("revision", sa.Integer, nullable=False),  # as in preferences: orders blocks among rows
    sa.Column("source", sa.String(10), nullable=False),  # 'rule' | 'import'
    sa.Column("rule_id", sa.Integer, sa.ForeignKey("rules.id", ondelete="CASCADE"), nullable=True),
    sa.Column("n_preferences", sa.Integer, nullable=False),
    sa.Column("annotator", sa.String(200), nullable=False),
    _created(),
    sa.Column("content", sa.LargeBinary, nullable=False),  # encode_block(): i, j, margin, weight
)

queued_pairs = sa.Table(
    "queued_pairs",
    metadata,
    _key(),
    _owner(),
    sa.Column("row_a", sa.Integer, nullable=False),
    sa.Column("row_b", sa.Integer, nullable=False),
    sa.Column("copies", sa.Integer, nullable=False),  # how many annotators the pair goes to
    sa.Column("annotator", sa.String(200), nullable=False),  # who queued it
    _created(),
)

grades = sa.Table(
    "grades",
    metadata,
    _key(),
    _owner(),
    sa.Column("row", sa.Integer, nullable=False),  # the graded row of the session's table
    sa.Column("grade", sa.Integer, nullable=False),  # 1 … the session's rating scale
    sa.Column("annotator", sa.String(200), nullable=False),
    _created(),
    sa.UniqueConstraint("session_id", "row", "annotator"),  # one grade per row and annotator: edit it to change it
)

model_runs = sa.Table(
    "model_runs",
    metadata,
    _key(),
    _owner(),
    sa.Column("model", sa.String(20), nullable=False),
    sa.Column("parameters", sa.Text, nullable=False),  # JSON
    sa.Column("metrics", sa.Text, nullable=False),  # JSON
    sa.Column("n_preferences", sa.Integer, nullable=False),
    _created(),
)


def store_url() -> str:
    """ORDERCORE_STORE_URL, else a SQLite file at ORDERCORE_STORE, else ``DEFAULT_PATH``."""
    if os.environ.get("ORDERCORE_STORE_URL"):
        return os.environ["ORDERCORE_STORE_URL"]
    return f"sqlite:///{Path(os.environ.get('ORDERCORE_STORE', DEFAULT_PATH)).resolve()}"


def _now() -> datetime:
    return datetime.now(UTC)


def _check_row(value, n_rows: int, what: str) -> int:
    """A row index of the session's table: an integer (not a bool, not 2.7) in [0, n_rows)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{what} must be a row number (an integer), got {value!r}")
    if not 0 <= int(value) < n_rows:
        raise ValueError(f"{what} is row {int(value)}, outside the session's table of {n_rows:,} rows")
    return int(value)


def _imported(connection, session_id: int) -> PreferenceSet:
    """The session's imported preferences (blocks, and rows of stores from before blocks), read in
    the caller's transaction."""
    blocks = connection.execute(
        sa.select(preference_blocks.c.content, preference_blocks.c.n_preferences).where(
            preference_blocks.c.session_id == session_id, preference_blocks.c.source == "import"
        )
    ).all()
    rows = connection.execute(
        sa.select(preferences.c.i, preferences.c.j, preferences.c.margin, preferences.c.weight).where(
            preferences.c.session_id == session_id, preferences.c.source == "import"
        )
    ).all()
    held = [decode_block(block.content, block.n_preferences) for block in blocks]
    if rows:
        i, j, margin, weight = np.array(rows, dtype=np.float64).T
        held.append(PreferenceSet(i.astype(np.int64), j.astype(np.int64), margin, weight))
    return PreferenceSet.concatenate(held)


def _contents(connection, session_id: int) -> dict:
    """``Store.contents``, read in the caller's transaction."""

    def count(table, *where) -> int:
        query = sa.select(sa.func.count()).select_from(table).where(table.c.session_id == session_id, *where)
        return connection.execute(query).scalar_one()

    imported_in_blocks = connection.execute(
        sa.select(sa.func.coalesce(sa.func.sum(preference_blocks.c.n_preferences), 0)).where(
            preference_blocks.c.session_id == session_id, preference_blocks.c.source == "import"
        )
    ).scalar_one()
    return {
        "rules": count(rules),
        "answers": count(answers),
        "imported": int(imported_in_blocks) + count(preferences, preferences.c.source == "import"),
        "queued": count(queued_pairs),
        "grades": count(grades),
    }


CONTENT_WORDS = {
    "rules": "rule",
    "answers": "answer",
    "imported": "imported preference",
    "queued": "queued pair",
    "grades": "grade",
}
"""What ``describe_contents`` calls each count of ``Store.contents``, in its order."""


def describe_contents(held: dict) -> str:
    """``Store.contents`` in words, only what the session holds: "2 rules, 1 answer and 19 grades";
    "nothing" when it holds nothing."""
    parts = [
        f"{held[key]:,} {word}{'' if held[key] == 1 else 's'}" for key, word in CONTENT_WORDS.items() if held.get(key)
    ]
    if len(parts) < 2:
        return parts[0] if parts else "nothing"
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def _rows_in(made: PreferenceSet, held: PreferenceSet) -> np.ndarray:
    """Whether each preference of ``made`` (i, j, margin, weight all equal) is among ``held``, (p,)."""
    if len(held) == 0:
        return np.zeros(len(made), dtype=bool)

    def keys(preferences):
        return pd.MultiIndex.from_arrays([preferences.i, preferences.j, preferences.margin, preferences.weight])

    return keys(made).isin(keys(held))


MAX_COPIES = 10
"""Most annotators one pair of the shared queue goes to."""

ANNOTATOR_MAX_LENGTH = 60
"""Longest annotator name (shown beside every answer)."""


def check_annotator(name) -> str:
    """An annotator's name, stripped: 1 to ``ANNOTATOR_MAX_LENGTH`` printable characters; else
    ``ValueError`` saying what is wrong."""
    if not isinstance(name, str) or not name.strip():
        raise ValueError("an annotator needs a name: type yours in the sidebar")
    name = name.strip()
    if len(name) > ANNOTATOR_MAX_LENGTH:
        raise ValueError(f"an annotator name has at most {ANNOTATOR_MAX_LENGTH} characters, this one {len(name)}")
    if not name.isprintable():
        raise ValueError("an annotator name may not hold control characters (tabs, line breaks, NUL)")
    return name


def _check_name(value: str, what: str, column: sa.Column) -> str:
    """A session, data set, rule or model name, stripped: 1 to the column's length of printable
    characters."""
    longest = column.type.length
    if not isinstance(value, str) or not value.strip() or len(value) > longest:
        raise ValueError(f"{what} must be a non-empty name of at most {longest} characters")
    if not value.isprintable():
        raise ValueError(f"{what} may not hold control characters (tabs, line breaks, NUL)")
    return value.strip()


def _check_choice(choice) -> None:
    if not isinstance(choice, str) or choice not in CHOICES:
        raise ValueError(f"choice must be one of {sorted(CHOICES)}, got {choice!r}")


def _model_json(values) -> str:
    """A model run's parameters or metrics as stored: a dict of JSON values, numpy numbers as floats."""
    try:
        if not isinstance(values, dict):
            raise TypeError(f"got {type(values).__name__}")
        return json.dumps(values, default=float)
    except (TypeError, ValueError) as error:
        raise TypeError(f"model parameters and metrics must be dicts of numbers and text: {error}") from None


def _check_count(value, what: str) -> int:
    """A count stored in an Integer column: an integer (not a bool) in [0, ``MAX_INTEGER``]."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not 0 <= value <= MAX_INTEGER:
        raise ValueError(f"{what} must be an integer from 0 to {MAX_INTEGER:,}, got {value!r}")
    return int(value)


def _check_size(value: bytes | str, what: str) -> bytes | str:
    """A binary or text value of at most ``MAX_VALUE_BYTES`` bytes (text counted as UTF-8)."""
    size = len(value) if isinstance(value, bytes) else len(value.encode("utf-8", "surrogatepass"))
    if size > MAX_VALUE_BYTES:
        raise ValueError(f"{what} takes {size:,} bytes, more than the store's limit of {MAX_VALUE_BYTES:,}")
    return value


def _settings_json(settings) -> str:
    """A session's settings as stored: a dict of JSON values (text escaped, so NUL is stored as
    \\u0000), its 'n_rows', if set, a row count, its rating scale one ``rating_scale`` takes;
    ``TypeError``/``ValueError`` otherwise."""
    if not isinstance(settings, dict):
        raise TypeError(f"session settings must be a dict, got {type(settings).__name__}")
    if settings.get("n_rows") is not None:
        _check_count(settings["n_rows"], "the number of rows (n_rows)")
    if not isinstance(settings.get("ratings", {}), dict):
        raise TypeError("the session's rating settings ('ratings') must be a dict")
    rating_scale(settings)
    try:
        text = json.dumps(settings)
    except (TypeError, ValueError) as error:
        raise TypeError(f"session settings must hold JSON values (numbers, text, lists, dicts): {error}") from None
    return _check_size(text, "the session settings")


def _id_number(value, what: str) -> int:
    """A row's id as given by a caller: an integer (not a bool) within the Integer column's range
    (PostgreSQL refuses to compare one with a number beyond it); ``KeyError`` naming ``what`` else."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or abs(value) > MAX_INTEGER:
        raise KeyError(f"no {what} {value!r}")
    return int(value)


def _lock(connection, session_id) -> None:
    """Lock the session's row until the caller's transaction ends (an update changing nothing): the
    writes to one session are made one after another, each seeing all committed before it (the
    first statement of a write, so that on SQLite the transaction starts as a writer).  ``KeyError``
    for an unknown session."""
    query = sessions.update().where(sessions.c.id == _id_number(session_id, "session"))
    query = query.values(revision=sessions.c.revision)
    if connection.execute(query).rowcount != 1:
        raise KeyError(f"no session {session_id}")


def _latest_own(connection, table: sa.Table, session_id: int, annotator: str) -> int | None:
    """The id of ``annotator``'s latest row of ``table`` (answers, grades) in the session, or None."""
    query = sa.select(sa.func.max(table.c.id)).where(table.c.session_id == session_id, table.c.annotator == annotator)
    return connection.execute(query).scalar()


def _dataset_exists(connection, dataset_id) -> bool:
    query = sa.select(datasets.c.id).where(datasets.c.id == _id_number(dataset_id, "data set"))
    return connection.execute(query).scalar() is not None


def _dataset_with_content(connection, digest: str) -> int | None:
    """The id of the data set whose content hashes to ``digest``, or None."""
    return connection.execute(sa.select(datasets.c.id).where(datasets.c.content_hash == digest)).scalar()


def _n_rows(connection, session_id: int) -> int:
    """The number of rows of the session's table, read in the caller's transaction; ``ValueError``
    before its data is chosen."""
    query = sa.select(sessions.c.settings).where(sessions.c.id == session_id)
    settings = json.loads(connection.execute(query).scalar())
    if settings.get("n_rows") is None:
        raise ValueError("this session has no data yet: choose it on the Data page first")
    return int(settings["n_rows"])


DEFAULT_RATING_SCALE = 5
"""Grades 1 … 5 unless the session's settings say otherwise."""

MAX_RATING_SCALE = 9
"""Largest scale: one number key per grade, 1 … 9."""


def rating_scale(settings: dict) -> int:
    """The session's rating scale K (grades are 1 … K): settings['ratings']['scale'], default
    ``DEFAULT_RATING_SCALE``; ``ValueError`` unless an integer from 2 to ``MAX_RATING_SCALE``."""
    scale = settings.get("ratings", {}).get("scale", DEFAULT_RATING_SCALE)
    if isinstance(scale, bool) or not isinstance(scale, numbers.Integral) or not 2 <= scale <= MAX_RATING_SCALE:
        raise ValueError(f"a rating scale has 2 to {MAX_RATING_SCALE} grades, got {scale!r}")
    return int(scale)


def _check_grade(value, scale: int) -> int:
    """A grade on the scale 1 … ``scale``: an integer (not a bool, not 2.5)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not 1 <= value <= scale:
        raise ValueError(f"a grade is a whole number from 1 to {scale} (the session's rating scale), got {value!r}")
    return int(value)


def _session_settings(connection, session_id: int) -> dict:
    """The session's settings, read in the caller's transaction."""
    return json.loads(connection.execute(sa.select(sessions.c.settings).where(sessions.c.id == session_id)).scalar())


SCHEMA_LOCK = 0x6F72646572636F72
"""PostgreSQL advisory lock key held while a Store makes or completes the tables ("ordercor")."""


def _lock_schema(connection) -> None:
    """Wait until no other process is making or completing the tables, then keep them from doing so
    until the caller's transaction ends: on PostgreSQL an advisory lock, on SQLite the write lock."""
    if connection.dialect.name == "postgresql":
        connection.execute(sa.select(sa.func.pg_advisory_xact_lock(SCHEMA_LOCK)))
    elif connection.dialect.name == "sqlite":
        connection.exec_driver_sql("BEGIN IMMEDIATE")


def _add_missing_columns(connection) -> None:
    """Add, with their server defaults, the columns that a store made by an earlier version lacks
    (``create_all`` only makes missing tables): its rows stay as they were."""
    inspector = sa.inspect(connection)
    for table in metadata.sorted_tables:
        present = {column["name"] for column in inspector.get_columns(table.name)}
        for column in table.columns:
            if column.name not in present:
                definition = sa.schema.CreateColumn(column).compile(dialect=connection.dialect)
                connection.execute(sa.text(f"ALTER TABLE {table.name} ADD COLUMN {definition}"))


@dataclass(frozen=True)
class SessionInfo:
    id: int
    name: str
    dataset_id: int | None
    settings: dict


class Store:
    """The project's database.  ``Store()`` opens the configured one (see ``store_url``) and
    creates missing tables; ``Store("sqlite:///path")`` opens another."""

    def __init__(self, url: str | None = None):
        self.url = url or store_url()
        self._blocks: dict[int, dict[tuple[int, int], PreferenceSet]] = {}  # see _block_contents
        self.engine = sa.create_engine(self.url)
        if self.engine.dialect.name == "sqlite":
            sa.event.listen(self.engine, "connect", _sqlite_pragmas)
        with self.engine.begin() as connection:  # one process at a time makes or completes the tables
            _lock_schema(connection)
            metadata.create_all(connection)
            _add_missing_columns(connection)

    # ------------------------------------------------------------------ data sets and sessions
    def add_dataset(self, name: str, frame: pd.DataFrame, content: bytes | None = None) -> int:
        """The id of the data set with this content (added if new).  ``content`` (CSV bytes of an
        upload, at most ``MAX_DATASET_BYTES``) is kept so that a session can reopen it."""
        name = _check_name(name, "data set name", datasets.c.name)
        if content is not None and len(content) > MAX_DATASET_BYTES:
            raise ValueError(f"uploads are limited to {MAX_DATASET_BYTES // 2**20} MB")
        digest = hashlib.sha256(
            content if content is not None else pd.util.hash_pandas_object(frame, index=True).to_numpy().tobytes()
        ).hexdigest()
        values = {
            "content_hash": digest,
            "name": name,
            "n_rows": _check_count(len(frame), "the number of rows"),
            "columns": _check_size(json.dumps([str(c) for c in frame.columns]), "the column names"),
            "content": content,
        }
        try:
            with self.engine.begin() as connection:
                found = _dataset_with_content(connection, digest)
                if found is not None:
                    return int(found)
                inserted = connection.execute(datasets.insert().values(**values, created_at=_now()))
                return int(inserted.inserted_primary_key[0])
        except sa.exc.IntegrityError:  # another process added the same content meanwhile: that one
            with self.engine.connect() as connection:
                found = _dataset_with_content(connection, digest)
            if found is None:
                raise
            return int(found)

    def dataset(self, dataset_id: int) -> dict:
        """A data set's row as a dict (content as bytes or None)."""
        dataset_id = _id_number(dataset_id, "data set")
        with self.engine.connect() as connection:
            row = connection.execute(sa.select(datasets).where(datasets.c.id == dataset_id)).mappings().first()
        if row is None:
            raise KeyError(f"no data set {dataset_id}")
        return dict(row)

    def create_session(self, name: str, dataset_id: int | None = None, settings: dict | None = None) -> SessionInfo:
        """A new, empty session; ``ValueError`` if the name is taken (also by another process at the
        same moment), ``KeyError`` for an unknown data set; nothing is written then."""
        name = _check_name(name, "session name", sessions.c.name)
        settings = {} if settings is None else settings
        stored = _settings_json(settings)
        taken = ValueError(f"a session named {name!r} already exists; resume it or choose another name")
        try:
            with self.engine.begin() as connection:
                if dataset_id is not None and not _dataset_exists(connection, dataset_id):
                    raise KeyError(f"no data set {dataset_id}")
                if connection.execute(sa.select(sessions.c.id).where(sessions.c.name == name)).scalar() is not None:
                    raise taken
                now = _now()
                session_id = connection.execute(
                    sessions.insert().values(
                        name=name, dataset_id=dataset_id, settings=stored, created_at=now, updated_at=now
                    )
                ).inserted_primary_key[0]
        except sa.exc.IntegrityError:  # the unique name, taken by a write committed after the check
            with self.engine.connect() as connection:
                if connection.execute(sa.select(sessions.c.id).where(sessions.c.name == name)).scalar() is None:
                    raise
            raise taken from None
        return SessionInfo(int(session_id), name, dataset_id, settings)

    def sessions(self) -> pd.DataFrame:
        """All sessions, newest activity first: id, name, dataset_id, created_at, updated_at."""
        query = sa.select(
            sessions.c.id, sessions.c.name, sessions.c.dataset_id, sessions.c.created_at, sessions.c.updated_at
        ).order_by(sessions.c.updated_at.desc(), sessions.c.id.desc())
        with self.engine.connect() as connection:
            return pd.DataFrame(connection.execute(query).mappings().all(), columns=list(query.selected_columns.keys()))

    def session(self, name: str) -> SessionInfo:
        return self._session(sessions.c.name == name, f"no session named {name!r}")

    def session_by_id(self, session_id: int) -> SessionInfo:
        session_id = _id_number(session_id, "session")
        return self._session(sessions.c.id == session_id, f"no session {session_id}")

    def _session(self, condition, missing: str) -> SessionInfo:
        with self.engine.connect() as connection:
            row = connection.execute(sa.select(sessions).where(condition)).mappings().first()
        if row is None:
            raise KeyError(missing)
        return SessionInfo(row["id"], row["name"], row["dataset_id"], json.loads(row["settings"]))

    def update_settings(self, session_id: int, settings: dict, dataset_id: int | None = None) -> None:
        """Replace a session's settings (and data set, if given).  Once the session holds rules,
        answers or imported preferences its table is fixed (their row numbers refer to it): a change
        of data set, source or number of rows raises ``ValueError`` and changes nothing."""
        values = {"settings": _settings_json(settings), "updated_at": _now()}
        if dataset_id is not None:
            values["dataset_id"] = dataset_id
        with self.engine.begin() as connection:  # checked and written in one transaction: no answer slips in
            _lock(connection, session_id)
            if dataset_id is not None and not _dataset_exists(connection, dataset_id):
                raise KeyError(f"no data set {dataset_id}")
            current = connection.execute(
                sa.select(sessions.c.settings, sessions.c.dataset_id).where(sessions.c.id == session_id)
            ).one()
            held_settings = json.loads(current.settings)
            changed = (
                (dataset_id is not None and dataset_id != current.dataset_id)
                or settings.get("source") != held_settings.get("source")
                or settings.get("n_rows") != held_settings.get("n_rows")
            )
            held = _contents(connection, session_id)
            if changed and any(held.values()):
                raise ValueError(
                    f"this session holds {describe_contents(held)} on its table, so its data is fixed: create a "
                    "new session to work on other data"
                )
            scale = rating_scale(settings)
            if held["grades"] and scale != rating_scale(held_settings):
                raise ValueError(
                    f"this session holds {held['grades']:,} grades on a scale of {rating_scale(held_settings)}, so "
                    "its scale is fixed: create a new session to grade on another"
                )
            connection.execute(sessions.update().where(sessions.c.id == session_id).values(**values))

    def _touch(self, connection, session_id: int, content: bool = True) -> int | None:
        """Mark a write to the session: its time, and with ``content`` (rules, answers, preferences)
        its revision, which is returned; raise ``KeyError`` for an unknown session."""
        values = {"updated_at": _now()}
        if content:
            values["revision"] = sessions.c.revision + 1
        touched = connection.execute(sessions.update().where(sessions.c.id == session_id).values(**values)).rowcount
        if touched != 1:
            raise KeyError(f"no session {session_id}")
        if content:
            return connection.execute(sa.select(sessions.c.revision).where(sessions.c.id == session_id)).scalar_one()
        return None

    def revision(self, session_id: int) -> int:
        """A number that changes with every write of the session's rules, answers or preferences (not
        its settings or model runs): a cheap test for "any new preferences?"."""
        session_id = _id_number(session_id, "session")
        with self.engine.connect() as connection:
            value = connection.execute(sa.select(sessions.c.revision).where(sessions.c.id == session_id)).scalar()
        if value is None:
            raise KeyError(f"no session {session_id}")
        return int(value)

    # ------------------------------------------------------------------ rules
    def add_rule(self, session_id: int, rule: Rule, made: PreferenceSet, annotator: str) -> int:
        """Store a rule and the preferences it made, in one transaction; returns the rule's id."""
        annotator = check_annotator(annotator)
        if not isinstance(rule, Rule) or not isinstance(made, PreferenceSet):
            raise TypeError("add_rule takes a Rule and the PreferenceSet it generated")
        name = _check_name(rule.name, "rule name", rules.c.name)
        spec = _check_size(rule.to_json(), "the rule")
        content = _check_size(encode_block(made), f"the rule's {len(made):,} preferences")
        with self.engine.begin() as connection:
            _lock(connection, session_id)
            made.check_indices(_n_rows(connection, session_id))
            revision = self._touch(connection, session_id)
            now = _now()
            rule_id = connection.execute(
                rules.insert().values(session_id=session_id, name=name, spec=spec, annotator=annotator, created_at=now)
            ).inserted_primary_key[0]
            owner = {"session_id": session_id, "revision": revision, "annotator": annotator, "created_at": now}
            _insert_block(connection, made, content, owner, "rule", rule_id)
        return int(rule_id)

    def rules(self, session_id: int) -> list[tuple[int, Rule]]:
        """(id, Rule) of a session's rules, oldest first."""
        session_id = _id_number(session_id, "session")
        query = sa.select(rules.c.id, rules.c.spec).where(rules.c.session_id == session_id).order_by(rules.c.id)
        with self.engine.connect() as connection:
            return [(row.id, Rule.from_json(row.spec)) for row in connection.execute(query)]

    def remove_rule(self, rule_id: int) -> None:
        """Delete a rule and every preference it made (a block, or rows in a store from before blocks)."""
        session_id = self._session_of(rules, rule_id, "rule")
        with self.engine.begin() as connection:
            _lock(connection, session_id)
            if connection.execute(sa.select(rules.c.id).where(rules.c.id == rule_id)).scalar() is None:
                raise KeyError(f"no rule {rule_id}")  # removed by another process meanwhile
            connection.execute(preference_blocks.delete().where(preference_blocks.c.rule_id == rule_id))
            connection.execute(preferences.delete().where(preferences.c.rule_id == rule_id))
            # The rule's audit answers stay (they are the expert's clicks), no longer linked to it.
            connection.execute(answers.update().where(answers.c.rule_id == rule_id).values(rule_id=None))
            connection.execute(rules.delete().where(rules.c.id == rule_id))
            self._touch(connection, session_id)

    def _session_of(self, table: sa.Table, key, what: str) -> int:
        """The session a rule's or answer's row (``key``: its id) belongs to, which never changes;
        ``KeyError`` if there is none."""
        query = sa.select(table.c.session_id).where(table.c.id == _id_number(key, what))
        with self.engine.connect() as connection:
            session_id = connection.execute(query).scalar()
        if session_id is None:
            raise KeyError(f"no {what} {key}")
        return int(session_id)

    # ------------------------------------------------------------------ clicks
    def add_answer(
        self,
        session_id: int,
        row_a: int,
        row_b: int,
        choice: str,
        annotator: str,
        weight: float = 1.0,
        margin: float = 0.0,
        rule_id: int | None = None,
        swapped: bool | None = None,
    ) -> int:
        """Store a pairwise answer and its preferences, committed before returning; returns its id.

        'a': f(a) - f(b) >= margin; 'b': f(b) - f(a) >= margin; 'equal': |f(a) - f(b)| <= margin
        (two preferences); 'skip': no preference (kept, so the pair is not asked again).  rule_id :
        the session's rule whose pair this answers (an audit answer; its preferences count as any
        click's), else None; ``ValueError`` for a rule of another session or none.  swapped : whether
        the sides were shown the other way round from the order the pair was drawn in (None: unknown)."""
        if swapped is not None and not isinstance(swapped, bool | np.bool_):
            raise ValueError(f"swapped must be True, False or None, got {swapped!r}")
        _check_choice(choice)
        annotator = check_annotator(annotator)
        numeric = all(isinstance(x, numbers.Real) and not isinstance(x, bool) for x in (weight, margin))
        if not numeric or not np.isfinite(weight) or weight < 0 or not np.isfinite(margin):
            raise ValueError(
                f"weight must be a finite number >= 0 and margin a finite number, got {weight!r}, {margin!r}"
            )
        with self.engine.begin() as connection:
            _lock(connection, session_id)
            n_rows = _n_rows(connection, session_id)
            row_a, row_b = _check_row(row_a, n_rows, "row A"), _check_row(row_b, n_rows, "row B")
            if row_a == row_b:
                raise ValueError(f"an answer compares two different rows, got {row_a} twice")
            made = _answer_preferences(row_a, row_b, choice, margin, weight)
            if rule_id is not None:
                try:
                    rule_id = _id_number(rule_id, "rule")
                    owner_session = connection.execute(
                        sa.select(rules.c.session_id).where(rules.c.id == rule_id)
                    ).scalar()
                except KeyError:
                    owner_session = None
                if owner_session != session_id:
                    raise ValueError(f"session {session_id} has no rule {rule_id!r} to audit")
            revision = self._touch(connection, session_id)
            now = _now()
            answer_id = connection.execute(
                answers.insert().values(
                    session_id=session_id,
                    row_a=row_a,
                    row_b=row_b,
                    choice=choice,
                    weight=float(weight),
                    margin=float(margin),
                    annotator=annotator,
                    created_at=now,
                    rule_id=rule_id,
                    swapped=None if swapped is None else bool(swapped),
                )
            ).inserted_primary_key[0]
            owner = {"session_id": session_id, "revision": revision, "annotator": annotator, "created_at": now}
            _insert_clicks(connection, made, owner, answer_id)
        return int(answer_id)

    def answers(self, session_id: int) -> pd.DataFrame:
        """A session's answers, oldest first: id, row_a, row_b, choice, weight, margin, annotator,
        created_at, rule_id (the audited rule, a nullable integer: <NA> for other answers) and swapped
        (a nullable boolean: <NA> where not recorded)."""
        frame = self._session_rows(answers, session_id)
        frame["rule_id"] = pd.array(frame["rule_id"].astype("Float64"), dtype="Int64")
        frame["swapped"] = frame["swapped"].astype("boolean")
        return frame

    def _session_rows(self, table: sa.Table, session_id: int) -> pd.DataFrame:
        """The session's rows of ``table`` (answers, grades, queued pairs), oldest first, every column but
        session_id."""
        session_id = _id_number(session_id, "session")
        query = (
            sa.select(*[c for c in table.c if c.name != "session_id"])
            .where(table.c.session_id == session_id)
            .order_by(table.c.id)
        )
        with self.engine.connect() as connection:
            return pd.DataFrame(connection.execute(query).mappings().all(), columns=list(query.selected_columns.keys()))

    def edit_answer(self, answer_id: int, annotator: str, choice: str) -> None:
        """Change one of ``annotator``'s own answers to ``choice`` (its pair, weight and margin stay),
        with its preferences, in one transaction; ``ValueError`` for another annotator's answer."""
        _check_choice(choice)
        annotator = check_annotator(annotator)
        session_id = self._session_of(answers, answer_id, "answer")
        with self.engine.begin() as connection:
            _lock(connection, session_id)
            answer = self._own_answer(connection, answer_id, annotator)
            made = _answer_preferences(answer["row_a"], answer["row_b"], choice, answer["margin"], answer["weight"])
            connection.execute(preferences.delete().where(preferences.c.answer_id == answer_id))
            connection.execute(answers.update().where(answers.c.id == answer_id).values(choice=choice))
            revision = self._touch(connection, answer["session_id"])
            owner = {
                "session_id": answer["session_id"],
                "revision": revision,
                "annotator": answer["annotator"],
                "created_at": _now(),
            }
            _insert_clicks(connection, made, owner, answer_id)

    def remove_answer(self, answer_id: int, annotator: str) -> None:
        """Delete one of ``annotator``'s own answers and its preferences; ``ValueError`` for another's."""
        annotator = check_annotator(annotator)
        session_id = self._session_of(answers, answer_id, "answer")
        with self.engine.begin() as connection:
            _lock(connection, session_id)
            answer = self._own_answer(connection, answer_id, annotator)
            self._delete_answer(connection, answer_id, answer["session_id"])

    def _delete_answer(self, connection, answer_id: int, session_id: int) -> None:
        """Delete an answer and its preferences, in the caller's transaction."""
        connection.execute(preferences.delete().where(preferences.c.answer_id == answer_id))
        connection.execute(answers.delete().where(answers.c.id == answer_id))
        self._touch(connection, session_id)

    @staticmethod
    def _own_answer(connection, answer_id: int, annotator: str) -> dict:
        """The answer's row, if ``annotator`` (checked) gave it; ``KeyError`` if there is none (removed by
        another process meanwhile), else ``ValueError``."""
        answer = connection.execute(sa.select(answers).where(answers.c.id == int(answer_id))).mappings().first()
        if answer is None:
            raise KeyError(f"no answer {answer_id}")
        if answer["annotator"] != annotator:
            raise ValueError(f"answer {answer_id} is {answer['annotator']!r}'s: annotators change only their own")
        return dict(answer)

    def undo_answer(self, session_id: int, annotator: str) -> int | None:
        """Delete ``annotator``'s latest answer in the session and its preferences (another annotator's
        answers stay); its id, or None if they have none."""
        annotator = check_annotator(annotator)
        with self.engine.begin() as connection:
            _lock(connection, session_id)
            last = _latest_own(connection, answers, session_id, annotator)
            if last is None:
                return None
            self._delete_answer(connection, last, session_id)
        return int(last)

    # ------------------------------------------------------------------ grades
    def add_grade(self, session_id: int, row: int, grade: int, annotator: str) -> int:
        """Store ``annotator``'s grade (1 … the session's ``rating_scale``) of a row of the session's
        table, committed before returning; returns its id.  ``ValueError`` for a grade off the scale, a
        row outside the table or one the annotator graded already (edit that grade instead); nothing is
        written then."""
        annotator = check_annotator(annotator)
        with self.engine.begin() as connection:
            _lock(connection, session_id)
            row = _check_row(row, _n_rows(connection, session_id), "the graded row")
            grade = _check_grade(grade, rating_scale(_session_settings(connection, session_id)))
            held = connection.execute(
                sa.select(grades.c.id).where(
                    grades.c.session_id == session_id, grades.c.row == row, grades.c.annotator == annotator
                )
            ).scalar()
            if held is not None:
                raise ValueError(f"{annotator!r} graded row {row} already (grade {held}): edit that grade to change it")
            self._touch(connection, session_id, content=False)
            inserted = connection.execute(
                grades.insert().values(
                    session_id=session_id, row=row, grade=grade, annotator=annotator, created_at=_now()
                )
            )
            return int(inserted.inserted_primary_key[0])

    def grades(self, session_id: int) -> pd.DataFrame:
        """A session's grades, oldest first: id, row, grade, annotator, created_at."""
        return self._session_rows(grades, session_id)

    def edit_grade(self, grade_id: int, annotator: str, grade: int) -> None:
        """Change one of ``annotator``'s own grades to ``grade``; ``ValueError`` for another's grade or
        one off the scale."""
        annotator = check_annotator(annotator)
        session_id = self._session_of(grades, grade_id, "grade")
        with self.engine.begin() as connection:
            _lock(connection, session_id)
            self._own_grade(connection, grade_id, annotator)
            grade = _check_grade(grade, rating_scale(_session_settings(connection, session_id)))
            connection.execute(grades.update().where(grades.c.id == grade_id).values(grade=grade))
            self._touch(connection, session_id, content=False)

    def remove_grade(self, grade_id: int, annotator: str) -> None:
        """Delete one of ``annotator``'s own grades; ``ValueError`` for another's."""
        annotator = check_annotator(annotator)
        session_id = self._session_of(grades, grade_id, "grade")
        with self.engine.begin() as connection:
            _lock(connection, session_id)
            self._own_grade(connection, grade_id, annotator)
            connection.execute(grades.delete().where(grades.c.id == grade_id))
            self._touch(connection, session_id, content=False)

    @staticmethod
    def _own_grade(connection, grade_id: int, annotator: str) -> None:
        """``KeyError`` if the grade is gone (removed by another process meanwhile), ``ValueError`` unless
        ``annotator`` gave it."""
        owner = connection.execute(sa.select(grades.c.annotator).where(grades.c.id == int(grade_id))).scalar()
        if owner is None:
            raise KeyError(f"no grade {grade_id}")
        if owner != annotator:
            raise ValueError(f"grade {grade_id} is {owner!r}'s: annotators change only their own")

    def undo_grade(self, session_id: int, annotator: str) -> int | None:
        """Delete ``annotator``'s latest grade in the session (another annotator's stay); its id, or None
        if they have none."""
        annotator = check_annotator(annotator)
        with self.engine.begin() as connection:
            _lock(connection, session_id)
            last = _latest_own(connection, grades, session_id, annotator)
            if last is None:
                return None
            connection.execute(grades.delete().where(grades.c.id == last))
            self._touch(connection, session_id, content=False)
        return int(last)

    def export_grades(self, session_id: int) -> str:
        """The session's grades as CSV, oldest first: row, grade, annotator, created_at;
        ``import_grades`` reads it back."""
        return self.grades(session_id).drop(columns="id").to_csv(index=False)

    def import_grades(self, session_id: int, table: pd.DataFrame) -> int:
        """Add the grades of ``table`` (columns row, grade, annotator, as ``export_grades`` writes), in
        one transaction; a grade the session already holds (same row, grade and annotator) is left out.
        Returns how many were added; ``ValueError`` naming the first bad line (a row outside the table, a
        grade off the scale, a row graded twice by one annotator), nothing written."""
        missing = [name for name in ("row", "grade", "annotator") if name not in table.columns]
        if missing:
            raise ValueError(f"a grades table needs the columns row, grade and annotator; {missing} missing")
        with self.engine.begin() as connection:
            _lock(connection, session_id)
            n_rows, scale = _n_rows(connection, session_id), rating_scale(_session_settings(connection, session_id))
            held = connection.execute(
                sa.select(grades.c.row, grades.c.annotator, grades.c.grade).where(grades.c.session_id == session_id)
            ).all()
            graded = {(row, annotator): grade for row, annotator, grade in held}
            new = []
            for line, value in enumerate(table.to_dict("records"), start=2):
                try:
                    row = _check_row(_integer(value["row"]), n_rows, "the graded row")
                    grade = _check_grade(_integer(value["grade"]), scale)
                    annotator = check_annotator(value["annotator"])
                    if graded.get((row, annotator), grade) != grade:
                        raise ValueError(f"{annotator!r} gave row {row} grade {graded[row, annotator]} already")
                except (ValueError, TypeError) as error:
                    raise ValueError(f"line {line} of the grades: {error}") from None
                if (row, annotator) not in graded:
                    graded[row, annotator] = grade
                    new.append({"session_id": session_id, "row": row, "grade": grade, "annotator": annotator})
            if new:
                self._touch(connection, session_id, content=False)
                now = _now()
                connection.execute(grades.insert(), [value | {"created_at": now} for value in new])
        return len(new)

    # ------------------------------------------------------------------ shared queue
    def queue_pairs(self, session_id: int, pairs, copies: int, annotator: str) -> int:
        """Add pairs of rows (k, 2) to the session's shared queue, each to be answered by ``copies``
        annotators (1 to ``MAX_COPIES``); pairs already queued (either way round) are left out.
        Returns how many were added; ``ValueError`` for a bad row or count, nothing written."""
        annotator = check_annotator(annotator)
        if isinstance(copies, bool) or not isinstance(copies, numbers.Integral) or not 1 <= copies <= MAX_COPIES:
            raise ValueError(f"each queued pair goes to 1 to {MAX_COPIES} annotators, got {copies!r}")
        with self.engine.begin() as connection:
            _lock(connection, session_id)
            n_rows = _n_rows(connection, session_id)
            pairs = [
                (_check_row(a, n_rows, "row A"), _check_row(b, n_rows, "row B"))
                for a, b in np.asarray(pairs, dtype=object).reshape(-1, 2)
            ]
            if any(a == b for a, b in pairs):
                raise ValueError("a queued pair compares two different rows")
            held = {
                frozenset(pair)
                for pair in connection.execute(
                    sa.select(queued_pairs.c.row_a, queued_pairs.c.row_b).where(queued_pairs.c.session_id == session_id)
                )
            }
            new = []
            for pair in pairs:
                if frozenset(pair) not in held:
                    held.add(frozenset(pair))
                    new.append(pair)
            if new:
                self._touch(connection, session_id, content=False)
                now = _now()
                connection.execute(
                    queued_pairs.insert(),
                    [
                        {"session_id": session_id, "row_a": a, "row_b": b, "copies": int(copies)}
                        | {"annotator": annotator, "created_at": now}
                        for a, b in new
                    ],
                )
        return len(new)

    def queued_pairs(self, session_id: int) -> pd.DataFrame:
        """The session's shared queue, oldest first: id, row_a, row_b, copies, annotator, created_at."""
        return self._session_rows(queued_pairs, session_id)

    # ------------------------------------------------------------------ preferences
    def preferences(self, session_id: int) -> tuple[PreferenceSet, pd.DataFrame]:
        """The session's preferences in the order they were written, and their provenance (p rows:
        source, rule_id, answer_id, annotator).  Rows and blocks are read at one revision (if a write
        commits in between, they are read again); a block's content is read once per ``Store``."""
        session_id = _id_number(session_id, "session")
        while True:
            with self.engine.connect() as connection:
                revision = _revision(connection, session_id)
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
                if block_sets is not None and _revision(connection, session_id) == revision:
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

    def import_preferences(self, session_id: int, made: PreferenceSet, annotator: str, annotators=None) -> int:
        """Add preferences read from a file (source 'import'), leaving out those the session already
        holds from an import (the same i, j, margin and weight); returns how many were added (0: the
        file held nothing new, and nothing was written).  annotators : who made each preference (p,),
        e.g. the ``annotator`` column of an export, kept as one block per annotator; None: ``annotator``
        (the person importing) for all."""
        annotator = check_annotator(annotator)
        if not isinstance(made, PreferenceSet):
            raise TypeError("import_preferences takes a PreferenceSet")
        names = _annotator_column(annotators, len(made), annotator)
        _check_size(encode_block(made), f"the {len(made):,} imported preferences")
        with self.engine.begin() as connection:
            _lock(connection, session_id)
            made.check_indices(_n_rows(connection, session_id))
            new = ~_rows_in(made, _imported(connection, session_id))
            made, names = made[new], names[new]
            if len(made) == 0:
                return 0
            revision = self._touch(connection, session_id)
            for name in pd.unique(names):
                part = made[names == name]
                owner = {"session_id": session_id, "revision": revision, "annotator": name, "created_at": _now()}
                _insert_block(connection, part, encode_block(part), owner, "import")
        return len(made)

    def import_answers(self, session_id: int, table: pd.DataFrame) -> int:
        """Add the answers of ``table`` (as ``export_answers`` writes: row_a, row_b, choice, annotator,
        and optionally weight (1), margin (0), swapped), each with its preferences as a click, in one
        transaction; answers the session already holds (same rows, choice, annotator, weight and
        margin) are left out.  Returns how many were added; ``ValueError`` naming the first bad line,
        nothing written."""
        with self.engine.begin() as connection:
            _lock(connection, session_id)
            checked = _checked_answers(table, _n_rows(connection, session_id))
            held = connection.execute(
                sa.select(*(answers.c[name] for name in ANSWER_KEY)).where(answers.c.session_id == session_id)
            ).all()
            seen = {tuple(row) for row in held}
            added = 0
            revision = None
            for row in checked:
                key = tuple(row[name] for name in ANSWER_KEY)
                if key in seen:
                    continue
                seen.add(key)
                revision = revision or self._touch(connection, session_id)
                now = _now()
                answer_id = connection.execute(
                    answers.insert().values(session_id=session_id, created_at=now, rule_id=None, **row)
                ).inserted_primary_key[0]
                owner = {
                    "session_id": session_id,
                    "revision": revision,
                    "annotator": row["annotator"],
                    "created_at": now,
                }
                made = _answer_preferences(row["row_a"], row["row_b"], row["choice"], row["margin"], row["weight"])
                _insert_clicks(connection, made, owner, answer_id)
                added += 1
        return added

    def export_answers(self, session_id: int) -> str:
        """The session's answers as CSV, oldest first: row_a, row_b, choice, weight, margin, annotator,
        created_at, rule_id (the rule audited, empty for other pairs) and swapped; ``import_answers``
        reads it back."""
        frame = self.answers(session_id).drop(columns="id")
        return frame.to_csv(index=False, float_format="%.17g")

    def export_preferences(self, session_id: int, format: str = "csv") -> str:
        """The session's preferences with their provenance, as CSV or JSON text.  The columns i, j,
        margin and weight read back with ``PreferenceSet.from_frame`` (ZERO = -1 for unary ones)."""
        made, provenance = self.preferences(session_id)
        frame = pd.concat([made.to_frame(), provenance[["source", "rule_id", "answer_id", "annotator"]]], axis=1)
        if format == "csv":
            return frame.to_csv(index=False, float_format="%.17g")
        if format == "json":  # Python's float repr: every weight reads back exactly (to_json keeps 10 digits)
            return json.dumps(frame.astype(object).where(frame.notna(), None).to_dict("records"), default=_json_number)
        raise ValueError(f"format must be 'csv' or 'json', got {format!r}")

    def export_rules(self, session_id: int) -> str:
        """The session's rules as a JSON list of rule documents (``Rule.from_dict`` reads each), each
        with who added it ("annotator") and how many preferences it made ("pairs"), so that the same
        rule on the same data and split makes the same preferences again (``generate`` with
        ``max_pairs=pairs``, ``random_state=0``, as the Rules page)."""
        made, provenance = self.preferences(session_id)
        counts = provenance["rule_id"].value_counts()
        query = sa.select(rules.c.id, rules.c.spec, rules.c.annotator).where(rules.c.session_id == session_id)
        with self.engine.connect() as connection:
            stored = connection.execute(query.order_by(rules.c.id)).all()
        documents = [
            {**Rule.from_json(row.spec).to_dict(), "annotator": row.annotator, "pairs": int(counts.get(row.id, 0))}
            for row in stored
        ]
        return json.dumps(documents, indent=2)

    def contents(self, session_id: int) -> dict:
        """How much the session holds: rules, answers, imported preferences, queued pairs and grades, as
        counts."""
        session_id = _id_number(session_id, "session")
        with self.engine.connect() as connection:
            return _contents(connection, session_id)

    # ------------------------------------------------------------------ model runs
    def add_model_run(self, session_id: int, model: str, parameters: dict, metrics: dict, n_preferences: int) -> int:
        session_id = _id_number(session_id, "session")
        values = {
            "model": _check_name(model, "model", model_runs.c.model),
            "parameters": _check_size(_model_json(parameters), "the model's parameters"),
            "metrics": _check_size(_model_json(metrics), "the model's metrics"),
            "n_preferences": _check_count(n_preferences, "the number of preferences"),
        }
        with self.engine.begin() as connection:
            self._touch(connection, session_id, content=False)
            inserted = connection.execute(
                model_runs.insert().values(**values, session_id=session_id, created_at=_now())
            )
            return int(inserted.inserted_primary_key[0])

    def model_runs(self, session_id: int) -> pd.DataFrame:
        """A session's model runs, oldest first, with parameters and metrics as dicts."""
        session_id = _id_number(session_id, "session")
        query = sa.select(model_runs).where(model_runs.c.session_id == session_id).order_by(model_runs.c.id)
        with self.engine.connect() as connection:
            frame = pd.DataFrame(
                connection.execute(query).mappings().all(), columns=list(query.selected_columns.keys())
            )
        for column in ("parameters", "metrics"):
            frame[column] = frame[column].map(json.loads)
        return frame


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


def _insert_block(connection, made: PreferenceSet, content: bytes, owner: dict, source: str, rule_id=None) -> None:
    """One block of preferences (``content``: ``encode_block(made)``); nothing for an empty set.
    owner : session_id, revision, annotator and created_at."""
    if len(made):
        connection.execute(
            preference_blocks.insert().values(
                **owner, source=source, rule_id=rule_id, n_preferences=len(made), content=content
            )
        )


ANSWER_KEY = ("row_a", "row_b", "choice", "annotator", "weight", "margin")
"""What makes two answers the same answer, for an import."""


def _json_number(value):
    """A numpy number as JSON writes it (a Python int or float)."""
    if isinstance(value, np.integer | np.floating):
        return value.item()
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def _annotator_column(annotators, n: int, default: str) -> np.ndarray:
    """Who made each of n preferences (n,), each name checked (``check_annotator``); ``default`` for
    all when ``annotators`` is None."""
    if annotators is None:
        return np.full(n, default, dtype=object)
    names = np.asarray(annotators, dtype=object)
    if names.shape != (n,):
        raise ValueError(f"one annotator per preference: {n} preferences, {names.size} names")
    checked = {name: check_annotator(name) for name in pd.unique(names)}
    return np.array([checked[name] for name in names], dtype=object)


def _checked_answers(table: pd.DataFrame, n_rows: int) -> list[dict]:
    """The rows of an answers table as ``answers`` values (row_a, row_b, choice, annotator, weight,
    margin, swapped), each checked as ``Store.add_answer`` checks one; ``ValueError`` naming the
    first bad line (as numbered in the file, after its header)."""
    missing = [name for name in ("row_a", "row_b", "choice", "annotator") if name not in table.columns]
    if missing:
        raise ValueError(f"an answers table needs the columns row_a, row_b, choice and annotator; {missing} missing")
    checked = []
    for line, row in enumerate(table.to_dict("records"), start=2):
        try:
            swapped = row.get("swapped")
            swapped = None if swapped is None or pd.isna(swapped) else _boolean(swapped)
            value = {
                "row_a": _check_row(_integer(row["row_a"]), n_rows, "row A"),
                "row_b": _check_row(_integer(row["row_b"]), n_rows, "row B"),
                "choice": row["choice"],
                "annotator": check_annotator(row["annotator"]),
                "weight": float(row.get("weight", 1.0)),
                "margin": float(row.get("margin", 0.0)),
                "swapped": swapped,
            }
            if value["choice"] not in CHOICES:
                raise ValueError(f"choice must be one of {sorted(CHOICES)}, got {value['choice']!r}")
            if value["row_a"] == value["row_b"]:
                raise ValueError("an answer compares two different rows")
            if not np.isfinite(value["weight"]) or value["weight"] < 0 or not np.isfinite(value["margin"]):
                raise ValueError("weight must be finite and >= 0, margin finite")
            _answer_preferences(value["row_a"], value["row_b"], value["choice"], value["margin"], value["weight"])
        except (ValueError, TypeError) as error:
            raise ValueError(f"line {line} of the answers: {error}") from None
        checked.append(value)
    return checked


def _integer(value):
    """A row number read from a file: an integral float (2.0, as pandas reads a column with blanks) is
    that integer; anything else is left for ``_check_row`` to refuse."""
    if isinstance(value, float | np.floating) and np.isfinite(value) and float(value).is_integer():
        return int(value)
    return value


def _boolean(value) -> bool:
    """A swapped flag read from a file: True/False, 1/0 or their words."""
    if isinstance(value, bool | np.bool_):
        return bool(value)
    text = str(value).strip().lower()
    if text in ("true", "1", "1.0"):
        return True
    if text in ("false", "0", "0.0"):
        return False
    raise ValueError(f"swapped must be true or false, got {value!r}")


def _answer_preferences(row_a: int, row_b: int, choice: str, margin: float, weight: float) -> PreferenceSet:
    """What an answer says: 'a': f(a) - f(b) >= margin; 'b' the reverse; 'equal': |f(a) - f(b)| <= margin
    (two preferences; ``ValueError`` for a margin < 0); 'skip': nothing."""
    if choice == "equal" and margin < 0:
        raise ValueError("'about equal' takes a closeness margin >= 0")
    return {
        "a": lambda: PreferenceSet.order(row_a, row_b, margin, weight),
        "b": lambda: PreferenceSet.order(row_b, row_a, margin, weight),
        "equal": lambda: PreferenceSet.close(row_a, row_b, margin, weight),
        "skip": PreferenceSet.empty,
    }[choice]()


def _insert_clicks(connection, made: PreferenceSet, owner: dict, answer_id: int) -> None:
    """A click's preferences (one or two) as rows.  owner : as for ``_insert_block``."""
    rows = [
        {**owner, "i": int(i), "j": int(j), "margin": float(d), "weight": float(w), "source": "click"}
        | {"rule_id": None, "answer_id": answer_id}
        for i, j, d, w in zip(made.i, made.j, made.margin, made.weight, strict=True)
    ]
    if rows:
        connection.execute(preferences.insert(), rows)


def _revision(connection, session_id: int) -> int | None:
    return connection.execute(sa.select(sessions.c.revision).where(sessions.c.id == session_id)).scalar()


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


def _sqlite_pragmas(dbapi_connection, _record) -> None:
    """Foreign keys on; WAL with synchronous=FULL, so every committed transaction is on disk; a
    connection waits up to 10 s for another's write to end."""
    cursor = dbapi_connection.cursor()
    cursor.execute(f"PRAGMA busy_timeout={int(SQLITE_BUSY_SECONDS * 1000)}")
    cursor.execute("PRAGMA foreign_keys=ON")
    _use_wal(cursor)
    cursor.execute("PRAGMA synchronous=FULL")
    cursor.close()


SQLITE_BUSY_SECONDS = 10.0
"""How long a SQLite connection waits for another's lock before it gives up."""


def _use_wal(cursor) -> None:
    """Put the file in WAL mode, which it keeps: only a new file's first connections switch.  A switch
    that meets another connection's lock fails at once, without the busy timeout (four annotators
    opening one new file together failed so about one time in fifteen), so it is tried again until
    ``SQLITE_BUSY_SECONDS`` have passed."""
    deadline = time.monotonic() + SQLITE_BUSY_SECONDS
    while True:
        try:
            if cursor.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
                cursor.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() > deadline:
                raise
            time.sleep(0.02)
