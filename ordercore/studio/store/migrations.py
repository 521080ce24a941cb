"""Versioned migrations: how a store made by an earlier ordercore comes to the tables of ``schema``.

A store records its version in ``schema_versions``: one row per migration it has had (its number,
what it did, when).  Opening a store (``migrate``) takes the schema lock, so that one process at a
time makes or completes the tables, and in that one transaction: a new database is made from
``schema`` and recorded at the latest version; any other store gets each step of ``MIGRATIONS`` newer
than its version, in order, each recorded as it is applied.  A step that fails leaves the store as it
was (SQLite and PostgreSQL both roll back table changes).  Stores made before versions (from the first
store, 203887b, to release 0.2.0, bc1d19e) have no record: they are at version 0.

To change the tables:

1. change the table in ``schema.py`` (what the code reads and writes, and what a new store gets);
2. append a ``Migration`` with the next number to ``MIGRATIONS``: a step that brings a store of the
   previous version to the new tables (it may add tables or columns, and read and rewrite rows),
   with the tables and columns it adds frozen in the step as they are at that version (never
   ``schema``'s, which move on), as ``_release_0_2_additions`` and ``_assessments_table`` do;
3. never change or renumber a step once it is released.

``tests/test_store_migrations.py`` checks that the steps make the tables of ``schema`` and that the
rows of a store made by an earlier release read back unchanged.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import sqlalchemy as sa

from ordercore.studio.store.schema import metadata, schema_versions
from ordercore.studio.store.sessions import now

SCHEMA_LOCK = 0x6F72646572636F72
"""PostgreSQL advisory lock key held while a Store makes or completes the tables ("ordercor")."""


@dataclass(frozen=True)
class Migration:
    """One step: ``apply`` brings a store of version ``version - 1`` to version ``version``, in the
    caller's transaction."""

    version: int
    description: str
    apply: Callable[[sa.Connection], None]


def lock_schema(connection) -> None:
    """Wait until no other process is making or completing the tables, then keep them from doing so
    until the caller's transaction ends: on PostgreSQL an advisory lock, on SQLite the write lock."""
    if connection.dialect.name == "postgresql":
        connection.execute(sa.select(sa.func.pg_advisory_xact_lock(SCHEMA_LOCK)))
    elif connection.dialect.name == "sqlite":
        connection.exec_driver_sql("BEGIN IMMEDIATE")


def _add_column(connection, column: sa.Column) -> None:
    """Add ``column`` (of a frozen table) to the store's table of the same name, with its server
    default, where it is missing; the rows stay as they were."""
    if column.name not in {held["name"] for held in sa.inspect(connection).get_columns(column.table.name)}:
        definition = sa.schema.CreateColumn(column).compile(dialect=connection.dialect)
        connection.execute(sa.text(f"ALTER TABLE {column.table.name} ADD COLUMN {definition}"))


