"""Durable labelling sessions: data sets, rules, answers and the preferences they make, model runs.

SQLAlchemy Core over a SQLite file by default (``ORDERCORE_STORE`` names another file, and
``ORDERCORE_STORE_URL`` any SQLAlchemy URL, e.g. PostgreSQL).  Every write is one transaction that
is committed before the call returns, and SQLite runs with ``synchronous=FULL`` in WAL mode, so a
confirmed answer survives a crash or a restart; a failed write changes nothing.

Preferences are rows with their source: a rule (``rule_id``) or a click (``answer_id``, the
answer that made it, so "about equal" keeps both directions together and undo removes both).
"""

from __future__ import annotations

import hashlib
import io
import json
import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pandas as pd
import sqlalchemy as sa

from ordercore.preferences import PreferenceSet
from ordercore.rules import Rule

DEFAULT_PATH = Path("ordercore_studio.sqlite")
"""The SQLite file used when neither ORDERCORE_STORE_URL nor ORDERCORE_STORE is set (in the
directory the app runs from)."""

MAX_DATASET_BYTES = 50 * 1024 * 1024
"""Largest uploaded table kept in the store (the app's upload limit is the same)."""

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


def _check_name(value: str, what: str) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > 200:
        raise ValueError(f"{what} must be a non-empty name of at most 200 characters")
    return value.strip()


