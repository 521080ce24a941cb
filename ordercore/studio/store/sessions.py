"""Sessions and their data sets, settings and revision, and the session lock every write takes.

A write to a session begins by locking the session's row (``lock_session``), so that the checks it
makes (row numbers against the session's table, the rule it audits, what it already holds) and what
it writes see every write committed before it, on SQLite and PostgreSQL alike.  ``touch`` marks the
write: the session's time, and for rules, answers and preferences its revision.
"""

from __future__ import annotations

import hashlib
import json
import numbers
import unicodedata
from dataclasses import dataclass
from datetime import UTC, datetime

import numpy as np
import pandas as pd
import sqlalchemy as sa

from ordercore.inputs.counts import row_numbers
from ordercore.inputs.printable import quoted
from ordercore.lp.problem import TargetScaling
from ordercore.preferences import PreferenceSet
from ordercore.studio.splits import check_split
from ordercore.studio.store.frames import check_frame, frame_bytes
from ordercore.studio.store.limits import check_count, check_name, check_size, composed, id_number, json_text
from ordercore.studio.store.schema import (
    answers,
    datasets,
    grades,
    preference_blocks,
    preferences,
    queued_pairs,
    rules,
    sessions,
)

MAX_DATASET_BYTES = 50 * 1024 * 1024
"""Largest uploaded table kept in the store (the app's upload limit is the same)."""

DEFAULT_RATING_SCALE = 5
"""Grades 1 … 5 unless the session's settings say otherwise."""

MAX_RATING_SCALE = 9
"""Largest scale: one number key per grade, 1 … 9."""

CONTENT_WORDS = {
    "rules": "rule",
    "answers": "answer",
    "imported": "imported preference",
    "queued": "queued pair",
    "grades": "grade",
}
"""What ``describe_contents`` calls each count of ``Store.contents``, in its order."""


@dataclass(frozen=True)
class SessionInfo:
    id: int
    name: str
    dataset_id: int | None
    settings: dict


def now() -> datetime:
    return datetime.now(UTC)


def lock_session(connection, session_id) -> int:
    """Lock the session's row until the caller's transaction ends (an update changing nothing): the
    writes to one session are made one after another, each seeing all committed before it (the
    first statement of a write, so that on SQLite the transaction starts as a writer).  Returns the
    session's id as an int (``id_number``), which the write binds from then on: SQLite never matched a
    numpy integer with a row, PostgreSQL did (corpus 11, SQ01, SQ02).  ``KeyError`` for an unknown session."""
    session_id = id_number(session_id, "session")
    query = sessions.update().where(sessions.c.id == session_id).values(revision=sessions.c.revision)
    if connection.execute(query).rowcount != 1:
        raise KeyError(f"no session {session_id}")
    return session_id


def touch(connection, session_id: int, content: bool = True) -> int | None:
    """Mark a write to the session: its time, and with ``content`` (rules, answers, preferences) its
    revision, which is returned; raise ``KeyError`` for an unknown session."""
    values = {"updated_at": now()}
    if content:
        values["revision"] = sessions.c.revision + 1
    touched = connection.execute(sessions.update().where(sessions.c.id == session_id).values(**values)).rowcount
    if touched != 1:
        raise KeyError(f"no session {session_id}")
    if content:
        return connection.execute(sa.select(sessions.c.revision).where(sessions.c.id == session_id)).scalar_one()
    return None


def known_session(connection, session_id) -> int:
    """``session_id`` as an int (``id_number``) naming a session the store holds (one read by the primary
    key, in the reader's ``connection``); ``KeyError`` 'no session …' else: an id naming no session is
    refused, never read as an empty session."""
    session_id = id_number(session_id, "session")
    if connection.execute(sa.select(sessions.c.id).where(sessions.c.id == session_id)).scalar() is None:
        raise KeyError(f"no session {session_id}")
    return session_id


def read_revision(connection, session_id: int) -> int | None:
    return connection.execute(sa.select(sessions.c.revision).where(sessions.c.id == session_id)).scalar()


def session_settings(connection, session_id: int) -> dict:
    """The session's settings, read in the caller's transaction."""
    return json.loads(connection.execute(sa.select(sessions.c.settings).where(sessions.c.id == session_id)).scalar())


def n_rows(connection, session_id: int) -> int:
    """The number of rows of the session's table, read in the caller's transaction; ``ValueError``
    before its data is chosen."""
    settings = session_settings(connection, session_id)
    if settings.get("n_rows") is None:
        raise ValueError("this session has no data yet: choose it on the Data page first")
    return int(settings["n_rows"])


