"""How long a write waits for another connection's lock, and what it says when it gives up.

Every write to a session begins by locking its row (``sessions.lock_session``); SQLite's writers also
take the file's one write lock.  A connection waits at most ``LOCK_WAIT_SECONDS`` for a lock another
connection holds: SQLite's ``busy_timeout``, PostgreSQL's ``lock_timeout`` (without one, a write waited
for as long as an idle transaction held the session's row, and the Studio page with it).  A write that
gives up raises ``StoreBusyError`` naming the store, instead of the driver's words and the SQL; its
transaction is rolled back, so nothing of it is stored.
"""

from __future__ import annotations

import decimal
import math
import numbers

import sqlalchemy as sa

from ordercore.inputs.printable import quoted

LOCK_WAIT_SECONDS = 10.0
"""How long a connection waits for another's lock before it gives up (SQLite and PostgreSQL alike)."""

MAX_LOCK_WAIT_SECONDS = 86_400.0
"""The longest lock wait a store takes: one day.  Both databases count it in milliseconds in a 32-bit
integer (SQLite's busy_timeout, PostgreSQL's lock_timeout: at most 2,147,483 s, about 24.8 days); beyond
that PostgreSQL refused the setting in its own words and SQLite's wrapped to no wait at all (corpus 11,
F10, F14), and a write that waits longer than a day for a lock is waiting for a lock nobody releases."""

LOCK_NOT_AVAILABLE = "55P03"
"""PostgreSQL's SQLSTATE for a lock wait that ran out (``lock_timeout``)."""


class StoreBusyError(TimeoutError, ValueError):
    """A write gave up waiting for a lock another connection held; nothing of it was stored.  A
    ``TimeoutError``, and a ``ValueError`` as every refused write is (the pages show it in words)."""


def lock_wait_seconds(lock_wait) -> float:
    """``Store``'s ``lock_wait`` as a float number of seconds: a real number (an int, a float, a Fraction or
    a Decimal; not a bool) above 0 and at most ``MAX_LOCK_WAIT_SECONDS``; ``ValueError`` naming it else."""
    real = isinstance(lock_wait, numbers.Real | decimal.Decimal) and not isinstance(lock_wait, bool)
    try:
        seconds = float(lock_wait) if real else math.nan
    except (OverflowError, ValueError):  # an int beyond float64, Decimal('sNaN')
        seconds = math.nan
    if not 0 < seconds <= MAX_LOCK_WAIT_SECONDS:
        raise ValueError(
            f"a store's lock wait must be a positive number of seconds, at most {MAX_LOCK_WAIT_SECONDS:,.0f} (one "
            f"day): lock_wait is {quoted(lock_wait)}"
        )
    return seconds


def wait_for_locks(engine: sa.Engine, seconds: float, shown: str) -> None:
    """Make ``engine``'s connections wait at most ``seconds`` (checked by ``lock_wait_seconds``) for
    another's lock (on PostgreSQL; SQLite's wait is set with its pragmas), and turn a wait that runs out
    into ``StoreBusyError`` naming the store as ``shown``."""
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
