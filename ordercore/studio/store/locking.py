"""How long a write waits for another connection's lock, and what it says when it gives up.

Every write to a session begins by locking its row (``sessions.lock_session``); SQLite's writers also
take the file's one write lock.  A connection waits at most ``LOCK_WAIT_SECONDS`` for a lock another
connection holds: SQLite's ``busy_timeout``, PostgreSQL's ``lock_timeout`` (without one, a write waited
for as long as an idle transaction held the session's row, and the Studio page with it).  A write that
gives up raises ``StoreBusyError`` naming the store, instead of the driver's words and the SQL; its
transaction is rolled back, so nothing of it is stored.
"""

from __future__ import annotations

import math
import numbers

import sqlalchemy as sa

LOCK_WAIT_SECONDS = 10.0
"""How long a connection waits for another's lock before it gives up (SQLite and PostgreSQL alike)."""

LOCK_NOT_AVAILABLE = "55P03"
"""PostgreSQL's SQLSTATE for a lock wait that ran out (``lock_timeout``)."""


class StoreBusyError(TimeoutError, ValueError):
    """A write gave up waiting for a lock another connection held; nothing of it was stored.  A
    ``TimeoutError``, and a ``ValueError`` as every refused write is (the pages show it in words)."""


def wait_for_locks(engine: sa.Engine, seconds: float, shown: str) -> None:
    """Make ``engine``'s connections wait at most ``seconds`` for another's lock (on PostgreSQL; SQLite's
    wait is set with its pragmas), and turn a wait that runs out into ``StoreBusyError`` naming the store
    as ``shown``; ``ValueError`` unless ``seconds`` is a positive number."""
    if isinstance(seconds, bool) or not isinstance(seconds, numbers.Real) or not 0 < seconds < math.inf:
        raise ValueError(f"a store's lock wait must be a positive number of seconds, got {seconds!r}")
    if engine.dialect.name == "postgresql":
        sa.event.listen(engine, "connect", lambda connection, _record: _set_lock_timeout(connection, seconds))
    sa.event.listen(engine, "handle_error", lambda context: _refuse_busy(context, seconds, shown))


def milliseconds(seconds: float) -> int:
    """A lock wait in whole milliseconds, at least 1 (0 is no limit to PostgreSQL, and no wait to SQLite)."""
    return max(1, round(seconds * 1000))


def _set_lock_timeout(dbapi_connection, seconds: float) -> None:
    """``SET lock_timeout`` for the connection's whole life (outside a transaction, which would undo it)."""
    autocommit = dbapi_connection.autocommit
    dbapi_connection.autocommit = True
    with dbapi_connection.cursor() as cursor:
        cursor.execute(f"SET lock_timeout = {milliseconds(seconds)}")
    dbapi_connection.autocommit = autocommit


def _refuse_busy(context, seconds: float, shown: str) -> None:
    """Raise ``StoreBusyError`` in place of the driver's error when a lock wait ran out: SQLite's
    "database is locked", PostgreSQL's lock_not_available."""
    error = context.original_exception
    locked = "database is locked" in str(error) or getattr(error, "sqlstate", None) == LOCK_NOT_AVAILABLE
    if locked:
        holder = "another process" if context.dialect.name == "sqlite" else "another connection"
        raise StoreBusyError(
            f"the store {shown} is busy: this write waited {seconds:g} s for a lock {holder} holds and gave up; "
            "nothing was stored: try again in a moment"
        ) from None