SMALLEST_SCALE = float(np.finfo(np.float64).tiny)
"""The smallest labels' scale a session records: float64's smallest normal number (2.2e-308)."""


def label_scaling(settings: dict) -> TargetScaling | None:
    """The models' scaling of the session's labels, y~ = (y - center) / scale, that its settings record
    as 'label_scaling' = [center, scale] (written with its data by ``studio.data.data_settings``), or None
    when they record none; ``ValueError`` unless it is two finite numbers, the scale above 0 (a session
    storing ["a", "b"], [0, 0] or [0] refused every later answer and rule: corpus 11, S040-S051), the scale a
    normal float64 (a subnormal one such as 1e-320 was kept, and then every margin refused: corpus 13, LS09)
    and the center within float64's range in units of the scale (margins are divided by the scale)."""
    value = settings.get("label_scaling")
    if value is None:
        return None
    numbers_given = isinstance(value, list | tuple) and len(value) == 2
    numbers_given = numbers_given and all(isinstance(x, numbers.Real) and not isinstance(x, bool) for x in value)
    try:
        center, scale = map(float, value) if numbers_given else (np.nan, np.nan)
    except OverflowError:  # an int beyond float64
        center, scale = np.inf, np.inf
    largest = float(np.finfo(np.float64).max)  # a Python float: largest * scale is inf without a warning
    if not (np.isfinite(center) and np.isfinite(scale) and scale >= SMALLEST_SCALE and abs(center) <= largest * scale):
        raise ValueError(
            "label_scaling (the labels' center and scale, which the store checks margins with) must be two finite "
            f"numbers [center, scale], the scale at least {SMALLEST_SCALE:.3g} (float64's smallest normal number) and "
            f"the center at most {largest:.3g} times the scale: margins are divided by the scale, and a smaller one "
            f"leaves no margin a model can fit (rescale the target); got {quoted(value)}"
        )
    return TargetScaling(center, scale)


def check_margins(connection, session_id: int, made: PreferenceSet) -> None:
    """``ValueError`` in ``TargetScaling.margins``' words for preferences whose margin the models cannot
    fit on the session's labels (over 1e9 times their spread), from the scaling its settings record
    (``label_scaling``); a session whose data was chosen before that was recorded is checked by the
    engine only (``studio.data.check_margin``)."""
    scaling = label_scaling(session_settings(connection, session_id))
    if scaling is not None and len(made):
        scaling.margins(made)


def session_of(engine: sa.Engine, table: sa.Table, key, what: str) -> int:
    """The session a row of ``table`` (``key``: its id; ``what`` names it) belongs to, which never
    changes; ``KeyError`` if there is none."""
    query = sa.select(table.c.session_id).where(table.c.id == id_number(key, what))
    with engine.connect() as connection:
        session_id = connection.execute(query).scalar()
    if session_id is None:
        raise KeyError(f"no {what} {key}")
    return int(session_id)


def session_rows(engine: sa.Engine, table: sa.Table, session_id: int) -> pd.DataFrame:
    """The session's rows of ``table`` (answers, grades, queued pairs), oldest first, every column but
    session_id."""
    with engine.connect() as connection:
        session_id = known_session(connection, session_id)
        query = (
            sa.select(*[c for c in table.c if c.name != "session_id"])
            .where(table.c.session_id == session_id)
            .order_by(table.c.id)
        )
        return pd.DataFrame(connection.execute(query).mappings().all(), columns=list(query.selected_columns.keys()))


def rating_scale(settings: dict) -> int:
    """The session's rating scale K (grades are 1 … K): settings['ratings']['scale'], default
    ``DEFAULT_RATING_SCALE``; ``ValueError`` unless an integer from 2 to ``MAX_RATING_SCALE``."""
    scale = settings.get("ratings", {}).get("scale", DEFAULT_RATING_SCALE)
    if isinstance(scale, bool) or not isinstance(scale, numbers.Integral) or not 2 <= scale <= MAX_RATING_SCALE:
        raise ValueError(f"a rating scale has 2 to {MAX_RATING_SCALE} grades, got {scale!r}")
    return int(scale)


