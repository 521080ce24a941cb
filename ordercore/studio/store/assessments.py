"""Shared trust assessments: the result of an expensive cross-validation (``ordercore.studio.trust_job``)
kept with the session, so that every annotator, tab and process on the store shares it and it is
computed once.

An assessment is named by its ``key`` (a hash of its inputs).  Whoever needs it claims it
(``claim_assessment``); the one claimant that gets it computes it, beats a heartbeat while it runs
(``renew_assessment``), and then stores the result (``finish_assessment``), or why it failed
(``fail_assessment``), or gives the claim up (``release_assessment``).  A claim whose heartbeat is
older than the claimant's lease is taken over (its owner died), and a failed assessment may be claimed
again.  Every write locks the session, as any write to it does, so two claims of one key made at once
are made one after the other: exactly one gets it.  A session keeps its ``MAX_DONE_ASSESSMENTS``
newest finished assessments.  Assessments change neither the session's revision nor its time.

Times are the writers' clocks, in UTC: processes on several machines sharing a store need clocks that
agree to well within a lease.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from datetime import UTC, datetime

import numpy as np
import sqlalchemy as sa

from ordercore.studio.store.limits import check_name, check_size, id_number
from ordercore.studio.store.schema import assessments
from ordercore.studio.store.sessions import known_session, lock_session, now

MAX_DONE_ASSESSMENTS = 3
"""Finished assessments a session keeps: the newest; finishing another deletes the oldest."""


@dataclass(frozen=True)
class AssessmentRecord:
    """An assessment as stored: ``state`` 'running', 'done' or 'failed'; ``content`` (the trust job's
    .npz bytes) once done, ``message`` once failed; ``updated_at`` the owner's last heartbeat, or when
    it ended."""

    key: str
    state: str
    owner: str
    content: bytes | None
    message: str | None
    started_at: datetime
    updated_at: datetime


def _utc(value: datetime) -> datetime:
    """A stored time as an aware UTC datetime (SQLite gives it back without its zone)."""
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def _record(row) -> AssessmentRecord:
    return AssessmentRecord(
        key=row.key,
        state=row.state,
        owner=row.owner,
        content=None if row.content is None else bytes(row.content),
        message=row.message,
        started_at=_utc(row.started_at),
        updated_at=_utc(row.updated_at),
    )


def _key(value) -> str:
    return check_name(value, "an assessment's key", assessments.c.key)


def _owner(value) -> str:
    return check_name(value, "an assessment's owner", assessments.c.owner)


def _held(connection, session_id: int, key: str):
    """The session's record of assessment ``key`` (a row), or None."""
    query = sa.select(assessments).where(assessments.c.session_id == session_id, assessments.c.key == key)
    return connection.execute(query).first()


def _claimable(held, owner: str, lease_seconds: float, at: datetime) -> bool:
    """Whether ``owner`` may take the claim of ``held`` (a row or None) at time ``at``: no record, a
    failed one, or one running under this owner or with a heartbeat older than the lease."""
    if held is None or held.state == "failed":
        return True
    if held.state == "done":
        return False
    return held.owner == owner or (at - _utc(held.updated_at)).total_seconds() > lease_seconds


def _check_holder(held, key: str, owner: str) -> None:
    """``ValueError`` unless ``owner`` holds the running claim ``held`` (a row or None)."""
    if held is not None and held.state == "running" and held.owner == owner:
        return
    now_held = (
        "there is no claim of it"
        if held is None
        else f"it is {held.state}"
        if held.state != "running"
        else f"{held.owner!r} holds the claim now"
    )
    raise ValueError(f"{owner!r} does not hold the claim of assessment {key!r}: {now_held}; nothing was stored")


def _keep_newest_done(connection, session_id: int) -> None:
    """Delete the session's finished assessments but the ``MAX_DONE_ASSESSMENTS`` newest."""
    query = sa.select(assessments.c.id).where(assessments.c.session_id == session_id, assessments.c.state == "done")
    done = connection.execute(query.order_by(assessments.c.updated_at.desc(), assessments.c.id.desc())).scalars()
    old = done.all()[MAX_DONE_ASSESSMENTS:]
    if old:
        connection.execute(assessments.delete().where(assessments.c.id.in_(old)))


