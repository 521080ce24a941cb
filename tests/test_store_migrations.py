"""Stores made by earlier releases open with the current code: every row reads back, and the tables
gain what later releases added."""

import sqlite3
from contextlib import closing

from ordercore.knowledge.rules import Ordering, Rule, Within, generate
from ordercore.preferences import PreferenceSet
from ordercore.studio.store import Store
from tests.store_checks import FRAME, pairs_of, triples


def test_a_store_from_before_the_revision_column_opens_with_its_answers(tmp_path):
    import sqlite3

    path = tmp_path / "old.sqlite"
    first = Store(f"sqlite:///{path}")
    session = first.create_session("old", settings={"n_rows": 10})
    first.add_answer(session.id, 1, 2, "a", "ann")
    first.engine.dispose()
    with sqlite3.connect(path) as connection:  # the sessions table as the previous release made it
        connection.execute("ALTER TABLE sessions DROP COLUMN revision")
    store = Store(f"sqlite:///{path}")
    assert store.session("old").settings == {"n_rows": 10}
    assert triples(store.preferences(session.id)[0]) == [(1, 2, 0.0, 1.0)]
    assert store.revision(session.id) == 0
    store.add_answer(session.id, 3, 4, "b", "ann")
    assert store.revision(session.id) == 1


OLD_ANSWERS = """CREATE TABLE answers (
    id INTEGER NOT NULL,
    session_id INTEGER NOT NULL,
    row_a INTEGER NOT NULL,
    row_b INTEGER NOT NULL,
    choice VARCHAR(10) NOT NULL,
    weight FLOAT NOT NULL,
    margin FLOAT NOT NULL,
    annotator VARCHAR(200) NOT NULL,
    created_at DATETIME NOT NULL,
    PRIMARY KEY (id),
    FOREIGN KEY(session_id) REFERENCES sessions (id) ON DELETE CASCADE
)"""


def test_a_store_from_before_audit_answers_reads_every_answer_and_links_new_ones(tmp_path):
    """The answers table as the previous release made it (no rule_id): opening the store adds the
    column, every answer and preference reads as before (rule_id <NA>), and new answers link."""
    path = tmp_path / "old.sqlite"
    first = Store(f"sqlite:///{path}")
    session = first.create_session("old", settings={"n_rows": len(FRAME)})
    first.add_answer(session.id, 1, 2, "a", "ann", weight=2.0)
    first.add_answer(session.id, 3, 4, "equal", "bob", margin=0.5)
    rule = Rule("r", [Within("age", 1.5)], Ordering("rooms"))
    rule_id = first.add_rule(session.id, rule, generate(rule, FRAME).preferences, "ann")
    before = first.answers(session.id).drop(columns="rule_id").to_csv(index=False)
    made_before = triples(first.preferences(session.id)[0])
    first.engine.dispose()
    columns = "id, session_id, row_a, row_b, choice, weight, margin, annotator, created_at"
    with closing(sqlite3.connect(path)) as connection, connection:  # the answers table of the previous release
        connection.execute(OLD_ANSWERS.replace("answers", "answers_old", 1))
        connection.execute(f"INSERT INTO answers_old SELECT {columns} FROM answers")
        connection.execute("DROP TABLE answers")
        connection.execute("ALTER TABLE answers_old RENAME TO answers")
    with closing(sqlite3.connect(path)) as connection:
        assert "rule_id" not in [row[1] for row in connection.execute("PRAGMA table_info(answers)")]
    store = Store(f"sqlite:///{path}")
    answers = store.answers(session.id)
    assert answers.drop(columns="rule_id").to_csv(index=False) == before
    assert answers["rule_id"].isna().all()
    assert triples(store.preferences(session.id)[0]) == made_before
    store.add_answer(session.id, 0, 1, "b", "ann", rule_id=rule_id)
    assert store.answers(session.id)["rule_id"].tolist()[-1] == rule_id
    store.undo_answer(session.id, "ann")
    assert len(store.answers(session.id)) == 2


def test_a_store_from_before_blocks_reads_its_rule_rows_first_and_removes_them(tmp_path):
    """A store whose rule preferences are rows (no blocks table, no revision on preferences): they
    read back as written, new writes come after them, and removing the old rule removes its rows."""
    path = tmp_path / "old.sqlite"
    Store(f"sqlite:///{path}").engine.dispose()
    with closing(sqlite3.connect(path)) as connection:  # the tables as the previous release made them
        connection.execute("DROP TABLE preference_blocks")
        connection.execute("ALTER TABLE preferences DROP COLUMN revision")
        connection.execute(
            "INSERT INTO sessions (id, name, settings, revision, created_at, updated_at) "
            "VALUES (1, 'old', '{\"n_rows\": 20}', 2, '2025-01-01', '2025-01-01')"
        )
        connection.execute(
            "INSERT INTO rules (id, session_id, name, spec, annotator, created_at) "
            "VALUES (1, 1, 'r', ?, 'ann', '2025-01-01')",
            (Rule("r", [Within("age", 1.0)], Ordering("rooms")).to_json(),),
        )
        connection.execute(
            "INSERT INTO answers (id, session_id, row_a, row_b, choice, weight, margin, annotator, created_at) "
            "VALUES (1, 1, 8, 9, 'a', 1.0, 0.0, 'ann', '2025-01-01')"
        )
        for i, j, rule_id, answer_id in [(3, 2, 1, None), (8, 9, None, 1), (2, 1, 1, None)]:
            connection.execute(
                "INSERT INTO preferences (session_id, i, j, margin, weight, source, rule_id, answer_id, annotator, "
                "created_at) VALUES (1, ?, ?, 0.0, 1.0, ?, ?, ?, 'ann', '2025-01-01')",
                (i, j, "rule" if rule_id else "click", rule_id, answer_id),
            )
        connection.commit()
    store = Store(f"sqlite:///{path}")
    assert pairs_of(store.preferences(1)[0]) == [(3, 2), (8, 9), (2, 1)]
    store.add_rule(1, Rule("new", [Within("age", 1.0)], Ordering("rooms")), PreferenceSet.order([6, 7], [5, 6]), "ann")
    store.add_answer(1, 0, 4, "b", "ann")
    assert pairs_of(store.preferences(1)[0]) == [(3, 2), (8, 9), (2, 1), (6, 5), (7, 6), (4, 0)]
    store.remove_rule(1)
    made, provenance = store.preferences(1)
    assert pairs_of(made) == [(8, 9), (6, 5), (7, 6), (4, 0)]
    assert provenance["source"].tolist() == ["click", "rule", "rule", "click"]