def _settings_json(settings) -> str:
    """A session's settings as stored: a dict of JSON values (text escaped, so NUL is stored as
    \\u0000), its 'n_rows', if set, a row count, its rating scale one ``rating_scale`` takes, its
    'label_scaling', if set, one ``label_scaling`` takes, no NaN or infinity (``limits.json_text``);
    ``TypeError``/``ValueError`` otherwise."""
    if not isinstance(settings, dict):
        raise TypeError(f"session settings must be a dict, got {type(settings).__name__}")
    if settings.get("n_rows") is not None:
        check_count(settings["n_rows"], "the number of rows (n_rows)")
    if not isinstance(settings.get("ratings", {}), dict):
        raise TypeError("the session's rating settings ('ratings') must be a dict")
    rating_scale(settings)
    label_scaling(settings)
    return check_size(json_text(settings, "session settings", "session setting"), "the session settings")


def contents(connection, session_id: int) -> dict:
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


def describe_contents(held: dict) -> str:
    """``Store.contents`` in words, only what the session holds: "2 rules, 1 answer and 19 grades";
    "nothing" when it holds nothing."""
    parts = [
        f"{held[key]:,} {word}{'' if held[key] == 1 else 's'}" for key, word in CONTENT_WORDS.items() if held.get(key)
    ]
    if len(parts) < 2:
        return parts[0] if parts else "nothing"
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def _dataset_exists(connection, dataset_id) -> bool:
    query = sa.select(datasets.c.id).where(datasets.c.id == id_number(dataset_id, "data set"))
    return connection.execute(query).scalar() is not None


def _dataset_shape(connection, dataset_id) -> tuple[int, list[str]] | None:
    """(n_rows, column names) of a data set, or None for no data set."""
    if dataset_id is None:
        return None
    query = sa.select(datasets.c.n_rows, datasets.c.columns).where(datasets.c.id == dataset_id)
    row = connection.execute(query).one_or_none()
    return None if row is None else (int(row.n_rows), json.loads(row.columns))


def _check_on_table(settings: dict, n_rows: int, columns: list[str]) -> None:
    """``ValueError`` naming the first setting the session's table lacks: a target or feature not among
    its columns, a labeled or test row not among its rows (row numbers refer to the table)."""
    named = [("target", settings["target"])] if settings.get("target") is not None else []
    named += [("feature", feature) for feature in settings.get("features") or ()]
    for what, column in named:
        if str(column) not in columns:
            raise ValueError(f"the {what} column {quoted(column)} is not in the session's table")
    for key in ("labeled", "test"):
        row_numbers(settings.get(key) or [], n_rows, f"{key} row")


def _session_named(connection, name: str) -> int | None:
    """The id of the session named ``name`` (composed, ``limits.composed``), or None: one read by the name, then,
    for a name stored before names were composed (e + a combining accent), each stored name composed."""
    found = connection.execute(sa.select(sessions.c.id).where(sessions.c.name == name)).scalar()
    if found is not None:
        return int(found)
    held = connection.execute(sa.select(sessions.c.id, sessions.c.name)).all()
    return next((int(row.id) for row in held if unicodedata.normalize("NFC", row.name) == name), None)


def _dataset_with_content(connection, digest: str) -> int | None:
    """The id of the data set whose content hashes to ``digest``, or None."""
    return connection.execute(sa.select(datasets.c.id).where(datasets.c.content_hash == digest)).scalar()


