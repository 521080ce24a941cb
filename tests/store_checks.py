"""What the store tests share: preferences as tuples, a small table, a busy store, snapshots of
every table and reader (on a connection of the test's own), and SQL statements made to fail."""

from contextlib import contextmanager

import pandas as pd
import sqlalchemy as sa

from ordercore.knowledge.rules import Ordering, Rule, Within, generate
from ordercore.preferences import PreferenceSet
from ordercore.studio.store import Store, metadata


def triples(made: PreferenceSet):
    return list(zip(made.i.tolist(), made.j.tolist(), made.margin.tolist(), made.weight.tolist(), strict=True))


FRAME = pd.DataFrame({"age": [1.0, 2.0, 3.0, 10.0, 11.0], "rooms": [1, 2, 3, 4, 5]})


TIMES = ("created_at", "updated_at")


class InjectedFailure(Exception):
    """Raised in place of one SQL statement (or the COMMIT) of a write."""


@contextmanager
def statements_sent(engine: sa.Engine, fail_at: int | str | None = None):
    """The SQL statements sent to ``engine`` inside the block, in order.  With ``fail_at`` = n
    (1-based) the n-th statement is not run but raises ``InjectedFailure``; with "COMMIT" the
    commit does."""
    sent = []

    def before_cursor_execute(connection, cursor, statement, parameters, context, executemany):
        sent.append(statement)
        if len(sent) == fail_at:
            raise InjectedFailure(f"statement {fail_at}: {statement}")

    def commit(connection):
        if fail_at == "COMMIT":
            raise InjectedFailure(f"COMMIT after {len(sent)} statements")

    sa.event.listen(engine, "before_cursor_execute", before_cursor_execute)
    sa.event.listen(engine, "commit", commit)
    try:
        yield sent
    finally:
        sa.event.remove(engine, "before_cursor_execute", before_cursor_execute)
        sa.event.remove(engine, "commit", commit)


@contextmanager
def own_connection(store: Store):
    """A connection to the store's database of the test's own (not from the store or its engine)."""
    engine = sa.create_engine(store.url, poolclass=sa.pool.NullPool)
    try:
        with engine.begin() as connection:
            yield connection
    finally:
        engine.dispose()


def table_rows(store: Store, times: bool = True) -> dict:
    """Every row of every table, read on a connection of the test's own."""
    with own_connection(store) as connection:
        rows = {}
        for name, table in sorted(metadata.tables.items()):
            columns = ", ".join(c.name for c in table.columns if times or c.name not in TIMES)
            rows[name] = connection.execute(sa.text(f"SELECT {columns} FROM {name} ORDER BY id")).all()
        return rows


def readers_show(store: Store, times: bool = True) -> dict:
    """What the store's readers show of every session: its row, settings, revision, rules, answers,
    preferences with their sources and owners, model runs, and the exports."""

    def text(frame: pd.DataFrame) -> str:
        return frame.drop(columns=[] if times else [c for c in TIMES if c in frame]).to_csv(index=False)

    shown = {"sessions": text(store.sessions())}
    for name in store.sessions()["name"]:
        info = store.session(name)
        made, provenance = store.preferences(info.id)
        shown[name] = {
            "session": (info.id, info.dataset_id, info.settings),
            "revision": store.revision(info.id),
            "rules": [(rule_id, rule.to_dict()) for rule_id, rule in store.rules(info.id)],
            "answers": text(store.answers(info.id)),
            "preferences": triples(made),
            "provenance": text(provenance),
            "model runs": text(store.model_runs(info.id)),
            "export csv": store.export_preferences(info.id, "csv"),
            "export json": store.export_preferences(info.id, "json"),
            "export rules": store.export_rules(info.id),
        }
    return shown


def snapshot(store: Store, times: bool = True) -> dict:
    return {"tables": table_rows(store, times), "readers": readers_show(store, times)}


def busy(store: Store) -> Store:
    """Two sessions, each with a rule, answers of every kind (one an audit of the rule), imported
    preferences and a model run; the latest answer of each is 'about equal' (two preferences)."""
    for name in ("main", "other"):
        session = store.create_session(name, settings={"n_rows": len(FRAME)})
        rule = Rule(f"{name} rule", [Within("age", 1.5)], Ordering("rooms"))
        store.add_answer(session.id, 0, 1, "a", "ann", weight=2.0, margin=0.5)
        rule_id = store.add_rule(session.id, rule, generate(rule, FRAME).preferences, "ann")
        store.add_answer(session.id, 2, 1, "b", "ann", rule_id=rule_id)  # an audit of the rule
        store.add_answer(session.id, 1, 2, "skip", "bob")
        store.import_preferences(session.id, PreferenceSet([3, 4, 0], [4, 0, 2], 1.0, 0.5), "bob")
        store.add_model_run(session.id, "ssl", {"lambda2": 1.0}, {"test_mae": 2.5}, 9)
        store.add_answer(session.id, 2, 3, "equal", "bob", margin=1.0)
    return store


def pairs_of(made: PreferenceSet) -> list:
    return list(zip(made.i.tolist(), made.j.tolist(), strict=True))
