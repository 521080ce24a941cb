"""The store's tables as earlier releases made them, frozen from their source for the migration tests:
``release_0_2`` is ordercore/studio/store.py at bc1d19e (the last store without schema versions) and,
with ``before_sides``, at ca7bda2 (before answers.swapped, queued_pairs and grades)."""

import sqlalchemy as sa

SINCE_RELEASE_0_2 = ("assessments", "schema_versions")
"""The tables a store gained after release 0.2.0: a store of the current code taken back to that
release drops them (and whatever the test takes back further)."""


def release_0_2(before_sides: bool = False) -> sa.MetaData:
    """The tables of bc1d19e (``before_sides``: of ca7bda2), as that code defined them."""
    metadata = sa.MetaData()

    def key() -> sa.Column:
        return sa.Column("id", sa.Integer, primary_key=True)

    def owner() -> sa.Column:
        return sa.Column("session_id", sa.Integer, sa.ForeignKey("sessions.id", ondelete="CASCADE"), nullable=False)

    def created() -> sa.Column:
        return sa.Column("created_at", sa.DateTime(timezone=True), nullable=False)

    sa.Table(
        "datasets",
        metadata,
        key(),
        sa.Column("content_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("n_rows", sa.Integer, nullable=False),
        sa.Column("columns", sa.Text, nullable=False),
        sa.Column("content", sa.LargeBinary, nullable=True),
        created(),
    )
    sa.Table(
        "sessions",
        metadata,
        key(),
        sa.Column("name", sa.String(200), nullable=False, unique=True),
        sa.Column("dataset_id", sa.Integer, sa.ForeignKey("datasets.id"), nullable=True),
        sa.Column("settings", sa.Text, nullable=False, default="{}"),
        sa.Column("revision", sa.Integer, nullable=False, server_default="0"),
        created(),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    sa.Table(
        "rules",
        metadata,
        key(),
        owner(),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("spec", sa.Text, nullable=False),
        sa.Column("annotator", sa.String(200), nullable=False),
        created(),
    )
    sa.Table(
        "answers",
        metadata,
        key(),
        owner(),
        sa.Column("row_a", sa.Integer, nullable=False),
        sa.Column("row_b", sa.Integer, nullable=False),
        sa.Column("choice", sa.String(10), nullable=False),
        sa.Column("weight", sa.Float, nullable=False),
        sa.Column("margin", sa.Float, nullable=False),
        sa.Column("annotator", sa.String(200), nullable=False),
        created(),
        sa.Column("rule_id", sa.Integer, sa.ForeignKey("rules.id", ondelete="SET NULL"), nullable=True),
        *([] if before_sides else [sa.Column("swapped", sa.Boolean, nullable=True)]),
    )
    sa.Table(
        "preferences",
        metadata,
        key(),
        owner(),
        sa.Column("i", sa.Integer, nullable=False),
        sa.Column("j", sa.Integer, nullable=False),
        sa.Column("margin", sa.Float, nullable=False),
        sa.Column("weight", sa.Float, nullable=False),
        sa.Column("source", sa.String(10), nullable=False),
        sa.Column("rule_id", sa.Integer, sa.ForeignKey("rules.id", ondelete="CASCADE"), nullable=True),
        sa.Column("answer_id", sa.Integer, sa.ForeignKey("answers.id", ondelete="CASCADE"), nullable=True),
        sa.Column("annotator", sa.String(200), nullable=False),
        created(),
        sa.Column("revision", sa.Integer, nullable=False, server_default="0"),
    )
    sa.Table(
        "preference_blocks",
        metadata,
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
    if not before_sides:
        sa.Table(
            "queued_pairs",
            metadata,
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
            metadata,
            key(),
            owner(),
            sa.Column("row", sa.Integer, nullable=False),
            sa.Column("grade", sa.Integer, nullable=False),
            sa.Column("annotator", sa.String(200), nullable=False),
            created(),
            sa.UniqueConstraint("session_id", "row", "annotator"),
        )
    sa.Table(
        "model_runs",
        metadata,
        key(),
        owner(),
        sa.Column("model", sa.String(20), nullable=False),
        sa.Column("parameters", sa.Text, nullable=False),
        sa.Column("metrics", sa.Text, nullable=False),
        sa.Column("n_preferences", sa.Integer, nullable=False),
        created(),
    )
    return metadata
