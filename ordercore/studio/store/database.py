"""The database and its one handle, ``Store``: where it is (``store_url``), how it is opened (SQLite
with its pragmas; any SQLAlchemy URL), brought to the current tables (``migrations``), and the parts
of the store that ``Store`` is made of, one concern per module."""

from __future__ import annotations

import functools
import os
import sqlite3
import time
from pathlib import Path

import sqlalchemy as sa

from ordercore.preferences import PreferenceSet
from ordercore.studio.store.assessments import AssessmentStore
from ordercore.studio.store.items import ItemStore
from ordercore.studio.store.locking import LOCK_WAIT_SECONDS, lock_wait_seconds, milliseconds, wait_for_locks
from ordercore.studio.store.migrations import NotAStore, is_current, migrate
from ordercore.studio.store.model_runs import ModelRunStore
from ordercore.studio.store.preferences import PreferenceStore
from ordercore.studio.store.queue import QueueStore
from ordercore.studio.store.rules import RuleStore
from ordercore.studio.store.sessions import SessionStore
from ordercore.studio.store.transfer import TransferStore

DEFAULT_PATH = Path("ordercore_studio.sqlite")
"""The SQLite file used when neither ORDERCORE_STORE_URL nor ORDERCORE_STORE is set (in the
directory the app runs from)."""

SQLITE_BUSY_SECONDS = LOCK_WAIT_SECONDS
"""How long a SQLite connection waits for another's lock before it gives up (``locking``)."""


def store_url() -> str:
    """ORDERCORE_STORE_URL, else a SQLite file at ORDERCORE_STORE, else ``DEFAULT_PATH``."""
    if os.environ.get("ORDERCORE_STORE_URL"):
        return os.environ["ORDERCORE_STORE_URL"]
    return f"sqlite:///{Path(os.environ.get('ORDERCORE_STORE', DEFAULT_PATH)).resolve()}"


def _sqlite_pragmas(dbapi_connection, _record, seconds: float = SQLITE_BUSY_SECONDS) -> None:
    """Foreign keys on; WAL with synchronous=FULL, so every committed transaction is on disk; a
    connection waits up to ``seconds`` for another's write to end."""
    cursor = dbapi_connection.cursor()
    cursor.execute(f"PRAGMA busy_timeout={milliseconds(seconds)}")
    cursor.execute("PRAGMA foreign_keys=ON")
    _use_wal(cursor, seconds)
    cursor.execute("PRAGMA synchronous=FULL")
    cursor.close()