# ---------------------------------------------------------------------------------------- 1
def _release_0_2_additions() -> sa.MetaData:
    """What the tables gained from the first store (203887b) to release 0.2.0 (bc1d19e), frozen: the
    columns sessions.revision, preferences.revision, answers.rule_id and answers.swapped, and the
    tables preference_blocks, queued_pairs and grades (``sessions`` and ``rules`` hold only what
    these refer to)."""
    frozen = sa.MetaData()

    def key() -> sa.Column:
        return sa.Column("id", sa.Integer, primary_key=True)

    def owner() -> sa.Column:
        return sa.Column("session_id", sa.Integer, sa.ForeignKey("sessions.id", ondelete="CASCADE"), nullable=False)

    def created() -> sa.Column:
        return sa.Column("created_at", sa.DateTime(timezone=True), nullable=False)

    sa.Table("sessions", frozen, key(), sa.Column("revision", sa.Integer, nullable=False, server_default="0"))
    sa.Table("preferences", frozen, key(), sa.Column("revision", sa.Integer, nullable=False, server_default="0"))
    sa.Table("rules", frozen, key())
    sa.Table(
        "answers",
        frozen,
        key(),
        sa.Column("rule_id", sa.Integer, sa.ForeignKey("rules.id", ondelete="SET NULL"), nullable=True),
        sa.Column("swapped", sa.Boolean, nullable=True),
    )
    sa.Table(
        "preference_blocks",
        frozen,
        key(),
        owner(),
        sa.Column("revision", sa.Integer, nullable=False),
        sa.Column("source", sa.String(10), nullable=False),
        sa.Column("rule_id", sa.Integer, sa.ForeignKey("rules.id", ondelete="CASCADE"), nullable=True),
        sa.Column("n_preferences", sa.Integer, nullable=False),
        sa.Column("annotator", sa.String(200), nullable=False),
        created(),
        sa.Column("content", sa.LargeBinary, nullable=False),
    )
    sa.Table(
        "queued_pairs",
        frozen,
        key(),
        owner(),
        sa.Column("row_a", sa.Integer, nullable=False),
        sa.Column("row_b", sa.Integer, nullable=False),
        sa.Column("copies", sa.Integer, nullable=False),
        sa.Column("annotator", sa.String(200), nullable=False),
        created(),
    )
    sa.Table(
        "grades",
        frozen,
        key(),
        owner(),
        sa.Column("row", sa.Integer, nullable=False),
        sa.Column("grade", sa.Integer, nullable=False),
        sa.Column("annotator", sa.String(200), nullable=False),
        created(),
        sa.UniqueConstraint("session_id", "row", "annotator"),
    )
    return frozen


def _complete_release_0_2(connection) -> None:
    """A store from before versions, made by any release up to 0.2.0, gains what later ones added
    (``_release_0_2_additions``) where it lacks it: its rows read as before (the new columns NULL or
    0).  A column added so has no foreign key (SQLite cannot add one): removing a rule unlinks its
    audit answers explicitly."""
    frozen = _release_0_2_additions()
    for table, column in [
        ("sessions", "revision"),
        ("preferences", "revision"),
        ("answers", "rule_id"),
        ("answers", "swapped"),
    ]:
        _add_column(connection, frozen.tables[table].c[column])
    new_tables = [frozen.tables[name] for name in ("preference_blocks", "queued_pairs", "grades")]
    frozen.create_all(connection, tables=new_tables, checkfirst=True)


# ---------------------------------------------------------------------------------------- 2
def _assessments_table() -> sa.Table:
    """The table of shared trust assessments as migration 2 makes it, frozen."""
    frozen = sa.MetaData()
    sa.Table("sessions", frozen, sa.Column("id", sa.Integer, primary_key=True))
    return sa.Table(
        "assessments",
        frozen,
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("session_id", sa.Integer, sa.ForeignKey("sessions.id", ondelete="CASCADE"), nullable=False),
        sa.Column("key", sa.String(64), nullable=False),
        sa.Column("state", sa.String(10), nullable=False),
        sa.Column("owner", sa.String(200), nullable=False),
        sa.Column("content", sa.LargeBinary, nullable=True),
        sa.Column("message", sa.Text, nullable=True),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("session_id", "key"),
    )


# ---------------------------------------------------------------------------------------- 3
def _answers_imported() -> sa.Column:
    """The column migration 3 adds to the answers, frozen: whether an answer was read from a file."""
    return sa.Table("answers", sa.MetaData(), sa.Column("imported", sa.Boolean, nullable=True)).c.imported


# ---------------------------------------------------------------------------------------- 4
def _number_answers(connection) -> None:
    """Migration 4: the answers' column ``number`` (frozen here), each answer numbered by its place in
    its session in the order given (by id)."""
    column = sa.Table("answers", sa.MetaData(), sa.Column("number", sa.Integer, nullable=True)).c.number
    _add_column(connection, column)
    connection.execute(
        sa.text(
            "UPDATE answers SET number = (SELECT COUNT(*) FROM answers AS older "
            "WHERE older.session_id = answers.session_id AND older.id <= answers.id)"
        )
    )


# ---------------------------------------------------------------------------------------- 5
def _number_rules(connection) -> None:
    """Migration 5: the rules' column ``number`` (frozen here), each rule numbered by its place in its
    session in the order added (by id)."""
    column = sa.Table("rules", sa.MetaData(), sa.Column("number", sa.Integer, nullable=True)).c.number
    _add_column(connection, column)
    connection.execute(
        sa.text(
            "UPDATE rules SET number = (SELECT COUNT(*) FROM rules AS older "
            "WHERE older.session_id = rules.session_id AND older.id <= rules.id)"
        )
    )


