"""Durable labelling sessions: data sets, rules, answers, grades and the preferences they make, the
shared queue, model runs and shared trust assessments.

SQLAlchemy Core over a SQLite file by default (``ORDERCORE_STORE`` names another file, and
``ORDERCORE_STORE_URL`` any SQLAlchemy URL, e.g. PostgreSQL).  Every write is one transaction that
is committed before the call returns, and SQLite runs with ``synchronous=FULL`` in WAL mode, so a
confirmed answer survives a crash or a restart; a failed write changes nothing.

Several processes may share one database (annotators of one session, each with their own Studio): a
write to a session begins by locking the session's row, so that the checks it makes and what it
writes see every write committed before it, on SQLite and PostgreSQL alike.  Values are checked
against the database's limits before anything is written, and a name taken by another process
meanwhile is a ``ValueError`` like any taken name.

``Store`` is the one handle; it is made of parts, one concern per module:

- ``schema``: the tables; ``migrations``: the schema version and the steps that bring an older store
  to the tables (how to add one: its docstring);
- ``database``: where the database is, how it is opened, and ``Store`` itself;
- ``sessions``: sessions, data sets, settings, revision, and the session lock every write takes;
- ``frames``: the tables a data set takes, and what identifies one given without its CSV;
- ``items``: answers and grades, created, edited, undone and removed by one mechanism;
- ``rules``: rules and their preferences; an identical rule is refused;
- ``preferences``: preference rows and blocks, read back in the order written;
- ``transfer``: exports and imports; ``queue``: the shared queue; ``model_runs``: model runs;
- ``assessments``: trust assessments computed once and shared by everyone on the store;
- ``limits``: the checks of every value against the database's limits (names composed, JSON finite);
- ``locking``: how long a write waits for another's lock, and ``StoreBusyError`` when it gives up.
"""

from ordercore.studio.store.assessments import MAX_DONE_ASSESSMENTS, AssessmentRecord
from ordercore.studio.store.database import DEFAULT_PATH, SQLITE_BUSY_SECONDS, Store, store_url
from ordercore.studio.store.items import CHOICES
from ordercore.studio.store.limits import ANNOTATOR_MAX_LENGTH, MAX_INTEGER, MAX_VALUE_BYTES, check_annotator
from ordercore.studio.store.locking import LOCK_WAIT_SECONDS, StoreBusyError
from ordercore.studio.store.migrations import MIGRATIONS, SCHEMA_LOCK
from ordercore.studio.store.preferences import decode_block, encode_block
from ordercore.studio.store.queue import MAX_COPIES
from ordercore.studio.store.schema import metadata, preference_blocks
from ordercore.studio.store.sessions import (
    CONTENT_WORDS,
    DEFAULT_RATING_SCALE,
    MAX_DATASET_BYTES,
    MAX_RATING_SCALE,
    SessionInfo,
    describe_contents,
    rating_scale,
)

__all__ = [
    "ANNOTATOR_MAX_LENGTH",
    "CHOICES",
    "CONTENT_WORDS",
    "DEFAULT_PATH",
    "DEFAULT_RATING_SCALE",
    "LOCK_WAIT_SECONDS",
    "MAX_COPIES",
    "MAX_DATASET_BYTES",
    "MAX_DONE_ASSESSMENTS",
    "MAX_INTEGER",
    "MAX_RATING_SCALE",
    "MAX_VALUE_BYTES",
    "MIGRATIONS",
    "SCHEMA_LOCK",
    "SQLITE_BUSY_SECONDS",
    "AssessmentRecord",
    "SessionInfo",
    "Store",
    "StoreBusyError",
    "check_annotator",
    "decode_block",
    "describe_contents",
    "encode_block",
    "metadata",
    "preference_blocks",
    "rating_scale",
    "store_url",
]