def _use_wal(cursor, seconds: float) -> None:
    """Put the file in WAL mode, which it keeps: only a new file's first connections switch.  A switch
    that meets another connection's lock fails at once, without the busy timeout (four annotators
    opening one new file together failed so about one time in fifteen), so it is tried again until
    ``seconds`` have passed."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            if cursor.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
                cursor.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() > deadline:
                raise
            time.sleep(0.02)


class Store(
    SessionStore, RuleStore, ItemStore, PreferenceStore, TransferStore, QueueStore, ModelRunStore, AssessmentStore
):
    """The project's database.  ``Store()`` opens the configured one (see ``store_url``) and brings
    it to the current tables (``migrations.migrate``: a new database gets them all, an older store the
    migrations it lacks; a current one is only read, no lock taken); ``Store("sqlite:///path")`` opens
    another.  A write waits at most ``lock_wait`` seconds (above 0, at most a day:
    ``locking.lock_wait_seconds``) for another connection's lock, then raises ``locking.StoreBusyError``
    and stores nothing.

    Its methods are those of its parts: sessions and data sets (``sessions``), rules (``rules``),
    answers and grades (``items``), preferences (``preferences``), exports and imports
    (``transfer``), the shared queue (``queue``), model runs (``model_runs``) and shared trust
    assessments (``assessments``)."""

    def __init__(self, url: str | None = None, lock_wait: float = LOCK_WAIT_SECONDS):
        lock_wait = lock_wait_seconds(lock_wait)  # before anything is opened
        self.url = url or store_url()
        self._blocks: dict[int, dict[tuple[int, int], PreferenceSet]] = {}  # see PreferenceStore._block_contents
        self.engine = _engine(self.url)
        if self.engine.dialect.name == "sqlite":
            _check_sqlite_path(self.engine.url)
            sa.event.listen(self.engine, "connect", functools.partial(_sqlite_pragmas, seconds=lock_wait))
        wait_for_locks(self.engine, lock_wait, _shown(self.engine.url))
        try:
            with self.engine.connect() as connection:
                current = is_current(connection)
                if not current:
                    _check_schema(connection, self.engine.url)
            if not current:  # made or completed under the schema lock (``migrate``)
                with self.engine.begin() as connection:
                    migrate(connection)
        except (sa.exc.OperationalError, sa.exc.DatabaseError, NotAStore) as error:
            self.engine.dispose()
            reason = str(error) if isinstance(error, NotAStore) else _reason(error)
            raise ValueError(f"cannot open the store {_shown(self.engine.url)}: {reason}") from None
        except ValueError:  # a schema that is not there, a lock held too long (``locking``): said in words
            self.engine.dispose()
            raise


def _engine(url: str) -> sa.Engine:
    """SQLAlchemy's engine for ``url``; ``ValueError`` naming a database kind it does not know, or for an
    SQLite URL with options (``?mode=ro``: the driver ignored them, and a store asked for read-only was
    written)."""
    try:
        parsed = sa.engine.make_url(url)
        if parsed.get_backend_name() == "sqlite" and parsed.query:
            options = "&".join(f"{key}={value}" for key, value in parsed.query.items())
            raise ValueError(
                f"cannot open the store {_shown(parsed)}: an SQLite store's URL takes no options, got {options!r} "
                "(a read-only store is not offered); remove the part from '?'"
            )
        return sa.create_engine(url)
    except ModuleNotFoundError as error:  # the dialect is known, its driver not installed (mysql:// → MySQLdb)
        parsed = sa.engine.make_url(url)
        raise ValueError(
            f"cannot open the store {_shown(parsed)}: its driver for {parsed.get_backend_name()!r} is not "
            f"installed (no module {error.name!r})"
        ) from None
    except sa.exc.NoSuchModuleError:
        kind = sa.engine.make_url(url).drivername
        raise ValueError(
            f"cannot open the store: {kind!r} is not a database kind SQLAlchemy knows or has installed"
        ) from None
    except sa.exc.ArgumentError:
        raise ValueError(
            f"cannot open the store: {url!r} is not a database URL (such as sqlite:////path/studio.sqlite or "
            "postgresql+psycopg://user@host/db); a file's path goes in ORDERCORE_STORE, a URL in ORDERCORE_STORE_URL"
        ) from None


def _check_sqlite_path(url: sa.engine.URL) -> None:
    """``ValueError`` when an SQLite store's path is a directory or another thing than a file (a device
    such as /dev/null: SQLite said 'disk I/O error')."""
    path = Path(url.database) if url.database and url.database != ":memory:" else None
    if path is not None and path.is_dir():
        raise ValueError(f"cannot open the store {_shown(url)}: it is a directory; give a file's path")
    if path is not None and path.exists() and not path.is_file():
        raise ValueError(
            f"cannot open the store {_shown(url)}: it is not a regular file (a device or pipe); give a file's path"
        )


def _check_schema(connection, url: sa.engine.URL) -> None:
    """``ValueError`` for a PostgreSQL URL whose search_path names no schema of the database (PostgreSQL
    said "no schema has been selected to create in"), naming it."""
    if connection.dialect.name != "postgresql":
        return
    if connection.execute(sa.text("SELECT current_schema()")).scalar() is None:
        path = connection.execute(sa.text("SHOW search_path")).scalar()
        raise ValueError(
            f"cannot open the store {_shown(url)}: its search_path {path!r} names no schema of the database "
            f"{url.database!r}: create the schema (CREATE SCHEMA) or name one that exists"
        )


def _shown(url: sa.engine.URL) -> str:
    """The store's URL as it may be shown: its file for SQLite, without a password otherwise."""
    if url.get_backend_name() == "sqlite":
        return repr(url.database or ":memory:")
    return url.render_as_string(hide_password=True)


def _reason(error: sa.exc.DBAPIError) -> str:
    """The database's own words for ``error`` (its first line, without SQLAlchemy's background link),
    with what it most often means for SQLite."""
    words = str(error.orig).splitlines()[0] if error.orig is not None else str(error).splitlines()[0]
    hints = {
        "file is not a database": " (the file exists but is not an SQLite database: choose another path)",
        "unable to open database file": " (does its directory exist, and may this user write there?)",
    }
    return words + hints.get(words, "")