class SessionStore:
    """``Store``'s data sets and sessions (a part of it: ``engine`` is the store's)."""

    engine: sa.Engine

    def add_dataset(self, name: str, frame: pd.DataFrame, content: bytes | None = None) -> int:
        """The id of the data set with this content (added if new): ``content`` (CSV bytes of an upload, at
        most ``MAX_DATASET_BYTES``, kept so that a session can reopen it), else the table's column names,
        types and values (``frames.frame_bytes``).  A ``frame`` the Studio cannot use is refused in words before
        anything is written (``frames.check_frame``)."""
        name = check_name(name, "data set name", datasets.c.name)
        check_frame(frame, content)
        if content is not None and len(content) > MAX_DATASET_BYTES:
            raise ValueError(f"uploads are limited to {MAX_DATASET_BYTES // 2**20} MB")
        digest = hashlib.sha256(content if content is not None else frame_bytes(frame)).hexdigest()
        values = {
            "content_hash": digest,
            "name": name,
            "n_rows": check_count(len(frame), "the number of rows"),
            "columns": check_size(json.dumps([str(c) for c in frame.columns]), "the column names"),
            "content": content,
        }
        try:
            with self.engine.begin() as connection:
                found = _dataset_with_content(connection, digest)
                if found is not None:
                    return int(found)
                inserted = connection.execute(datasets.insert().values(**values, created_at=now()))
                return int(inserted.inserted_primary_key[0])
        except sa.exc.IntegrityError:  # another process added the same content meanwhile: that one
            with self.engine.connect() as connection:
                found = _dataset_with_content(connection, digest)
            if found is None:
                raise
            return int(found)

    def dataset(self, dataset_id: int) -> dict:
        """A data set's row as a dict (content as bytes or None)."""
        dataset_id = id_number(dataset_id, "data set")
        with self.engine.connect() as connection:
            row = connection.execute(sa.select(datasets).where(datasets.c.id == dataset_id)).mappings().first()
        if row is None:
            raise KeyError(f"no data set {dataset_id}")
        return dict(row)

    def create_session(self, name: str, dataset_id: int | None = None, settings: dict | None = None) -> SessionInfo:
        """A new, empty session; ``ValueError`` if the name, stripped and composed (``limits.composed``), is taken
        (also by another process at the same moment, or spelt with combining accents) or for data settings no
        session can open with (``splits.check_split``), ``KeyError`` for an unknown data set; nothing is written
        then."""
        name = check_name(composed(name), "session name", sessions.c.name)
        settings = {} if settings is None else settings
        stored = _settings_json(settings)
        check_split(settings)
        taken = ValueError(f"a session named {name!r} already exists; resume it or choose another name")
        try:
            with self.engine.begin() as connection:
                if dataset_id is not None and not _dataset_exists(connection, dataset_id):
                    raise KeyError(f"no data set {dataset_id}")
                if _session_named(connection, name) is not None:
                    raise taken
                created = now()
                session_id = connection.execute(
                    sessions.insert().values(
                        name=name, dataset_id=dataset_id, settings=stored, created_at=created, updated_at=created
                    )
                ).inserted_primary_key[0]
        except sa.exc.IntegrityError:  # the unique name, taken by a write committed after the check
            with self.engine.connect() as connection:
                if _session_named(connection, name) is None:
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
        """The session named ``name``, stripped and composed as names are stored (``limits.composed``): 'José'
        typed with a combining accent names the session 'José'; ``KeyError`` if there is none."""
        with self.engine.connect() as connection:
            session_id = _session_named(connection, composed(name)) if isinstance(name, str) else None
        if session_id is None:
            raise KeyError(f"no session named {name!r}")
        return self.session_by_id(session_id)

    def session_by_id(self, session_id: int) -> SessionInfo:
        session_id = id_number(session_id, "session")
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
        of data set, source or number of rows raises ``ValueError`` and changes nothing, as do columns
        and rows the table lacks and a split no session can open with (``splits.check_split``)."""
        values = {"settings": _settings_json(settings), "updated_at": now()}
        if dataset_id is not None:
            values["dataset_id"] = dataset_id
        with self.engine.begin() as connection:  # checked and written in one transaction: no answer slips in
            session_id = lock_session(connection, session_id)
            if dataset_id is not None and not _dataset_exists(connection, dataset_id):
                raise KeyError(f"no data set {dataset_id}")
            current = connection.execute(
                sa.select(sessions.c.settings, sessions.c.dataset_id).where(sessions.c.id == session_id)
            ).one()
            held_settings = json.loads(current.settings)
            table = _dataset_shape(connection, dataset_id if dataset_id is not None else current.dataset_id)
            if table is not None:
                _check_on_table(settings, *table)
            check_split(settings)  # what study_data checks: a session can open with them
            changed = (
                (dataset_id is not None and dataset_id != current.dataset_id)
                or settings.get("source") != held_settings.get("source")
                or settings.get("n_rows") != held_settings.get("n_rows")
            )
            held = contents(connection, session_id)
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

    def revision(self, session_id: int) -> int:
        """A number that changes with every write of the session's rules, answers or preferences (not
        its settings, grades, model runs or assessments): a cheap test for "any new preferences?"."""
        session_id = id_number(session_id, "session")
        with self.engine.connect() as connection:
            value = read_revision(connection, session_id)
        if value is None:
            raise KeyError(f"no session {session_id}")
        return int(value)

    def contents(self, session_id: int) -> dict:
        """How much the session holds: rules, answers, imported preferences, queued pairs and grades, as
        counts."""
        with self.engine.connect() as connection:
            return contents(connection, known_session(connection, session_id))