def _add_missing_columns(engine: sa.Engine) -> None:
    """Add, with their server defaults, the columns that a store made by an earlier version lacks
    (``create_all`` only makes missing tables): its rows stay as they were."""
    inspector = sa.inspect(engine)
    with engine.begin() as connection:
        for table in metadata.sorted_tables:
            present = {column["name"] for column in inspector.get_columns(table.name)}
            for column in table.columns:
                if column.name not in present:
                    definition = sa.schema.CreateColumn(column).compile(dialect=engine.dialect)
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
        self.engine = sa.create_engine(self.url)
        if self.engine.dialect.name == "sqlite":
            sa.event.listen(self.engine, "connect", _sqlite_pragmas)
        metadata.create_all(self.engine)
        _add_missing_columns(self.engine)

    # ------------------------------------------------------------------ data sets and sessions
    def add_dataset(self, name: str, frame: pd.DataFrame, content: bytes | None = None) -> int:
        """The id of the data set with this content (added if new).  ``content`` (CSV bytes of an
        upload, at most ``MAX_DATASET_BYTES``) is kept so that a session can reopen it."""
        name = _check_name(name, "data set name")
        if content is not None and len(content) > MAX_DATASET_BYTES:
            raise ValueError(f"uploads are limited to {MAX_DATASET_BYTES // 2**20} MB")
        digest = hashlib.sha256(
            content if content is not None else pd.util.hash_pandas_object(frame, index=True).to_numpy().tobytes()
        ).hexdigest()
        with self.engine.begin() as connection:
            found = connection.execute(sa.select(datasets.c.id).where(datasets.c.content_hash == digest)).scalar()
            if found is not None:
                return int(found)
            return int(
                connection.execute(
                    datasets.insert().values(
                        content_hash=digest,
                        name=name,
                        n_rows=len(frame),
                        columns=json.dumps([str(c) for c in frame.columns]),
                        content=content,
                        created_at=_now(),
                    )
                ).inserted_primary_key[0]
            )

    def dataset(self, dataset_id: int) -> dict:
        """A data set's row as a dict (content as bytes or None)."""
        with self.engine.connect() as connection:
            row = connection.execute(sa.select(datasets).where(datasets.c.id == dataset_id)).mappings().first()
        if row is None:
            raise KeyError(f"no data set {dataset_id}")
        return dict(row)

    def create_session(self, name: str, dataset_id: int | None = None, settings: dict | None = None) -> SessionInfo:
        """A new, empty session; raises ``ValueError`` if the name is taken."""
        name = _check_name(name, "session name")
        with self.engine.begin() as connection:
            if connection.execute(sa.select(sessions.c.id).where(sessions.c.name == name)).scalar() is not None:
                raise ValueError(f"a session named {name!r} already exists; resume it or choose another name")
            now = _now()
            session_id = connection.execute(
                sessions.insert().values(
                    name=name,
                    dataset_id=dataset_id,
                    settings=json.dumps(settings or {}),
                    created_at=now,
                    updated_at=now,
                )
            ).inserted_primary_key[0]
        return SessionInfo(int(session_id), name, dataset_id, settings or {})

    def sessions(self) -> pd.DataFrame:
        """All sessions, newest activity first: id, name, dataset_id, created_at, updated_at."""
        query = sa.select(
            sessions.c.id, sessions.c.name, sessions.c.dataset_id, sessions.c.created_at, sessions.c.updated_at
        ).order_by(sessions.c.updated_at.desc(), sessions.c.id.desc())
        with self.engine.connect() as connection:
            return pd.DataFrame(connection.execute(query).mappings().all(), columns=list(query.selected_columns.keys()))

    def session(self, name: str) -> SessionInfo:
        with self.engine.connect() as connection:
            row = connection.execute(sa.select(sessions).where(sessions.c.name == name)).mappings().first()
        if row is None:
            raise KeyError(f"no session named {name!r}")
        return SessionInfo(row["id"], row["name"], row["dataset_id"], json.loads(row["settings"]))

    def update_settings(self, session_id: int, settings: dict, dataset_id: int | None = None) -> None:
        """Replace a session's settings (and data set, if given)."""
        values = {"settings": json.dumps(settings), "updated_at": _now()}
        if dataset_id is not None:
            values["dataset_id"] = dataset_id
        with self.engine.begin() as connection:
            if connection.execute(sessions.update().where(sessions.c.id == session_id).values(**values)).rowcount != 1:
                raise KeyError(f"no session {session_id}")

    def _touch(self, connection, session_id: int, content: bool = True) -> None:
        """Mark a write to the session: its time, and with ``content`` (rules, answers, preferences)
        its revision; raise ``KeyError`` for an unknown session."""
        values = {"updated_at": _now()}
        if content:
            values["revision"] = sessions.c.revision + 1
        touched = connection.execute(sessions.update().where(sessions.c.id == session_id).values(**values)).rowcount
        if touched != 1:
            raise KeyError(f"no session {session_id}")

    def revision(self, session_id: int) -> int:
        """A number that changes with every write of the session's rules, answers or preferences (not
        its settings or model runs): a cheap test for "any new preferences?"."""
        with self.engine.connect() as connection:
            value = connection.execute(sa.select(sessions.c.revision).where(sessions.c.id == session_id)).scalar()
        if value is None:
            raise KeyError(f"no session {session_id}")
        return int(value)

    # ------------------------------------------------------------------ rules
    def add_rule(self, session_id: int, rule: Rule, made: PreferenceSet, annotator: str) -> int:
        """Store a rule and the preferences it made, in one transaction; returns the rule's id."""
        annotator = _check_name(annotator, "annotator")
        if not isinstance(rule, Rule) or not isinstance(made, PreferenceSet):
            raise TypeError("add_rule takes a Rule and the PreferenceSet it generated")
        with self.engine.begin() as connection:
            self._touch(connection, session_id)
            now = _now()
            rule_id = connection.execute(
                rules.insert().values(
                    session_id=session_id, name=rule.name, spec=rule.to_json(), annotator=annotator, created_at=now
                )
            ).inserted_primary_key[0]
            self._insert_preferences(connection, session_id, made, "rule", annotator, now, rule_id=rule_id)
        return int(rule_id)

    def rules(self, session_id: int) -> list[tuple[int, Rule]]:
        """(id, Rule) of a session's rules, oldest first."""
        query = sa.select(rules.c.id, rules.c.spec).where(rules.c.session_id == session_id).order_by(rules.c.id)
        with self.engine.connect() as connection:
            return [(row.id, Rule.from_json(row.spec)) for row in connection.execute(query)]

    def remove_rule(self, rule_id: int) -> None:
        """Delete a rule and every preference it made."""
        with self.engine.begin() as connection:
            session_id = connection.execute(sa.select(rules.c.session_id).where(rules.c.id == rule_id)).scalar()
            if session_id is None:
                raise KeyError(f"no rule {rule_id}")
            connection.execute(preferences.delete().where(preferences.c.rule_id == rule_id))
            connection.execute(rules.delete().where(rules.c.id == rule_id))
            self._touch(connection, session_id)

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
    ) -> int:
        """Store a pairwise answer and its preferences, committed before returning; returns its id.

        'a': f(a) - f(b) >= margin; 'b': f(b) - f(a) >= margin; 'equal': |f(a) - f(b)| <= margin
        (two preferences); 'skip': no preference (kept, so the pair is not asked again)."""
        if choice not in CHOICES:
            raise ValueError(f"choice must be one of {sorted(CHOICES)}, got {choice!r}")
        annotator = _check_name(annotator, "annotator")
        row_a, row_b = int(row_a), int(row_b)
        if row_a == row_b or min(row_a, row_b) < 0:
            raise ValueError(f"an answer compares two different rows >= 0, got {row_a} and {row_b}")
        if not np.isfinite(weight) or weight < 0 or not np.isfinite(margin):
            raise ValueError("weight must be finite and >= 0, margin finite")
        if choice == "equal" and margin < 0:
            raise ValueError("'about equal' takes a closeness margin >= 0")
        made = {
            "a": PreferenceSet.order(row_a, row_b, margin, weight),
            "b": PreferenceSet.order(row_b, row_a, margin, weight),
            "equal": PreferenceSet.close(row_a, row_b, margin, weight),
            "skip": PreferenceSet.empty(),
        }[choice]
        with self.engine.begin() as connection:
            self._touch(connection, session_id)
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
                )
            ).inserted_primary_key[0]
            self._insert_preferences(connection, session_id, made, "click", annotator, now, answer_id=answer_id)
        return int(answer_id)

    def answers(self, session_id: int) -> pd.DataFrame:
        """A session's answers, oldest first: id, row_a, row_b, choice, weight, margin, annotator, created_at."""
        query = (
            sa.select(*[c for c in answers.c if c.name != "session_id"])
            .where(answers.c.session_id == session_id)
            .order_by(answers.c.id)
        )
        with self.engine.connect() as connection:
            return pd.DataFrame(connection.execute(query).mappings().all(), columns=list(query.selected_columns.keys()))

    def undo_answer(self, session_id: int) -> int | None:
        """Delete the session's latest answer and its preferences; its id, or None if there was none."""
        with self.engine.begin() as connection:
            last = connection.execute(
                sa.select(sa.func.max(answers.c.id)).where(answers.c.session_id == session_id)
            ).scalar()
            if last is None:
                return None
            connection.execute(preferences.delete().where(preferences.c.answer_id == last))
            connection.execute(answers.delete().where(answers.c.id == last))
            self._touch(connection, session_id)
        return int(last)

    # ------------------------------------------------------------------ preferences
    def _insert_preferences(self, connection, session_id, made: PreferenceSet, source, annotator, now, **owner):
        if len(made) == 0:
            return
        rows = [
            {
                "session_id": session_id,
                "i": int(i),
                "j": int(j),
                "margin": float(d),
                "weight": float(w),
                "source": source,
                "annotator": annotator,
                "created_at": now,
                "rule_id": owner.get("rule_id"),
                "answer_id": owner.get("answer_id"),
            }
            for i, j, d, w in zip(made.i, made.j, made.margin, made.weight, strict=True)
        ]
        connection.execute(preferences.insert(), rows)

    def preferences(self, session_id: int) -> tuple[PreferenceSet, pd.DataFrame]:
        """The session's preferences in insertion order, and their provenance (p rows: id, source,
        rule_id, answer_id, annotator)."""
        columns = ["id", "i", "j", "margin", "weight", "source", "rule_id", "answer_id", "annotator"]
        query = (
            sa.select(*(preferences.c[name] for name in columns))
            .where(preferences.c.session_id == session_id)
            .order_by(preferences.c.id)
        )
        with self.engine.connect() as connection:
            rows = connection.execute(query).all()
        # Column-wise from plain tuples: per-row mappings, datetimes or pandas' record probing cost
        # several times the query at 20,000 preferences.
        values = list(zip(*rows, strict=True)) if rows else [()] * len(columns)
        frame = pd.DataFrame(dict(zip(columns, values, strict=True)))
        if len(frame) == 0:
            return PreferenceSet.empty(), frame.drop(columns=["i", "j", "margin", "weight"])
        made = PreferenceSet.from_frame(frame[["i", "j", "margin", "weight"]])
        return made, frame[["id", "source", "rule_id", "answer_id", "annotator"]]

    def import_preferences(self, session_id: int, made: PreferenceSet, annotator: str) -> int:
        """Add preferences read from a file (source 'import'); returns how many."""
        annotator = _check_name(annotator, "annotator")
        if not isinstance(made, PreferenceSet):
            raise TypeError("import_preferences takes a PreferenceSet")
        settings = self._settings(session_id)
        n_rows = settings.get("n_rows")
        if n_rows is not None:
            made.check_indices(int(n_rows))
        with self.engine.begin() as connection:
            self._touch(connection, session_id)
            self._insert_preferences(connection, session_id, made, "import", annotator, _now())
        return len(made)

    def export_preferences(self, session_id: int, format: str = "csv") -> str:
        """The session's preferences with their provenance, as CSV or JSON text.  The columns i, j,
        margin and weight read back with ``PreferenceSet.from_frame`` (ZERO = -1 for unary ones)."""
        made, provenance = self.preferences(session_id)
        frame = pd.concat([made.to_frame(), provenance[["source", "rule_id", "answer_id", "annotator"]]], axis=1)
        if format == "csv":
            buffer = io.StringIO()
            frame.to_csv(buffer, index=False)
            return buffer.getvalue()
        if format == "json":
            return frame.to_json(orient="records")
        raise ValueError(f"format must be 'csv' or 'json', got {format!r}")

    def export_rules(self, session_id: int) -> str:
        """The session's rules as a JSON list of rule documents (``Rule.from_dict`` reads each)."""
        return json.dumps([rule.to_dict() for _, rule in self.rules(session_id)], indent=2)

    def _settings(self, session_id: int) -> dict:
        with self.engine.connect() as connection:
            row = connection.execute(sa.select(sessions.c.settings).where(sessions.c.id == session_id)).scalar()
        if row is None:
            raise KeyError(f"no session {session_id}")
        return json.loads(row)

    # ------------------------------------------------------------------ model runs
    def add_model_run(self, session_id: int, model: str, parameters: dict, metrics: dict, n_preferences: int) -> int:
        with self.engine.begin() as connection:
            self._touch(connection, session_id, content=False)
            return int(
                connection.execute(
                    model_runs.insert().values(
                        session_id=session_id,
                        model=_check_name(model, "model"),
                        parameters=json.dumps(parameters, default=float),
                        metrics=json.dumps(metrics, default=float),
                        n_preferences=int(n_preferences),
                        created_at=_now(),
                    )
                ).inserted_primary_key[0]
            )

    def model_runs(self, session_id: int) -> pd.DataFrame:
        """A session's model runs, oldest first, with parameters and metrics as dicts."""
        query = sa.select(model_runs).where(model_runs.c.session_id == session_id).order_by(model_runs.c.id)
        with self.engine.connect() as connection:
            frame = pd.DataFrame(
                connection.execute(query).mappings().all(), columns=list(query.selected_columns.keys())
            )
        for column in ("parameters", "metrics"):
            frame[column] = frame[column].map(json.loads)
        return frame


def _sqlite_pragmas(dbapi_connection, _record) -> None:
    """Foreign keys on; WAL with synchronous=FULL, so every committed transaction is on disk."""
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=FULL")
    cursor.execute("PRAGMA busy_timeout=10000")
    cursor.close()