# ---------------------------------------------------------------------------------------- 6
def _count_rule_numbers(connection) -> None:
    """Migration 6: the sessions' column ``last_rule_number`` (frozen here), the highest number given to a
    rule in the session, set to the highest held (a number removed above it before this step is unknown)."""
    column = sa.Table(
        "sessions", sa.MetaData(), sa.Column("last_rule_number", sa.Integer, nullable=False, server_default="0")
    ).c.last_rule_number
    _add_column(connection, column)
    connection.execute(
        sa.text(
            "UPDATE sessions SET last_rule_number = (SELECT COALESCE(MAX(rules.number), 0) FROM rules "
            "WHERE rules.session_id = sessions.id)"
        )
    )


MIGRATIONS = (
    Migration(1, "the tables of release 0.2.0 (columns and tables added since the first store)", _complete_release_0_2),
    Migration(2, "shared trust assessments", lambda connection: _assessments_table().create(connection)),
    Migration(3, "answers read from a file marked as imported", lambda c: _add_column(c, _answers_imported())),
    Migration(4, "answers numbered in their session, the numbers kept when others are removed", _number_answers),
    Migration(5, "rules numbered in their session, the numbers kept when others are removed", _number_rules),
    Migration(
        6, "a session's highest rule number kept, so a removed rule's number is never given again", _count_rule_numbers
    ),
)
"""Every step, in order: ``MIGRATIONS[k]`` has version k + 1.  Append only."""


class NotAStore(ValueError):
    """The database holds another program's tables, which a store leaves as they are."""


PRE_VERSION_TABLES = frozenset({"sessions", "preferences", "rules", "answers"})
"""Tables every store made before versions has."""


def _check_ours(connection) -> None:
    """``NotAStore`` for a database with a ``sessions`` table but no record of a store's version that
    is no store from before versions (another program's: its tables are left as they are)."""
    tables = set(sa.inspect(connection).get_table_names())
    if schema_versions.name not in tables and "sessions" in tables and not PRE_VERSION_TABLES <= tables:
        shown = ", ".join(sorted(tables)[:5])
        raise NotAStore(f"it is not an ordercore store (it has other tables: {shown}); it was left as it is")


def schema_version(connection) -> int | None:
    """The store's version: the newest migration it has had; 0 for a store made before versions; None
    for a database without the store's tables."""
    inspector = sa.inspect(connection)
    if inspector.has_table(schema_versions.name):
        return connection.execute(sa.select(sa.func.coalesce(sa.func.max(schema_versions.c.id), 0))).scalar_one()
    return 0 if inspector.has_table("sessions") else None


def _record(connection, steps) -> None:
    applied = now()
    connection.execute(
        schema_versions.insert(),
        [{"id": step.version, "description": step.description, "created_at": applied} for step in steps],
    )


def is_current(connection) -> bool:
    """Whether the store has had every one of ``MIGRATIONS`` (read only: no lock taken).  Opening a
    current store then needs no schema lock, which on SQLite is the write lock: a process that opens
    the store (a script polling it, another Studio) never holds up another's answer."""
    return schema_version(connection) == MIGRATIONS[-1].version


def migrate(connection) -> None:
    """Bring the database to the tables of ``schema`` by ``MIGRATIONS`` (see the module's docstring),
    in the caller's transaction, which must not have begun yet on SQLite; ``RuntimeError`` for a store
    of a newer version than they know, nothing changed."""
    migrations = MIGRATIONS
    lock_schema(connection)
    _check_ours(connection)
    version = schema_version(connection)
    if version is None:
        metadata.create_all(connection)
        _record(connection, migrations)
        return
    latest = migrations[-1].version
    if version > latest:
        raise RuntimeError(
            f"this store has schema version {version}, newer than this ordercore knows ({latest}): open it with "
            "the ordercore that made it, or a newer one"
        )
    schema_versions.create(connection, checkfirst=True)
    for step in migrations[version:]:
        step.apply(connection)
        _record(connection, [step])
