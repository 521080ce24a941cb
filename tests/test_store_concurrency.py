"""Several processes on one store: a second process reads what the first committed, annotators in
processes of their own lose and duplicate nothing, and a new SQLite file locked by another
connection is waited for."""

import multiprocessing
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

from ordercore.studio.store import Store
from tests.store_checks import pairs_of


def test_a_second_process_reads_what_the_first_committed(database_url):
    url = database_url
    writer = Store(url)
    session = writer.create_session("durable", settings={"n_rows": 20})
    for pair in [(0, 1), (2, 3), (4, 5)]:
        writer.add_answer(session.id, *pair, "a", "ann")
    code = (
        "import sys; from ordercore.studio.store import Store; "
        f"s = Store({url!r}); made, _ = s.preferences(s.session('durable').id); "
        "print(len(made), made.i.tolist())"
    )
    root = Path(__file__).resolve().parents[1]
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root, check=True)
    assert result.stdout.split(maxsplit=1) == ["3", "[0, 2, 4]\n"]


N_ROWS = 1_000


ANSWER_CHOICES = ("a", "b", "equal", "skip")


def planned_answer(k: int, m: int, n_answers: int) -> tuple[int, int, str]:
    """Annotator k's m-th answer: rows (m, n_answers + k), a pair no other answer has, and a choice."""
    return m, n_answers + k, ANSWER_CHOICES[m % 4]


def annotate(url: str, k: int, n_answers: int, start, results) -> None:
    """Annotator k in a process of its own: at ``start`` (a barrier), opens its own Store on the
    database (empty: the tables are made by whoever comes first), creates the session "shared" unless
    another did first, and gives its planned answers, each 25th undone and given again.  Puts
    (k, whether it created the session, every error as text) on ``results``."""
    created, errors = False, []
    try:
        start.wait()
        store = Store(url)
        try:
            store.create_session("shared", settings={"n_rows": N_ROWS})
            created = True
        except ValueError as error:
            if "already exists" not in str(error):
                raise
        session = store.session("shared")
        for m in range(n_answers):
            try:
                store.add_answer(session.id, *planned_answer(k, m, n_answers), f"annotator {k}")
                if m % 25 == 24:
                    store.undo_answer(session.id, f"annotator {k}")
                    store.add_answer(session.id, *planned_answer(k, m, n_answers), f"annotator {k}")
            except Exception as error:  # counted: the test wants none
                errors.append(f"answer {m}: {type(error).__name__}: {error}")
    except Exception as error:
        errors.append(f"{type(error).__name__}: {error}")
    results.put((k, created, errors))


def test_concurrent_annotators_lose_and_duplicate_nothing(database_url):
    """Four annotators, each a process with its own Store, start at once on an empty database: one
    creates the session (the others are told it exists), and every answer is stored once, in each
    annotator's order, with its preferences, and no write raises."""
    n_annotators, n_answers = 4, 100
    context = multiprocessing.get_context("spawn")
    start, results = context.Barrier(n_annotators), context.Queue()
    workers = [
        context.Process(target=annotate, args=(database_url, k, n_answers, start, results)) for k in range(n_annotators)
    ]
    for worker in workers:
        worker.start()
    reports = sorted(results.get(timeout=600) for _ in workers)
    for worker in workers:
        worker.join()
    assert [errors for _, _, errors in reports] == [[]] * n_annotators
    assert sum(created for _, created, _ in reports) == 1

    store = Store(database_url)
    session = store.session("shared")
    answers = store.answers(session.id)
    for k in range(n_annotators):
        theirs = answers[answers["annotator"] == f"annotator {k}"]
        stored = list(zip(theirs["row_a"], theirs["row_b"], theirs["choice"], strict=True))
        assert stored == [planned_answer(k, m, n_answers) for m in range(n_answers)]
    expected = []  # the preferences by hand: 'a' a over b, 'b' the reverse, 'equal' both, 'skip' none
    for k in range(n_annotators):
        for m in range(n_answers):
            a, b, choice = planned_answer(k, m, n_answers)
            expected += {"a": [(a, b)], "b": [(b, a)], "equal": [(a, b), (b, a)], "skip": []}[choice]
    assert sorted(pairs_of(store.preferences(session.id)[0])) == sorted(expected)
    undos = n_annotators * (n_answers // 25)
    assert store.revision(session.id) == n_annotators * n_answers + 2 * undos  # no write's revision lost


def test_a_new_sqlite_file_locked_by_another_connection_is_waited_for(tmp_path):
    """Switching a file to WAL fails at once while another connection holds its write lock (as a store
    making the tables does: BEGIN IMMEDIATE; SQLite does not apply its busy timeout there): the store
    tries again until the lock is gone, as the busy timeout would, instead of raising "database is
    locked"."""
    path = tmp_path / "new.sqlite"
    holder = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
    holder.execute("CREATE TABLE other (x)")
    holder.execute("BEGIN IMMEDIATE")
    release = threading.Timer(0.5, holder.execute, args=("COMMIT",))
    release.start()
    try:
        store = Store(f"sqlite:///{path}")
        assert store.sessions().empty
        with sqlite3.connect(path) as check:
            assert check.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    finally:
        release.join()
        holder.close()


def test_opening_a_current_store_waits_for_no_writer(tmp_path):
    """A current store is opened by reading its version alone: while another connection holds the
    write lock (an annotator's answer being committed), a new handle opens and reads at once.  Taking
    the schema lock at every open made a script polling the store hold up the Studio's writes (the
    write lock, once per open) and would here wait out the busy timeout and fail."""
    path = tmp_path / "studio.sqlite"
    session_id = Store(f"sqlite:///{path}").create_session("held", settings={"n_rows": 4}).id
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        reader = Store(f"sqlite:///{path}")
        assert reader.session("held").id == session_id and reader.answers(session_id).empty
    finally:
        holder.execute("ROLLBACK")
        holder.close()