class AssessmentStore:
    """``Store``'s shared trust assessments (a part of it: ``engine`` is the store's)."""

    engine: sa.Engine

    def claim_assessment(self, session_id: int, key: str, owner: str, lease_seconds: float) -> bool:
        """Take the claim to compute assessment ``key`` (at most 64 characters) of the session: True
        when it has no record, a failed one (retried), one running under ``owner`` (whose heartbeat
        this renews) or one running with a heartbeat older than ``lease_seconds``; False when another
        owner computes it or it is done."""
        session_id, key, owner = id_number(session_id, "session"), _key(key), _owner(owner)
        if isinstance(lease_seconds, bool) or not isinstance(lease_seconds, numbers.Real):
            raise ValueError(f"lease_seconds must be a number of seconds, got {lease_seconds!r}")
        if not np.isfinite(lease_seconds) or lease_seconds < 0:
            raise ValueError(f"lease_seconds must be finite and >= 0, got {lease_seconds!r}")
        with self.engine.connect() as connection:  # most claims find it taken or done: they write nothing
            if not _claimable(_held(connection, session_id, key), owner, lease_seconds, now()):
                return False
        with self.engine.begin() as connection:
            session_id = lock_session(connection, session_id)
            held, at = _held(connection, session_id, key), now()
            if not _claimable(held, owner, lease_seconds, at):
                return False
            values = {"state": "running", "owner": owner, "content": None, "message": None, "updated_at": at}
            if held is None:
                connection.execute(assessments.insert().values(**values, session_id=session_id, key=key, started_at=at))
            else:
                renewed = held.state == "running" and held.owner == owner
                values["started_at"] = held.started_at if renewed else at
                connection.execute(assessments.update().where(assessments.c.id == held.id).values(**values))
        return True

    def renew_assessment(self, session_id: int, key: str, owner: str) -> bool:
        """The heartbeat of a running claim: True, or False if ``owner`` no longer holds it (taken
        over, released, or never had)."""
        key, owner = _key(key), _owner(owner)
        with self.engine.begin() as connection:
            session_id = lock_session(connection, session_id)
            held = _held(connection, session_id, key)
            if held is None or held.state != "running" or held.owner != owner:
                return False
            connection.execute(assessments.update().where(assessments.c.id == held.id).values(updated_at=now()))
        return True

    def finish_assessment(self, session_id: int, key: str, owner: str, content: bytes) -> None:
        """Store the result of ``owner``'s claim (``content``: the .npz bytes of the trust job, at most
        ``MAX_VALUE_BYTES``): it is done.  The session's older finished assessments beyond
        ``MAX_DONE_ASSESSMENTS`` are deleted.  ``ValueError`` if ``owner`` does not hold the claim,
        nothing stored."""
        key, owner = _key(key), _owner(owner)
        if not isinstance(content, bytes | bytearray | memoryview):
            raise TypeError(f"an assessment's content is bytes, got {type(content).__name__}")
        content = check_size(bytes(content), "the assessment")
        self._end_claim(session_id, key, owner, state="done", content=content, message=None)

    def fail_assessment(self, session_id: int, key: str, owner: str, message: str) -> None:
        """Record why ``owner``'s claim failed: the assessment is failed, and a later claim may retry it.
        ``ValueError`` if ``owner`` does not hold the claim, nothing stored."""
        key, owner = _key(key), _owner(owner)
        if not isinstance(message, str) or "\x00" in message:
            raise ValueError("a failure's message is text without NUL characters")
        message = check_size(message, "the failure's message")
        self._end_claim(session_id, key, owner, state="failed", content=None, message=message)

    def _end_claim(self, session_id: int, key: str, owner: str, **values) -> None:
        """End ``owner``'s claim with ``values`` (state, content, message), under the session's lock;
        a finished one prunes the session's older finished ones."""
        with self.engine.begin() as connection:
            session_id = lock_session(connection, session_id)
            held = _held(connection, session_id, key)
            _check_holder(held, key, owner)
            connection.execute(
                assessments.update().where(assessments.c.id == held.id).values(**values, updated_at=now())
            )
            if values["state"] == "done":
                _keep_newest_done(connection, session_id)

    def mark_assessment_damaged(self, session_id: int, key: str, message: str) -> None:
        """Turn the session's finished assessment ``key``, whose content cannot be read, into a failed one
        saying ``message`` (its content dropped), so that it is computed anew when asked ("Run again").
        Nothing happens when it is not a finished one."""
        session_id, key = id_number(session_id, "session"), _key(key)
        message = check_size(str(message).replace("\x00", ""), "the failure's message")
        with self.engine.begin() as connection:
            session_id = lock_session(connection, session_id)
            connection.execute(
                assessments.update()
                .where(assessments.c.session_id == session_id, assessments.c.key == key, assessments.c.state == "done")
                .values(state="failed", content=None, message=message, updated_at=now())
            )

    def release_assessment(self, session_id: int, key: str, owner: str) -> None:
        """Give up ``owner``'s running claim (a cancel): its record is deleted; nothing happens if
        ``owner`` does not hold it."""
        key, owner = _key(key), _owner(owner)
        with self.engine.begin() as connection:
            session_id = lock_session(connection, session_id)
            connection.execute(
                assessments.delete().where(
                    assessments.c.session_id == session_id,
                    assessments.c.key == key,
                    assessments.c.owner == owner,
                    assessments.c.state == "running",
                )
            )

    def assessment(self, session_id: int, key: str) -> AssessmentRecord | None:
        """The session's record of assessment ``key``, or None."""
        key = _key(key)
        with self.engine.connect() as connection:
            held = _held(connection, known_session(connection, session_id), key)
        return None if held is None else _record(held)

    def latest_assessment(self, session_id: int) -> AssessmentRecord | None:
        """The session's newest finished assessment (of any key), or None."""
        with self.engine.connect() as connection:
            query = (
                sa.select(assessments)
                .where(assessments.c.session_id == known_session(connection, session_id), assessments.c.state == "done")
                .order_by(assessments.c.updated_at.desc(), assessments.c.id.desc())
                .limit(1)
            )
            held = connection.execute(query).first()
        return None if held is None else _record(held)
