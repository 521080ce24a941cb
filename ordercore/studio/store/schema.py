"""The store's tables as the current code reads and writes them (SQLAlchemy Core).

A new database is made from these definitions; an existing one is brought to them by the steps of
``migrations`` (a change here needs a step there, and ``tests/test_store_migrations.py`` checks that
the two make the same tables).  Every table has an integer ``id``; the rows of a session name it in
``session_id``, and deleting the session deletes them.
"""

from __future__ import annotations

import sqlalchemy as sa

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
    # +1 with every write of rules, answers, preferences (0 in stores from before it: migration 1).
    sa.Column("revision", sa.Integer, nullable=False, server_default="0"),
    _created(),
    sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    # The highest number given to a rule in the session (0 before its first): the next rule's is one past it,
    # so a removed rule's number is never given again (migration 6 sets it from the rules held).
    sa.Column("last_rule_number", sa.Integer, nullable=False, server_default="0"),
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
    # The rule's number in its session, 1, 2, 3 … in the order added (the ids run across sessions: a fresh
    # session's first rules read #3, #4), kept when other rules are removed (migration 5 numbers older ones).
    sa.Column("number", sa.Integer, nullable=True),
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
    # The rule whose pair this answers (an audit of the rule), or NULL for any other pair.  Stores from
    # before it gain it (migration 1; their answers read with NULL: nothing is lost); removing the
    # rule sets it back to NULL and keeps the answer and its preferences.
    sa.Column("rule_id", sa.Integer, sa.ForeignKey("rules.id", ondelete="SET NULL"), nullable=True),
    # Whether A and B were shown the other way round from the order the pair was drawn in (for a rule's
    # pair: whether A is the rule's loser); NULL where not recorded (older answers, the library's own).
    sa.Column("swapped", sa.Boolean, nullable=True),
    # True for an answer read from a file (``import_answers``), NULL for one given in this store (and every
    # answer of a store from before migration 3).
    sa.Column("imported", sa.Boolean, nullable=True),
    # The answer's number in its session, 1, 2, 3 … in the order given (the ids run across sessions),
    # kept when other answers are removed; stores from before it number theirs so (migration 4).
    sa.Column("number", sa.Integer, nullable=True),
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

assessments = sa.Table(  # migration 2
    "assessments",
    metadata,
    _key(),
    _owner(),
    sa.Column("key", sa.String(64), nullable=False),  # a hash of the assessment's inputs
    sa.Column("state", sa.String(10), nullable=False),  # 'running' | 'done' | 'failed'
    sa.Column("owner", sa.String(200), nullable=False),  # who computes (or computed) it
    sa.Column("content", sa.LargeBinary, nullable=True),  # the trust job's .npz, once done
    sa.Column("message", sa.Text, nullable=True),  # why it failed
    sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),  # the owner's last heartbeat, or the end
    sa.UniqueConstraint("session_id", "key"),  # one record per assessment: computed once
)

schema_versions = sa.Table(  # migration 0: every store has it
    "schema_versions",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),  # the migration's number
    sa.Column("description", sa.String(200), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),  # when it was applied
)
